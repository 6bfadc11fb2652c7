"""Partial evaluation of the runtime's own methods (issue 20 item 2: the concrete meaning once).

The compiled night (nightgen.py) settles the night's kills and runs the phase hooks inline. It
does not spell that code itself: it takes `Game._settle`, `Game._die` and `Game._hooks` from
compiler/runtime/core.py (their source, read with `ast`) and specialises them to the spec:

- the spec-fixed constants are substituted (``FEATURE_X``, ``ANY_SAVE``, ``TRIGGERS`` of a spec
  with no trigger, ``IMMUNE_TO`` of a spec with no immunity...) and the branches they decide are
  folded away (``if``, ``and``/``or``, ``x if c else y``, comparisons of known values);
- state the spec never fills is known empty (`Game.prot` of a spec without protections,
  `Game.guards` without guards): ``.get`` on it gives its default, so its branches fold too;
- ``self`` is renamed to the night's game (``g``) and the game's lists the night holds in locals
  are read through them (``self.alive`` -> ``alive``, ``self._deaths`` -> ``deaths``...);
- a loop over a table the spec fixes (``ANY_DEATH``, ``HOOKS_DAWN``...) is unrolled, one copy of
  its body per row (a comment names the row's spec line), a ``continue`` in it turned into the
  ``if`` around the rest of the row;
- a call of a method named in ``inline`` (``self._die(...)``) is replaced by its body, its
  parameters bound to the arguments (a ``return`` in it: the ``continue`` of the enclosing loop
  when the call ends that loop's body, else the ``if`` around the rest of the body);
- the runtime's comments are kept on the statements they annotate.

So the meaning of a kill, a protection, an immunity, a defence level, a guard, ``on any save``,
death triggers and ``on any death`` is written once, in the runtime; the compiled night is what
this module makes of it, and follows every change (tests/test_specialise.py plants one).

It reads the plain Python those methods are written in: assignments, ``if``/``for``/``while``,
``continue``, ``return`` (no value), calls, comparisons, boolean operators, subscripts, tuples.
Anything else raises `SpecialiseError` naming the runtime line, at `maf build`: never wrong
code. Nothing here knows a rule of a game; the callers say which names the spec fixes.
"""

from __future__ import annotations

import ast
import io
import operator
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

_NOTHING: Any = object()  # no known value
_WIDTH = 100  # the engines' line length (ruff)


class SpecialiseError(ValueError):
    """Runtime code the specialiser does not read (a runtime line to simplify, or to teach it)."""


@dataclass(frozen=True)
class Val:
    """What the specialiser knows of a value: its residual expression (the code that computes
    it at run time, `expr`), its Python value when the spec fixes it (`known`), its truth, the
    rows of a table it unrolls (`items`, with a comment each in `notes`), what every element of
    a table is whatever the index (`every`), or that it is a mapping known to be empty."""

    expr: ast.expr | None = None
    known: Any = _NOTHING
    items: tuple[Val, ...] | None = None
    notes: tuple[str, ...] = ()
    every: Val | None = None
    truth: bool | None = None
    empty: bool = False
    stable: bool = False  # a name the output reads anyway (a view): substituted, never copied
    poison: bool = False  # a local the output does not hold (known on one path only)

    def is_known(self) -> bool:
        return self.known is not _NOTHING

    def truthy(self) -> bool | None:
        if self.is_known():
            return bool(self.known)
        if self.empty:
            return False
        if self.items is not None:
            return bool(self.items)
        return self.truth


def known(value: Any, expr: str | None = None) -> Val:
    """A value the spec fixes; `expr`: how the engine spells it (a constant's name)."""
    return Val(expr=_parse_expr(expr) if expr else None, known=value)


def residual(expr: str, truth: bool | None = None) -> Val:
    """A value computed at run time, spelled `expr` in the engine; `truth` if the spec fixes it."""
    return Val(expr=_parse_expr(expr), truth=truth)


def table(name: str, rows: Iterable[Val], notes: Iterable[str] = ()) -> Val:
    """A table the spec fixes row by row (`name` in the engine): a loop over it is unrolled."""
    rows = tuple(rows)
    return Val(expr=_parse_expr(name), items=rows, notes=tuple(notes), truth=bool(rows))


def view(expr: str) -> Val:
    """An attribute of the game the output reads another way (a local of the night: `alive`)."""
    return Val(expr=_parse_expr(expr), stable=True)


def row(*fields: Val) -> Val:
    """One row of a table: a tuple of values."""
    return Val(items=tuple(fields), truth=bool(fields))


def uniform(name: str, element: Val) -> Val:
    """A table (`name`) whose every element is `element`, whatever the index."""
    return Val(expr=_parse_expr(name), every=element)


EMPTY = Val(empty=True)  # a mapping the spec never fills: `.get(k, d)` is d


def _parse_expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _pure(e: ast.expr) -> bool:
    """No call in `e`: dropping it drops no effect."""
    return not any(isinstance(n, ast.Call) for n in ast.walk(e))


_CMP: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_NEGATED: dict[type, type] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
}
_BIN: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.RShift: operator.rshift,
    ast.LShift: operator.lshift,
}


