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
- locals of those functions that provably always hold a small int become C integers
  (`@cython.locals(NAME=cython.Py_ssize_t)`, `int_locals`): in the compiled night, each
  ability's actor `aN` and first target `tN_0` (assigned past the seat test
  `_FN_SEAT[x] is not x`) and the dispatched ability `k` (an element of the int table
  `_FN_OWN`). Derived from the source's data flow, never from names: a value still to be
  checked (an action's seat, a call's result) stays an object, and every typed value lies in
  CPython's small-int cache with arithmetic bounded far from C overflow.

Nothing else changes: every other value stays a Python object and a typed one is boxed back
to the very int object Python holds, so every result (reports, state, errors) is the
pure-Python engine's; the differential test (tests/test_differential.py) plays the native engine
against the reference interpreter to keep that true, and tests/test_native.py plays malformed
nights on both.

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
from collections.abc import Callable, Iterator
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
            value = eval(compile(ast.Expression(node), "<slots>", "eval"), scope)
        except Exception:  # not a shape we know
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


# ------------------------------------------------------------------ typed integer locals
# A local of a cpdef function becomes a C integer (`@cython.locals(NAME=cython.Py_ssize_t)`
# above its declaration) only when the source shows that it always holds a small int:
#
# - every value assigned to it (plainly, or element by element when names unpack a display or
#   a constant tuple of their length) is an int literal, another such local, an element of an int
#   table (a module constant bound once, of ints all through, that the module only ever reads
#   down to an int: `_FN_OWN[role][name]`), or a name past an identity guard on every path
#   with no binding in between (`if T[y] is not y [or ...]: return|raise|continue|break`, T
#   such a table of depth 1: past it, y IS one of T's ints; `_FN_SEAT[actor] is not actor`);
# - every value lies in CPython's cache of small ints (-5..256): a C value boxed again is the
#   very object the pure-Python engine holds, so identity (`T[x] is x`, in any function the
#   value reaches) and equality are unchanged, and the conversion to C never fails;
# - an assignment of it runs before every read on every path (a C local has no
#   "unbound" state: where Python could raise UnboundLocalError it is not typed);
# - in arithmetic it only meets such locals and int literals (+, -, *, &, |, ^, unary -, ~),
#   and the bounds of each such expression, computed from the values' bounds, stay within
#   +-2**31, far inside a Py_ssize_t: C arithmetic gives Python's result, no overflow is
#   possible. It is never an operand of `is`, `/`, `//`, `%`, `**` or a shift, nor of
#   arithmetic with anything else, and never deleted, unpacked, augmented or a loop target;
# - no untyped local is assigned a C value made from it (nor loops over `range` of it):
#   Cython would infer a C type for that local too, outside these rules.
#
# Anything else stays a Python object: a value the engine still has to check (an action's
# seat before its test, a call's result) is never typed, so a malformed action meets the same
# test, raises the same exception and falls back to the generic resolver as in Python.
LOCAL_INT = "cython.Py_ssize_t"
_SMALL = (-5, 256)  # CPython's cached small ints
_C_BOUND = 2**31  # every C-arithmetic intermediate stays within +-this (Py_ssize_t: 2**63)
_C_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
_C_UNARY = (ast.USub, ast.UAdd, ast.Invert)
_JUMPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_Bounds = tuple[int, int]


