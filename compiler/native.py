"""`maf build --native`: the generated engines compiled with Cython (issue 9).

The pure-Python engine `generated/NAME.py` stays the product. This module compiles the very same
source (but for type-only declarations, `cython_source`) into an extension module with another
name, `generated/NAME_native<EXT>`, so
`import generated.NAME` still loads the .py and a server may opt into the native one:

    generated/NAME.py  --copy-->  build/native/NAME_native.py  + NAME_native.pxd (derived here)
                       --cython-->  NAME_native.c  --cc-->  generated/NAME_native.cpython-311-...so

The generated .py stays stdlib-only: it never imports cython. The types live in an *augmenting*
.pxd beside the copy (Cython reads it as the module's declarations), derived from the shape the
emitter gives every engine (`declarations`):

- `class Game` and its mixin bases become extension types (`cdef class`), each slot of
  `Game.__slots__` a `cdef public object` attribute: attribute reads in the engine's methods are
  struct reads instead of dictionary and descriptor lookups. Python code sees the same attributes.
- module-level rule functions whose first parameter is the game `g` (filters, rule bodies, the
  compiled night `_night_fast`, win and vote rules) become `cpdef` functions taking a `Game`, so
  `g.alive` in them is a struct read too.

Nothing else changes: integers stay Python integers, so every result (reports, state, errors)
is the pure-Python engine's; the differential test (tests/test_differential.py) plays the native
engine against the reference interpreter to keep that true.

Without Cython or a C compiler, `unavailable()` names what is missing and `maf build --native`
prints it on one line; the pure-Python engines are built as always.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

SUFFIX = "_native"  # generated/NAME.py -> generated/NAME_native<EXT>
EXT = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
OPT = "-O2"  # the product's optimisation level (tests build at -O0: same code, faster compile)
# Cython directives: Python semantics kept (bounds and wraparound checks on, no C division);
# annotations never become C types (the engines' annotations, if any, are for readers)
DIRECTIVES = "language_level=3,annotation_typing=False,nonecheck=True"


# Cython as a command, with Python's handling of names: an engine may name a rule function its
# spec does not define on a branch the spec never takes (a NameError there, never raised)
_CYTHON = (
    "import sys; from Cython.Compiler import Options; Options.error_on_unknown_names = False; "
    "from Cython.Compiler.Main import main; sys.argv[0] = 'cython'; main(command_line=1)"
)


class NativeError(Exception):
    """A native build failed; the message names the step and where its full log is."""


def _compiler() -> list[str]:
    """The C compiler command: $CC, else the one Python was built with, else `cc`."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    return shlex.split(cc)


def unavailable() -> str | None:
    """Why native builds cannot run here (one line), or None when they can."""
    if importlib.util.find_spec("Cython") is None:
        return "Cython is not installed (pip install 'maf[native]')"
    cc = _compiler()
    if not cc or shutil.which(cc[0]) is None:
        return f"no C compiler found ({cc[0] if cc else 'cc'})"
    include = sysconfig.get_paths().get("include", "")
    if not (Path(include) / "Python.h").exists():
        return f"no Python headers found (Python.h in {include})"
    return None


# ------------------------------------------------------------------ the augmenting .pxd
def _tuple_value(node: ast.expr, consts: dict[str, tuple]) -> tuple | None:
    """The value of a tuple expression made of literals, module tuple names and `+`."""
    if isinstance(node, ast.Name):
        return consts.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _tuple_value(node.left, consts), _tuple_value(node.right, consts)
        return left + right if left is not None and right is not None else None
    try:
        value = ast.literal_eval(node)
    except ValueError:
        # a comprehension over tuples of names (`tuple(k for k in _STATE if k not in _LAZY)`):
        # the emitter's own output, evaluated with the module's tuple constants and no
        # builtin but `tuple`; anything else is not a shape we know
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if not all(
            isinstance(
                n,
                (
                    ast.expr,
                    ast.comprehension,
                    ast.expr_context,
                    ast.cmpop,
                    ast.boolop,
                    ast.operator,
                ),
            )
            for n in ast.walk(node)
        ) or any(isinstance(n, (ast.Attribute, ast.Lambda, ast.NamedExpr)) for n in ast.walk(node)):
            return None
        scope: dict[str, Any] = {k: v for k, v in consts.items() if k in names}
        scope["__builtins__"] = {"tuple": tuple}
        try:
            value = eval(compile(ast.Expression(node), "<slots>", "eval"), scope)  # noqa: S307
        except Exception:  # noqa: BLE001 - not a shape we know
            return None
    return value if isinstance(value, tuple) and all(isinstance(v, str) for v in value) else None