class _Comment(ast.stmt):
    """A comment line in the output (the row of an unrolled table, a folded `if`'s comment)."""

    _fields = ("text",)

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


# -- control flow: where a `continue` or a `return` of the source goes in the output
@dataclass(eq=False)
class _Jump:
    """A jump to the end of an unrolled row or of an inlined body (no statement in the output:
    the code after it moves into the `if` that does not jump)."""

    what: str


_REAL = _Jump("continue")  # a `continue` statement of a loop kept in the output


@dataclass
class _Frame:
    """One method being specialised: its locals (name -> value), the names its output may not
    use for its own locals (`taken`), where its `return` goes (`ret`), and the loops around
    the current statement ('kept' or the row's jump of an unrolled one)."""

    env: dict[str, Val]
    taken: set[str]
    ret: _Jump
    loops: list[Any] = field(default_factory=list)
    renames: dict[str, str] = field(default_factory=dict)
    kept_loops_since_ret: int = (
        0  # kept loops between here and the frame (a `return` as `continue`)
    )
    fn: ast.FunctionDef | None = None  # the method's source
    kept: list[ast.stmt] = field(default_factory=list)  # the kept loops around, innermost last


class Specialiser:
    """Specialises methods of one class of runtime source to a spec.

    `source`, `path`: the module's text and its name in errors; `cls`: the class;
    `consts`: module names the spec fixes (name -> Val); `features`: the runtime features the
    engine carries (``FEATURE_X`` is known True or False); `views`: the attributes of ``self``
    the output reads another way (attribute -> Val: a local's name, EMPTY...); `rewrites`:
    ``(attribute, method)`` -> a function of the call's argument expressions giving the
    statements that stand for ``self.attribute.method(...)`` (a representation the output keeps
    otherwise); `inline`: the methods whose calls are replaced by their bodies; `reserved`: the
    names the surrounding code uses, which the output's own locals avoid; `self_name`: the
    game's name in the output."""

    def __init__(
        self,
        source: str,
        path: str,
        cls: str,
        *,
        consts: dict[str, Val],
        features: Iterable[str],
        views: dict[str, Val],
        rewrites: dict[tuple[str, str], Callable[[list[ast.expr]], list[ast.stmt]]] | None = None,
        inline: Iterable[str] = (),
        reserved: Iterable[str] = (),
        self_name: str = "g",
    ) -> None:
        self.path = path
        tree = ast.parse(source)
        found = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
        if not found:
            raise SpecialiseError(f"{path}: no class {cls}")
        self.methods = {n.name: n for n in ast.walk(found[0]) if isinstance(n, ast.FunctionDef)}
        self.consts = dict(consts)
        self.features = {f.upper() for f in features}
        self.views = dict(views)
        self.rewrites = dict(rewrites or {})
        self.inline = set(inline)
        self.reserved = set(reserved) | {self_name}
        self.self_name = self_name
        self.comments = _comments(source)

    # ------------------------------------------------------------------ entry
    def method(self, name: str, args: dict[str, Val] | None = None, depth: int = 1) -> list[str]:
        """The code lines (indented `depth` levels) of method `name` specialised, its
        parameters but ``self`` bound to `args`."""
        fn = self._method(name)
        ret = _Jump("return")
        frame = _Frame(env={}, taken=set(self.reserved), ret=ret, fn=fn)
        self._bind_params(fn, frame, args or {}, None)
        out, end = self._seq(fn.body, frame, consumes=ret)
        if end is _REAL:
            raise self._error(fn, "a `continue` outside a loop")
        out = _peephole(out, self.comments.trailing)
        lines: list[str] = []
        _emit(out, depth, lines, self.comments)
        return lines

    def _method(self, name: str) -> ast.FunctionDef:
        fn = self.methods.get(name)
        if fn is None:
            raise SpecialiseError(f"{self.path}: no method {name}")
        return fn

    def _bind_params(
        self, fn: ast.FunctionDef, frame: _Frame, args: dict[str, Val], call: ast.Call | None
    ) -> None:
        params = fn.args.args
        if fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.posonlyargs:
            raise self._error(fn, f"{fn.name}: only plain parameters can be bound")
        defaults = dict(
            zip(
                [p.arg for p in params[len(params) - len(fn.args.defaults) :]],
                fn.args.defaults,
                strict=True,
            )
        )
        assigned = {
            n.id
            for n in ast.walk(fn)
            if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        for p in params[1:]:  # (self)
            if p.arg in args:
                frame.env[p.arg] = args[p.arg]
            elif p.arg in defaults:
                frame.env[p.arg] = self._ev(defaults[p.arg], frame)
            else:
                raise self._error(call or fn, f"{fn.name}: no value for parameter {p.arg}")
            if p.arg in assigned:
                raise self._error(fn, f"{fn.name} assigns its parameter {p.arg}")

    def _error(self, node: ast.AST, problem: str) -> SpecialiseError:
        line = getattr(node, "lineno", 0)
        return SpecialiseError(f"{self.path}:{line}: the specialiser cannot read this: {problem}")

    # ------------------------------------------------------------------ names
    def _local(self, name: str, frame: _Frame) -> str:
        """The output's name for a local of the source (kept unless the surroundings use it)."""
        out = frame.renames.get(name)
        if out is None:
            out = name
            while out in frame.taken:
                out += "_"
            frame.renames[name] = out
        return out

    # ------------------------------------------------------------------ expressions
    def _expr(self, v: Val, node: ast.AST) -> ast.expr:
        """The residual expression of `v` (a literal for a known value without a spelling)."""
        if v.expr is not None:
            return v.expr
        if v.is_known() and _literal(v.known):
            return ast.Constant(v.known) if not isinstance(v.known, tuple) else _tuple(v.known)
        if v.items is not None:
            return ast.Tuple([self._expr(x, node) for x in v.items], ast.Load())
        raise self._error(node, "a value known to the specialiser reaches the output")

    def _ev(self, node: ast.expr, frame: _Frame, test: bool = False) -> Val:
        """Evaluate `node` as far as the spec fixes it. `test`: only its truth matters (an `if`
        or `while` test, an operand of `not`), so `x and True` may be `x`."""
        if isinstance(node, ast.Constant):
            return Val(expr=node, known=node.value)
        if isinstance(node, ast.Name):
            return self._name(node, frame)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self":
                view = self.views.get(node.attr)
                if view is not None:
                    return view
                return Val(expr=ast.Attribute(ast.Name(self.self_name), node.attr, ast.Load()))
            base = self._ev(node.value, frame)
            return Val(expr=ast.Attribute(self._expr(base, node), node.attr, ast.Load()))
        if isinstance(node, ast.Subscript):
            return self._subscript(node, frame)
        if isinstance(node, ast.Compare):
            return self._compare(node, frame)
        if isinstance(node, ast.BoolOp):
            return self._boolop(node, frame, test)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            v = self._ev(node.operand, frame, test=True)
            t = v.truthy()
            if t is not None and (v.expr is None or _pure(v.expr) or v.is_known()):
                return Val(known=not t)
            return Val(expr=_negate(self._expr(v, node)))
        if isinstance(node, ast.IfExp):
            c = self._ev(node.test, frame, test=True)
            t = c.truthy()
            if t is not None and (c.expr is None or _pure(c.expr) or c.is_known()):
                return self._ev(node.body if t else node.orelse, frame)
            a, b = self._ev(node.body, frame), self._ev(node.orelse, frame)
            return Val(
                expr=ast.IfExp(self._expr(c, node), self._expr(a, node), self._expr(b, node))
            )
        if isinstance(node, ast.Call):
            return self._call(node, frame)
        if isinstance(node, ast.Tuple):
            vals = [self._ev(e, frame) for e in node.elts]
            if any(isinstance(e, ast.Starred) for e in node.elts):
                raise self._error(node, "a starred tuple")
            kn = all(v.is_known() for v in vals)
            spelled = all(v.expr is not None or (v.is_known() and _literal(v.known)) for v in vals)
            return Val(
                expr=ast.Tuple([self._expr(v, node) for v in vals], ast.Load())
                if spelled
                else None,
                known=tuple(v.known for v in vals) if kn else _NOTHING,
                items=tuple(vals),
                truth=bool(vals),
            )
        if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
            a, b = self._ev(node.left, frame), self._ev(node.right, frame)
            if a.is_known() and b.is_known():
                return Val(known=_BIN[type(node.op)](a.known, b.known))
            return Val(expr=ast.BinOp(self._expr(a, node), node.op, self._expr(b, node)))
        if isinstance(node, ast.UnaryOp):
            v = self._ev(node.operand, frame)
            return Val(expr=ast.UnaryOp(node.op, self._expr(v, node)))
        raise self._error(node, f"an expression of kind {type(node).__name__}")

    def _name(self, node: ast.Name, frame: _Frame) -> Val:
        name = node.id
        if name in frame.env:
            v = frame.env[name]
            if v.poison:
                raise self._error(node, f"{name} is read where the output does not hold it")
            return v
        if name == "self":
            return Val(expr=ast.Name(self.self_name))
        if name in self.consts:
            return self.consts[name]
        if name.startswith("FEATURE_"):
            return Val(known=name[len("FEATURE_") :] in self.features)
        if name in frame.renames:  # a local assigned in a branch the output keeps
            return Val(expr=ast.Name(frame.renames[name]))
        return Val(expr=ast.Name(name))  # a module name of the engine

    def _subscript(self, node: ast.Subscript, frame: _Frame) -> Val:
        base, idx = self._ev(node.value, frame), self._ev(node.slice, frame)
        if base.every is not None and (idx.is_known() or idx.expr is None or _pure(idx.expr)):
            return base.every
        if idx.is_known():
            if base.items is not None:
                return base.items[idx.known]
            if base.is_known():
                return Val(known=base.known[idx.known])
        return Val(expr=ast.Subscript(self._expr(base, node), self._expr(idx, node), ast.Load()))

    def _compare(self, node: ast.Compare, frame: _Frame) -> Val:
        if len(node.ops) != 1:
            raise self._error(node, "a chained comparison")
        op = node.ops[0]
        a, b = self._ev(node.left, frame), self._ev(node.comparators[0], frame)
        if a.is_known() and b.is_known():
            return Val(known=_CMP[type(op)](a.known, b.known))
        if isinstance(op, ast.In | ast.NotIn) and (a.expr is None or _pure(a.expr)):
            if b.empty or (b.is_known() and not b.known):
                return Val(known=isinstance(op, ast.NotIn))
        if isinstance(op, ast.Is | ast.IsNot):
            if (a.is_known() and b.is_known()) or (
                b.is_known() and b.known is None and a.truthy() is True
            ):
                # (a value known true is not None)
                return Val(known=isinstance(op, ast.IsNot))
        return Val(expr=ast.Compare(self._expr(a, node), [op], [self._expr(b, node)]))

    def _boolop(self, node: ast.BoolOp, frame: _Frame, test: bool) -> Val:
        stop = isinstance(node.op, ast.Or)  # the truth that ends the chain
        kept: list[Val] = []
        vals = node.values
        for i, sub in enumerate(vals):
            v = self._ev(sub, frame, test=test)
            t = v.truthy()
            last = i == len(vals) - 1
            droppable = v.expr is None or _pure(v.expr) or v.is_known()
            if t is stop and droppable:
                if not kept:
                    return v  # the chain ends here, on a value the spec fixes
                if test:
                    return Val(known=stop)  # (only its truth matters)
                kept.append(v)
                break
            if t is (not stop) and droppable and not (last and not test and kept):
                if last and not kept:
                    return v
                continue  # it does not end the chain: the next operand decides
            kept.append(v)
        if not kept:
            return Val(known=not stop)
        if len(kept) == 1:
            return kept[0]
        return Val(expr=ast.BoolOp(node.op, [self._expr(v, node) for v in kept]))

    def _call(self, node: ast.Call, frame: _Frame) -> Val:
        f = node.func
        if isinstance(f, ast.Attribute):
            base = self._ev(f.value, frame)
            if base.empty and f.attr == "get":
                if len(node.args) == 2:
                    return self._ev(node.args[1], frame)
                return Val(known=None)
            if isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in self.inline:
                raise self._error(node, f"a call of {f.attr} inside an expression")
            fexpr: ast.expr = ast.Attribute(self._expr(base, node), f.attr, ast.Load())
        else:
            fexpr = self._expr(self._ev(f, frame), node)
        args: list[ast.expr] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                args.append(ast.Starred(self._expr(self._ev(a.value, frame), a), ast.Load()))
            else:
                args.append(self._expr(self._ev(a, frame), a))
        kws = [ast.keyword(k.arg, self._expr(self._ev(k.value, frame), k)) for k in node.keywords]
        return Val(expr=ast.Call(fexpr, args, kws))

    # ------------------------------------------------------------------ statements
    def _seq(
        self, stmts: list[ast.stmt], frame: _Frame, consumes: _Jump | None, tail: bool = False
    ) -> tuple[list[ast.stmt], _Jump | None]:
        """Statements specialised: (output, the jump it always ends by, or None). `consumes`:
        the jump whose target is the end of this sequence (an unrolled row, an inlined body);
        `tail`: the sequence ends the body of a loop the output keeps."""
        out: list[ast.stmt] = []
        work = list(stmts)
        while work:
            s = work.pop(0)
            if isinstance(s, ast.If):
                c = self._ev(s.test, frame, test=True)
                t = c.truthy()
                if t is not None and (c.expr is None or _pure(c.expr) or c.is_known()):
                    branch = s.body if t else s.orelse
                    if branch:  # folded: the branch taken stands in its place
                        work[:0] = [_Comment(x) for x in self.comments.above(s)] + branch
                    continue
                done, end, split = self._if(s, c, frame, tail and not work)
                if split is not None:  # one branch jumps: the rest goes into the other
                    jump, jumps_in_body = split
                    if jump is not consumes:
                        raise self._error(s, "a jump out of a nested block")
                    rest, end = self._seq(work, frame, consumes, tail)
                    if end is jump:
                        end = None
                    (done.orelse if jumps_in_body else done.body).extend(rest)
                    tidy = _tidy_if(done)
                    if tidy is not None:
                        out.append(tidy)
                    return out, end
                tidy = _tidy_if(done)
                if tidy is not None:
                    out.append(tidy)
                if end is not None:
                    return out, (None if end is consumes else end)
                continue
            done_stmts, end = self._stmt(s, frame, tail=tail and not work)
            out.extend(done_stmts)
            if end is not None:
                return out, (None if end is consumes else end)
        return out, None

    def _if(
        self, s: ast.If, c: Val, frame: _Frame, tail: bool
    ) -> tuple[ast.If, _Jump | None, tuple[_Jump, bool] | None]:
        """An `if` the spec does not decide: (it, the jump both branches end by, (the jump
        one branch ends by, whether it is the body) for the sequence to restructure)."""
        before = dict(frame.env)
        body, bend = self._seq(s.body, frame, None, tail)
        env_body = frame.env
        frame.env = dict(before)
        orelse, oend = self._seq(s.orelse, frame, None, tail)
        env_else = frame.env
        frame.env = self._merge(frame, before, [(env_body, body), (env_else, orelse)], s)
        node = ast.If(self._expr(c, s), body, orelse)
        ast.copy_location(node, s)
        if bend is oend:
            return node, bend, None
        for jump, in_body in ((bend, True), (oend, False)):
            other = oend if in_body else bend
            if jump is not None and jump is not _REAL and other is None:
                return node, None, (jump, in_body)
        if (bend is _REAL and oend is None) or (oend is _REAL and bend is None):
            return node, None, None  # the branch holds its `continue`
        raise self._error(s, "branches that jump to different places")

    def _merge(
        self,
        frame: _Frame,
        before: dict[str, Val],
        branches: list[tuple[dict[str, Val], list[ast.stmt]]],
        node: ast.AST,
    ) -> dict[str, Val]:
        """The locals after an `if`: a name its branches bind alike keeps its value; one bound
        differently is the output's local, assigned on each path where it was substituted
        (none on a path that does not bind it: read after the `if`, that is an error)."""
        merged = dict(before)
        names = {n for env, _ in branches for n in env if env.get(n) is not before.get(n)}
        for name in sorted(names):
            vals = [env.get(name) for env, _ in branches]
            if all(v is vals[0] for v in vals):
                merged[name] = vals[0]  # type: ignore[assignment]
                continue
            if any(v is None or v.poison for v in vals) or not _read_outside(frame.fn, name, node):
                merged[name] = Val(poison=True)  # (not read after the `if`)
                continue
            out = self._local(name, frame)
            for (_env, stmts), v in zip(branches, vals, strict=True):
                assert v is not None
                if isinstance(v.expr, ast.Name) and v.expr.id == out and not v.stable:
                    continue  # held in the local already
                stmts.append(
                    ast.Assign([ast.Name(out, ast.Store())], self._expr(v, node), lineno=0)
                )
            merged[name] = Val(expr=ast.Name(out))
        return merged

    def _stmt(self, s: ast.stmt, frame: _Frame, tail: bool) -> tuple[list[ast.stmt], _Jump | None]:
        if isinstance(s, _Comment):
            return [s], None
        if isinstance(s, ast.Pass):
            return [], None
        if isinstance(s, ast.Expr):
            return self._expr_stmt(s, frame, tail)
        if isinstance(s, ast.Assign | ast.AugAssign | ast.AnnAssign):
            return self._assign(s, frame), None
        if isinstance(s, ast.For):
            return self._for(s, frame)
        if isinstance(s, ast.While):
            if s.orelse:
                raise self._error(s, "a `while` with an `else`")
            if self._ev(s.test, frame, test=True).truthy() is False:
                return [], None
            pre, body, _ = self._loop_body(s, s.body, frame)
            test = self._ev(s.test, frame, test=True)  # (its names: the loop's locals now)
            return [*pre, ast.copy_location(ast.While(self._expr(test, s), body, []), s)], None
        if isinstance(s, ast.Continue):
            if not frame.loops:
                raise self._error(s, "a `continue` outside a loop")
            loop = frame.loops[-1]
            if loop == "kept":
                return [ast.copy_location(ast.Continue(), s)], _REAL
            return [], loop
        if isinstance(s, ast.Return):
            if s.value is not None:
                raise self._error(s, "a `return` with a value")
            if frame.ret is _REAL:
                if frame.kept_loops_since_ret:
                    raise self._error(s, "a `return` inside a loop of an inlined method")
                return [ast.copy_location(ast.Continue(), s)], _REAL
            return [], frame.ret
        raise self._error(s, f"a statement of kind {type(s).__name__}")

    def _expr_stmt(
        self, s: ast.Expr, frame: _Frame, tail: bool
    ) -> tuple[list[ast.stmt], _Jump | None]:
        e = s.value
        if isinstance(e, ast.Constant):
            return [], None  # a docstring
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
            f = e.func
            if isinstance(f.value, ast.Name) and f.value.id == "self" and f.attr in self.inline:
                return self._inline(e, frame, tail), None
            if (
                isinstance(f.value, ast.Attribute)
                and isinstance(f.value.value, ast.Name)
                and f.value.value.id == "self"
                and (f.value.attr, f.attr) in self.rewrites
            ):
                args = [self._expr(self._ev(a, frame), a) for a in e.args]
                made = self.rewrites[(f.value.attr, f.attr)](args)
                return [ast.copy_location(x, s) for x in made], None
        v = self._ev(e, frame)
        if v.expr is None or _pure(v.expr):
            return [], None
        return [ast.copy_location(ast.Expr(v.expr), s)], None

    def _inline(self, call: ast.Call, frame: _Frame, tail: bool) -> list[ast.stmt]:
        """`self.m(args)`: m's body, its parameters bound to the arguments. At the end of a
        kept loop's body its `return` is that loop's `continue`."""
        assert isinstance(call.func, ast.Attribute)
        fn = self._method(call.func.attr)
        if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
            raise self._error(call, "an inlined call with keywords or a starred argument")
        out: list[ast.stmt] = []
        args: dict[str, Val] = {}
        params = [p.arg for p in fn.args.args[1:]]
        for p, a in zip(params, call.args, strict=False):
            v = self._ev(a, frame)
            if v.expr is not None and not isinstance(v.expr, ast.Name | ast.Constant):
                tmp = self._local(f"_{p}", frame)  # an argument computed once, as a call does
                out.append(ast.copy_location(ast.Assign([ast.Name(tmp, ast.Store())], v.expr), a))
                v = Val(expr=ast.Name(tmp))
            args[p] = v
        tail_ok = tail and bool(frame.loops) and frame.loops[-1] == "kept"
        ret = _REAL if tail_ok else _Jump("return")
        inner = _Frame(env={}, taken=frame.taken | set(frame.renames.values()), ret=ret, fn=fn)
        self._bind_params(fn, inner, args, call)
        body, end = self._seq(fn.body, inner, consumes=None if ret is _REAL else ret, tail=tail)
        if end is not None and end is not _REAL:
            raise self._error(call, "a jump out of an inlined method")
        frame.taken |= set(inner.renames.values())
        return out + body

    def _assign(self, s: ast.stmt, frame: _Frame) -> list[ast.stmt]:
        if isinstance(s, ast.AnnAssign):
            if s.value is None:
                return []
            s = ast.copy_location(ast.Assign([s.target], s.value), s)
        if isinstance(s, ast.AugAssign):
            store = self._store(s.target, frame)
            v = self._ev(s.value, frame)
            return [ast.copy_location(ast.AugAssign(store, s.op, self._expr(v, s)), s)]
        assert isinstance(s, ast.Assign)
        if len(s.targets) != 1:
            raise self._error(s, "a chained assignment")
        target = s.targets[0]
        v = self._ev(s.value, frame)
        if isinstance(target, ast.Name):
            if _static(v) and not any(_read_before(x, target.id, s) for x in frame.kept):
                frame.env[target.id] = v  # substituted where it is read
                return []
            name = self._local(target.id, frame)
            frame.env[target.id] = Val(expr=ast.Name(name))
            value = self._expr(v, s)
            return [ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), s)]
        if isinstance(target, ast.Tuple) and all(isinstance(x, ast.Name) for x in target.elts):
            names = [x.id for x in target.elts if isinstance(x, ast.Name)]
            if v.items is not None and len(v.items) == len(names) and all(map(_static, v.items)):
                for n, x in zip(names, v.items, strict=True):
                    frame.env[n] = x
                return []
            outs = [self._local(n, frame) for n in names]
            for n, o in zip(names, outs, strict=True):
                frame.env[n] = Val(expr=ast.Name(o))
            tgt = ast.Tuple([ast.Name(o, ast.Store()) for o in outs], ast.Store())
            return [ast.copy_location(ast.Assign([tgt], self._expr(v, s)), s)]
        store = self._store(target, frame)
        return [ast.copy_location(ast.Assign([store], self._expr(v, s)), s)]

    def _store(self, target: ast.expr, frame: _Frame) -> ast.Name | ast.Attribute | ast.Subscript:
        if isinstance(target, ast.Name):
            if target.id in frame.env and frame.env[target.id].expr is None:
                raise self._error(target, f"{target.id} changes after the spec fixed it")
            name = self._local(target.id, frame)
            frame.env[target.id] = Val(expr=ast.Name(name))
            return ast.Name(name, ast.Store())
        if isinstance(target, ast.Attribute):
            if isinstance(target.value, ast.Name) and target.value.id == "self":
                if target.attr in self.views:
                    raise self._error(target, f"self.{target.attr} is replaced, not changed")
                return ast.Attribute(ast.Name(self.self_name), target.attr, ast.Store())
            base = self._ev(target.value, frame)
            return ast.Attribute(self._expr(base, target), target.attr, ast.Store())
        if isinstance(target, ast.Subscript):
            base = self._ev(target.value, frame)
            idx = self._ev(target.slice, frame)
            return ast.Subscript(self._expr(base, target), self._expr(idx, target), ast.Store())
        raise self._error(target, f"an assignment to {type(target).__name__}")

    def _for(self, s: ast.For, frame: _Frame) -> tuple[list[ast.stmt], _Jump | None]:
        if s.orelse:
            raise self._error(s, "a `for` with an `else`")
        it = self._ev(s.iter, frame)
        if it.items is not None:  # a table the spec fixes: one copy of the body per row
            out: list[ast.stmt] = []
            for k, item in enumerate(it.items):
                jump = _Jump("row")
                self._bind(s.target, item, frame)
                frame.loops.append(jump)
                body, end = self._seq(s.body, frame, consumes=jump)
                frame.loops.pop()
                if body and k < len(it.notes) and it.notes[k]:
                    out.append(_Comment(it.notes[k]))
                out.extend(body)
                if end is not None:
                    return out, end
            return out, None
        if it.truthy() is False:
            return [], None
        iexpr = self._expr(it, s)
        pre, body, target = self._loop_body(s, s.body, frame, s.target)
        assert target is not None
        return [*pre, ast.copy_location(ast.For(target, iexpr, body, []), s)], None

    def _loop_body(
        self, s: ast.stmt, stmts: list[ast.stmt], frame: _Frame, target: ast.expr | None = None
    ) -> tuple[list[ast.stmt], list[ast.stmt], ast.expr | None]:
        """A loop the output keeps: (the statements before it, its body, its target for the
        output). A name assigned in the loop is read again at each turn: the output's local,
        before (a value substituted so far is assigned to it there), in and after the loop (a
        value substituted in the body is not held after it)."""
        assigned = _assigned(s)
        pre: list[ast.stmt] = []
        for name in sorted(assigned):
            v = frame.env.get(name)
            local = self._local(name, frame)
            if v is not None and not v.poison and not _held(v, local):
                pre.append(ast.Assign([ast.Name(local, ast.Store())], self._expr(v, s), lineno=0))
            frame.env[name] = Val(expr=ast.Name(local))
        tgt = self._store_target(target, frame) if target is not None else None
        frame.loops.append("kept")
        frame.kept.append(s)
        frame.kept_loops_since_ret += 1
        body, _ = self._seq(stmts, frame, consumes=_REAL, tail=True)
        frame.kept_loops_since_ret -= 1
        frame.kept.pop()
        frame.loops.pop()
        for name in assigned:
            v = frame.env.get(name)
            if v is None or not _held(v, self._local(name, frame)):
                frame.env[name] = Val(poison=True)
        return pre, body or [ast.Pass()], tgt

    def _store_target(self, target: ast.expr, frame: _Frame) -> ast.expr:
        if isinstance(target, ast.Name):
            return self._store(target, frame)
        if isinstance(target, ast.Tuple):
            return ast.Tuple([self._store_target(x, frame) for x in target.elts], ast.Store())
        raise self._error(target, "a loop target that is not names")

    def _bind(self, target: ast.expr, v: Val, frame: _Frame) -> None:
        """A row's values bound to the loop's names (the row is unrolled)."""
        if isinstance(target, ast.Name):
            frame.env[target.id] = v
            return
        if isinstance(target, ast.Tuple) and v.items is not None:
            if len(v.items) != len(target.elts):
                raise self._error(target, "a row of another width than the loop's names")
            for t, x in zip(target.elts, v.items, strict=True):
                self._bind(t, x, frame)
            return
        raise self._error(target, "a row the specialiser cannot take apart")


