"""K004 unreachable win state: explicit-state bounded model checking per table size and setup.

Abstract state: living players per role (conversions move a player between roles, hence teams).
Transitions (each one step): a night/day ability used by a living holder with targets bound to
living roles its filter allows (unknown conditions branch both ways), applying its kills (a
non-piercing kill of an immune role does nothing; protections are optional so never forced) and
conversions; or a day vote eliminating any living player (if the spec has a vote, chaos vote or
trial). Wins are evaluated after every step in spec order: the first that holds ends the game.
Breadth-first search gives the shortest trace; the bound (2 x players steps, and the search also
stops once the finite state space is exhausted) covers a whole game since every kill removes a
player. Past MAX_STATES a guided best-first search looks for a (not necessarily shortest) trace;
if neither decides, the win is reported as K000 unknown, never as reachable. Death triggers
cascade up to TRIGGER_DEPTH deep. Not modelled: `each` blocks, revive, called `on call`
abilities, per-night limits, exclusive groups, marks, seat identity; use limits are counted per
ability, table-wide. See docs/checks.md.

What a statement does comes from the semantics table (compiler/ir/semantics.py), not from a
list of statement kinds here: `kill_of` (the seat, cause, piercing, attack of a kill),
`new_role` (a conversion), `declared_win`, `choice` (an `if`'s branches), `nested_blocks` (a
delayed block or a guard's reaction may run or not; a block per seat is not modelled), `tie`
(an ability holding a vote), `counts_read` (which living counts a rule reads: what the memo
keys must tell apart). The expression evaluator (aeval.py: `_Compile`, an ExprVisitor) is K004's
abstract domain: one method per expression kind, so a new kind cannot be added without K004
deciding what it means; what it cannot evaluate is unknown (sound). What a builtin name or
function is comes from the table's entries too (ReadFact: count, of_seat, value).
"""

from __future__ import annotations

import itertools
import operator
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any, cast

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.aeval import Seat, U, aeval
from maf.compiler.verify.check.model import Finding, bodies, stmt_exprs, survives, walk

CODE = "K004"
TITLE = "unreachable win state"
QUICK_STATES = 200  # first BFS pass per setup; then a guided search per open win
MAX_STATES = 1500  # BFS budget per setup (deterministic); beyond it: unknown (K000)
GUIDED_STATES = 1500  # guided-search budget per win; not found within both: reported unknown


# A pending kill: (seat name, cause, piercing, role of the seat, attack level).
Kill = tuple[str, int, bool, int, int]
# A conversion (seat name, old role, new role), or a declared win ("!win", kind, idx).
Conversion = tuple[str, Any, int]
# An applied outcome: (new counts, what happened, declared win (kind, idx) or None).
Outcome = tuple[tuple[int, ...], list[str], "tuple[str, int] | None"]


def _exec(
    ctx: Any,
    stmts: Sequence[ir.Stmt],
    env: dict[str, Any],
    counts: Sequence[int],
    players: int,
    kills: tuple[Kill, ...],
    converts: tuple[Conversion, ...],
    outs: list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]],
) -> None:
    """Run statements abstractly; appends (kills, converts) outcomes to outs (branching)."""
    if not stmts:
        outs.append((kills, converts))
        return
    s, rest = stmts[0], stmts[1:]
    kind, kill, role, chosen, nested = _step(ctx, s)
    if kind == "kill":
        v = aeval(ctx, kill.seat, env, counts, players)
        if isinstance(v, Seat):
            kills = kills + ((v.name, kill.cause, kill.piercing, v.role, kill.attack),)
            _exec(ctx, rest, env, counts, players, kills, converts, outs)
        else:
            # a seat the abstraction cannot name (recall, a neighbour): any living player, or
            # nobody (over-approximation: an unreachability claim stays sound)
            _exec(ctx, rest, env, counts, players, kills, converts, outs)
            for r in range(ctx.nroles):
                if counts[r] > 0:
                    name = f"?{id(s)}:{r}"
                    env2 = dict(env)
                    env2[name] = Seat(r, name)
                    _exec(
                        ctx,
                        rest,
                        env2,
                        counts,
                        players,
                        kills + ((name, kill.cause, kill.piercing, r, kill.attack),),
                        converts,
                        outs,
                    )
        return
    if kind == "win":
        outs.append((kills, converts + role))
        return
    if kind == "convert":
        v = aeval(ctx, kill, env, counts, players)
        if isinstance(v, Seat):
            new = Seat(role, v.name)  # every variable bound to the seat sees its new role
            env = {k: new if x is v else x for k, x in env.items()}
            env[v.name] = new
            converts = converts + ((v.name, v.role, role),)
            _exec(ctx, rest, env, counts, players, kills, converts, outs)
            return
        # a seat the abstraction cannot name (a random pick, a neighbour): nobody, or a living
        # player of any role its filter allows (over-approximation, as for a kill)
        _exec(ctx, rest, env, counts, players, kills, converts, outs)
        for r in _seat_roles(ctx, kill, env, counts, players):
            name = f"?{id(s)}:{r}"
            env2 = dict(env)
            env2[name] = Seat(role, name)
            _exec(ctx, rest, env2, counts, players, kills, converts + ((name, r, role),), outs)
        return
    if kind == "choice":
        branches, orelse = chosen
        for cond, body in branches:
            c = aeval(ctx, cond, env, counts, players)
            if c is True:
                _exec(ctx, tuple(body) + tuple(rest), env, counts, players, kills, converts, outs)
                return
            if c is U:
                _exec(ctx, tuple(body) + tuple(rest), env, counts, players, kills, converts, outs)
        _exec(ctx, tuple(orelse) + tuple(rest), env, counts, players, kills, converts, outs)
        return
    # a nested block that may run or not (a delayed block: on a later night, which the
    # abstraction has no calendar for, or never as the game ends first; a guard's reaction:
    # only if an attack comes): without it, then with it. A block run once per seat (`each`)
    # runs for one seat of a living role its filter allows (a step converts or kills one seat
    # at a time: a hook run again does the next). Every other statement neither kills,
    # converts nor declares a win.
    _exec(ctx, rest, env, counts, players, kills, converts, outs)
    for body in nested:
        _exec(ctx, body + tuple(rest), env, counts, players, kills, converts, outs)
    bound = sem.binding(s) if chosen else None
    if bound is not None:
        var, filt = bound
        for r in range(ctx.nroles):
            if counts[r] <= 0:
                continue
            name = f"?{id(s)}:{r}"
            env2 = dict(env)
            env2[var] = env2[name] = Seat(r, name)
            if aeval(ctx, filt, env2, counts, players) is not False:
                _exec(ctx, chosen + tuple(rest), env2, counts, players, kills, converts, outs)


