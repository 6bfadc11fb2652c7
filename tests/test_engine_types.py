"""Generated engines are type-checked (issue 12): each table carries the type the runtime
declares for it (compiler/runtime/spec.py, `runtime.table_types`), so mypy reads an engine as
the runtime package was checked. CI runs mypy over generated/; here it also runs over the engines
of the feature specs, which use machinery the shipped specs do not."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from maf.compiler import runtime

ROOT = Path(__file__).resolve().parents[1]


def test_table_types_come_from_the_reference_spec() -> None:
    types = runtime.table_types()
    assert types["ROLES"] == "tuple[str, ...]"
    assert types["FILTERS"] == "tuple[tuple[Callable[..., Any], ...], ...]"  # Rule spelled out
    assert "SPEC" not in types  # Final: inferred from the engine's literal
    assert not any(n.startswith("FEATURE_") for n in types)


def _annotated(path: Path) -> dict[str, str]:
    return {
        n.target.id: ast.unparse(n.annotation)
        for n in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }


@pytest.mark.parametrize("engine", sorted((ROOT / "generated").glob("*.py")), ids=lambda p: p.stem)
def test_every_table_an_engine_defines_carries_the_declared_type(engine: Path) -> None:
    types = runtime.table_types()
    annotated = _annotated(engine)
    tree = ast.parse(engine.read_text(encoding="utf-8"))
    assigned = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                if isinstance(t, ast.Name)}
    defined = [n for n in types if n in assigned or n in annotated]
    assert len(defined) > 60
    wrong = {n: annotated.get(n) for n in defined if annotated.get(n) != types[n]}
    assert not wrong, f"tables without the runtime's type: {wrong}"


@pytest.mark.slow
def test_an_engine_with_a_table_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    """The near miss: the same engine with one table of the wrong type fails mypy, at its line."""
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[lint]')")
    lines = (ROOT / "generated" / "bazpors.py").read_text(encoding="utf-8").split("\n")
    lines.append("MEMSLOTS = (1, 2)  # a table of ints where the runtime reads strs")
    (tmp_path / "bad_engine.py").write_text("\n".join(lines), encoding="utf-8")
    r = _mypy(tmp_path)
    assert r.returncode == 1, r.stdout
    assert f"bad_engine.py:{len(lines)}: error: Incompatible types in assignment" in r.stdout


def _mypy(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(folder / ".mypy_cache"), str(folder)],
        capture_output=True, text=True, cwd=ROOT, timeout=600, check=False,
    )


@pytest.mark.slow
def test_the_feature_specs_engines_type_check(tmp_path: Path) -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e '.[lint]')")
    specs = sorted((ROOT / "tests" / "scenarios" / "features").glob("*.maf"))
    assert len(specs) >= 10
    for spec in specs:
        out = tmp_path / f"engine_{spec.stem}.py"
        r = subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", "compile", str(spec), "-o",
                            str(out)], capture_output=True, text=True, cwd=ROOT, timeout=120,
                           check=False)
        assert r.returncode == 0, r.stderr
    r = _mypy(tmp_path)
    assert r.returncode == 0 and f"no issues found in {len(specs)} source files" in r.stdout, (
        r.stdout
    )