# ---------------------------------------------------------------------- helpers
def _literal(v: Any) -> bool:
    if isinstance(v, tuple):
        return all(_literal(x) for x in v)
    return v is None or isinstance(v, bool | int | str)


def _tuple(v: tuple) -> ast.expr:
    return ast.Tuple([ast.Constant(x) for x in v], ast.Load())


def _static(v: Val) -> bool:
    """A value substituted where it is read rather than held in a local: one the spec fixes,
    or a name or attribute the output reads anyway (a view)."""
    if v.expr is None:
        return True
    if v.is_known() or v.items is not None or v.every is not None or v.stable:
        return True
    return isinstance(v.expr, ast.Name) and v.expr.id[:1].isupper()


def _negate(e: ast.expr) -> ast.expr:
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and type(e.ops[0]) in _NEGATED:
        return ast.Compare(e.left, [_NEGATED[type(e.ops[0])]()], e.comparators)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        return e.operand
    return ast.UnaryOp(ast.Not(), e)


def _assigned(s: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}


def _held(v: Val, local: str) -> bool:
    """Is `v` the output's local `local` itself?"""
    return isinstance(v.expr, ast.Name) and v.expr.id == local and not v.stable


def _read_before(loop: ast.stmt, name: str, node: ast.stmt) -> bool:
    """Is `name` read in `loop` above `node` (at the next turn, before `node` assigns it)?"""
    line = getattr(node, "lineno", 0)
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and n.lineno < line
        for n in ast.walk(loop)
    )