def _step(ctx: Any, s: ir.Stmt) -> tuple[str, Any, Any, Any, tuple[tuple[ir.Stmt, ...], ...]]:
    """What _exec does with a statement, from its semantics entry, worked out once per
    statement (cached on the context by node identity, the node kept alive): (kind, kill or
    the seat converted, the new role or the declared win, the choice or (other) the block run
    once per seat, the nested blocks that may run or not). kind: kill | win | convert |
    choice | other."""
    memo: dict[int, tuple] = ctx.__dict__.setdefault("_k004_steps", {})
    got = memo.get(id(s))
    if got is None:
        kill, won, role, chosen = sem.kill_of(s), sem.declared_win(s), sem.new_role(s), None
        nested: tuple[tuple[ir.Stmt, ...], ...] = ()
        if kill is not None:
            step: tuple = ("kill", kill, None, None, ())
        elif won is not None:
            step = ("win", None, (("!win", *won),), None, ())
        elif role is not None:
            step = ("convert", sem.seat_of(s), role, None, ())
        elif (chosen := sem.choice(s)) is not None:
            step = ("choice", None, None, chosen, ())
        else:
            nested = tuple(tuple(b) for b, _, rep in sem.nested_blocks(s) if b and not rep)
            # the blocks run once per seat (`each`), if they kill, convert or declare a win
            each = tuple(x for b, _, rep in sem.nested_blocks(s) if rep for x in b)
            if not (any(_max_effects(each)) or any(sem.declared_win(x) for x, _ in walk(each))):
                each = ()
            step = ("other", None, None, each, nested)
        got = memo[id(s)] = (s, step)
    return got[1]


def _seat_roles(
    ctx: Any, seat: ir.Expr, env: dict[str, Any], counts: Sequence[int], players: int
) -> list[int]:
    """The living roles an unnamed seat can have: those a random pick's condition is not
    definitely false for, any living role otherwise."""
    live = [r for r in range(ctx.nroles) if counts[r] > 0]
    if not isinstance(seat, ir.Quant) or seat.func != "random":
        return live
    out = []
    for r in live:
        env2 = dict(env)
        env2[seat.var] = Seat(r, seat.var)
        if aeval(ctx, seat.cond, env2, counts, players) is not False:
            out.append(r)
    return out


def _bindings(
    ctx: Any,
    ab: ir.Ability,
    targets: Sequence[ir.Target],
    env: dict[str, Any],
    counts: Sequence[int],
    players: int,
    used: dict[int, int],
    out: list[dict[str, Any]],
) -> None:
    """Every way to bind the targets to living roles (one seat each: `used` counts the seats
    of a role already bound) whose filter is not definitely false; appends the envs to out."""
    if not targets:
        out.append(dict(env))
        return
    t = targets[0]
    for r in range(ctx.nroles):
        if counts[r] - used.get(r, 0) <= 0:
            continue
        env[t.name] = Seat(r, t.name)
        ok = aeval(ctx, t.filter, env, counts, players)
        if ok is not False:
            used[r] = used.get(r, 0) + 1
            _bindings(ctx, ab, targets[1:], env, counts, players, used, out)
            used[r] -= 1
        del env[t.name]


def successors(
    ctx: Any,
    counts: tuple[int, ...],
    players: int,
    voting: bool,
    cache: dict[Any, Any],
    every: bool = False,
) -> Iterator[tuple[tuple[int, ...], int | None, str, tuple[str, int] | None]]:
    """Successor states (counts, ability index or None, label, declared win); transitions are
    cached by what abilities can observe of a state (each role's count up to 2, the living per
    team, the living, the exact counts if some rule reads `living_role`) as deltas.
    `every`: also the abilities a vote subsumes (for steps that no win check follows)."""
    team_roles = ctx.__dict__.get("_k004_team_roles")
    if team_roles is None:
        team_roles = ctx._k004_team_roles = [
            [r for r in range(ctx.nroles) if ctx.role_team[r] == t] for t in range(len(ctx.p.teams))
        ]
    key = (
        tuple([c if c < 2 else 2 for c in counts]),
        tuple([sum([counts[r] for r in rs]) for rs in team_roles]),
        sum(counts),
        counts if cache.get("exact") else None,
        every,
    )
    deltas = cache.get(key)
    if deltas is None:
        deltas = [
            (tuple(map(operator.sub, nxt, counts)), ab, label, won)
            for nxt, ab, label, won in _successors(ctx, counts, players, voting, every)
        ]
        cache[key] = deltas
    add = operator.add
    for d, ab, label, won in deltas:
        yield tuple(map(add, counts, d)), ab, label, won


def _max_effects(stmts: Sequence[ir.Stmt], times: int = 99) -> tuple[int, int]:
    """Upper bound on (kills, conversions) along any path through the statements. times: how
    often a nested block counts (99: a reaction per attack, a loop per seat, any number of
    times; 1: as one step of _exec runs it, a loop for one seat)."""
    k = c = 0
    for s in stmts:
        chosen = sem.choice(s)
        if sem.kill_of(s) is not None:
            k += 1
        elif sem.new_role(s) is not None:
            c += 1
        elif chosen is not None:
            subs = [_max_effects(b, times) for _, b in chosen[0]] + [_max_effects(chosen[1], times)]
            k += max(x[0] for x in subs)
            c += max(x[1] for x in subs)
        else:
            for body, _, _ in sem.nested_blocks(s):
                sk, sc = _max_effects(body, times)
                k += times * sk
                c += times * sc
    return k, c


def _subsumed_body(ctx: Any, body: tuple[ir.Stmt, ...], voting: bool) -> bool:
    """_subsumed for a hook, reaction or `on any death` step: at most one kill per step (an
    `each` kills one seat a step), no conversion, no `wins`, and a vote that can eliminate
    any role (none immune to it, nor replacing a death by it)."""
    if not voting or ctx.vote_immune or any(_vote_cause(ctx) in rp for rp in ctx.replaced):
        return False
    k, c = _max_effects(body, 1)
    return k <= 1 and c == 0 and not any(sem.declared_win(x) for x, _ in walk(body))


def _vote_cause(ctx: Any) -> int:
    return ctx.p.causes.index("vote") if "vote" in ctx.p.causes else -1


def _subsumed(ctx: Any, ab: ir.Ability, voting: bool) -> bool:
    """With a vote that can eliminate anyone, an ability that at most kills one player and
    converts nobody adds no new successor state: skip it (exact, not an approximation)."""
    if not voting or ctx.vote_immune:
        return False
    k, c = _max_effects(bodies(ab))
    return k <= 1 and c == 0


TRIGGER_DEPTH = 3  # death triggers set off by death triggers: cascades followed this deep


def _size_key(ctx: Any, players: int) -> int:
    """The table size as far as the memo keys need it: 0 when no rule that makes transitions
    reads `players` (then what a rule does is the same at every size)."""
    reads = ctx.__dict__.get("_k004_reads_players")
    if reads is None:
        reads = ctx._k004_reads_players = _reads_players(ctx)
    return players if reads else 0


