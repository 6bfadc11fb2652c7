"""K011 truncating division: `/` on integers rounds toward minus infinity at once, so in
`alive / 2 - 1 / 2` each half is truncated separately ("half minus a half" becomes "half").

A finding needs an arithmetic expression (a maximal `+ - * /` term, outside `floor`, `ceil` and
`round`, whose `/` is exact) in which a division is not the last step, and a state where the
truncating result differs from the exact value rounded down: Z3 compares the two over the
abstract state (table sizes, living counts). A lone `alive / 2` or `(alive + 1) / 2`, or
`alive / 2 + 1`, always equals its exact value rounded down and is never flagged.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import z3

from maf.compiler.ir import nodes as ir
from maf.compiler.verify.check.model import Finding
from maf.compiler.verify.check.z3x import Opaque, State, Translator, check, key_of, solver
from maf.dsl.codes import Code

CODE = Code.K011
TITLE = "truncating division"
ARITH = ("+", "-", "*", "/")
ROUNDING = ("floor", "ceil", "round")


def _is_arith(e):
    return (isinstance(e, ir.Binary) and e.op in ARITH) or (isinstance(e, ir.Unary) and e.op == "-")


def _inner_division(e, top=True):
    """Does the arithmetic term divide somewhere other than as its last step?"""
    if isinstance(e, ir.Unary):
        return _inner_division(e.operand, False)
    if isinstance(e, ir.Binary) and e.op in ARITH:
        if e.op == "/" and not top:
            return True
        return _inner_division(e.left, False) or _inner_division(e.right, False)
    return False


def terms(node, out, seen):
    """Maximal arithmetic terms anywhere in the program (not inside a rounding call)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, (tuple, list)):
        for x in node:
            terms(x, out, seen)
        return
    if isinstance(node, ir.Call) and node.func in ROUNDING:
        return
    if _is_arith(node):
        out.append(node)
        _leaves(node, out, seen)
        return
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            if f.name == "span":
                continue
            terms(getattr(node, f.name), out, seen)


def _leaves(e, out, seen):
    """Look for terms nested under non-arithmetic leaves (calls) of an arithmetic term."""
    if _is_arith(e):
        for x in (e.operand,) if isinstance(e, ir.Unary) else (e.left, e.right):
            _leaves(x, out, seen)
    else:
        terms(e, out, seen)


def _leaf_values(tr, e, m, out):
    if _is_arith(e):
        for x in (e.operand,) if isinstance(e, ir.Unary) else (e.left, e.right):
            _leaf_values(tr, x, m, out)
    elif not isinstance(e, ir.Const):
        v = tr.tr(e)
        if isinstance(v, z3.ArithRef):
            out.setdefault(key_of(e), m.eval(v, model_completion=True))


def run(ctx):
    out = []
    found: list[Any] = []
    terms(ctx.p, found, set())
    for e in found:
        if not _inner_division(e):
            continue
        st = State(ctx, "@div")
        tr = Translator(st)
        v = tr.tr(e)
        if isinstance(v, Opaque) or not isinstance(v, z3.ArithRef):
            continue
        exact = tr.real_of(e)
        s = solver()
        s.add(*st.constraints(), *st.side)
        if not check(s, v != z3.ToInt(exact)):
            continue
        if not check(s, v != z3.ToInt(exact), st.alive >= 3):  # a living table, if possible
            check(s, v != z3.ToInt(exact))
        m = s.model()
        vals: dict[Any, Any] = {}
        _leaf_values(tr, e, m, vals)
        got = m.eval(v, model_completion=True)
        ex = m.eval(exact, model_completion=True)
        text = _src(ctx, e.span)
        where = ", ".join(f"{k} = {x}" for k, x in vals.items())
        out.append(
            Finding(
                CODE,
                "warning",
                f"`{text}` truncates a division before the end: it is {got} where the exact value "
                f"is {ex}",
                e.span,
                evidence=[
                    f"witness: {where or 'constants only'}",
                    f"  integer arithmetic (each `/` rounds down at once): {got}",
                    f"  exact arithmetic: {ex} (rounded down: "
                    f"{m.eval(z3.ToInt(exact), model_completion=True)})",
                ],
                hint=f"write `floor({text})`, `ceil({text})` or `round({text})`: inside them `/` "
                "is exact",
                witness={k: str(x) for k, x in vals.items()},
            )
        )
    return out


def _src(ctx, span):
    if 0 < span.line <= len(ctx.lines) and span.end_line == span.line:
        return ctx.lines[span.line - 1][span.col - 1 : span.end_col - 1]
    return ctx.line_of(span)