def _const(node: ast.expr) -> Any:
    """The value of a constant made of literals, of `*range(ints)` inside a tuple display
    (`(-1, *range(1, 257))`), of tuples added or repeated (`(0,) * 18 + (-1,) * 1`). Raises
    ValueError for anything else."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
        left, right = _const(node.left), _const(node.right)
        if isinstance(node.op, ast.Add) and isinstance(left, tuple) and isinstance(right, tuple):
            return left + right
        if isinstance(node.op, ast.Mult):
            seq, times = (left, right) if isinstance(left, tuple) else (right, left)
            if isinstance(seq, tuple) and type(times) is int and 0 <= times <= 4096:
                return seq * times
        raise ValueError("not a tuple's sum or repetition")
    if isinstance(node, ast.Tuple) and any(isinstance(e, ast.Starred) for e in node.elts):
        out: list[Any] = []
        for e in node.elts:
            if not isinstance(e, ast.Starred):
                out.append(_const(e))
                continue
            call = e.value
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Name)
                and call.func.id == "range"
                and not call.keywords
                and 1 <= len(call.args) <= 3
            ):
                raise ValueError("not a range")
            args = [ast.literal_eval(a) for a in call.args]
            if not all(type(a) is int and abs(a) <= _C_BOUND for a in args):
                raise ValueError("not a small range")
            out.extend(range(*args))
        return tuple(out)
    return ast.literal_eval(node)


def _int_leaves(value: Any) -> tuple[int, int, int] | None:
    """(depth, lowest, highest) when `value` is an int (depth 0) or a tuple or dict whose
    elements all have the same depth of int leaves (an empty one fits any depth >= 1; a
    table without a single int has no bounds: None); None otherwise (a bool is no int)."""
    if type(value) is int:
        return 0, value, value
    if not isinstance(value, (dict, tuple)):
        return None
    items = list(value.values()) if isinstance(value, dict) else list(value)
    inner = [_int_leaves(v) for v in items if not (isinstance(v, (dict, tuple)) and not v)]
    empties = len(items) - len(inner)
    if not inner or any(i is None for i in inner):
        return None
    known = [i for i in inner if i is not None]
    depth = known[0][0]
    if any(i[0] != depth for i in known) or (empties and depth == 0):
        return None
    return depth + 1, min(i[1] for i in known), max(i[2] for i in known)


def _int_tables(
    tree: ast.Module, parents: dict[ast.AST, ast.AST]
) -> dict[str, tuple[int, int, int]]:
    """The module's int tables: name -> (depth, lowest, highest) of a constant bound once at
    the top level, a tuple or dict of ints (or of such), that the module only ever reads down
    to an int (`T[i]`, `T[i][j]` for depth 2): no other binding, no `global`, no escape of an
    inner container, no write."""
    bound: dict[str, ast.stmt] = {}
    once: dict[str, int] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and value is not None:
            bound[target.id] = node
            once[target.id] = once.get(target.id, 0) + 1
    tables: dict[str, tuple[int, int, int]] = {}
    for name, st in bound.items():
        assert isinstance(st, (ast.Assign, ast.AnnAssign)) and st.value is not None
        try:
            leaves = _int_leaves(_const(st.value))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if leaves is not None and leaves[0] >= 1 and once[name] == 1:
            tables[name] = leaves
    if not tables:
        return tables
    for n in parents:  # every node but the module
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            for name in n.names:
                tables.pop(name, None)
        elif isinstance(n, ast.alias):
            tables.pop((n.asname or n.name).split(".")[0], None)
        elif isinstance(n, ast.arg):
            tables.pop(n.arg, None)  # a parameter of that name hides the table
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            tables.pop(n.name, None)
        elif isinstance(n, ast.Name) and n.id in tables:
            if not isinstance(n.ctx, ast.Load):
                if parents.get(n) is not bound[n.id]:
                    tables.pop(n.id)  # another binding, anywhere: not a constant
                continue
            # a read must go down to an int: `depth` subscripts, each a read
            sub: ast.AST = n
            for _ in range(tables[n.id][0]):
                up = parents.get(sub)
                if not (
                    isinstance(up, ast.Subscript)
                    and up.value is sub
                    and isinstance(up.ctx, ast.Load)
                ):
                    tables.pop(n.id)
                    break
                sub = up
    return tables


def _binds(node: ast.AST, name: str) -> bool:
    """Does `node` (its whole subtree) bind or delete `name`?"""
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, ast.ExceptHandler) and n.name == name:
            return True
        if isinstance(n, ast.alias) and (n.asname or n.name).split(".")[0] == name:
            return True
        if isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names:
            return True
        if isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name == name:
            return True
        if isinstance(n, ast.MatchMapping) and n.rest == name:
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and (
            n.name == name
        ):
            return True
    return False


def _identity_guard(
    st: ast.stmt, name: str, tables: dict[str, tuple[int, int, int]]
) -> _Bounds | None:
    """The bounds `name` is known to lie in past `st`, when `st` is a guard
    `if T[name] is not name [or ...]: ...; return|raise|continue|break` with T an int table of
    depth 1: falling through it means `T[name] is name`, so name is one of T's ints."""
    if not isinstance(st, ast.If) or st.orelse or not isinstance(st.body[-1], _JUMPS):
        return None
    if _binds(st.test, name):
        return None
    test = st.test
    tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or) else [test]
    for t in tests:
        if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.IsNot)):
            continue
        for sub, other in ((t.left, t.comparators[0]), (t.comparators[0], t.left)):
            if (
                isinstance(sub, ast.Subscript)
                and isinstance(sub.value, ast.Name)
                and tables.get(sub.value.id, (0,))[0] == 1
                and isinstance(sub.slice, ast.Name)
                and sub.slice.id == name
                and isinstance(other, ast.Name)
                and other.id == name
            ):
                _, lo, hi = tables[sub.value.id]
                return lo, hi
    return None