def _apply(
    ctx: Any,
    counts: Sequence[int],
    players: int,
    kills: tuple[Kill, ...],
    converts: tuple[Conversion, ...],
    depth: int = 0,
) -> list[Outcome]:
    """Apply one outcome (kills, conversions, declared wins) and the death triggers it sets off.

    Returns [(new counts, descriptions, declared win (kind, idx) or None)]; branching comes from
    the triggers' conditions and unnamed targets. What the kills and conversions do does not
    depend on the counts (`_effects`, memoised per spec); the triggers they set off do, and are
    memoised per (counts, effects). The lists returned are shared: callers never mutate them."""
    key, (delta, dead, desc, declared) = _effects(ctx, kills, converts)
    new = tuple(map(operator.add, counts, delta))
    if min(new) < 0:
        return []
    if declared is not None or depth >= TRIGGER_DEPTH or not dead:
        return [(new, desc, declared)]
    triggered = ctx.__dict__.get("_k004_triggered")
    if triggered is None:
        triggered = ctx._k004_triggered = [bool(r.triggers) for r in ctx.p.roles]
    if not any(triggered[r] for r, _ in dead):
        return [(new, desc, declared)]
    memo: dict[tuple, list[Outcome]] = ctx.__dict__.setdefault("_k004_apply", {})
    tkey = (new, _size_key(ctx, players), depth, key)
    got = memo.get(tkey)
    if got is None:
        got = memo[tkey] = list(_triggers(ctx, new, players, list(dead), desc, declared, depth))
    return got


Effects = tuple[tuple[int, ...], tuple[tuple[int, int], ...], list[str], "tuple[str, int] | None"]


def _effects(
    ctx: Any, kills: tuple[Kill, ...], converts: tuple[Conversion, ...]
) -> tuple[tuple, Effects]:
    """What one outcome does whatever the counts: (its key, (the change per role, the dead
    (role, cause) in order, descriptions, the win it declares)). Conversions first, then the
    kills (a seat killed twice dies once; immunity and defence spare it unless piercing).
    Memoised per spec; seat names only tell seats apart, so the key renames them in order."""
    raw: dict[tuple, tuple[tuple, Effects]] = ctx.__dict__.setdefault("_k004_effects_raw", {})
    seen_raw = raw.get((kills, converts))
    if seen_raw is not None:
        return seen_raw
    names: dict[str, int] = {}
    key = (
        tuple((names.setdefault(n, len(names)), c, pi, r, a) for n, c, pi, r, a in kills),
        tuple(
            (n, o, w) if n == "!win" else (names.setdefault(n, len(names)), o, w)
            for n, o, w in converts
        ),
    )
    memo: dict[tuple, Effects] = ctx.__dict__.setdefault("_k004_effects", {})
    got = memo.get(key)
    if got is not None:
        raw[(kills, converts)] = (key, got)
        return key, got
    immune = ctx.immune
    delta = [0] * ctx.nroles
    cur: dict[str, int] = {}
    declared: tuple[str, int] | None = None
    desc = []
    for name, old, newr in converts:
        if name == "!win":
            declared = declared or (old, newr)
            continue
        delta[cur.get(name, cast(int, old))] -= 1
        delta[newr] += 1
        cur[name] = newr
        desc.append(f"a {ctx.role_name(old)} becomes {ctx.role_name(newr)}")
    dead = []
    seen = set()
    for name, cause, pierce, role, attack in kills:
        r = cur.get(name, role)
        if name in seen:
            continue
        if cause in ctx.replaced[r]:
            continue  # `instead of death` without `when`: the seat never dies of it
        if not pierce and (cause in immune[r] or ctx.defense[r] >= attack):
            continue
        seen.add(name)
        delta[r] -= 1
        dead.append((r, cause))
        desc.append(f"a {ctx.class_name.get(r, ctx.role_name(r))} dies by {ctx.cause_name(cause)}")
    got = memo[key] = (tuple(delta), tuple(dead), desc, declared)
    raw[(kills, converts)] = (key, got)
    return key, got


def _trigger_outcomes(
    ctx: Any, r: int, cause: int, counts: tuple[int, ...], players: int
) -> list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]] | None:
    """What the death triggers of a dying `r` (by `cause`) can do, with the kills of the dying
    seat itself dropped (it is gone); None if no trigger of the role answers the cause.
    Memoised per (role, cause, table size, the counts or, if the triggers read none, which
    roles have a seat left)."""
    bodies_: dict[tuple[int, int], tuple | None] = ctx.__dict__.setdefault("_k004_tbodies", {})
    if (r, cause) not in bodies_:
        trig = [t for t in ctx.p.roles[r].triggers if not t.causes or cause in t.causes]
        body = tuple(x for t in trig for x in t.body)
        reads = _reads([e for st, _ in walk(body) for e in stmt_exprs(st)])
        bodies_[(r, cause)] = (body, reads) if trig else None
    got = bodies_[(r, cause)]
    if got is None:
        return None
    body, (reads_counts, reads_size) = got
    seen_counts = counts if reads_counts else tuple([c if c < 2 else 2 for c in counts])
    memo: dict[tuple, list] = ctx.__dict__.setdefault("_k004_toutcomes", {})
    key = (r, cause, players if reads_size else 0, seen_counts)
    outs = memo.get(key)
    if outs is None:
        raw: list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]] = []
        _exec(ctx, body, {"self": Seat(r, "self")}, counts, players, (), (), raw)
        outs = memo[key] = [(tuple(k for k in ks if k[0] != "self"), cs) for ks, cs in raw]
    return outs


def _triggers(
    ctx: Any,
    counts: tuple[int, ...],
    players: int,
    dead: list[tuple[int, int]],
    desc: list[str],
    declared: tuple[str, int] | None,
    depth: int,
) -> Iterator[Outcome]:
    """Run the death triggers of the dead (role, cause) in order, branching."""
    if declared is not None or depth >= TRIGGER_DEPTH:
        yield counts, desc, declared
        return
    for i, (r, cause) in enumerate(dead):
        outs = _trigger_outcomes(ctx, r, cause, counts, players)
        if outs is None:
            continue  # no trigger of this role for this cause
        rest = dead[i + 1 :]
        for kills, converts in outs:
            if not kills and not converts:
                yield from _triggers(ctx, counts, players, rest, desc, declared, depth)
                continue
            for c2, d2, w2 in _apply(ctx, counts, players, kills, converts, depth + 1):
                d2 = desc + [f"(death trigger of {ctx.role_name(r)})"] + d2
                yield from _triggers(ctx, c2, players, rest, d2, w2 or declared, depth)
        return
    yield counts, desc, declared


def _extra_bodies(ctx: Any) -> list[tuple[str, int | None, tuple[ir.Stmt, ...]]]:
    """Statements that run outside abilities and can kill, convert or declare a win: hooks
    (global or per role), visit/block reactions, `on any death`. The abstraction has no
    calendar or visits: each is a possible step of its own while its owner lives
    (over-approximation: it keeps unreachability claims sound). Cached per spec."""
    got = ctx.__dict__.get("_k004_extra")
    if got is not None:
        return got
    p = ctx.p
    out: list[tuple[str, int | None, tuple[ir.Stmt, ...]]] = []
    for h in getattr(p, "hooks", ()) or ():
        out.append((f"hook on {h.when}", None, tuple(h.body)))
    for b in getattr(p, "start", ()) or ():
        out.append(("on start", None, tuple(b)))
    for t in getattr(p, "any_deaths", ()) or ():
        out.append(("on any death", None, tuple(t.body)))
    for r in p.roles:
        for h in getattr(r, "hooks", ()) or ():
            out.append((f"{r.id}: hook on {h.when}", r.idx, tuple(h.body)))
        for b in getattr(r, "start", ()) or ():
            out.append((f"{r.id}: on start", r.idx, tuple(b)))
        for x in getattr(r, "reactions", ()) or ():
            out.append((f"{r.id}: on {x.kind}", r.idx, _subject(ctx, x)))
        for t in getattr(r, "any_deaths", ()) or ():
            out.append((f"{r.id}: on any death", r.idx, tuple(t.body)))
    for a in p.abilities:
        for x in getattr(a, "reactions", ()) or ():
            for role in ctx.actor_roles(a):
                out.append((f"{a.id}: on {x.kind}", role, _subject(ctx, x)))
    out = [
        (lab, o, b)
        for lab, o, b in out
        if any(_max_effects(b)) or any(sem.declared_win(x) for x, _ in walk(b))
    ]
    ctx._k004_extra = out
    return out


