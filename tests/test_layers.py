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


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return "maf." + ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import of our own code in a module, lazy ones included."""
    mod = _module_name(path)
    pkg = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            if base.startswith("maf."):
                out.append((node.lineno, base, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names if a.name.startswith("maf.")]
    return out


def _ours() -> dict[str, Path]:
    return {
        _module_name(p): p
        for top in ("dsl", "compiler")
        for p in sorted((ROOT / top).rglob("*.py"))
        if "__pycache__" not in p.parts
    }


# the runtime's modules are one module in every engine (compiler/runtime/__init__.py folds them
# together); between them, the engine's private names are shared on purpose
_ONE_MODULE = "maf.compiler.runtime."


def test_no_module_imports_anothers_private_names() -> None:
    mods = _ours()
    found = []
    for mod, path in mods.items():
        for line, target, names in _imports(path):
            if mod.startswith(_ONE_MODULE) and target.startswith(_ONE_MODULE):
                continue
            # `from pkg import submodule` names a module, not a private name of pkg
            private = [n for n in names if n.startswith("_") and f"{target}.{n}" not in mods]
            found += [f"{path.relative_to(ROOT)}:{line}: {target}.{n}" for n in private]
    assert found == []


def test_no_import_circles() -> None:
    mods = _ours()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for _, target, names in _imports(path):
            deps = {f"{target}.{n}" for n in names if f"{target}.{n}" in mods} or {target}
            graph[mod] |= {d for d in deps if d in mods and d != mod}
    # a package's __init__ that only documents it is not a dependency of its modules
    circles = _cycles(graph)
    assert circles == [], circles


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_circle_finder_finds_one() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
