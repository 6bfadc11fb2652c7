"""K002 ambiguous order: equal tier, no declared order, effects that do not commute.

The witness is confirmed by replaying one night through the generated engine twice: once in
the compiled order, once with the two abilities' ranks swapped; the dawn reports (and the
resulting state) must differ.
"""

from __future__ import annotations

import copy
import itertools
from typing import Any

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.effects import (
    before_closure,
    clashes,
    describe,
    effects,
    flows,
    forced,
)
from maf.compiler.verify.check.k001_cycle import tier_span
from maf.compiler.verify.check.model import Finding, subexprs
from maf.compiler.verify.check.z3x import State, Translator, check, conjuncts, solver
from maf.dsl.codes import Code

CODE = Code.K002
TITLE = "ambiguous order"
MAX_TRIES = 20000


def _exclusive(ctx, a, b) -> bool:
    """Can a and b never resolve in the same night (one actor, one exclusive group)?"""
    if a.exclusive_group < 0 or a.exclusive_group != b.exclusive_group or a.role != b.role:
        return False
    r = a.role
    for x in (a, b):
        if x.holders and x.holders[0] != r:
            return False
    if r in ctx.convert_dest:
        return False
    return all(ctx.max_count.get((r, n), 0) <= 1 for n in ctx.sizes)


def _table_exclusive(a, b) -> bool:
    """One table-wide `exclusive` group: at most one of them is used per night."""
    return a.table_group >= 0 and a.table_group == b.table_group


def _table_conjuncts(e):
    """The conjuncts of a `when` that speak of the table only (no target, choice or self)."""
    if e is None:
        return []
    out = []
    for part in conjuncts(e):
        if any(
            isinstance(x, ir.Var) or (isinstance(x, ir.Builtin) and x.name == "self")
            for x in subexprs(part)
        ):
            continue
        out.append(part)
    return out


def shared_night(ctx, a, b):
    """A night number on which both abilities can be used, or None if they never share one
    (`from night N`, table-level `when` conditions, quiet nights)."""
    st = State(ctx, "@night")
    tr = Translator(st)
    night = st.int_("night", 1)
    s = solver()
    s.add(*st.constraints())
    s.add(night >= max(a.from_number, b.from_number, 1))
    for q in ctx.p.quiet_nights:
        s.add(night != q)
    for x in (a, b):
        for part in _table_conjuncts(x.when):
            s.add(tr.bool_of(part))
    s.add(*st.side)
    if not check(s):
        return None
    return s.model().eval(night, model_completion=True).as_long()


def _common_size(ctx, a, b):
    for s in ctx.all_setups():
        roles = {r for r, c in s.counts if c}
        if set(ctx.actor_roles(a)) & roles and set(ctx.actor_roles(b)) & roles:
            return s
    if ctx.custom:  # a table of the custom rule seating both actors, if it allows one
        from maf.compiler.verify.check.samples import table_with

        return table_with(ctx, ctx.actor_roles(a), ctx.actor_roles(b))
    return None


def _norm(rep):
    """A report with its lists in a canonical order: the order of messages and changes within
    one night is not an outcome (tell/announce commute)."""
    if isinstance(rep, dict):
        return {k: _norm(v) for k, v in rep.items()}
    if isinstance(rep, list):
        return sorted((_norm(x) for x in rep), key=repr)
    return rep


def _state(g):
    return (
        list(g.role),
        list(g.marks),  # per seat, a bit mask of its marks
        list(g.memory),
        g.trial,
        g.winner,
        list(g.alive),
    )