def _subject(ctx: Any, x: ir.Reaction) -> tuple[ir.Stmt, ...]:
    """A reaction's body, its subject (the visitor, blocker, nominator: sem.REACTION_SUBJECT)
    noted for _body_outcomes to bind to a seat of each living role (so that `role(visitor)`
    and `convert visitor to ...` name the same seat: a swap with the visitor keeps the
    counts)."""
    body = tuple(x.body)
    ctx.__dict__.setdefault("_k004_subjects", {})[id(body)] = (body, sem.REACTION_SUBJECT[x.kind])
    return body


def _reads(exprs: Sequence[ir.Expr]) -> tuple[bool, bool]:
    """(reads a living count: `alive`, `living(T)`, `living_role(R)`; reads `players`), as
    the semantics table counts them (ReadFact.count)."""
    read = sem.counts_read(exprs)
    return bool(read & {"living", "team", "role"}), "players" in read


def _ability_reads(ctx: Any, ab: ir.Ability) -> tuple[bool, bool]:
    """_reads over the ability's target filters and body: if it reads no count, what it can do
    depends only on which roles have a seat left; if it reads no `players`, not on the size."""
    got: dict[int, tuple[bool, bool]] = ctx.__dict__.setdefault("_k004_reads", {})
    if ab.idx not in got:
        exprs = [t.filter for t in ab.targets]
        exprs += [e for st, _ in walk(ab.body) for e in stmt_exprs(st)]
        got[ab.idx] = _reads(exprs)
    return got[ab.idx]


def _outcomes(
    ctx: Any, ab: ir.Ability, ar: int, counts: tuple[int, ...], players: int
) -> list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]]:
    """The (kills, conversions) a holder of role `ar` can cause with the ability: every binding
    of its targets, every branch its conditions allow; outcomes that change nothing are
    dropped. Memoised per (ability, role, table size, what the body can observe of the
    counts): each role's count up to the seats the binding needs, or every count if a rule of
    the ability reads one."""
    need = len(ab.targets) + 1
    reads_counts, reads_size = _ability_reads(ctx, ab)
    blind: set[int] = ctx.__dict__.setdefault("_k004_blind", set())
    if not reads_counts and need <= 3 and ab.idx not in blind:
        got_roles = _outcomes_by_role(ctx, ab, ar, counts, players, reads_size)
        if got_roles is not None:
            return got_roles
        blind.add(ab.idx)  # a target the abstraction cannot name: it depends on who is left
    seen_counts = counts if reads_counts else tuple([min(c, need) for c in counts])
    memo: dict[tuple, list] = ctx.__dict__.setdefault("_k004_outcomes", {})
    key = (ab.idx, ar, players if reads_size else 0, seen_counts)
    got = memo.get(key)
    if got is None:
        binds: list[dict[str, Any]] = []
        _bindings(ctx, ab, ab.targets, {"self": Seat(ar, "self")}, counts, players, {ar: 1}, binds)
        got = []
        for env in binds:
            outs: list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]] = []
            _exec(ctx, ab.body, env, counts, players, (), (), outs)
            got += [(k, c) for k, c in outs if k or c]
        memo[key] = got
    return got


def _outcomes_by_role(
    ctx: Any,
    ab: ir.Ability,
    ar: int,
    counts: tuple[int, ...],
    players: int,
    reads_size: bool,
) -> list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]] | None:
    """_outcomes of an ability that reads no count, from what each binding (a role per target)
    can do, memoised per binding whatever the counts: the state only decides which bindings
    have seats left (the holder takes one of its role). Bindings are tried in the order
    `_bindings` tries them, so the outcomes come in the same order. None if a binding kills or
    converts a seat the abstraction cannot name (any living player: that depends on the
    counts), for the caller to memoise by counts instead."""
    R = ctx.nroles
    targets = ab.targets
    size = players if reads_size else 0
    # which bindings have seats left depends only on each count up to the seats they take
    need = len(targets) + 1
    whole: dict[tuple, Any] = ctx.__dict__.setdefault("_k004_by_role_all", {})
    wkey = (ab.idx, ar, size, tuple([c if c < need else need for c in counts]))
    done = whole.get(wkey)
    if done is not None:
        return done
    memo: dict[tuple, Any] = ctx.__dict__.setdefault("_k004_by_role", {})
    out: list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]] = []
    for combo in itertools.product(range(R), repeat=len(targets)):
        used = {ar: 1}
        ok = True
        for r in combo:
            if counts[r] - used.get(r, 0) <= 0:
                ok = False
                break
            used[r] = used.get(r, 0) + 1
        if not ok:
            continue
        key = (ab.idx, ar, size, combo)
        got = memo.get(key)
        if got is None:
            env: dict[str, Any] = {"self": Seat(ar, "self")}
            passes = True
            for t, r in zip(targets, combo, strict=True):
                env[t.name] = Seat(r, t.name)
                if aeval(ctx, t.filter, env, counts, players) is False:
                    passes = False
                    break
            outs: list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]] = []
            if passes:
                _exec(ctx, ab.body, env, counts, players, (), (), outs)
            if any(k[0].startswith("?") for ks, _ in outs for k in ks):
                return None
            got = memo[key] = [(k, c) for k, c in outs if k or c]
        out += got
    whole[wkey] = out
    return out


def _body_outcomes(
    ctx: Any,
    i: int,
    owner: int | None,
    body: tuple[ir.Stmt, ...],
    counts: tuple[int, ...],
    players: int,
) -> list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]]:
    """_outcomes of the i-th extra body (a hook, a reaction, `on any death`): no targets to
    bind; memoised per (body, table size, the counts, or which roles have a seat left if the
    body reads no count)."""
    reads: dict[int, tuple[bool, bool]] = ctx.__dict__.setdefault("_k004_body_reads", {})
    if i not in reads:
        reads[i] = _reads([e for st, _ in walk(body) for e in stmt_exprs(st)])
    reads_counts, reads_size = reads[i]
    seen_counts = counts if reads_counts else tuple([c if c < 2 else 2 for c in counts])
    memo: dict[tuple, list] = ctx.__dict__.setdefault("_k004_body_outcomes", {})
    key = (i, players if reads_size else 0, seen_counts)
    got = memo.get(key)
    if got is None:
        env = {"self": Seat(owner, "self")} if owner is not None else {}
        outs: list[tuple[tuple[Kill, ...], tuple[Conversion, ...]]] = []
        subject = ctx.__dict__.get("_k004_subjects", {}).get(id(body))
        if subject is None:
            _exec(ctx, body, env, counts, players, (), (), outs)
        else:  # a reaction: its subject is a living seat of some role (not the reacting one)
            var = subject[1]
            for r in range(ctx.nroles):
                if counts[r] - (r == owner) > 0:
                    _exec(ctx, body, {**env, var: Seat(r, var)}, counts, players, (), (), outs)
        got = memo[key] = [(k, c) for k, c in outs if k or c]
    return got


