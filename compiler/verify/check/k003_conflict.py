"""K003 conflicting effects.

* Two win conditions that can hold in the same state (warning: wins are tried in spec order, so
  the earlier one silently takes precedence); witness: table size and living players per role.
* A role immune to a cause while a `piercing` kill by that cause can target it (error: the spec
  says both "cannot die by X" and "X ignores every protection").
* A protection from a cause that no non-piercing kill uses: it can never change an outcome
  (warning).
"""

from __future__ import annotations

import itertools

from maf.compiler.ir import nodes as ir
from maf.compiler.verify.check.abq import AbilityQuery, kill_sites, kill_victims
from maf.compiler.verify.check.model import Finding, bodies, immune_causes, immunity_span, walk
from maf.compiler.verify.check.z3x import State, Translator, check, solver
from maf.dsl.codes import Code

CODE = Code.K003
TITLE = "conflicting effects"
BUILTIN = ("vote", "moderator")


def _wins(ctx):
    """Two wins that can hold at once: Z3 says whether any state of the abstraction allows it
    (cheap, a necessary condition); the witness is a state some game reaches (K004's search
    from the setups, `k004_reach.reachable`), where the earlier win ends the game while the
    later one holds too. No reachable state: no finding (a state no game reaches is not a
    ruling anybody has to make)."""
    from maf.compiler.verify.check.aeval import U, aeval, never_true
    from maf.compiler.verify.check.k004_reach import reachable

    p, out = ctx.p, []
    st = State(ctx, "@wins")
    tr = Translator(st)
    conds = [tr.bool_of(w.cond) for w in p.wins]
    s = solver()
    s.add(*st.constraints(), st.alive >= 1, *st.side)
    for (i, w1), (j, w2) in itertools.combinations(enumerate(p.wins), 2):
        if w1.kind == w2.kind and w1.idx == w2.idx:
            continue
        if not check(s, conds[i], conds[j]):
            continue
        if never_true(ctx, w1.cond) or never_true(ctx, w2.cond):
            continue  # one of them never holds in K004's abstraction: no state to witness it

        def both(counts, n, i=i, j=j):
            vals = [aeval(ctx, w.cond, {}, counts, n) for w in p.wins[: j + 1]]
            if any(v is True for v in vals[:i]):
                return False  # an even earlier win ends the game first
            return vals[i] is not False and vals[j] is not False and U not in (vals[i], vals[j])

        got = reachable(ctx, both)
        if got is None:
            continue
        setup, counts, steps = got
        n = setup.size
        living = {
            t.id: sum(c for r, c in enumerate(counts) if ctx.role_team[r] == t.idx) for t in p.teams
        }
        teams = ", ".join(f"{t} {c}" for t, c in living.items())
        roles = ", ".join(
            f"{ctx.class_name.get(r, ctx.role_name(r))} {c}" for r, c in enumerate(counts) if c
        )
        n1 = _subject(p, w1)
        n2 = _subject(p, w2)
        out.append(
            Finding(
                CODE,
                "warning",
                f"win conditions of `{n1}` and `{n2}` can hold at the same time; `{n1}` wins only "
                "because it is written first",
                w2.span,
                evidence=[
                    f"reachable witness: setup line {setup.span.line} at {n} players, after "
                    + (f"{len(steps)} step(s)" if steps else "no step (the start)")
                    + f": alive = {sum(counts)}; living per team: {teams}; per role: "
                    + (roles or "(none)"),
                ]
                + [f"  {k}. {x}" for k, x in enumerate(steps, 1)]
                + [
                    f"line {w1.span.line}: `{ctx.line_of(w1.span)}`",
                    f"line {w2.span.line}: `{ctx.line_of(w2.span)}`",
                ],
                notes=((f"`{n1}` wins first here", w1.span),),
                hint="make the conditions exclusive (`... and not ...`) if neither should take "
                "precedence",
                witness={
                    "players": n,
                    "setup_line": setup.span.line,
                    "living": living,
                    "trace": steps,
                },
            )
        )
    return out


