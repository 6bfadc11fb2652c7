"""The tree shows the pipeline's layers (issue 25): `compiler/` keeps at most three modules outside
its subpackages, and every import of our own code goes through the installed `maf` namespace, so
no module is ever loaded twice under two names (`compiler.x` and `maf.compiler.x`)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"ir", "backend", "runtime", "verify", "tools"}


def _python_files() -> list[Path]:
    return [
        p
        for top in ("dsl", "compiler", "tests", "bench")
        for p in sorted((ROOT / top).rglob("*.py"))
        if "__pycache__" not in p.parts
    ]


def test_compiler_is_layered() -> None:
    top = sorted(p.name for p in (ROOT / "compiler").glob("*.py"))
    assert len(top) <= 3, top
    packages = {p.name for p in (ROOT / "compiler").iterdir() if (p / "__init__.py").is_file()}
    assert packages == LAYERS, packages


def bare_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """The imports of `compiler` or `dsl` by their repo names, not through `maf`."""
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        found += [(node.lineno, n) for n in names if n.split(".")[0] in ("compiler", "dsl")]
    return found


def test_no_import_bypasses_the_maf_namespace() -> None:
    bare = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in _python_files()
        for line, name in bare_imports(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert bare == []


def test_a_bare_import_is_reported() -> None:
    tree = ast.parse(
        "from compiler.driver import compile_file\nimport dsl.parser\n"
        "from maf.dsl import ast\nfrom . import x\nimport compilers\n"
    )
    assert bare_imports(tree) == [(1, "compiler.driver"), (2, "dsl.parser")]