def _successors(
    ctx: Any, counts: tuple[int, ...], players: int, voting: bool, every: bool = False
) -> Iterator[tuple[tuple[int, ...], int | None, str, tuple[str, int] | None]]:
    """The successor states of one state, uncached: every relevant ability of every living
    holder with every binding of its targets, the hooks and reactions, and the vote."""
    p = ctx.p
    immune = ctx.immune
    seen = set()
    rels = ctx.__dict__.setdefault("_k004_rel", {})
    rel = rels.get(every)
    if rel is None:
        rel = rels[every] = [
            a
            for a in p.abilities
            if (every or not _subsumed(ctx, a, voting)) and any(_max_effects(bodies(a)))
        ]
    for ab in rel:
        life = getattr(ab, "life", "alive")
        for ar in ctx.actor_roles(ab):
            if counts[ar] <= 0 and (life == "alive" or not ctx.present(ar, players)):
                continue  # (an ability of the dead: any seat of that role may have died)
            if life == "dead" and counts[ar] >= ctx.cap(ar, players):
                continue  # nobody of that role is dead yet
            for kills, converts in _outcomes(ctx, ab, ar, counts, players):
                for t, desc, won in _apply(ctx, counts, players, kills, converts):
                    if (t, ab.idx, won) in seen or (t == counts and won is None):
                        continue
                    seen.add((t, ab.idx, won))
                    yield (
                        t,
                        ab.idx,
                        (f"{ab.phase}: {ab.id} ({ctx.role_name(ar)}): " + "; ".join(desc)),
                        won,
                    )
    skip = ctx.__dict__.get("_k004_skip_bodies")
    if skip is None:  # the steps a vote subsumes (as for abilities)
        skip = ctx._k004_skip_bodies = [
            _subsumed_body(ctx, b, voting) for _, _, b in _extra_bodies(ctx)
        ]
    for i, (label, owner, body) in enumerate(_extra_bodies(ctx)):
        if owner is not None and counts[owner] <= 0 or (skip[i] and not every):
            continue
        for kills, converts in _body_outcomes(ctx, i, owner, body, counts, players):
            for t, desc, won in _apply(ctx, counts, players, kills, converts):
                if (t, label, won) in seen or (t == counts and won is None):
                    continue
                seen.add((t, label, won))
                yield t, None, f"{label}: " + "; ".join(desc), won
    if voting:
        vote = p.causes.index("vote") if "vote" in p.causes else -1
        for r in range(ctx.nroles):
            # (an `instead of death` without `when` spares it from the vote too)
            if counts[r] > 0 and vote not in immune[r] and vote not in ctx.replaced[r]:
                new = list(counts)
                new[r] -= 1
                for t, desc, won in _triggers(ctx, tuple(new), players, [(r, vote)], [], None, 0):
                    if (t, None, won) not in seen:
                        seen.add((t, None, won))
                        yield (
                            t,
                            None,
                            (
                                "day: the vote eliminates a "
                                f"{ctx.class_name.get(r, ctx.role_name(r))}"
                                + "".join("; " + d for d in desc)
                            ),
                            won,
                        )


def winner(ctx: Any, counts: Sequence[int], players: int) -> tuple[int | None, set[int]]:
    """(definite winner index or None, set of win indexes that may hold)."""
    maybe: set[int] = set()
    for i, w in enumerate(ctx.p.wins):
        v = aeval(ctx, w.cond, {}, counts, players)
        if v is True:
            return i, maybe | {i}
        if v is U:
            maybe.add(i)
    for d in getattr(ctx.p, "draws", ()) or ():  # checked after the wins: a draw ends the game
        if aeval(ctx, d, {}, counts, players) is True:
            return -1, maybe
    return None, maybe


def _role_refs(e: ir.Expr, out: set[int]) -> None:
    """Add the roles an expression names (a chosen role: every role)."""
    named = sem.roles_named(e)
    out.update(range(999) if named is None else named)  # a chosen role: everything is observable


def classes(ctx: Any, voting: bool) -> dict[int, int]:
    """role -> representative: roles nothing relevant tells apart share one representative."""
    p = ctx.p
    refs = set()
    for ab in p.abilities:
        if _subsumed(ctx, ab, voting):
            continue
        k, c = _max_effects(bodies(ab))
        if not k and not c:
            continue
        refs.update(ctx.actor_roles(ab))
        for t in ab.targets:
            _role_refs(t.filter, refs)
        for st, _ in walk(bodies(ab)):
            if sem.new_role(st) is not None:
                refs.add(sem.new_role(st))
            for e in stmt_exprs(st):
                _role_refs(e, refs)
    for w in p.wins:
        _role_refs(w.cond, refs)
        if w.kind == "role":
            refs.add(w.idx)
    # a role a vote's tie sends out (`tie ROLE`) is told apart by every tie
    for v in (p.day.vote, p.day.chaos) if p.day else ():
        if v is not None and v.tie.startswith("role:"):
            refs.update(r.idx for r in p.roles if r.id == v.tie[5:])
    # roles with their own death triggers, hooks or reactions behave apart
    bodies_ = [(r.idx, tuple(x for t in r.triggers for x in t.body)) for r in p.roles if r.triggers]
    bodies_ += [(o, b) for _, o, b in _extra_bodies(ctx)]
    for owner, body in bodies_:
        if owner is not None:
            refs.add(owner)
        for st, _ in walk(body):
            if sem.new_role(st) is not None:
                refs.add(sem.new_role(st))
            for e in stmt_exprs(st):
                _role_refs(e, refs)
    rep: dict[int, int] = {}
    by_key: dict[tuple, int] = {}
    for r in p.roles:
        if r.idx in refs:
            rep[r.idx] = r.idx
            continue
        key = (
            r.team,
            frozenset(ctx.immune[r.idx]),
            ctx.defense[r.idx],
            frozenset(ctx.replaced[r.idx]),
        )
        rep[r.idx] = by_key.setdefault(key, r.idx)
    return rep


