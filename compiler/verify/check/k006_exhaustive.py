"""K006 exhaustive outcomes: an if/elif chain without `else` that decides by the role or team
of a target must cover every role the target filter allows (at some table size)."""

from __future__ import annotations

import z3

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.abq import moved_query
from maf.compiler.verify.check.effects import written_before
from maf.compiler.verify.check.model import Finding, bodies, subexprs, walk
from maf.dsl.codes import Code

CODE = Code.K006
TITLE = "exhaustive outcomes"


def _of_seat_var(e):
    """The target variable whose role, team or kind `e` reads (semantics: a call whose fact is
    `of_seat`, or an information read, ir.Seen, that may show a registration), else None."""
    if isinstance(e, ir.Seen):
        seat = e.seat
    elif isinstance(e, ir.Call) and e.args and sem.CALLS.get(e.func, sem.ReadFact(())).of_seat:
        seat = e.args[0]
    else:
        return None
    return seat.name if isinstance(seat, ir.Var) else None


def _shown(ctx, reg):
    """What an information read may show a role's seat as besides the truth (`registers as`)."""
    teams, roles, kinds = reg
    names = [f"team {ctx.team_name(t)}" for t in teams] + [
        f"role {ctx.role_name(r)}" for r in roles
    ]
    names += [f"kind {ctx.p.kinds[k].id}" for k in kinds]
    return f"; it registers as {' or '.join(names)}" if names else ""


def _case_vars(cond):
    out = set()
    for x in subexprs(cond):
        v = _of_seat_var(x.value if isinstance(x, ir.In) else x)
        if v is not None:
            out.add(v)
    return out


def run(ctx):
    out = []
    dests = None
    for ab in ctx.p.abilities:
        q = None
        # a card that can move before the body (effects.written_before) may hold any role a
        # conversion makes: the filter's role tests no longer narrow it to those (K007 alike)
        moved = written_before(ctx.p, ab, "role", ctx.__dict__.setdefault("_k007_wb", {}))
        for s, path in walk(bodies(ab)):
            if not isinstance(s, ir.If) or s.orelse or len(s.branches) < 2 or sem.is_dispatch(s):
                continue
            common = None
            for cond, _ in s.branches:
                vs = _case_vars(cond)
                common = vs if common is None else common & vs
            targets = [t.name for t in ab.targets]
            var = next((v for v in targets if common and v in common), None)
            if var is None:
                continue
            if q is None:
                q = ctx.query(ab)
            guard = q.guard(path)
            none = [z3.Not(q.translate_bool(c)) for c, _ in s.branches]
            rv = q.target_roles[var]
            missing = q.possible_roles(rv, guard + none)
            after_move = ""
            if moved and not missing:
                if dests is None:
                    dests = sem.convert_dests(ctx.p)
                mq = moved_query(ctx, ab)
                got = mq.possible_roles(
                    mq.target_roles[var],
                    mq.guard(path) + [z3.Not(mq.translate_bool(c)) for c, _ in s.branches],
                )
                missing = [r for r in got if r in dests]
                if missing:
                    q = mq
                    guard = mq.guard(path)
                    none = [z3.Not(mq.translate_bool(c)) for c, _ in s.branches]
                    rv = mq.target_roles[var]
                    after_move = (
                        f" (a card can move before this body runs, line {moved[0].line}: the "
                        "target filter's role tests no longer hold)"
                    )
            if not missing:
                continue
            regs = sem.registrations(ctx.p)
            names = ", ".join(
                f"{ctx.role_name(r)} (team {ctx.team_name(ctx.role_team[r])}{_shown(ctx, regs[r])})"
                for r in missing
            )
            wit = q.model_text(guard + none + [rv == missing[0]])
            out.append(
                Finding(
                    CODE,
                    "error",
                    f"`{ab.id}` decides by the role/team of `{var}` but no case covers "
                    f"`{ctx.role_name(missing[0])}`",
                    s.span,
                    evidence=[
                        f"uncovered: {var} is {names}" + after_move,
                        "witness: " + ", ".join(wit) + "; no branch applies",
                    ],
                    hint="add an `else` branch or a case for the uncovered roles",
                    witness={
                        "ability": ab.id,
                        "var": var,
                        "uncovered": [ctx.role_name(r) for r in missing],
                    },
                )
            )
    return out
