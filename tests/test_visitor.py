"""The typed visitor over the IR (issue 25): one method per node kind, the methods match the IR's
unions one for one, and a pass that leaves a kind out is refused by mypy and at run time."""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from maf.compiler.backend.pycode import PyCode
from maf.compiler.ir import nodes as ir
from maf.compiler.ir.visitor import (
    STMT_NODES,
    ExprVisitor,
    StmtVisitor,
    method_name,
)

ROOT = Path(__file__).resolve().parents[1]


def _abstract(cls: type) -> set[str]:
    return set(getattr(cls, "__abstractmethods__", ()))


def test_one_method_per_node_kind() -> None:
    assert _abstract(ExprVisitor) == {method_name(c) for c in ir.EXPR_NODES}
    assert _abstract(StmtVisitor) == {method_name(c) for c in STMT_NODES}
    assert method_name(ir.CallAbility) == "call_ability" and method_name(ir.If) == "if_"


def test_the_printer_handles_every_kind() -> None:
    assert not inspect.isabstract(PyCode)


def test_a_missing_kind_is_refused_at_run_time() -> None:
    class Partial(ExprVisitor[None, str]):
        def const(self, e: ir.Const, ctx: None) -> str:
            return "c"

    with pytest.raises(TypeError, match="abstract"):
        Partial()  # type: ignore[abstract]


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy not installed")
def test_a_missing_kind_is_a_type_error(tmp_path: Path) -> None:
    """A pass that forgets `quant` does not type-check; the same pass with it does."""
    methods = "\n".join(
        f"    def {method_name(c)}(self, e: ir.{c.__name__}, ctx: None) -> str:\n"
        f"        return ''"
        for c in ir.EXPR_NODES
    )
    head = textwrap.dedent(
        """
        from maf.compiler.ir import nodes as ir
        from maf.compiler.ir.visitor import ExprVisitor

        class Printer(ExprVisitor[None, str]):
        """
    )
    full = head + methods + "\n\nPrinter()\n"
    partial = head + methods.split("    def quant")[0] + "\n\nPrinter()\n"

    # the installed layout, as .ci/mypy gives it to mypy: maf/{dsl,compiler} -> the repo's folders
    (tmp_path / "maf").mkdir()
    for name in ("dsl", "compiler"):
        (tmp_path / "maf" / name).symlink_to(ROOT / name, target_is_directory=True)

    def mypy(text: str) -> subprocess.CompletedProcess[str]:
        path = tmp_path / "pass_under_test.py"
        path.write_text(text, encoding="utf-8")
        return subprocess.run(
            [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent",
             "--ignore-missing-imports", path.name],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )

    bad = mypy(partial)
    assert bad.returncode == 1, bad.stdout
    assert 'Cannot instantiate abstract class "Printer"' in bad.stdout and "quant" in bad.stdout
    good = mypy(full)
    assert good.returncode == 0, good.stdout


def test_the_checkers_expression_passes_are_visitors() -> None:
    """K004's evaluator (and its exact one inside roundings) and z3x's translator, key and exact
    translation handle every expression kind through the visitor: a new kind makes each of them
    abstract (refused at class creation's first use and by mypy) until it says what it means."""
    from maf.compiler.verify.check import aeval, z3x

    passes = (aeval._Compile, aeval._Exact, z3x.Translator, z3x._Key, z3x._Real)
    for cls in passes:
        assert issubclass(cls, ExprVisitor) and not inspect.isabstract(cls), cls.__name__
        assert set(cls._expr_table) == set(ir.EXPR_NODES), cls.__name__