class _Search:
    """What every search of one spec shares: whether a vote can eliminate anyone, the role
    classes (roles nothing tells apart share a count), the abilities whose uses are counted,
    the transition caches; `start` and `expander` give a table's start state and successors."""

    def __init__(self, ctx: Any) -> None:
        p = ctx.p
        self.ctx = ctx
        # a day vote, a chaos vote, or an ability holding a vote of its own (a trial)
        self.voting = bool(p.day and (p.day.vote or p.day.chaos)) or any(
            sem.fact(s).tie is not None for a in p.abilities for s in a.body
        )
        vote = p.causes.index("vote") if "vote" in p.causes else -1
        ctx.vote_immune = any(vote in im for im in ctx.immune)
        rep = classes(ctx, self.voting)
        members: dict[int, list[str]] = {}
        for r, x in rep.items():
            members.setdefault(x, []).append(ctx.role_name(r))
        ctx.class_name = {x: "/".join(v) for x, v in members.items()}
        self.R = ctx.nroles
        self.limited = [
            a.idx for a in p.abilities if a.per_game and not _subsumed(ctx, a, self.voting)
        ]
        self.merged = [(r, x) for r, x in rep.items() if r != x]
        self.merged_roles = [r for r, _ in self.merged]
        # some rule reads a role's living count (`living_role`): transitions by exact counts
        self.exact = "role" in sem.counts_read(
            [e for a in p.abilities for st_, _ in walk(bodies(a)) for e in stmt_exprs(st_)]
            + [t.filter for a in p.abilities for t in a.targets]
        )
        # (kind, idx) -> win indexes a `wins` statement ends the game with
        self.declared: dict[tuple[str, int], list[int]] = {}
        for i, w in enumerate(p.wins):
            self.declared.setdefault((w.kind, w.idx), []).append(i)
        self.caches: dict[int, dict] = {}
        self.reads_players = _reads_players(ctx)

    def canon(self, counts: Sequence[int]) -> tuple[int, ...]:
        """Fold the counts of merged roles into their representative."""
        for r in self.merged_roles:
            if counts[r]:
                break
        else:
            return tuple(counts)
        new = list(counts)
        for r, x in self.merged:
            new[x] += new[r]
            new[r] = 0
        return tuple(new)

    def start(self, setup: Any) -> tuple[tuple, list[int]]:
        """A table's start state (canonical counts + no uses) and its seated counts."""
        seated = [0] * self.R
        for r, c in setup.counts:
            seated[r] = c
        return self.canon(seated) + (0,) * len(self.limited), seated

    def expander(self, n: int) -> Callable[..., Iterator[tuple]]:
        """The successors of a search state at table size n (`expand(state, every=False)`)."""
        ctx, R, limited, voting, canon = self.ctx, self.R, self.limited, self.voting, self.canon
        per_game = {a: ctx.p.abilities[a].per_game for a in limited}
        # transitions depend on the table size (if some rule reads `players`), not the setup
        cache = self.caches.setdefault(n if self.reads_players else 0, {"exact": self.exact})

        def expand(
            st: tuple, every: bool = False
        ) -> Iterator[tuple[tuple, str, tuple[str, int] | None, int | None]]:
            """Successors of a search state (canonical counts + uses of limited abilities)."""
            counts, uses = st[:R], st[R:]
            for nxt, ab, label, won in successors(ctx, counts, n, voting, cache, every):
                u = uses
                if ab in per_game:
                    k = limited.index(ab)
                    if uses[k] >= per_game[ab]:
                        continue
                    u = uses[:k] + (uses[k] + 1,) + uses[k + 1 :]
                yield canon(nxt) + u, label, won, ab

        return expand


def _search(ctx: Any) -> _Search:
    got = ctx.__dict__.get("_k004_search")
    if got is None:
        got = ctx._k004_search = _Search(ctx)
    return got


def reachable(
    ctx: Any, pred: Callable[[tuple[int, ...], int], bool], budget: int = MAX_STATES
) -> tuple[Any, tuple[int, ...], list[str]] | None:
    """A state the game can reach in K004's abstraction (from a setup's start, by its steps,
    before a win or a draw definitely ends the game) where pred(counts per role, table size)
    holds: (the setup, the counts, the trace), or None within `budget` states per table.
    Breadth-first: the trace is a shortest one. For findings whose witness must be a state
    some game reaches (K003's overlapping wins)."""
    sr = _search(ctx)
    R = sr.R
    walks = ctx.__dict__.setdefault("_k004_walks", {})
    for k, setup in enumerate(ctx.all_setups()):
        n = setup.size
        w = walks.get((k, budget))
        if w is None:
            w = walks[(k, budget)] = _Walk(ctx, sr, setup, budget)
        i = 0
        while i < len(w.popped) or w.more():
            st = w.popped[i]
            i += 1
            counts = st[:R]
            if pred(counts, n):
                return setup, counts, trace(ctx, w.parent, st)
    return None


class _Walk:
    """One setup's breadth-first walk of K004's abstraction, kept for every `reachable` query:
    the states it pops, in order, depend on the setup and the budget only (a query's predicate
    only decides where it stops), so each query reads the walk so far and extends it on demand
    (K003 asks one query per pair of wins; on a spec whose pairs have no witness each query
    walked the whole budget again)."""

    def __init__(self, ctx: Any, sr: _Search, setup: Any, budget: int) -> None:
        self.ctx, self.R, self.n, self.budget = ctx, sr.R, setup.size, budget
        start, _ = sr.start(setup)
        self.expand = sr.expander(self.n)
        self.parent: dict[tuple, Any] = {start: None}
        self.queue = deque([start])
        self.popped: list[tuple] = []

    def more(self) -> bool:
        """Pop the next state (expanding it unless a win ends the game there); False when the
        walk is over (the queue empty, or the budget of states reached)."""
        if not self.queue or len(self.parent) > self.budget:
            return False
        st = self.queue.popleft()
        self.popped.append(st)
        if winner(self.ctx, st[: self.R], self.n)[0] is not None:
            return True  # the game is over here
        parent, queue = self.parent, self.queue
        for nxt, label, won, _ in self.expand(st):
            if won is None and nxt not in parent:
                parent[nxt] = (st, label)
                queue.append(nxt)
        return True