def replay(ctx, a, b, setup, night=None):
    """Look for actions of a and b whose night differs with the two orders swapped: first the
    two alone, then with one more action of another night ability (a kill first), since some
    races (a steal against a save) only show when something else happens that night."""
    from maf.compiler.driver import compile_engine, load_engine

    if not ctx.python:
        return None, 0
    code = ctx.__dict__.get("_k002_code")  # compiled once per spec: each replay execs it anew
    if code is None:
        code = ctx._k002_code = compile_engine(ctx.python, ctx.p.id + "_k002")
    m1 = load_engine(code, ctx.p.id + "_k002a")
    m2 = swapped_engine(code, ctx.p.id + "_k002b", a.idx, b.idx)
    seats = [m1.ROLES[r] for r, c in setup.counts for _ in range(c)]
    n = len(seats)
    number = night or max(a.from_number, b.from_number, 1)
    while number in ctx.p.quiet_nights:
        number += 1

    def fresh(mod, pre=None):
        g = mod.Game.new(seats)
        g.phase, g.night, g.day = "night", number, number - (0 if ctx.p.first == "day" else 1)
        g.chaos = False
        if pre:  # a player gone before this night (for `when departed(...)`-like conditions)
            g.moderator_kill(pre)
            g.phase = "night"
        return g

    base = fresh(m1)

    def actor_of(ab):
        for s in range(1, n + 1):
            try:
                if base.find_ability(s, ab.id) == ab.idx:
                    return s
            except Exception:  # not this seat
                continue
        return None

    def options(ab):
        k: list[Any] = [range(1, n + 1)] * len(ab.targets)
        for c in ab.choices:  # the engine takes role and team choices by id
            k.append([x.id for x in (ctx.p.roles if c.kind == "role" else ctx.p.teams)])
        return itertools.product(*k)

    xa, xb = actor_of(a), actor_of(b)
    if xa is None or xb is None:
        return None, 0
    tries = 0

    def attempt(acts, pre=None):
        try:
            g1, g2 = fresh(m1, pre), fresh(m2, pre)
        except Exception:  # the game ended, or the seat cannot go
            return None
        try:
            r1 = g1.resolve_night(copy.deepcopy(acts))
            r2 = g2.resolve_night(copy.deepcopy(acts))
        except Exception:  # the engine rejects this combination
            return None
        if _norm(r1) != _norm(r2) or _state(g1) != _state(g2):
            return {
                "seats": seats,
                "night": number,
                "actions": acts,
                "compiled_order": r1,
                "swapped_order": r2,
            }
        return None

    # the night as it starts, then with one bystander of each team gone before it
    pres: list[int | None] = [None]
    for team in sorted(set(base.team[1:])):
        s_ = next((x for x in range(1, n + 1) if base.team[x] == team and x not in (xa, xb)), None)
        if s_ is not None:
            pres.append(s_)
    for pre in pres:
        for oa in options(a):
            for ob in options(b):
                tries += 1
                if tries > MAX_TRIES:
                    return None, tries
                got = attempt([[xa, a.id, *oa], [xb, b.id, *ob]], pre)
                if got:
                    if pre:
                        got["gone_before"] = pre
                    return got, tries
    others = [c for c in ctx.p.abilities if c.at_night and c.idx not in (a.idx, b.idx)]
    others.sort(key=lambda c: (not sem.kinds(c.body, lambda f: f.kills), c.idx))
    for c in others:
        xc = actor_of(c)
        if xc is None or xc in (xa, xb):
            continue
        for oc in options(c):
            for oa in options(a):
                for ob in options(b):
                    tries += 1
                    if tries > MAX_TRIES:
                        return None, tries
                    acts = sorted(
                        [[xa, a.id, *oa], [xb, b.id, *ob], [xc, c.id, *oc]], key=lambda x: x[0]
                    )
                    got = attempt(acts)
                    if got:
                        return got, tries
    return None, tries


def swapped_engine(python, name, ia, ib):
    """The generated engine (its source or its code, as load_engine takes) with abilities ia
    and ib resolving in each other's place."""
    from maf.compiler.driver import load_engine

    mod: Any = load_engine(python, name)  # an engine module: its tables by name
    if getattr(mod, "FAST_NIGHT", None) is not None:
        mod.FAST_NIGHT = None  # the compiled night has the order unrolled: use the generic one
    ranks = list(mod.AB_RANK)
    ra, rb = ranks[ia], ranks[ib]
    ranks[ia], ranks[ib] = rb, ra
    mod.AB_RANK = tuple(ranks)
    swap = {ia: rb, ib: ra}
    for meth in ("_validate", "_validate_full"):
        orig = getattr(mod.Game, meth, None)
        if orig is None:
            continue

        def patched(self, *args, _orig=orig, **kw):
            e = _orig(self, *args, **kw)
            if e[2] in swap and e[0] != swap[e[2]]:
                e = (swap[e[2]],) + tuple(e[1:])
            return e

        setattr(mod.Game, meth, patched)
    fast = list(getattr(mod, "FAST", ()))
    for i in (ia, ib):  # the generated fast checks carry their rank as a constant
        if i < len(fast) and fast[i] is not None:

            def wrapped(*args, _f=fast[i], _rank=swap[i]):
                e = _f(*args)
                return None if e is None else (_rank,) + tuple(e[1:])

            fast[i] = wrapped
    if fast:
        mod.FAST = tuple(fast)
    return mod