def _read_outside(fn: ast.FunctionDef | None, name: str, node: ast.AST) -> bool:
    """Is `name` read in `fn` outside `node`'s lines (after it, or at the next turn of a loop)?"""
    if fn is None:
        return True
    lo, hi = getattr(node, "lineno", 0), getattr(node, "end_lineno", 0) or 0
    return any(
        isinstance(n, ast.Name)
        and n.id == name
        and isinstance(n.ctx, ast.Load)
        and not lo <= n.lineno <= hi
        for n in ast.walk(fn)
    )


def _tidy_if(node: ast.If) -> ast.stmt | None:
    """An `if` one of whose branches is empty: the test negated, or nothing."""
    if not node.body and not node.orelse:
        if _pure(node.test):
            return None
        node.body = [ast.Pass()]
        return node
    if not node.body:
        new = ast.If(_negate(node.test), node.orelse, [])
        return ast.copy_location(new, node)
    return node


def _peephole(stmts: list[ast.stmt], comments_at: Iterable[int] = ()) -> list[ast.stmt]:
    """`for e in xs: a, b = e` -> `for a, b in xs:`; `x = e` then `for a in x:` (x read there
    only, its line uncommented) -> `for a in e:`; an unread loop name -> `_`."""
    comments_at = set(comments_at)
    reads: dict[str, int] = {}
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and not isinstance(getattr(n, "ctx", None), ast.Store):
                reads[n.id] = reads.get(n.id, 0) + 1
    loads = {
        n.id
        for s in stmts
        for n in ast.walk(s)
        if isinstance(n, ast.Name) and not isinstance(getattr(n, "ctx", None), ast.Store)
    }

    def walk(body: list[ast.stmt]) -> None:
        for k in range(len(body) - 2, -1, -1):  # `x = e` then `for .. in x:`, x read once
            s, nxt = body[k], body[k + 1]
            if (
                isinstance(s, ast.Assign)
                and isinstance(s.targets[0], ast.Name)
                and isinstance(nxt, ast.For)
                and isinstance(nxt.iter, ast.Name)
                and nxt.iter.id == s.targets[0].id
                and reads.get(s.targets[0].id) == 1
                and getattr(s, "lineno", 0) not in comments_at
            ):
                nxt.iter = s.value
                del body[k]
        for s in body:
            if isinstance(s, ast.For):
                first = s.body[0] if s.body else None
                if (
                    isinstance(s.target, ast.Name)
                    and isinstance(first, ast.Assign)
                    and isinstance(first.value, ast.Name)
                    and first.value.id == s.target.id
                    and isinstance(first.targets[0], ast.Tuple)
                    and sum(
                        isinstance(n, ast.Name) and n.id == s.target.id
                        for x in s.body
                        for n in ast.walk(x)
                    )
                    == 1
                ):
                    s.target = first.targets[0]
                    s.body = s.body[1:] or [ast.Pass()]
                if isinstance(s.target, ast.Tuple):
                    for x in s.target.elts:
                        if isinstance(x, ast.Name) and x.id not in loads:
                            x.id = "_"
            for sub in ("body", "orelse"):
                walk(getattr(s, sub, []) or [])

    # a name read only where the fused assignment read it: counted again after fusing
    walk(stmts)
    return stmts