def run(ctx: Any) -> list[Finding]:
    """K004 over every setup and table size; the findings, one per win and kind."""
    p = ctx.p
    out = []
    ctx.traces = {}
    sr = _search(ctx)
    voting, R, declared = sr.voting, sr.R, sr.declared
    reported = set()
    for setup in ctx.all_setups():
        n = setup.size
        start, seated = sr.start(setup)
        dealt = frozenset(r for r in range(R) if seated[r])
        made = ctx.made(dealt)  # roles conversions can make at this table
        present = dealt | made
        relevant = set()
        for i, w in enumerate(p.wins):
            winners = _winner_roles(ctx, w)
            if winners & present:
                relevant.add(i)
        if not relevant:
            continue  # nobody at this table can win any way: not a defect of the spec
        start_counts = seated
        parent: dict[tuple, Any] = {start: None}
        found: dict[int, Any] = {}
        expand = sr.expander(n)

        bound = 2 * n
        wanted = set(relevant)
        impossible = {}
        search = {"queue": deque([(start, 0)]), "exhausted": True, "budget_hit": False}

        def bfs(
            limit: int,
            search: dict[str, Any] = search,
            parent: dict[tuple, Any] = parent,
            found: dict[int, Any] = found,
            wanted: set[int] = wanted,
            n: int = n,
            bound: int = bound,
            expand: Callable[..., Iterator[tuple]] = expand,
        ) -> None:
            """Breadth-first (shortest traces) until `limit` states; resumable."""
            queue = search["queue"]
            search["budget_hit"] = False
            while queue:
                st, depth = queue[0]
                if len(parent) > limit:
                    search["exhausted"] = False
                    search["budget_hit"] = True
                    return
                queue.popleft()
                w, maybe = winner(ctx, st[:R], n)
                for i in maybe:
                    found.setdefault(i, st)
                if w is not None:
                    continue
                if wanted <= set(found):
                    search["exhausted"] = False
                    return
                if depth >= bound:
                    search["exhausted"] = False
                    continue
                for nxt, label, won, _ in expand(st):
                    if won is not None:
                        for i in declared.get(won, ()):
                            if i not in found:
                                key = nxt + ("won", i)
                                parent[key] = (
                                    st,
                                    label
                                    + f"; the game ends: {won[0]} "
                                    + (p.teams if won[0] == "team" else p.roles)[won[1]].id
                                    + " wins",
                                )
                                found[i] = key
                        continue
                    if nxt not in parent:
                        parent[nxt] = (st, label)
                        queue.append((nxt, depth + 1))

        # a short breadth-first pass (shortest traces), then a guided search per win still
        # open, then the full breadth-first budget for what is left
        bfs(QUICK_STATES)
        # wins not found yet: first a cheap proof that they are impossible (bounds)
        for i in sorted(wanted - set(found)):
            why = box_proof(ctx, p.wins[i], start_counts, n, voting)
            if why is not None:
                impossible[i] = why
                wanted.discard(i)
        guided_traces = {}
        if search["budget_hit"]:
            for i in sorted(wanted - set(found)):
                got = guided(ctx, start, i, n, expand, R)
                if got is not None:
                    guided_traces[i] = got
            if not wanted <= set(found) | set(guided_traces):
                bfs(MAX_STATES)
        if "death" not in p.check_at:  # wins wait for dawn: a night may skip an ending state
            for i in sorted(wanted - set(found) - set(guided_traces)):
                got = through_the_night(ctx, start, i, n, expand, R)
                if got is not None:
                    guided_traces[i] = got
        exhausted, budget_hit = search["exhausted"], search["budget_hit"]
        for i, w in enumerate(p.wins):
            if i not in relevant:
                continue  # nobody at this table can win this way: not a defect of the spec
            if i in found:
                ctx.traces[(n, setup.label, i)] = trace(ctx, parent, found[i])
                continue
            subject = p.teams[w.idx].id if w.kind == "team" else p.roles[w.idx].id
            where = f" (setup {setup.label!r})" if setup.label else ""
            table = f"setup line {setup.span.line} at {n} players: " + ", ".join(
                f"{ctx.role_name(r)} x{c}" for r, c in setup.counts if c
            )
            if i in impossible:
                out.append(
                    Finding(
                        CODE,
                        "error",
                        f"`{subject}` can never win at {n} players" + where,
                        w.span,
                        evidence=[table] + impossible[i],
                        notes=(("setup", setup.span),),
                        hint="check the kills, conversions and votes that should lead to this win",
                        witness={"players": n, "proof": "bounds"},
                    )
                )
                continue
            if i in guided_traces:
                ctx.traces[(n, setup.label, i)] = guided_traces[i]
                continue
            if budget_hit:
                out.append(
                    Finding(
                        "K000",
                        "error",
                        f"K004 unknown: reaching a `{subject}` win at {n} players{where} was not "
                        f"decided within {MAX_STATES} abstract states; NOT proven reachable",
                        w.span,
                        evidence=[
                            table,
                            f"could not prove: a state where line {w.span.line} holds is "
                            f"reachable (or that none is) at {n} players",
                        ],
                        notes=(("setup", setup.span),),
                        hint="raise compiler.check.k004_reach.MAX_STATES",
                        unknown=True,
                    )
                )
                continue
            key = (i, setup.label, setup.span.line)
            out.append(
                Finding(
                    CODE,
                    "error",
                    f"`{subject}` can never win at {n} players" + where,
                    w.span,
                    evidence=[
                        table,
                        f"explored {len(parent)} abstract states "
                        + (
                            "(the whole reachable state space)"
                            if exhausted
                            else f"up to {bound} steps"
                        ),
                        "no reachable state satisfies this win condition before an earlier "
                        "one ends the game",
                    ],
                    notes=(("setup", setup.span),),
                    hint="check the kills, conversions and votes that should lead to this win",
                    witness={"players": n, "states": len(parent)},
                )
            )
            reported.add(key)
    return _merge(out)


def _winner_roles(ctx: Any, w: ir.Win) -> set[int]:
    """The roles whose seats a win makes winners: the role, a team's roles, or for a side (made
    by marks, no role on it) the roles its members' condition does not rule out."""
    if w.kind == "role":
        return {w.idx}
    team = ctx.p.teams[w.idx]
    if team.members is not None:
        from maf.compiler.verify.check.model import filter_roles

        got = filter_roles(ctx, team.var, team.members)
        return set(range(ctx.nroles)) if got is None else set(got)
    return {r for r in range(ctx.nroles) if ctx.role_team[r] == w.idx}


def _reads_players(ctx: Any) -> bool:
    """Does a rule that makes transitions (an ability, a trigger, a hook, a reaction) read the
    table size? If not, one transition cache serves every table size."""
    stmts = [s for a in ctx.p.abilities for s, _ in walk(bodies(a))]
    stmts += [s for r in ctx.p.roles for t in r.triggers for s, _ in walk(t.body)]
    stmts += [s for _, _, b in _extra_bodies(ctx) for s, _ in walk(b)]
    exprs = [e for s in stmts for e in stmt_exprs(s)]
    exprs += [t.filter for a in ctx.p.abilities for t in a.targets]
    exprs += [a.when for a in ctx.p.abilities if getattr(a, "when", None) is not None]
    return "players" in sem.counts_read(exprs)


def _merge(findings: list[Finding]) -> list[Finding]:
    """One finding per win and kind, listing every table size (not one per size)."""
    import re

    groups: dict[tuple, list] = {}
    for f in findings:
        sizes = re.findall(r"at (\d+) players", f.message)
        key = (
            f.code,
            f.span.line,
            f.span.col,
            re.sub(r"at \d+ players( \(setup [^)]*\))?", "", f.message),
        )
        groups.setdefault(key, []).append((f, sizes[0] if sizes else None))
    out = []
    for fs in groups.values():
        f0 = fs[0][0]
        if len(fs) == 1:
            out.append(f0)
            continue
        sizes = sorted({int(n) for _, n in fs if n})
        f0.message = re.sub(
            r"at \d+ players( \(setup [^)]*\))?", f"at {_ranges(sizes)} players", f0.message
        )
        f0.evidence = list(f0.evidence) + [
            f"the same at {len(fs) - 1} other table(s): "
            + "; ".join(f.evidence[0] for f, _ in fs[1:4] if f.evidence)
            + (" ..." if len(fs) > 4 else "")
        ]
        if isinstance(f0.witness, dict):
            f0.witness = dict(f0.witness, sizes=sizes)
        out.append(f0)
    return out


def _ranges(ns: list[int]) -> str:
    """`3, 5..7` for [3, 5, 6, 7]."""
    out, i = [], 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        out.append(str(ns[i]) if i == j else f"{ns[i]}..{ns[j]}")
        i = j + 1
    return ", ".join(out)