MAX_REPLAYS_PER_DEFECT = 3  # pairs of one defect replayed before it is reported unconfirmed


def run(ctx):
    p = ctx.p
    night = [x for x in p.abilities if x.at_night]
    eff = {x.idx: effects(p, x) for x in night}
    closure = before_closure(p)
    # defect key -> [(a, b, why)]: one writer and many readers is ONE defect
    groups: dict[tuple, list] = {}
    for a, b in itertools.combinations(sorted(night, key=lambda x: x.rank), 2):
        if forced(p, a, b, closure) or _exclusive(ctx, a, b) or _table_exclusive(a, b):
            continue
        why: list[tuple[str, Any, Any]] = []
        keys: list[tuple] = []
        for x, y in ((a, b), (b, a)):
            for wk, ws, rs in flows(eff[x.idx], eff[y.idx]):
                why.append(
                    (
                        f"one {describe(p, wk)} (line {ws.line}), the other reads it "
                        f"(line {rs.line})",
                        ws,
                        rs,
                    )
                )
                keys.append(("flow", x.idx, wk, y.tier))
        for ka, sa, kb, sb in clashes(eff[a.idx], eff[b.idx]):
            why.append(
                (
                    f"`{a.id}` {describe(p, ka)} (line {sa.line}) and `{b.id}` "
                    f"{describe(p, kb)} (line {sb.line})",
                    sa,
                    sb,
                )
            )
            keys.append(("clash", a.idx, b.idx))
        if not why:
            continue
        if _common_size(ctx, a, b) is None or shared_night(ctx, a, b) is None:
            continue  # they never sit at one table, or never act on the same night
        groups.setdefault(keys[0], []).append((a, b, why))
    out = []
    for pairs in groups.values():
        wit, tries, found = None, 0, pairs[0]
        for a, b, why in pairs[:MAX_REPLAYS_PER_DEFECT]:
            w, t = replay(ctx, a, b, _common_size(ctx, a, b), shared_night(ctx, a, b))
            tries += t
            if w:
                wit, found = w, (a, b, why)
                break
        out.append(_finding(ctx, found, wit, tries, pairs))
    return out


def _finding(ctx, found, wit, tries, pairs):
    a, b, why = found
    ev = [
        f"`{a.id}` and `{b.id}` both have tier {a.tier} and no declared order; the "
        f"compiler resolves `{a.id}` first only because it is defined first"
    ]
    ev += [f"they do not commute: {w}" for w, _, _ in why]
    others = [(x, y) for x, y, _ in pairs if (x, y) != (a, b)]
    if others:
        ev.append(
            f"the same effect meets {len(others)} other ability pair(s) of that tier: "
            + ", ".join(f"{x.id}/{y.id}" for x, y in others[:10])
            + (" ..." if len(others) > 10 else "")
        )
    if wit:
        ev.append(
            f"witness (replayed through the generated engine): night {wit['night']} of "
            f"a {len(wit['seats'])}-seat table {wit['seats']}"
        )
        if wit.get("gone_before"):
            ev.append(
                f"  seat {wit['gone_before']} left the game before that night "
                "(the moderator removes it)"
            )
        ev.append(f"  actions: {wit['actions']}")
        ev.append(f"  {a.id} first: {_short(wit['compiled_order'])}")
        ev.append(f"  {b.id} first: {_short(wit['swapped_order'])}")
        sev = "error"
    else:
        ev.append(f"not confirmed: no differing night found in {tries} replayed nights")
        sev = "warning"
    more = f" (and {len(others)} other pair(s) with the same effect)" if others else ""
    return Finding(
        CODE,
        sev,
        f"ambiguous order: `{a.id}` and `{b.id}` resolve in the same step and "
        f"their effects do not commute{more}",
        tier_span(ctx, b),  # the line to change: the later one's tier (or its header)
        evidence=ev,
        notes=((f"`{a.id}` resolves first only by definition order: its tier", tier_span(ctx, a)),)
        + tuple(("conflicting effect", s) for _, s, _ in why[:1])
        + tuple((f"`{y.id}` meets it too", y.span) for _, y in others[:3]),
        hint=f"give them different tiers or declare `order {a.id} before {b.id}`",
        unknown=sev == "warning",
        witness=wit and {k: v for k, v in wit.items()},
    )


def _short(rep):
    keys = ("deaths", "public", "private", "changes", "winner")
    return {k: rep.get(k) for k in keys if rep.get(k)}