def _before(
    st: ast.stmt, fn: ast.FunctionDef, parents: dict[ast.AST, ast.AST]
) -> Iterator[tuple[str, ast.AST]]:
    """What runs before statement `st` on every path to it, nearest first: ("stmt", s) for
    each earlier statement of its block, then ("out", p) on leaving that block for the
    statement p holding it, and so on up to the function's body. Never another branch: from an
    `else` block or an except handler, the `if`/`try` body that ran (or stopped) before it is
    not visited."""
    node: ast.AST = st
    while node is not fn:
        parent = parents[node]
        block = None
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(parent, field, None)
            if isinstance(stmts, list) and any(s is node for s in stmts):
                block = stmts
        if block is not None:
            k = next(i for i, s in enumerate(block) if s is node)
            for prev in reversed(block[:k]):
                yield "stmt", prev
        elif not isinstance(node, ast.ExceptHandler):
            return  # not a statement of a block (never met in a function's statements)
        if parent is fn:
            return
        yield "out", parent
        node = parent


def _checked(
    st: ast.stmt,
    name: str,
    fn: ast.FunctionDef,
    parents: dict[ast.AST, ast.AST],
    tables: dict[str, tuple[int, int, int]],
) -> _Bounds | None:
    """The bounds of `name` where statement `st` runs, when an identity guard on it runs
    before `st` on every path with no binding of `name` in between; else None. Out of a loop
    only when the loop never binds `name` (an earlier turn may have bound it since)."""
    for kind, s in _before(st, fn, parents):
        if kind == "stmt":
            bounds = _identity_guard(s, name, tables) if isinstance(s, ast.stmt) else None
            if bounds is not None:
                return bounds
            if _binds(s, name):
                return None
        elif isinstance(s, (ast.For, ast.AsyncFor, ast.While)):
            if _binds(s, name):
                return None
        elif isinstance(s, ast.ExceptHandler) and s.name == name:
            return None
        else:  # the test of an `if`, the items of a `with`...: run before its block
            for field, value in ast.iter_fields(s):
                if field not in ("body", "orelse", "finalbody", "handlers") and any(
                    _binds(v, name)
                    for v in (value if isinstance(value, list) else [value])
                    if isinstance(v, ast.AST)
                ):
                    return None
    return None


def _assigned_pairs(st: ast.Assign | ast.AnnAssign) -> list[tuple[ast.Name, ast.expr | None]]:
    """Each name `st` binds, with the value it gets: the whole value for a name, the matching
    element for a tuple of names unpacking a display or a constant tuple of the same length
    (`a0, t0_0 = (0,) * 2`); None when not known (other unpacking, starred...)."""
    targets = st.targets if isinstance(st, ast.Assign) else [st.target]
    pairs: list[tuple[ast.Name, ast.expr | None]] = []
    for t in targets:
        if isinstance(t, ast.Name):
            pairs.append((t, st.value))
            continue
        names = t.elts if isinstance(t, (ast.Tuple, ast.List)) else []
        elements: list[ast.expr] | None = None
        if names and all(isinstance(n, ast.Name) for n in names) and st.value is not None:
            v = st.value
            if isinstance(v, (ast.Tuple, ast.List)) and len(v.elts) == len(names):
                if not any(isinstance(e, ast.Starred) for e in v.elts):
                    elements = list(v.elts)
            else:
                try:
                    const = _const(v)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    const = None
                if isinstance(const, tuple) and len(const) == len(names):
                    elements = [ast.Constant(value=c) for c in const]
        if elements is not None:
            pairs += [
                (n, e) for n, e in zip(names, elements, strict=True) if isinstance(n, ast.Name)
            ]
        else:
            # (a name it binds: never one read inside a target, `F[a1 * 5] = 1`)
            pairs += [
                (n, None)
                for n in ast.walk(t)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            ]
    return pairs