def _can_leave(ctx: Any, voting: bool) -> set[int]:
    """Roles whose players can leave the game or change role (kills, votes, conversions)."""
    cache = ctx.__dict__.get("_k004_leave")
    if cache is not None:
        return cache
    from maf.compiler.verify.check.abq import kill_sites, kill_victims

    p = ctx.p
    vote = p.causes.index("vote") if "vote" in p.causes else -1
    out = set()
    if voting:
        spared = ctx.replaced  # an `instead of death` without `when` of deaths by vote
        out |= {r for r in range(ctx.nroles) if vote not in ctx.immune[r] and vote not in spared[r]}
    for ab, owner, kill, path in kill_sites(ctx):
        if (
            ab is not None
            and ab.role >= 0
            and ab.granted < 0
            and not any(ctx.present(r, n) for r in ctx.actor_roles(ab) for n in ctx.sizes)
        ):
            continue
        rest = [r for r in range(ctx.nroles) if r not in out]
        if not rest:
            break
        try:
            victims = kill_victims(
                ctx,
                ctx.query(ab) if ab is not None else None,
                kill,
                path,
                owner.idx if owner is not None else None,
                roles=rest,
            )
        except Exception:  # beyond the abstraction: anyone
            victims = None
        if victims is None:
            victims = range(ctx.nroles)
        out |= {r for r in victims if not survives(ctx, r, kill)}
    for _, _, seats in ctx.conversions:  # anywhere: abilities, triggers, hooks, reactions
        out |= set(range(ctx.nroles)) if seats is None else seats  # the seat's filter
    ctx._k004_leave = out
    return out


def box_proof(ctx: Any, w: ir.Win, start: Sequence[int], n: int, voting: bool) -> list[str] | None:
    """A cheap proof that win w can never hold at this table: every living count stays within
    [start, start] for roles nothing can remove, [0, start] for the others (conversion
    destinations up to the table size). Returns the evidence lines, or None if not proven."""

    from maf.compiler.verify.check.z3x import State, Translator, check, solver

    leave = _can_leave(ctx, voting)
    if any(
        sem.declared_win(x) == (w.kind, w.idx) for a in ctx.p.abilities for x, _ in walk(bodies(a))
    ) or any(
        sem.declared_win(x) == (w.kind, w.idx)
        for r in ctx.p.roles
        for t in r.triggers
        for x, _ in walk(t.body)
    ):
        return None
    cache = ctx.__dict__.setdefault("_k004_box", {})
    key = (w.kind, w.idx, w.span.line, w.span.col)
    if key not in cache:  # one solver per win; each table's bounds are assumptions
        st = State(ctx, "@box")
        tr = Translator(st)
        s = solver()
        cond = tr.bool_of(w.cond)
        s.add(cond, *st.side)
        cache[key] = (st, s, {})
    st, s, made = cache[key]
    # the bounds as Z3 terms, built once per (win, role, bound): many tables share them
    bounds = [_bound(made, ("n", n), lambda: st.players == n)]
    makes = ctx.made(r for r in range(ctx.nroles) if start[r])
    for r in range(ctx.nroles):
        hi = n if r in makes else start[r]
        lo = 0 if r in leave else start[r]
        bounds.append(_bound(made, (r, ">=", lo), partial(_at_least, st.lr[r], lo)))
        bounds.append(_bound(made, (r, "<=", hi), partial(_at_most, st.lr[r], hi)))
    if check(s, *bounds):
        return None
    fixed = [ctx.role_name(r) for r in range(ctx.nroles) if start[r] and r not in leave]
    return [
        "proof by bounds (no search needed): no kill, vote or conversion can remove "
        + (", ".join(f"a {x}" for x in fixed) if fixed else "the players it needs")
        + f"; with every living count between what cannot leave and the setup's count, "
        f"line {w.span.line} `{ctx.line_of(w.span)}` is false"
    ]


def _at_least(x: Any, v: int) -> Any:
    return x >= v


def _at_most(x: Any, v: int) -> Any:
    return x <= v


def _bound(made: dict[tuple, Any], key: tuple, build: Callable[[], Any]) -> Any:
    """A Z3 term from the per-win cache, built on first use."""
    got = made.get(key)
    if got is None:
        got = made[key] = build()
    return got


def guided(
    ctx: Any, start: tuple, i: int, n: int, expand: Callable[..., Iterator[tuple]], R: int
) -> list[str] | None:
    """Best-first search toward win i (fewest living opponents first); a witness trace, not
    necessarily the shortest. Deterministic: ties break by insertion order."""
    import heapq

    w = ctx.p.wins[i]
    if w.kind == "role":
        opp = [r for r in range(R) if r != w.idx]
    else:
        opp = [r for r in range(R) if ctx.role_team[r] != w.idx]
    parent: dict[tuple, Any] = {start: None}
    heap = [(0, 0, start)]
    tick = 0
    while heap and len(parent) <= GUIDED_STATES:
        _, _, st = heapq.heappop(heap)
        win, maybe = winner(ctx, st[:R], n)
        if i in maybe:
            return trace(ctx, parent, st)
        if win is not None:
            continue
        for nxt, label, won, _ in expand(st):
            if won is not None:
                if (won[0], won[1]) == (w.kind, w.idx):
                    key = nxt + ("won", i)
                    parent[key] = (st, label)
                    return trace(ctx, parent, key)
                continue
            if nxt not in parent:
                parent[nxt] = (st, label)
                tick += 1
                heapq.heappush(heap, (sum(nxt[r] for r in opp), tick, nxt))
    return None


def through_the_night(
    ctx: Any, start: tuple, i: int, n: int, expand: Callable[..., Iterator[tuple]], R: int
) -> list[str] | None:
    """Win i once more, for a spec that checks wins at dawn rather than at every death: the
    night abilities of one night all resolve before the check, so a night can pass through a
    state that would have ended the game (two deaths at once skip a one-against-one draw).
    Breadth-first over (state, abilities used tonight): from a checked state a night ability
    leads into the night, where further night abilities (each once) resolve unchecked until
    dawn checks the wins. Inside the night even a single kill counts: no vote stands in for
    it there. Run only for a win the per-step search did not reach; a witness trace or None."""
    w = ctx.p.wins[i]
    night = {a.idx for a in ctx.p.abilities if a.phase == "night"}
    root = (start, None)
    parent: dict = {root: None}
    queue = deque([root])

    def reach(node: tuple, prev: tuple, label: str) -> None:
        if node not in parent:
            parent[node] = (prev, label)
            queue.append(node)

    while queue and len(parent) <= MAX_STATES:
        node = queue.popleft()
        st, tonight = node
        if tonight is None:
            win, maybe = winner(ctx, st[:R], n)
            if i in maybe:
                return trace(ctx, parent, node)
            if win is not None:
                continue
        else:
            reach((st, None), node, "dawn: the wins are checked")
        steps = [(s, False) for s in expand(st)] if tonight is None else []
        steps += [(s, True) for s in expand(st, every=True) if s[3] in night]
        for (nxt, label, won, ab), into_night in steps:
            if won is not None:
                if (won[0], won[1]) == (w.kind, w.idx):
                    key = (nxt, ("won", i))
                    parent[key] = (node, label)
                    return trace(ctx, parent, key)
                continue
            if not into_night:
                reach((nxt, None), node, label)
            elif tonight is None or ab not in tonight:
                reach((nxt, (tonight or frozenset()) | {ab}), node, label)
    return None


def trace(ctx: Any, parent: dict[tuple, Any], st: tuple) -> list[str]:
    """The labels of the steps from the start state to `st`."""
    steps = []
    while parent.get(st):
        st, label = parent[st]
        steps.append(label)
    return list(reversed(steps))