# ---------------------------------------------------------------------- comments and output
class _Comments:
    """The source's comments by line: the trailing one of a line, and the block above it."""

    def __init__(self, trailing: dict[int, str], whole: dict[int, str]) -> None:
        self.trailing, self.whole = trailing, whole

    def above(self, node: ast.AST) -> list[str]:
        line = getattr(node, "lineno", None)
        out: list[str] = []
        if line is None:
            return out
        k = line - 1
        while k in self.whole:
            out.insert(0, self.whole[k])
            k -= 1
        return out

    def after(self, node: ast.AST) -> str | None:
        line = getattr(node, "lineno", None)
        return None if line is None else self.trailing.get(line)


def _comments(source: str) -> _Comments:
    trailing: dict[int, str] = {}
    whole: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            (line, col) = tok.start
            if tok.line[:col].strip():
                trailing[line] = tok.string
            elif not tok.string.startswith("# maf:"):
                whole[line] = tok.string
    return _Comments(trailing, whole)


def _emit(stmts: list[ast.stmt], depth: int, out: list[str], comments: _Comments) -> None:
    pad = "    " * depth
    for s in stmts:
        if isinstance(s, _Comment):
            out.append(pad + s.text)
            continue
        out.extend(pad + c for c in comments.above(s))
        if isinstance(s, ast.If):
            _emit_if(s, depth, out, comments, "if")
            continue
        if isinstance(s, ast.For):
            head = f"for {_src(s.target)} in {_src(s.iter)}:"
        elif isinstance(s, ast.While):
            head = f"while {_src(s.test)}:"
        else:
            head = ""
        if head:
            out.extend(_line(pad + head, comments.after(s)))
            _emit(s.body, depth + 1, out, comments)  # type: ignore[attr-defined]
            continue
        out.extend(_line(pad + ast.unparse(s), comments.after(s)))


