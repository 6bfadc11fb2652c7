"""Per-ability Z3 queries: who can be targeted, which branch can apply, who a kill can hit."""

from __future__ import annotations

import z3

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.z3x import (
    SeatVal,
    State,
    Translator,
    check,
    conjuncts,
    presence,
    solver,
)


class AbilityQuery:
    """An incremental solver holding one ability's context: actor, targets, their filters."""

    def __init__(
        self, ctx, ab: ir.Ability | None, *, with_filters=True, trigger_role=None, actors=None
    ):
        self.ctx, self.ab = ctx, ab
        # one solver per ability: the variables may share names across abilities (cached terms)
        self.st = st = State(ctx, "@q")
        self.self_role = st.role_var("self")
        env = {}
        self.target_roles = {}
        targets = ab.targets if ab is not None else ()
        if actors is not None:  # the actor's role as the caller sees it (a card may move)
            pass
        elif ab is not None:
            actors = ctx.actor_roles(ab)
        elif trigger_role is not None:
            actors = (trigger_role,)
        else:  # a top-level block: no seat of its own
            actors = tuple(range(ctx.nroles))
        for t in targets:
            rv = st.role_var(f"t:{t.name}")
            env[t.name] = SeatVal(rv, t.name)
            self.target_roles[t.name] = rv
        self.tr = Translator(st, env, self.self_role)
        self.base = list(st.constraints())
        self.base.append(presence(ctx, st, self.self_role, actors))
        for rv in self.target_roles.values():
            self.base.append(presence(ctx, st, rv))
        # a night ability's filters are checked while the actions are validated, before the
        # night resolves: what they read of the night so far is fixed there (semantics)
        self.filters = [
            (t, self.tr.bool_of(self.validated(t.filter) if ab is not None else t.filter))
            for t in targets
        ]
        self.s = solver()
        self.s.add(*self.base)
        if with_filters:
            self.s.add(*[f for _, f in self.filters])
        self.s.add(*st.side)
        self._side_len = len(st.side)

    def validated(self, e):
        """`e` (a filter, a `when`) as the ability's validation sees it."""
        if self.ab is None or not self.ab.at_night:
            return e
        return sem.at_validation(e, self.ab, self.ctx.p)  # (a filter read at the wake: sem)

    def translate(self, e):
        v = self.tr(e)
        new = self.st.side[self._side_len :]
        if new:
            self.s.add(*new)
            self._side_len = len(self.st.side)
        return v

    def translate_bool(self, e):
        v = self.tr.bool_of(e)
        self.translate(ir.Const(e.span, True))  # flush side constraints
        return v

    def guard(self, path):
        return [
            self.translate_bool(c) if pos else z3.Not(self.translate_bool(c)) for c, pos in path
        ]

    def sat(self, *extra) -> bool:
        from maf.compiler.verify.check.z3x import Unknown

        try:
            return check(self.s, *extra) if extra else check(self.s)
        except Unknown as e:  # say what could not be proven, and where
            who = f"`{self.ab.id}`" if self.ab is not None else "a death trigger"
            raise Unknown(
                f"{e.reason}; a query about {who} at table sizes "
                f"{', '.join(map(str, self.ctx.sizes))}"
            ) from None

    def seat_role(self, e):
        """The role term of a seat-valued expression, or None if not a seat."""
        v = self.translate(e)
        return v.role if isinstance(v, SeatVal) else None

    def possible_roles(self, role_term, extra=()):
        out = []
        for r in range(self.ctx.nroles):
            if self.sat(*extra, role_term == r):
                out.append(r)
        return out

    def model_text(self, extra=()):
        """A readable witness: roles of actor and targets, table size."""
        self.sat(*extra)
        m = self.s.model() if not extra else None
        if m is None:
            s2 = solver()
            s2.add(*self.s.assertions(), *extra)
            check(s2)
            m = s2.model()
        ctx = self.ctx
        parts = [
            f"players = {m.eval(self.st.players, model_completion=True)}",
            f"actor: {ctx.role_name(m.eval(self.self_role, model_completion=True).as_long())}",
        ]
        for name, rv in self.target_roles.items():
            parts.append(f"{name}: {ctx.role_name(m.eval(rv, model_completion=True).as_long())}")
        return parts


def kill_sites(ctx):
    """Every kill statement the program can run (semantics.sites: abilities and their
    reactions, death triggers, role reactions, hooks, `on any death`, `on start`): (ability or
    None, owner role or None, kill, guard path). An ability's reaction is the ability's site;
    a top-level block has neither (any seat may be the one it speaks of)."""
    got = ctx.__dict__.get("_kill_sites")
    if got is not None:
        return got
    out = []
    for site in sem.sites(ctx.p):
        for s, path in sem.walk(site.body):
            if isinstance(s, ir.Kill):
                out.append((site.ability, site.role, s, path))
    ctx._kill_sites = out
    return out


def kill_victims(
    ctx, q: AbilityQuery | None, kill: ir.Kill | ir.Guard, path, owner_role=None, roles=None
):
    """Roles a kill statement can hit (abstractly), among `roles` (default: all); None if the
    target is beyond the model. Models are enumerated (one check per role found, plus one),
    not one check per role."""
    if q is None:
        q = AbilityQuery(ctx, None, trigger_role=owner_role)
    rt = q.seat_role(kill.target)
    if rt is None:
        return None
    g = q.guard(path)
    cand = list(range(ctx.nroles)) if roles is None else list(roles)
    out: list[int] = []
    if not cand:
        return out
    q.s.push()
    try:
        q.s.add(*g, z3.Or([rt == r for r in cand]))
        while check(q.s):
            r = q.s.model().eval(rt, model_completion=True).as_long()
            out.append(r)
            q.s.add(rt != r)
    finally:
        q.s.pop()
    return sorted(out)


def block_query(ctx, role):
    """The query of the blocks no ability body holds (hooks, triggers, reactions...), `self` a
    seat of `role` (None: a top-level block), one per role for every check (cached on ctx):
    each question is asked under its own assumptions (AbilityQuery.sat)."""
    qs = ctx.__dict__.setdefault("_block_queries", {})
    if role not in qs:
        qs[role] = AbilityQuery(ctx, None, trigger_role=role)
    return qs[role]


def moved_query(ctx, ab):
    """The ability's query with the target filters' role and team tests left out, and the
    actor of any role: what the body sees once a card may have moved after the filters were
    validated."""
    import dataclasses

    cache = ctx.__dict__.setdefault("_moved_queries", {})
    if ab.idx not in cache:
        targets = []
        for t in ab.targets:
            kept = [c for c in conjuncts(t.filter) if not sem.reads_resource(c, "role")]
            f = kept[0] if kept else ir.Const(t.filter.span, True)
            for c in kept[1:]:
                f = ir.Binary(t.filter.span, "and", f, c)
            targets.append(dataclasses.replace(t, filter=f))
        cache[ab.idx] = AbilityQuery(
            ctx,
            dataclasses.replace(ab, targets=tuple(targets)),
            actors=tuple(range(ctx.nroles)),  # the actor's own card may have moved too
        )
    return cache[ab.idx]