def _slots(cls: ast.ClassDef, consts: dict[str, tuple]) -> tuple | None:
    for st in cls.body:
        if (
            isinstance(st, ast.Assign)
            and len(st.targets) == 1
            and isinstance(st.targets[0], ast.Name)
            and st.targets[0].id == "__slots__"
        ):
            return _tuple_value(st.value, consts)
    return None


def _has_closure(fn: ast.FunctionDef) -> bool:
    """Cython's cpdef functions cannot hold closures (lambdas, generator expressions...)."""
    inner = (ast.Lambda, ast.GeneratorExp, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(n, inner) for n in ast.walk(fn) if n is not fn)


def _cpdef(fn: ast.FunctionDef) -> str | None:
    """`cpdef NAME(Game g, ...)` for a plain module function of the game, or None."""
    a = fn.args
    if fn.decorator_list or a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        return None
    if not a.args or a.args[0].arg != "g" or _has_closure(fn):
        return None
    params = ["Game g"]  # None is refused by the nonecheck directive
    first_default = len(a.args) - len(a.defaults)
    for i, arg in enumerate(a.args[1:], start=1):
        params.append(arg.arg + ("=*" if i >= first_default else ""))
    return f"cpdef {fn.name}({', '.join(params)})"


def declarations(source: str) -> str:
    """The augmenting .pxd for an engine's source: its game class as an extension type, its
    rule functions taking that type. Derived from the source the emitter wrote; a shape it
    does not recognise is left as Python (slower, never wrong)."""
    tree = ast.parse(source)
    consts: dict[str, tuple] = {}
    classes: dict[str, ast.ClassDef] = {}
    defs: dict[str, list[ast.FunctionDef]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                value = _tuple_value(node.value, consts)
                if value is not None and target.id not in consts:
                    consts[target.id] = value
                else:
                    consts.pop(target.id, None)  # reassigned: not a constant
        elif isinstance(node, ast.ClassDef):
            classes[node.name] = node
        elif isinstance(node, ast.FunctionDef):
            defs.setdefault(node.name, []).append(node)
    lines = [
        "# Generated by compiler/native.py from the engine's source: the declarations Cython",
        "# reads beside it (an augmenting .pxd). Not the product; see docs/native.md.",
        "",
    ]
    game = classes.get("Game")
    slots = _slots(game, consts) if game is not None else None
    bases = [b.id for b in game.bases if isinstance(b, ast.Name)] if game is not None else []
    # mixin bases must be extension types too: allowed when they hold no state (empty slots)
    ok = (
        game is not None
        and slots is not None
        and not game.decorator_list
        and not game.keywords
        and len(bases) == len(game.bases) <= 1
        and all(b in classes and _slots(classes[b], consts) == () for b in bases)
        and all(not classes[b].bases and not classes[b].decorator_list for b in bases)
    )
    if not ok or game is None or slots is None:
        return "\n".join(lines + ["# (no game class of the known shape: compiled as Python)", ""])
    for b in bases:
        lines += [f"cdef class {b}:", "    pass", ""]
    lines.append(f"cdef class Game{f'({bases[0]})' if bases else ''}:")
    lines += [f"    cdef public object {s}" for s in slots]
    lines.append("")
    # a function called through a conditional, `(f if c else h)(g)`, stays a Python function
    # (Cython 3.x cannot compile the call of a conditional cpdef function)
    indirect = {
        n.id
        for call in ast.walk(tree)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.IfExp)
        for n in ast.walk(call.func)
        if isinstance(n, ast.Name)
    }
    for name, fns in defs.items():
        if len(fns) == 1 and name not in indirect:
            decl = _cpdef(fns[0])
            if decl is not None:
                lines.append(decl)
    lines.append("")
    return "\n".join(lines)


def cython_source(source: str) -> str:
    """The engine's source as Cython compiles it: the same, except that the type-only
    declarations in the bodies of the game class's mixin bases (`if TYPE_CHECKING:` blocks,
    dead at run time) become blank lines. Those bases are declared without attributes in the
    .pxd, and Cython would take the annotations for C attributes added to them; the blank lines
    keep every line number, so a traceback points at the .py's line."""
    tree = ast.parse(source)
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    game = classes.get("Game")
    bases = [b.id for b in game.bases if isinstance(b, ast.Name)] if game is not None else []
    lines = source.split("\n")
    for b in bases:
        for node in classes[b].body if b in classes else ():
            if (
                isinstance(node, ast.If)
                and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"
                and not node.orelse
            ):
                for k in range(node.lineno - 1, node.end_lineno or node.lineno):
                    lines[k] = ""
    return "\n".join(lines)