def _emit_if(s: ast.If, depth: int, out: list[str], comments: _Comments, kw: str) -> None:
    pad = "    " * depth
    out.extend(_line(f"{pad}{kw} {_src(s.test)}:", comments.after(s)))
    _emit(s.body, depth + 1, out, comments)
    if len(s.orelse) == 1 and isinstance(s.orelse[0], ast.If):
        _emit_if(s.orelse[0], depth, out, comments, "elif")
    elif s.orelse:
        out.append(f"{pad}else:")
        _emit(s.orelse, depth + 1, out, comments)


def _src(e: ast.AST) -> str:
    text = ast.unparse(e)
    if isinstance(e, ast.Tuple) and text.startswith("(") and text.endswith(")"):
        return text[1:-1]  # `for a, b in xs:`
    return text


def _line(code: str, comment: str | None) -> list[str]:
    if comment and len(code) + 2 + len(comment) <= _WIDTH:
        return [f"{code}  {comment}"]
    if comment:  # (too long for the line: above it)
        pad = code[: len(code) - len(code.lstrip())]
        return [f"{pad}{comment}", code]
    return [code]


@lru_cache(maxsize=4)
def runtime_source(name: str = "core") -> str:
    """The text of compiler/runtime/<name>.py (what the specialiser reads by default)."""
    return (Path(__file__).resolve().parents[1] / "runtime" / f"{name}.py").read_text(
        encoding="utf-8"
    )


__all__ = [
    "EMPTY",
    "SpecialiseError",
    "Specialiser",
    "Val",
    "known",
    "replace",
    "residual",
    "row",
    "runtime_source",
    "table",
    "uniform",
    "view",
]