def _assigned_before(
    st: ast.stmt, name: str, fn: ast.FunctionDef, parents: dict[ast.AST, ast.AST]
) -> bool:
    """Does a plain assignment of `name` run before statement `st` on every path to it?"""
    return any(
        kind == "stmt" and isinstance(s, ast.stmt) and _binds_always([s], name)
        for kind, s in _before(st, fn, parents)
    )


def _binds_always(block: list[ast.stmt], name: str) -> bool:
    """Is `name` bound whenever `block` runs to its end? Yes when one of its statements is an
    assignment of it (once through, each of its names is bound), an `if` whose two branches
    both bind it so, or a jump (`return`, `raise`, `continue`, `break`: never past it)."""
    for s in block:
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
            if any(n.id == name for n, _ in _assigned_pairs(s)):
                return True
        elif isinstance(s, _JUMPS):
            return True
        elif isinstance(s, ast.If) and s.orelse:
            if _binds_always(s.body, name) and _binds_always(s.orelse, name):
                return True
    return False


def _c_bounds(node: ast.expr, typed: dict[str, _Bounds]) -> _Bounds | None:
    """The bounds of an expression Cython computes in C from typed locals and int literals
    (+, -, *, &, |, ^, unary -, +, ~), or None when it is not one (or may leave _C_BOUND)."""
    if isinstance(node, ast.Name):
        return typed.get(node.id)
    if isinstance(node, ast.Constant):
        v = node.value
        return (v, v) if type(v) is int and abs(v) <= _C_BOUND else None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, _C_UNARY):
        inner = _c_bounds(node.operand, typed)
        if inner is None:
            return None
        lo, hi = inner
        if isinstance(node.op, ast.USub):
            return -hi, -lo
        if isinstance(node.op, ast.Invert):
            return -hi - 1, -lo - 1
        return inner
    if isinstance(node, ast.BinOp) and isinstance(node.op, _C_ARITH):
        left, right = _c_bounds(node.left, typed), _c_bounds(node.right, typed)
        if left is None or right is None:
            return None
        (l1, h1), (l2, h2) = left, right
        if isinstance(node.op, ast.Add):
            lo, hi = l1 + l2, h1 + h2
        elif isinstance(node.op, ast.Sub):
            lo, hi = l1 - h2, h1 - l2
        elif isinstance(node.op, ast.Mult):
            products = (l1 * l2, l1 * h2, h1 * l2, h1 * h2)
            lo, hi = min(products), max(products)
        else:  # &, |, ^ of ints within +-2**m stay within +-2**m
            m = max(abs(l1), abs(h1), abs(l2), abs(h2), 1).bit_length()
            lo, hi = -(2**m), 2**m
        return (lo, hi) if -_C_BOUND <= lo and hi <= _C_BOUND else None
    return None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def int_locals(
    fn: ast.FunctionDef,
    tables: dict[str, tuple[int, int, int]],
    parents: dict[ast.AST, ast.AST] | None = None,
) -> dict[str, _Bounds]:
    """The locals of `fn` that can be C integers (see the comment above), with their bounds."""
    a = fn.args
    params = {x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)}
    params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    if parents is None:
        parents = {c: p for p in ast.walk(fn) for c in ast.iter_child_nodes(p)}
    nodes = list(ast.walk(fn))
    values, assigned = _bindings(nodes)
    candidates = {
        name
        for name, vals in values.items()
        if name not in params and all(v is not None for v in vals)
    }
    if not candidates:
        return {}
    _drop_read_unbound(candidates, nodes, fn, parents)
    banned = _identity_operands(nodes)
    while True:
        bounds = _fixpoint(candidates - banned, values, fn, parents, tables)
        typed = {n: b for n, b in bounds.items() if _SMALL[0] <= b[0] and b[1] <= _SMALL[1]}
        typed = _kept_typed(typed, nodes, assigned)
        if set(typed) == candidates - banned:
            return dict(sorted(typed.items()))
        banned |= (candidates - banned) - set(typed)


