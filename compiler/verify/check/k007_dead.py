"""K007 dead or shadowed ability (warnings).

* Target filters that no table size can satisfy (jointly); evidence: an unsat core of the
  filter's conjuncts and the setup facts.
* An `if`/`elif` branch no target can reach (its condition contradicts the filter and the
  earlier branches).
* A kill every possible victim of which is immune to its cause (and it is not piercing).
* An `instead of death` no kill can set off (nothing kills by its causes), and a death trigger
  (or a later replacement) of a role that an `instead of death` without `when` always replaces.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import z3

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.abq import AbilityQuery, block_query, kill_victims, moved_query
from maf.compiler.verify.check.aeval import Seat, aeval, mark_setters
from maf.compiler.verify.check.effects import written_before
from maf.compiler.verify.check.model import (
    Finding,
    bodies,
    immune_causes,
    immunity_span,
    survives,
    walk,
)
from maf.compiler.verify.check.z3x import check, conjuncts

CODE = "K007"
TITLE = "dead or shadowed ability"


def _filter_core(ctx, ab, q):
    s = q.s
    s.push()
    labels = {}
    try:
        for t in ab.targets:
            for i, part in enumerate(conjuncts(t.filter)):
                lab = z3.Bool(f"core:{t.name}:{i}")
                labels[lab.get_id()] = (part, t)
                s.add(z3.Implies(lab, q.translate_bool(q.validated(part))))
        lits = [
            z3.Bool(f"core:{t.name}:{i}")
            for t in ab.targets
            for i, _ in enumerate(conjuncts(t.filter))
        ]
        if check(s, *lits):
            return None
        core = s.unsat_core()
        return [labels[c.get_id()] for c in core if c.get_id() in labels]
    finally:
        s.pop()


def mark_reads(ctx):
    """(mark idx, span, what) for every place a mark is read."""
    p = ctx.p
    out = []
    for x in sem.all_nodes(p):
        if isinstance(x, ir.Call) and x.func == "has" and isinstance(x.args[1], ir.Sym):
            out.append((x.args[1].idx, x.span, "has()"))
    for ab in p.abilities:
        if getattr(ab, "granted", -1) >= 0:
            out.append((ab.granted, ab.span, f"`granted by` of `{ab.id}`"))
    d = p.day
    for v in (d.vote, d.chaos) if d is not None else ():
        if v is not None:
            for m, what in ((v.exempt, "`exempt`"), (v.forced, "`forced`")):
                if m >= 0:
                    out.append((m, v.span, f"{what} of the vote"))
    for r in p.roles:
        for im in r.immune:
            if not isinstance(im, int) and getattr(im, "unless", -1) >= 0:
                out.append((im.unless, im.span, f"`unless` of `{r.id}`'s immunity"))
        vw = r.votes_with
        if vw is not None and vw.mark >= 0:  # with no seat carrying it, no hand of r counts
            out.append((vw.mark, vw.span, f"`votes only with` of `{r.id}`"))
    return out


def _marks(ctx):
    """Marks read but never set; `granted by` a mark nothing sets; a target filter that needs a
    mark living only within the night, set only by night abilities: at validation (before the
    night resolves) no seat carries it."""
    p = ctx.p
    out = []
    setters = mark_setters(ctx)
    reported = set()
    for m, span, what in mark_reads(ctx):
        if m in setters or (m, span.line) in reported:
            continue
        reported.add((m, span.line))
        granted = what.startswith("`granted by`")
        out.append(
            Finding(
                CODE,
                "warning",
                (
                    f"{what.split(' of ')[1]} can never be used: nothing sets mark "
                    f"`{p.marks[m].id}`"
                    if granted
                    else f"mark `{p.marks[m].id}` is read here but nothing ever sets it"
                ),
                span,
                evidence=[
                    f"mark `{p.marks[m].id}` (line {p.marks[m].span.line}) has no `mark ... "
                    f"as {p.marks[m].id}` statement anywhere in the spec (abilities, "
                    "triggers, cards)",
                    f"so {what} at line {span.line} always sees it unset",
                ],
                hint=f"set the mark somewhere (`mark SEAT as {p.marks[m].id}`) or drop the test",
            )
        )
    for ab in p.abilities:
        for t in ab.targets:
            for part in conjuncts(t.filter):
                if not (
                    isinstance(part, ir.Call)
                    and part.func == "has"
                    and isinstance(part.args[1], ir.Sym)
                ):
                    continue
                m = part.args[1].idx
                mk = p.marks[m]
                sets = setters.get(m, [])
                if mk.lifetime != "dawn" or not sets or not all(n for _, n in sets):
                    continue
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"`{ab.id}` can never be used: its target filter needs mark `{mk.id}`, "
                        "which no seat carries when the night starts",
                        part.span,
                        evidence=[
                            "target filters are checked when the actions are validated, "
                            "before the night resolves",
                            f"`{mk.id}` lives `until dawn` and is set only during the night "
                            f"(line(s) {', '.join(str(x.span.line) for x, _ in sets)}): "
                            "gone by the next night",
                        ],
                        notes=tuple(("set here, during the night", x.span) for x, _ in sets[:2]),
                        hint="test the mark in the body (`if has(...)`) or make it live "
                        "`until dusk`",
                    )
                )
    return out


def _use_facts(ctx, ab, q):
    """What holds whenever the ability is used: (z3 constraint, reason) for its first phase
    (`from night N` / `from day N`), a quiet night, and the user's life (`dead`: a dead user;
    the default: a living one)."""
    sp = ab.span
    out = []
    counter = "night" if ab.at_night else "day" if ab.phase in ("day", "vote") else None
    if counter is not None and ab.from_number > 1:
        n = q.translate(ir.Builtin(sp, counter))
        out.append((n >= ab.from_number, f"`from {counter} {ab.from_number}`"))
    if counter == "night" and ctx.p.quiet_nights:
        n = q.translate(ir.Builtin(sp, "night"))
        out += [(n != k, f"night {k} is quiet") for k in ctx.p.quiet_nights]
    life = getattr(ab, "life", "alive")
    if life == "dead" or (life == "alive" and ab.when is not None and _reads_alive(ab.when)):
        alive = q.translate_bool(ir.Call(sp, "alive", (ir.Builtin(sp, "self"),)))
        out.append(
            (
                alive if life == "alive" else z3.Not(alive),
                "its user is dead (`dead`)" if life == "dead" else "its user is alive",
            )
        )
    # a status its user carries suspends it (semantics.suspended_by): `powerless` refuses it,
    # `malfunctions` runs the `inverted` block, or nothing when it has none
    user = ir.Builtin(sp, "self")
    for m, malfunctions in sem.suspended_by(ctx.p, ab):
        if malfunctions and ab.inverted is not None:
            continue
        mk = ctx.p.marks[m]
        has = q.translate_bool(ir.Call(sp, "has", (user, ir.Sym(sp, "mark", m, mk.id))))
        out.append(
            (
                z3.Not(has),
                f"its user carries no `{mk.id}` "
                + ("(`malfunctions`: its body does not run)" if malfunctions else "(`powerless`)"),
            )
        )
    return out


def _lifetimes(ctx):
    """A mark that lives `until dawn` and is set only while a night resolves is gone by the
    time anything evaluated by day reads it: `on day start` / `on day end` hooks, wins, draws
    and co-wins (`wins alongside when`; wins are checked after the dawn clears the marks, and
    with no `wins` statement the game cannot end in the middle of a night)."""
    p = ctx.p
    setters = mark_setters(ctx)
    declares = any(sem.fact(s).declares_win for site in sem.sites(p) for s, _ in walk(site.body))
    readers = []  # (expression, what)
    for site in sem.sites(p):
        if site.what == "hook" and site.event in ("day_start", "day_end"):
            for s, _ in walk(site.body):
                readers += [
                    (e, f"the `on {site.event.replace('_', ' ')}` hook") for e in sem.own_exprs(s)
                ]
    if not declares:
        readers += [(w.cond, "a win condition") for w in p.wins]
        readers += [(d, "a draw condition") for d in p.draws]
        for r in p.roles:
            readers += [(e, f"the co-win of `{r.id}`") for e in r.alongside]
    out = []
    seen = set()
    for e, what in readers:
        for key, x in sem.read_keys(e):
            if key[0] != "mark":
                continue
            mk = p.marks[key[1]]
            sets = setters.get(mk.idx, [])
            if mk.lifetime != "dawn" or not sets or not all(n for _, n in sets):
                continue
            if (x.span.line, x.span.col) in seen:
                continue
            seen.add((x.span.line, x.span.col))
            out.append(
                Finding(
                    CODE,
                    "warning",
                    f"{what} reads mark `{mk.id}`, which no seat carries by then: it lives "
                    "`until dawn` and is set only during the night",
                    x.span,
                    evidence=[
                        f"`{mk.id}` (line {mk.span.line}) is cleared at dawn, after the night's "
                        f"kills settle; it is set only by night abilities (line(s) "
                        f"{', '.join(str(y.span.line) for y, _ in sets)})",
                        f"{what} is evaluated by day (or when the game ends, after the dawn): "
                        f"`{_src(ctx, x.span)}` is always false there",
                    ],
                    notes=tuple(("set here, during the night", y.span) for y, _ in sets[:2]),
                    hint=f"make `{mk.id}` live `until dusk` (or longer), or read it at night",
                )
            )
    return out


def _reads_alive(e):
    return any(isinstance(x, ir.Call) and x.func == "alive" for x in sem.subexprs(e))


def _when(ctx, ab, q):
    """A `when` precondition no table size allows (with the targets the filter allows, in a
    phase the ability can be used in, by a user alive or dead as the ability says)."""
    if ab.when is None or not q.sat():
        return []
    cond = q.translate_bool(q.validated(ab.when))
    facts = _use_facts(ctx, ab, q)
    if q.sat(cond, *[c for c, _ in facts]):
        return []  # (the common case: one query)
    if not q.sat(cond) and q.validated(ab.when) is not ab.when and q.sat(q.translate_bool(ab.when)):
        return [
            Finding(
                CODE,
                "warning",
                f"`{ab.id}` can never be used: its `when` condition is false "
                + (
                    "when it wakes"
                    if sem.read_at_wake(ab, ctx.p)
                    else "while the actions are validated"
                ),
                ab.when.span,
                evidence=[
                    f"line {ab.when.span.line}: `{_src(ctx, ab.when.span)}`"
                    + _fixed_note(ctx, ab, ab.when)
                ],
                hint="order it after what it reads (`after ROLE.ABILITY`, a higher `tier`)"
                if sem.read_at_wake(ab, ctx.p)
                else "test it in the body (`if ...`), where the night so far is known",
            )
        ]
    if q.sat(cond):
        # the facts that, with the condition, cannot hold
        why = [w for c, w in facts if not q.sat(cond, c)] or [w for _, w in facts]
        return [
            Finding(
                CODE,
                "warning",
                f"`{ab.id}` can never be used: its `when` condition cannot hold whenever the "
                f"ability can be used ({', '.join(why)})",
                ab.when.span,
                evidence=[
                    f"line {ab.when.span.line}: `{_src(ctx, ab.when.span)}` contradicts "
                    + ", ".join(why)
                    + f" (line {ab.span.line})"
                ],
                hint="fix the condition, the first phase or who may use it",
            )
        ]
    sizes = ", ".join(map(str, ctx.sizes))
    return [
        Finding(
            CODE,
            "warning",
            f"`{ab.id}` can never be used: its `when` condition cannot hold at any table size "
            f"({sizes})",
            ab.when.span,
            evidence=[
                f"line {ab.when.span.line}: `{_src(ctx, ab.when.span)}` contradicts the table "
                "sizes, the setups and the target filter"
            ],
            hint="fix the condition or the table sizes",
        )
    ]


def _replacements(ctx):
    """`instead of death` that nothing sets off, and what one without `when` shadows."""
    p = ctx.p
    out = []
    causes = sem.all_kill_causes(p)
    if "vote" in p.causes:  # the day's elimination (a vote, a trial, `eliminate`)
        causes.add(p.causes.index("vote"))
    if "moderator" in p.causes:  # Game.moderator_kill, a breach
        causes.add(p.causes.index("moderator"))
    piercing = sem.all_kill_causes(p, piercing=True)
    daily = {p.causes.index(c) for c in ("vote", "moderator") if c in p.causes}
    for r in p.roles:
        # the causes a seat of r can die of: an unconditional immunity (certain: no status can
        # suspend it, ctx.immune) stops every kill by its cause but a piercing one
        mortal = {c for c in causes if c not in ctx.immune[r.idx] or c in piercing or c in daily}
        always: list[tuple[set[int] | None, Any]] = []  # (causes, span) replaced every time
        for rp in r.replacements:
            wanted = set(rp.causes) if rp.causes else None
            if wanted is not None and not wanted & mortal:
                names = ", ".join(f"`{ctx.cause_name(c)}`" for c in rp.causes)
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"`{r.id}`'s `instead of death` can never apply: nothing kills by {names}"
                        if not wanted & causes
                        else f"`{r.id}`'s `instead of death` can never apply: it is immune to "
                        f"{names} (and no kill by it is piercing)",
                        rp.span,
                        hint="name a cause some kill uses, or drop the replacement"
                        if not wanted & causes
                        else "drop the immunity or the replacement",
                    )
                )
                continue
            if wanted is not None and not wanted & daily and not _can_hit(ctx, r.idx, wanted):
                names = ", ".join(f"`{ctx.cause_name(c)}`" for c in rp.causes)
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"`{r.id}`'s `instead of death` can never apply: no kill by {names} can "
                        f"hit a `{r.id}`",
                        rp.span,
                        evidence=[
                            f"every kill by {names} is in an ability whose target filter "
                            f"excludes `{r.id}` at every table size"
                        ],
                        hint="name a cause some kill of this role uses, let the kill target it, "
                        "or drop the replacement",
                    )
                )
                continue
            span = _replaced_by(always, wanted)
            if span is not None:
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"`{r.id}`'s `instead of death` never applies: an earlier one "
                        "without `when` replaces every such death",
                        rp.span,
                        notes=(("replaced here", span),),
                        hint="give the earlier replacement a `when`, or drop this one",
                    )
                )
            if rp.when is None:
                always.append((wanted, rp.span))
        for t in r.triggers:
            span = _replaced_by(always, set(t.causes) if t.causes else None)
            if span is not None:
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"the death trigger of `{r.id}` never runs: its `instead of death` "
                        "without `when` replaces every such death",
                        t.span,
                        notes=(("replaced here", span),),
                        hint="give the replacement a `when`, or drop the trigger",
                    )
                )
    return out


def _can_hit(ctx, role, causes):
    """Can some kill by one of `causes` hit a seat of `role`: a kill outside an ability's body
    (a trigger, a reaction, a hook: its target is not narrowed here), a stolen one, one whose
    target is beyond the model, or an ability's kill whose target the filter allows as `role`
    (the role when it settles: any conversion's, once a card can move in the night)."""
    p = ctx.p
    cache = ctx.__dict__.setdefault("_k007_hits", {})
    night_moves = any(
        "role" in sem.fact(x).writes
        for other in p.abilities
        if other.at_night
        for x, _ in sem.walk(bodies(other))
    )
    for site in sem.sites(p):
        for s, path in walk(site.body):
            k = sem.kill_of(s)
            if k is None or k.cause not in causes:
                continue
            ab = site.ability
            if site.what != "ability" or ab is None or ab.stolen or not isinstance(s, ir.Kill):
                return True
            if id(s) not in cache:
                q = moved_query(ctx, ab) if night_moves and ab.at_night else ctx.query(ab)
                cache[id(s)] = kill_victims(ctx, q, s, path)
            victims = cache[id(s)]
            if victims is None or role in victims:
                return True
    return False


def _replaced_by(always, causes):
    """The span of the first unconditional `instead of death` in `always` ((causes or None
    for every cause, span) pairs) that replaces every death by `causes` (None: by any), or
    None."""
    for got, span in always:
        if got is None or (causes is not None and causes <= got):
            return span
    return None


def run(ctx):
    out = _marks(ctx) + _lifetimes(ctx) + _replacements(ctx) + _sites(ctx) + _uncalled(ctx)
    out += _inverted(ctx) + _follows_dead(ctx)
    p = ctx.p
    for ab in p.abilities:
        # a concrete table where the filter holds answers most questions without Z3
        usable = not ab.targets or concrete(ctx, ab, [])
        q = ctx.query(ab) if not usable or ab.when is not None else None
        plain = ab.from_number <= 1 and getattr(ab, "life", "alive") == "alive"
        if ab.when is not None and (not plain or not concrete(ctx, ab, [(ab.when, True)])):
            q = q or ctx.query(ab)
            out += _when(ctx, ab, q)
        core = None
        if not usable and q is not None and not q.sat():  # (q is set when not usable)
            core = _filter_core(ctx, ab, AbilityQuery(ctx, ab, with_filters=False))
        if core is not None:
            first = core[0][1] if core else ab.targets[0]
            sizes = ", ".join(map(str, ctx.sizes))
            out.append(
                Finding(
                    CODE,
                    "warning",
                    f"`{ab.id}` can never be used: no player satisfies its target filter at any "
                    f"table size ({sizes})",
                    first.span,
                    evidence=["unsat core (these conditions cannot hold together):"]
                    + [
                        f"  line {part.span.line}: `{_src(ctx, part.span)}`"
                        + _fixed_note(ctx, ab, part)
                        for part, _ in core
                    ]
                    + [
                        "  setups: the roles at each size ("
                        + (
                            ("line " if len({s.span.line for s in p.setups}) == 1 else "lines ")
                            + ", ".join(map(str, sorted({s.span.line for s in p.setups})))
                            if p.setups
                            else "custom setups only"
                        )
                        + ")"
                    ],
                    notes=tuple(("part of the contradiction", part.span) for part, _ in core[1:]),
                    hint="relax the filter or add the roles it needs to a setup",
                )
            )
            continue
        if not usable and q is not None and not q.sat():
            continue
        out += _body(ctx, ab, q)
    return out


def _body(ctx, ab, q):
    p = ctx.p
    out = []
    # a card can move before the body runs
    moved = written_before(p, ab, "role", ctx.__dict__.setdefault("_k007_wb", {}))
    if "_k007_night_moves" not in ctx.__dict__:
        ctx._k007_night_moves = any(
            "role" in sem.fact(x).writes
            for other in p.abilities
            if other.at_night
            for x, _ in sem.walk(bodies(other))
        )
    night_moves = ab.at_night and ctx._k007_night_moves
    for s, path in walk(bodies(ab)):
        if sem.is_dispatch(s):
            continue  # lowering's one-branch-per-role chain: not the author's conditions
        if isinstance(s, ir.If):
            negs: list[Any] = []
            negs_ir: list[tuple[Any, bool]] = []
            for cond, _ in s.branches:
                if concrete(ctx, ab, list(path) + negs_ir + [(cond, True)]):
                    negs_ir.append((cond, False))
                    continue
                conds = [cond] + [c for c, _ in path] + [c for c, _ in negs_ir]
                loose = bool(moved) and any(sem.reads_resource(c, "role") for c in conds)
                if loose:
                    qq = moved_query(ctx, ab)
                else:
                    if q is None:
                        q = ctx.query(ab)
                    qq = q
                negs = [z3.Not(qq.translate_bool(c)) for c, _ in negs_ir]
                g = qq.guard(path) + negs + [qq.translate_bool(cond)]
                negs_ir.append((cond, False))
                if not qq.sat(*g):
                    out.append(
                        Finding(
                            CODE,
                            "warning",
                            f"this branch of `{ab.id}` can never apply",
                            cond.span,
                            evidence=[
                                f"line {cond.span.line}: `{_src(ctx, cond.span)}` "
                                "contradicts the target filter"
                                + (
                                    " (its role and team tests aside: a card can move "
                                    f"before this body runs, line {moved[0].line})"
                                    if loose
                                    else ""
                                )
                                + (" and the earlier branches" if negs else "")
                                + " at every table size"
                            ],
                            hint="remove the branch or fix its condition",
                        )
                    )
        elif isinstance(s, ir.ModeratorChoice) and s.filter is not None and s.body:
            if q is None:
                q = ctx.query(ab)
            out += _empty_choice(ctx, q, s, path, f"`{ab.id}`")
        elif isinstance(s, ir.Kill) and not s.piercing:
            # who it can hit when it settles at dawn: the victim's role then (a card may have
            # moved during the night) and its immunity or defence against the attack
            mortal = [r for r in range(ctx.nroles) if not survives(ctx, r, s)]
            if concrete(ctx, ab, list(path), kill=(s.target, set(mortal))):
                continue
            kq = moved_query(ctx, ab) if night_moves else None
            if kq is None:
                if q is None:
                    q = ctx.query(ab)
                kq = q
            rt = kq.seat_role(s.target)
            if rt is None or (mortal and kq.sat(*kq.guard(path), z3.Or([rt == r for r in mortal]))):
                continue  # some possible victim can die of it (one query)
            victims = kill_victims(ctx, kq, s, path)
            if victims is None or not victims:
                continue
            immune = [r for r in victims if s.cause in immune_causes(p.roles[r])]
            strong = [r for r in victims if r not in immune]
            att = getattr(s, "attack", 1)
            why = (
                [f"immune to {ctx.cause_name(s.cause)}: " + ", ".join(map(ctx.role_name, immune))]
                if immune
                else []
            ) + (
                [
                    f"defence at least its attack {att}: "
                    + ", ".join(f"{ctx.role_name(r)} ({ctx.defense[r]})" for r in strong)
                ]
                if strong
                else []
            )
            out.append(
                Finding(
                    CODE,
                    "warning",
                    f"this kill by `{ctx.cause_name(s.cause)}` can never succeed: every "
                    "player it can target is "
                    + (
                        "immune"
                        if not strong
                        else "immune or defends against it"
                        if immune
                        else f"defended against attack {att}"
                    ),
                    s.span,
                    evidence=["possible victims: " + ", ".join(ctx.role_name(r) for r in victims)]
                    + [f"  {w}" for w in why],
                    notes=tuple(
                        (
                            f"`{ctx.role_name(r)}` is immune here"
                            if r in immune
                            else f"`{ctx.role_name(r)}` has defence {ctx.defense[r]}",
                            immunity_span(p.roles[r], s.cause) if r in immune else p.roles[r].span,
                        )
                        for r in victims[:3]
                    ),
                    hint="make the kill piercing, raise its attack, or target other roles",
                )
            )
    return out


def _empty_choice(ctx, q, s, path, label, guard=(), note=""):
    """A `moderator chooses` whose `where` accepts no value of its kind (a number: 0 to the
    table's size) wherever it runs: nobody is asked and its body never runs (its `else` does)."""
    bound = []
    if s.kind == "number":  # 0..n, n the table's size
        var = next(
            (x for x in sem.subexprs(s.filter) if isinstance(x, ir.Var) and x.name == s.var),
            None,
        )
        if var is not None:
            n = q.translate(var)
            bound = [n >= 0, n <= q.translate(ir.Builtin(s.span, "players"))]
    if q.sat(*q.guard(path), *guard, *bound, q.translate_bool(s.filter)):
        return []
    return [
        Finding(
            CODE,
            "warning",
            f"the moderator's choice `{s.var}` in {label} has nothing to pick: its body never runs",
            s.span,
            evidence=[
                f"line {s.span.line}: `where {_src(ctx, s.filter.span)}` holds for no {s.kind}"
                + (" (0 to the table's size)" if s.kind == "number" else "")
                + " at any table size"
                + note
            ],
            hint="fix the `where` condition",
        )
    ]


def _site_cause(ctx, q, site):
    """What a block run for a death knows of it: `cause` is one of the causes it runs for."""
    if not site.causes:
        return []
    cause = q.translate(ir.Var(site.body[0].span, "cause", "cause"))  # (called on a statement)
    return [z3.Or([cause == c for c in site.causes])]


def _follows_dead(ctx):
    """`votes only with recall(M)` where every `remember M = x` stores a target its filter
    requires dead: the dead raise no hand (no `ghost votes`, no `revive`), so the seat it
    follows never votes and neither does it, in any ballot."""
    p = ctx.p
    out: list[Finding] = []
    vote = p.day.vote if p.day is not None else None
    if vote is not None and vote.ghost:
        return out
    stores: dict[int, list] = {}
    for site in sem.sites(p):
        for s, path in walk(site.body):
            if isinstance(s, ir.Revive):
                return out
            if isinstance(s, ir.Remember):
                stores.setdefault(s.slot, []).append((site, s, path))
    for r in p.roles:
        vw = r.votes_with
        e = vw.seat if vw is not None else None
        if not (isinstance(e, ir.Call) and e.func == "recall" and isinstance(e.args[0], ir.Sym)):
            continue
        got = stores.get(e.args[0].idx, [])
        if not got or not all(_stores_dead(ctx, *x) for x in got):
            continue
        out.append(
            Finding(
                CODE,
                "warning",
                f"`{r.id}` can never vote: it votes only with `{e.args[0].name}`, a seat it "
                "remembers only dead, and the dead raise no hand",
                vw.span,
                evidence=[
                    f"line {s.span.line}: `{_src(ctx, s.span)}` stores a seat its filter requires "
                    "dead"
                    for _, s, _ in got
                ],
                hint="give the dead a vote (`ghost votes N` in the day's vote), or remember a "
                "living seat",
            )
        )
    return out


def _stores_dead(ctx, site, s, path):
    """Does this `remember` store a target its ability's filter requires dead?"""
    ab = site.ability
    if site.what != "ability" or ab is None or not isinstance(s.value, ir.Var):
        return False
    if s.value.name not in {t.name for t in ab.targets}:
        return False
    q = ctx.query(ab)
    alive = q.translate_bool(ir.Call(s.span, "alive", (s.value,)))
    return not q.sat(*q.guard(path), alive)


def _inverted(ctx):
    """An `inverted` block no mark ever sets off: none of the marks under which it runs
    (semantics.inverted_by: an `inverts` mark, a `malfunctions` status) is set anywhere."""
    p, setters, out = ctx.p, mark_setters(ctx), []
    for ab in p.abilities:
        if not ab.inverted or any(m in setters for m in sem.inverted_by(p, ab)):
            continue
        names = [p.marks[m].id for m in sem.inverted_by(p, ab)]
        out.append(
            Finding(
                CODE,
                "warning",
                f"the `inverted` block of `{ab.id}` never runs: no mark that inverts it is ever "
                "set",
                ab.inverted[0].span,
                evidence=[
                    "it runs while the user carries an `inverts` mark or a `malfunctions` "
                    "status: "
                    + (
                        "none is declared"
                        if not names
                        else ", ".join(f"`{n}`" for n in names) + " (set nowhere)"
                    )
                ],
                hint="set such a mark (`mark x as M`, M declared `inverts` or `malfunctions`), "
                "or remove the block",
            )
        )
    return out


def _uncalled(ctx):
    """An `on call` ability no `call` statement names (semantics.sites: anywhere the program
    runs statements): nobody is ever asked it."""
    p = ctx.p
    called = {
        s.ability
        for site in sem.sites(p)
        for s, _ in walk(site.body)
        if isinstance(s, ir.CallAbility)
    }
    return [
        Finding(
            CODE,
            "warning",
            f"`{ab.id}` is never asked: no `call {ab.name}` anywhere",
            ab.span,
            evidence=[f"`{ab.id}` is used only when a `call` names it; no block of the spec does"],
            hint=f"add `call {ab.name}` where it is decided (a death trigger: `on death {{ call "
            f"{ab.name} }}`), or remove the ability",
        )
        for ab in p.abilities
        if ab.phase == "call" and ab.idx not in called
    ]


def _subject_alive(q, site, span):
    """A reaction's subject (semantics.REACTION_SUBJECT: the visitor, blocker or nominator) is
    a living seat."""
    name = sem.REACTION_SUBJECT.get(site.event) if site.what == "reaction" else None
    if name is None:
        return []
    return [q.translate_bool(ir.Call(span, "alive", (ir.Var(span, name, "seat"),)))]


def _sites(ctx):
    """Dead branches and moderator's choices with nothing to pick in the blocks no ability's
    body holds (semantics.sites): an ability's reactions, death triggers, role reactions and
    hooks, `on any death` / `on any save`, replacements, top-level hooks. `self` is a seat of
    the owning role; a block run for a death reads `cause` among the causes it runs for."""
    out = []
    for site in sem.sites(ctx.p):
        if site.what == "ability":
            continue  # _body
        q = None
        by_cause: list[Any] = []
        # a death only the day or the moderator deals has no killer (semantics.killerless)
        nokiller = site.what in ("trigger", "any_death", "replacement") and sem.killerless(
            ctx.p, site.causes
        )
        why = ""
        if nokiller:
            names = ", ".join(f"`{ctx.cause_name(c)}`" for c in site.causes)
            why = f" (a death by {names} has no killer: `killer` is no seat)"
        for s, path in walk(site.body):
            if sem.is_dispatch(s):
                continue
            choice = isinstance(s, ir.ModeratorChoice) and s.filter is not None and s.body
            if not (isinstance(s, ir.If) or choice):
                continue
            if q is None:
                if site.ability is not None:
                    q = ctx.query(site.ability)
                else:
                    q = block_query(ctx, site.role.idx if site.role is not None else None)
                by_cause = _site_cause(ctx, q, site)
                guard = by_cause + _subject_alive(q, site, s.span)
            if nokiller:  # (the Var a comparison with a seat is a seat; `killer` is none)
                path = tuple((sem.no_seat(c, "killer"), pos) for c, pos in path)
            if choice:
                if nokiller:
                    s = dataclasses.replace(s, filter=sem.no_seat(s.filter, "killer"))
                out += _empty_choice(ctx, q, s, path, site.label, guard, why)
                continue
            negs: list[Any] = []
            for cond, _ in s.branches:
                c = q.translate_bool(sem.no_seat(cond, "killer") if nokiller else cond)
                if not q.sat(*q.guard(path), *guard, *negs, c):
                    out.append(
                        Finding(
                            CODE,
                            "warning",
                            f"this branch of {site.label} can never apply",
                            cond.span,
                            evidence=[
                                f"line {cond.span.line}: `{_src(ctx, cond.span)}` contradicts "
                                + ("the causes it runs for, " if by_cause else "")
                                + ("the earlier branches and " if negs else "")
                                + "who runs it, at every table size"
                                + why
                            ],
                            hint="remove the branch or fix its condition",
                        )
                    )
                negs.append(z3.Not(c))
    return out


def _fixed_note(ctx, ab, part):
    """Why a conjunct is false at validation, if it reads the night so far."""
    fixed = sem.fixed_at_validation(part, ab, ctx.p) if ab.at_night else []
    if not fixed:
        return ""
    names = ", ".join(f"`{_src(ctx, x.span)}`" for x in fixed)
    return (
        f" ({names} is "
        + (
            "empty"
            if sem.CALLS[fixed[0].func].at_validation == ()
            else str(sem.CALLS[fixed[0].func].at_validation).lower()
        )
        + " "
        + (
            "when it wakes: nothing before it in the night order writes it"
            if sem.read_at_wake(ab, ctx.p)
            else "while the actions are validated, before anything of the night resolves; "
            "test it in the body"
        )
        + ")"
    )


def _src(ctx, span):
    if 0 < span.line <= len(ctx.lines):
        line = ctx.lines[span.line - 1]
        if span.end_line == span.line:
            return line[span.col - 1 : span.end_col - 1]
        return line[span.col - 1 :].strip()
    return ""


def concrete(ctx, ab, conds, limit=300, kill=None):
    """A cheap witness before any Z3 query: a table of the spec (fixed setup or sample), its
    players all alive, an actor and distinct target seats by role, where the target filters and
    every (IR condition, wanted truth value) in `conds` evaluate definitely (not unknown).
    With `kill=(target expr, roles)`, the kill's target must also have one of `roles`.
    True if found; False means "not found", never "impossible"."""
    tries = 0
    tables = list(ctx.all_setups())
    acts = set(ctx.actor_roles(ab))
    if ctx.custom and not any(acts & {r for r, c in t.counts if c} for t in tables):
        from maf.compiler.verify.check.samples import table_with  # a custom table seating the actor

        extra = table_with(ctx, tuple(sorted(acts)), tuple(sorted(acts)))
        if extra is not None:
            tables.append(extra)
    for setup in tables:
        counts = [0] * ctx.nroles
        for r, c in setup.counts:
            counts[r] = c
        seated = [r for r in range(ctx.nroles) if counts[r]]
        actors = [r for r in ctx.actor_roles(ab) if counts[r]]
        for ar in actors:
            stack = [({"self": Seat(ar, "self")}, {ar: 1}, 0)]
            while stack:
                env, used, k = stack.pop()
                tries += 1
                if tries > limit:
                    return False
                if k == len(ab.targets):
                    env2 = dict(env, __concrete__=True)
                    ok = all(aeval(ctx, c, env2, counts, setup.size) is want for c, want in conds)
                    if ok and kill is not None:
                        v = aeval(ctx, kill[0], env2, counts, setup.size)
                        ok = isinstance(v, Seat) and v.role in kill[1]
                    if ok:
                        return True
                    continue
                t = ab.targets[k]
                for r in seated:
                    if counts[r] - used.get(r, 0) <= 0:
                        continue
                    e2: dict[str, Any] = dict(env)
                    e2[t.name] = Seat(r, t.name)
                    e2["__concrete__"] = True
                    if aeval(ctx, t.filter, e2, counts, setup.size) is not True:
                        continue
                    del e2["__concrete__"]
                    u2 = dict(used)
                    u2[r] = u2.get(r, 0) + 1
                    stack.append((e2, u2, k + 1))
    return False
