"""Sample tables drawn from custom setups (`setup ... any where EXPR`), so the checks that need
concrete tables (K002 replays, K004 searches, K008 role use) are not blind to them.

Z3 solves the `where` rule over one count per role at a few table sizes of the range (the
smallest, the largest and one in the middle); each sample seats a role no earlier sample of that
size seats, while possible, so together they cover every role the rule allows at that size.
"""

from __future__ import annotations

import z3

from maf.compiler.ir import nodes as ir
from maf.compiler.verify.check.z3x import State, Translator, check, solver

MAX_PER_SIZE = 4


def _sizes(lo, hi):
    return sorted({lo, (lo + hi) // 2, hi})


def count_solver(ctx, where, n):
    """(solver, count vars) with the counts adding up to n and `where` asserted."""
    st = State(ctx, f"@custom{n}")
    counts = [z3.Int(f"count_{r.id}@{n}") for r in ctx.p.roles]
    tr = Translator(st, counts={r: counts[r] for r in range(ctx.nroles)})
    s = solver()
    s.add(*[c >= 0 for c in counts], z3.Sum(counts) == n, st.players == n)
    s.add(tr.bool_of(where), *st.side)
    s.add(*[st.lr[r] == counts[r] for r in range(ctx.nroles)])  # everyone alive at the start
    s.undecided = z3.And([z3.Not(tr.bool_of(w.cond)) for w in ctx.p.wins] + [z3.BoolVal(True)])
    return s, counts


def sample_tables(ctx):
    out = []
    for label, lo, hi, where, span in ctx.custom:
        for n in _sizes(lo, hi):
            s, counts = count_solver(ctx, where, n)
            if check(s, s.undecided):
                s.add(s.undecided)  # prefer tables where no win holds before the first night
            seated: set[int] = set()
            for _ in range(MAX_PER_SIZE):
                new = [counts[r] >= 1 for r in range(ctx.nroles) if r not in seated]
                if seated and not new:
                    break
                extra = [z3.Or(new)] if seated and new else []
                if not check(s, *extra):
                    if extra:
                        break
                    break
                m = s.model()
                cs = tuple(
                    (r, m.eval(counts[r], model_completion=True).as_long())
                    for r in range(ctx.nroles)
                )
                cs = tuple((r, c) for r, c in cs if c)
                seated |= {r for r, _ in cs}
                out.append(ir.Setup(label or "custom", n, cs, span))
    return tuple(out)


def role_allowed(ctx, role):
    """Some custom rule seats `role` at some size of its range (None: no custom setup)."""
    if not ctx.custom:
        return None
    cache = ctx.__dict__.setdefault("_count_solvers", {})
    for k, (_label, lo, hi, where, _span) in enumerate(ctx.custom):
        for n in range(lo, hi + 1):
            if (k, n) not in cache:
                cache[(k, n)] = count_solver(ctx, where, n)
            s, counts = cache[(k, n)]
            if check(s, counts[role] >= 1):
                return n
    return False


def table_with(ctx, roles_a, roles_b):
    """A table some custom rule allows that seats a player of `roles_a` and one of `roles_b`
    (two players if it is the same role), or None. Cached per pair of role sets."""
    cache = ctx.__dict__.setdefault("_tables_with", {})
    key = (tuple(roles_a), tuple(roles_b))
    if key in cache:
        return cache[key]
    solvers = ctx.__dict__.setdefault("_count_solvers", {})
    got = None
    for k, (label, lo, hi, where, span) in enumerate(ctx.custom):
        for n in range(lo, hi + 1):
            if (k, n) not in solvers:
                solvers[(k, n)] = count_solver(ctx, where, n)
            s, counts = solvers[(k, n)]
            both = [
                z3.Or(
                    [counts[r] >= (2 if r in roles_b else 1) for r in roles_a if r in roles_b]
                    + [z3.BoolVal(False)]
                )
            ]
            apart = z3.And(
                z3.Or([counts[r] >= 1 for r in roles_a]), z3.Or([counts[r] >= 1 for r in roles_b])
            )
            if check(s, z3.Or(apart, *both) if set(roles_a) & set(roles_b) else apart):
                m = s.model()
                cs = tuple(
                    (r, m.eval(counts[r], model_completion=True).as_long())
                    for r in range(ctx.nroles)
                )
                got = ir.Setup(label or "custom", n, tuple((r, c) for r, c in cs if c), span)
                break
        if got:
            break
    cache[key] = got
    return got