def _bindings(
    nodes: list[ast.AST],
) -> tuple[
    dict[str, list[tuple[ast.stmt, ast.expr] | None]],
    list[tuple[ast.stmt, ast.Name, ast.expr | None]],
]:
    """Every binding of every name among `nodes`: (the statement, the value) or None when not a
    plain value; and the plain assignments as (statement, target, value)."""
    values: dict[str, list[tuple[ast.stmt, ast.expr] | None]] = {}
    assigned: list[tuple[ast.stmt, ast.Name, ast.expr | None]] = []
    handled: set[ast.Name] = set()
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for target, value in _assigned_pairs(node):
                assigned.append((node, target, value))
                handled.add(target)
                values.setdefault(target.id, []).append(
                    (node, value) if value is not None else None
                )
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            if node not in handled:  # a loop's or comprehension's target, walrus, del...
                values.setdefault(node.id, []).append(None)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            values.setdefault(node.name, []).append(None)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            values.setdefault(node.rest, []).append(None)
        elif isinstance(node, ast.alias):
            values.setdefault((node.asname or node.name).split(".")[0], []).append(None)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                values.setdefault(name, []).append(None)
    return values, assigned


def _drop_read_unbound(
    candidates: set[str],
    nodes: list[ast.AST],
    fn: ast.FunctionDef,
    parents: dict[ast.AST, ast.AST],
) -> None:
    """Keep in `candidates` only the names assigned before every read, on every path (a C
    local has no "unbound" state)."""
    for node in nodes:
        if isinstance(node, ast.Name) and node.id in candidates:
            st: ast.AST = node
            while not isinstance(st, ast.stmt):
                st = parents[st]
            assert isinstance(st, ast.stmt)
            if isinstance(node.ctx, ast.Load) and not _assigned_before(st, node.id, fn, parents):
                candidates.discard(node.id)


def _identity_operands(nodes: list[ast.AST]) -> set[str]:
    """The names in an operand of `is` (identity is kept anyway: small ints; kept out for
    clarity)."""
    banned: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for k, cmp in enumerate(node.ops):
                if isinstance(cmp, (ast.Is, ast.IsNot)):
                    banned |= _names(operands[k]) | _names(operands[k + 1])
    return banned


def _kept_typed(
    typed: dict[str, _Bounds],
    nodes: list[ast.AST],
    assigned: list[tuple[ast.stmt, ast.Name, ast.expr | None]],
) -> dict[str, _Bounds]:
    """`typed` without the locals that would meet an untyped value in arithmetic or spread a
    C type to an untyped local."""
    for node in nodes:
        # arithmetic: a typed local meets only typed locals and literals, within bounds
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            continue  # a truth value, never arithmetic
        if isinstance(node, (ast.BinOp, ast.UnaryOp)) and _c_bounds(node, typed) is None:
            operands = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.operand]
            for e in operands:
                if isinstance(e, ast.Name) or _c_bounds(e, typed) is not None:
                    typed = {n: b for n, b in typed.items() if n not in _names(e)}
        # Cython infers a C type for a local assigned C values (a typed local, an
        # expression of them) or for a loop over `range(typed)`: a local the rules above
        # did not type must not become one that way
        spread = _spread(node)
        if spread is not None:
            typed = {n: b for n, b in typed.items() if n not in _names(spread)}
    for _, target, value in assigned:
        if target.id not in typed and value is not None and _may_be_c(value):
            typed = {n: b for n, b in typed.items() if n not in _names(value)}
    return typed


def _spread(node: ast.AST) -> ast.AST | None:
    """The value whose C type Cython would give the local `node` binds (a walrus, an
    augmented assignment, a loop over range(), enumerate(), reversed()), or None."""
    if isinstance(node, (ast.NamedExpr, ast.AugAssign)):
        return node.value
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        it = node.iter  # a C loop only over range(), enumerate(), reversed()
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name):
            return it if it.func.id in ("range", "enumerate", "reversed") else None
    return None


_C_BUILTINS = {"len", "abs", "min", "max", "ord", "int", "float", "bool", "round", "sum", "pow"}