def _guards_vs_piercing(ctx, sites, q_for):
    """A guard from cause X meets a piercing kill by X that can target the guarded seat's
    possible roles: the kill ignores the guard (warning; the guard is written to stop it)."""
    p, out = ctx.p, []
    for gab in p.abilities:
        for g, gpath in walk(bodies(gab)):
            if not isinstance(g, ir.Guard):
                continue
            gq = ctx.query(gab)
            guarded = None
            for ab, owner, kill, path in sites:
                if not kill.piercing or kill.cause not in g.causes:
                    continue
                if guarded is None:
                    guarded = kill_victims(ctx, gq, g, gpath) or []  # roles it can cover
                victims = kill_victims(
                    ctx, q_for(ab, owner), kill, path, owner.idx if owner else None
                )
                both = [
                    r
                    for r in range(ctx.nroles)
                    if (guarded is None or r in guarded) and (victims is None or r in victims)
                ]
                if not both:
                    continue
                who = ab.id if ab else f"{owner.id} (on death)" if owner else "a top-level block"
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"this piercing kill by `{ctx.cause_name(kill.cause)}` ignores the "
                        "guard of "
                        f"`{gab.id}`, which is written to stop `{ctx.cause_name(kill.cause)}`",
                        kill.span,
                        evidence=[
                            f"witness: `{gab.id}` guards a `{ctx.role_name(both[0])}` from "
                            f"{ctx.cause_name(kill.cause)} (line {g.span.line}); `{who}` kills "
                            f"a `{ctx.role_name(both[0])}` by {ctx.cause_name(kill.cause)} "
                            f"piercing (line {kill.span.line}): the target dies, the guard "
                            "never steps in"
                        ],
                        notes=(("the guard", g.span),),
                        hint="drop `piercing` if the guard should stop it",
                        witness={"guard": gab.id, "kill": who, "role": ctx.role_name(both[0])},
                    )
                )
    return out


def _subject(p, w):
    return p.teams[w.idx].id if w.kind == "team" else p.roles[w.idx].id


def run(ctx):
    p = ctx.p
    out = _wins(ctx)
    sites = kill_sites(ctx)
    queries = {}

    def q_for(ab, owner):
        key = ab.idx if ab is not None else ("t", owner.idx if owner else -1)
        if key not in queries:
            queries[key] = (
                ctx.query(ab)
                if ab
                else AbilityQuery(ctx, None, trigger_role=owner.idx if owner else None)
            )
        return queries[key]

    for ab, owner, kill, path in sites:
        if not kill.piercing:
            continue
        immune = [r for r in p.roles if kill.cause in immune_causes(r, certain=False)]
        if not immune:
            continue
        victims = kill_victims(
            ctx,
            q_for(ab, owner),
            kill,
            path,
            owner.idx if owner else None,
            roles=[r.idx for r in immune],
        )
        actors = (
            ctx.actor_roles(ab)
            if ab is not None
            else (owner.idx,)
            if owner
            else tuple(range(ctx.nroles))
        )
        hit = [
            r
            for r in immune
            if (victims is None or r.idx in victims) and ctx.coexist(actors, r.idx)
        ]
        for r in hit:
            who = ab.id if ab else f"{owner.id} (on death)" if owner else "a top-level block"
            out.append(
                Finding(
                    CODE,
                    "error",
                    f"`{r.id}` is immune to `{ctx.cause_name(kill.cause)}`, but this piercing "
                    f"kill by `{ctx.cause_name(kill.cause)}` can target a `{r.id}` and ignores "
                    "the immunity",
                    kill.span,
                    evidence=[
                        f"witness: `{who}` kills a `{r.id}` by {ctx.cause_name(kill.cause)} "
                        f"piercing; line {immunity_span(r, kill.cause).line} says it cannot die "
                        "by it",
                        f"line {kill.span.line}: `{ctx.line_of(kill.span)}`",
                    ],
                    notes=((f"`{r.id}` is declared immune here", immunity_span(r, kill.cause)),),
                    hint="drop `piercing`, exclude the role from the target, or drop the immunity",
                    witness={"ability": who, "victim_role": r.id},
                )
            )
    out += _guards_vs_piercing(ctx, sites, q_for)
    # protections (and guards) no kill can ever be stopped by
    soft = {k.cause for _, _, k, _ in sites if not k.piercing}
    for ab in p.abilities:
        for s, _ in walk(bodies(ab)):
            if type(s).__name__ not in ("Protect", "Guard"):
                continue
            for c in s.causes:
                if c in soft or ctx.cause_name(c) in BUILTIN:
                    continue
                pierce = [k for _, _, k, _ in sites if k.cause == c]
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"`{ab.id}` protects from `{ctx.cause_name(c)}`, but "
                        + ("every kill by it is piercing" if pierce else "nothing kills by it")
                        + ": the protection never changes an outcome",
                        s.span,
                        evidence=[
                            f"kills by {ctx.cause_name(c)}: "
                            + (
                                ", ".join(f"line {k.span.line} (piercing)" for k in pierce)
                                or "none"
                            )
                        ],
                        notes=tuple(("piercing kill", k.span) for k in pierce),
                        hint="protect from a cause some kill uses without `piercing`",
                    )
                )
    return out