# ------------------------------------------------------------------ building
def native_name(engine: Path) -> str:
    return engine.stem + SUFFIX


def target(engine: Path) -> Path:
    """Where the extension module of `generated/NAME.py` goes: beside it."""
    return engine.with_name(native_name(engine) + EXT)


def _run(cmd: list[str], log: Path, what: str) -> None:
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    log.write_text(
        f"$ {shlex.join(cmd)}\n{proc.stdout}{proc.stderr}", encoding="utf-8", errors="replace"
    )
    if proc.returncode != 0:
        raise NativeError(f"{what} failed (exit {proc.returncode}); log: {log}")


def _stamp(source: str, pxd: str, opt: str) -> str:
    import Cython  # noqa: PLC0415 - only when building

    key = "\0".join([source, pxd, opt, DIRECTIVES, Cython.__version__, sys.version, *_compiler()])
    return hashlib.sha256(key.encode()).hexdigest()


def build(engine: Path, work: Path, out: Path | None = None, opt: str = OPT) -> tuple[Path, bool]:
    """Compile `engine` (a generated NAME.py) into `out` (default: beside it, see `target`),
    using `work` for the intermediate files. Returns (the extension's path, whether it was
    rebuilt: an unchanged engine compiled by the same tools is kept). Raises NativeError."""
    out = out or target(engine)
    name = native_name(engine)
    work.mkdir(parents=True, exist_ok=True)
    source = engine.read_text(encoding="utf-8")
    pxd = declarations(source)
    stamp = _stamp(source, pxd, opt)
    stamp_file = work / f"{name}.stamp"
    if out.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return out, False
    (work / f"{name}.py").write_text(cython_source(source), encoding="utf-8")
    (work / f"{name}.pxd").write_text(pxd, encoding="utf-8")
    c_file = work / f"{name}.c"
    cython = [sys.executable, "-c", _CYTHON, "-3", "-X", DIRECTIVES]
    _run(
        [*cython, "-o", str(c_file), str(work / f"{name}.py")],
        work / f"{name}.cython.log",
        "cython",
    )
    so = work / f"{name}{EXT}"
    include = sysconfig.get_paths()["include"]
    cmd = [*_compiler(), "-shared", "-fPIC", opt, "-fwrapv", "-fno-strict-aliasing"]
    cmd += ["-DNDEBUG", f"-I{include}", str(c_file), "-o", str(so)]
    if sys.platform == "darwin":
        cmd += ["-undefined", "dynamic_lookup"]
    _run(cmd, work / f"{name}.cc.log", "the C compiler")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    shutil.copyfile(so, tmp)
    os.replace(tmp, out)  # atomic: a process that loaded the old one keeps its mapping
    stamp_file.write_text(stamp)
    return out, True


def load(path: Path) -> types.ModuleType:
    """Import a native engine from its file (its module name is in its file name)."""
    name = path.name.split(".", 1)[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_all(
    root: Path,
    engines: list[Path],
    say: Callable[[str], None] = print,
    show: Callable[[str], None] | None = None,
    opt: str = OPT,
) -> int:
    """`maf build --native`: compile each engine, one line each (`show` gets a progress line
    while one compiles); the number that failed. When Cython or a C compiler is missing, one
    line says so and nothing else happens."""
    why = unavailable()
    if why is not None:
        say(f"maf build --native: {why}; the pure-Python engines are built")
        return 0
    failed = 0
    work = root / "build" / "native"
    for i, engine in enumerate(engines, start=1):
        rel = _rel(engine, root)
        if show is not None:
            show(f"[{i}/{len(engines)}] compiling {rel} with Cython and {_compiler()[0]} ...")
        t0 = time.perf_counter()
        try:
            so, rebuilt = build(engine, work, opt=opt)
        except NativeError as e:
            say(f"{rel}: native build FAILED: {e}")
            failed += 1
            continue
        how = f"{time.perf_counter() - t0:.1f} s" if rebuilt else "up to date"
        say(f"{rel} -> {_rel(so, root)} (native, {how})")
    return failed


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