def _may_be_c(value: ast.expr) -> bool:
    """May Cython give `value` a C type (so that a local assigned it may become one)? No for
    a display, a comprehension, an attribute, an item of a container, a string, a call but of
    a builtin Cython types in C; yes otherwise (a name, arithmetic, a comparison...)."""
    if isinstance(value, ast.Call):
        return isinstance(value.func, ast.Name) and value.func.id in _C_BUILTINS
    surely_object = (
        ast.Tuple,
        ast.List,
        ast.Dict,
        ast.Set,
        ast.ListComp,
        ast.SetComp,
        ast.DictComp,
        ast.GeneratorExp,
        ast.Attribute,
        ast.Subscript,
        ast.JoinedStr,
        ast.Lambda,
    )
    if isinstance(value, ast.Constant):
        return not isinstance(value.value, (str, bytes)) and value.value is not None
    return not isinstance(value, surely_object)


def _fixpoint(
    names: set[str],
    values: dict[str, list[tuple[ast.stmt, ast.expr] | None]],
    fn: ast.FunctionDef,
    parents: dict[ast.AST, ast.AST],
    tables: dict[str, tuple[int, int, int]],
) -> dict[str, _Bounds]:
    """The bounds of each of `names` from its assigned values, dropping a name with a value
    of no known bounds (and then those assigned from it), until none changes."""
    names = set(names)
    while True:
        dropped = False
        bounds: dict[str, _Bounds] = {}
        for name in sorted(names):
            lo: int | None = None
            hi: int | None = None
            for st, value in (v for v in values[name] if v is not None):
                b = _value_bounds(st, value, names, fn, parents, tables)
                if b is None:
                    names.discard(name)
                    dropped = True
                    break
                if isinstance(b, str):
                    continue  # another typed name: its bounds join below
                lo = b[0] if lo is None else min(lo, b[0])
                hi = b[1] if hi is None else max(hi, b[1])
            else:
                bounds[name] = (lo, hi) if lo is not None and hi is not None else (0, 0)
        if dropped:
            continue
        # join the bounds of the typed names assigned to each other (a finite lattice)
        changed = True
        while changed:
            changed = False
            for name in names:
                for v in values[name]:
                    if v is not None and isinstance(v[1], ast.Name) and v[1].id in names:
                        lo, hi = bounds[name]
                        olo, ohi = bounds[v[1].id]
                        new = (min(lo, olo), max(hi, ohi))
                        if new != bounds[name]:
                            bounds[name], changed = new, True
        return bounds if names else {}


def _value_bounds(
    st: ast.stmt,
    value: ast.expr,
    names: set[str],
    fn: ast.FunctionDef,
    parents: dict[ast.AST, ast.AST],
    tables: dict[str, tuple[int, int, int]],
) -> _Bounds | str | None:
    """Bounds of a value assigned by `st`: "typed" for another typed name, None when
    unknown."""
    if isinstance(value, ast.Constant) and type(value.value) is int:
        return value.value, value.value
    if (
        isinstance(value, ast.UnaryOp)
        and isinstance(value.op, ast.USub)
        and isinstance(value.operand, ast.Constant)
        and type(value.operand.value) is int
    ):
        return -value.operand.value, -value.operand.value
    if isinstance(value, ast.Name):
        if value.id in names:
            return "typed"
        return _checked(st, value.id, fn, parents, tables)
    depth, sub = 0, value
    while isinstance(sub, ast.Subscript):
        depth, sub = depth + 1, sub.value
    if isinstance(sub, ast.Name) and depth and tables.get(sub.id, (0,))[0] == depth:
        _, lo, hi = tables[sub.id]
        return lo, hi
    return None


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
        "# Generated by compiler/backend/native.py from the engine's source: the declarations",
        "# Cython reads beside it (an augmenting .pxd). Not the product; see docs/native.md.",
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
    parents = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    tables = _int_tables(tree, parents)
    typed_any = False
    for name, fns in defs.items():
        if len(fns) == 1 and name not in indirect:
            decl = _cpdef(fns[0])
            if decl is not None:
                typed = int_locals(fns[0], tables, parents)
                if typed:  # C integers: always small ints (see int_locals)
                    typed_any = True
                    lines.append(
                        "@cython.locals(" + ", ".join(f"{n}={LOCAL_INT}" for n in typed) + ")"
                    )
                lines.append(decl)
    lines.append("")
    if typed_any:
        lines[3:3] = ["cimport cython", ""]
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
    import Cython  # only when building

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
