"""What each night ability reads and writes while the night resolves (for ordering checks).

Engine semantics (compiler/runtime/core.py): target filters are checked when actions are
validated, before anything resolves, so they never depend on the order. During resolution:
kills go to a pending list settled at dawn and protections accumulate, so kill/protect commute;
`mark`/`unmark` change marks at once (read by `has`, and by `inverted` via inverting marks);
`convert` changes role and team at once (read by role/team/living/living_role/`in`);
`remember` writes the actor's own memory (read by `recall`); `trial` replaces the scheduled
trial; `steal` redirects the targets of abilities resolving after it; `wins` sets the winner
if none is set; `guard` replaces any earlier guard of the same seat (so two guards do not
commute: the later one is the one who dies). `tell`/`announce` only append messages and are
treated as commuting. `block x` stops x's abilities that resolve after it: every blockable
night ability reads the blocks (as does `blocked(x)`), so a block is an ordering edge, blocker
before blocked.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.model import bodies
from maf.dsl.diagnostics import Span


@dataclass
class Effects:
    reads: dict[tuple, Span] = field(default_factory=dict)
    writes: dict[tuple, Span] = field(default_factory=dict)


def _reads_of(e, out, span_default):
    for key, x in sem.read_keys(e):
        if key[0] in READ_AT_RESOLUTION:
            out.setdefault(key, x.span)


# what a night ability can see change while the night resolves (semantics.RESOURCES): the
# others are fixed for the night (the deal, the calendar, the plan) or only written by day
READ_AT_RESOLUTION = frozenset({"mark", "role", "mem", "block", "visit", "doom", "middle"})
# (`alive` too, in a spec with kills `at once`: effects() adds it)


def effects(p: ir.Program, ab: ir.Ability) -> Effects:
    """What the ability reads and writes while it resolves (not its delayed blocks nor a
    guard's reaction: they run at another time, semantics.Timing)."""
    ef = Effects()
    todo, done = [bodies(ab)], {ab.idx}
    while todo:
        for s, _ in sem.walk(todo.pop(), now_only=True):
            for e in sem.own_exprs(s):
                _reads_of(e, ef.reads, s.span)
            for key in sem.write_keys(s):
                ef.writes.setdefault(key, s.span)
            for key in sem.stmt_reads(s):
                ef.reads.setdefault(key, s.span)
            if isinstance(s, ir.CallAbility) and s.ability not in done:
                done.add(s.ability)  # the called decision runs now, as part of this one
                todo.append(bodies(p.abilities[s.ability]))
    if getattr(ab, "visits", False) and ab.at_night:
        # it visits its targets when it resolves: `visitors(x)`/`visits(x)` see it only after
        ef.writes.setdefault(("visit",), ab.span)
    if ab.inverted is not None:
        for m in p.marks:
            if m.inverts:
                ef.reads.setdefault(("mark", m.idx), ab.span)
    for m in p.marks:  # a status on its actor suspends it (semantics.FIELDS)
        if (m.powerless or m.malfunctions) and ab.granted < 0:
            ef.reads.setdefault(("mark", m.idx), ab.span)
    if ab.at_night and _kills_at_once(p):
        # after a death at once, its actor and its target filters are read again
        ef.reads.setdefault(("alive",), ab.span)
    if ab.targets:
        ef.reads.setdefault(("targets",), ab.span)
    if not getattr(ab, "unblockable", False):
        ef.reads.setdefault(("block",), ab.span)  # a block stops it if it comes first
    return ef


def _kills_at_once(p: ir.Program) -> bool:
    """Does an ability of `p` hold a kill `at once` (Kill.at_once)? Asked for every ability
    (every pair, by K001/K002), answered once per program (ir.once): a walk of every ability's
    nodes."""
    return ir.once(_any_kill_at_once, p)


def _any_kill_at_once(p: ir.Program) -> bool:
    return any(isinstance(n, ir.Kill) and n.at_once for n in ir.nodes(p.abilities))


def flows(a: Effects, b: Effects):
    """(write key, write span, read span): what `a` writes that `b` reads."""
    out = []
    for wk, ws in a.writes.items():
        rk = sem.read_key_of(wk)
        if rk in b.reads:
            out.append((wk, ws, b.reads[rk]))
    return out


def clashes(a: Effects, b: Effects):
    """(key a, span a, key b, span b): writes of both that do not commute."""
    out = []
    for ka, sa in a.writes.items():
        for kb, sb in b.writes.items():
            if not sem.commutes(ka, kb):
                out.append((ka, sa, kb, sb))
    return out


def describe(p: ir.Program, key) -> str:
    k = key[0]
    if k == "mark":
        m = p.marks[key[1]].id
        if len(key) > 2:
            return f"{'removes' if key[2] == 'unset' else 'sets'} mark `{m}`"
        return f"mark `{m}`"
    if k == "role":
        return f"converts a player to `{p.roles[key[1]].id}`" if len(key) > 1 else "roles/teams"
    if k == "mem":
        return f"memory `{p.memslots[key[1]]}`"
    if k == "trial":
        return "schedules the trial"
    if k == "targets":
        return "targets (steal)"
    if k == "winner":
        return "declares a winner"
    if k == "block":
        return "blocks a player"
    if k == "visit":
        return "visits its target (seen by `visitors`/`visits`)" if len(key) == 1 else "visits"
    if k == "guard":
        return "guards a seat (one guard per seat: the later one replaces the earlier)"
    if k == "doom":
        return "kills a player (pending until dawn: `doomed` sees it)"
    if k == "middle":
        return "swaps a card with the middle of the table"
    if k in sem.RESOURCES:
        return sem.RESOURCES[k].doc
    return str(key)


def before_closure(p: ir.Program):
    """ability idx -> set of abilities it is declared (transitively) to resolve before."""
    succ = {a.idx: set(a.before) for a in p.abilities}
    out = {}
    for a in succ:
        seen, stack = set(), list(succ[a])
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(succ.get(x, ()))
        out[a] = seen
    return out


def forced(p: ir.Program, a: ir.Ability, b: ir.Ability, closure) -> bool:
    """Is the relative order of a and b decided by the spec (not only by definition order)?"""
    if a.tier != b.tier:
        return True
    if b.idx in closure[a.idx] or a.idx in closure[b.idx]:
        return True
    # the compiler's tie-break is definition order; a rank against it means a declaration
    return (a.rank < b.rank) != (a.idx < b.idx)


def written_before(p: ir.Program, ab: ir.Ability, resource: str, cache=None) -> list[Span]:
    """Where something that can run before `ab`'s body in the same phase, after its filters
    were validated, writes `resource` (semantics.RESOURCES): an ability of the phase that
    resolves earlier, the ability's own body, a reaction (visits and blocks happen as abilities
    resolve), delayed blocks and `on night start` hooks (they run after validation, before the
    actions). Empty: the body sees what the filters saw. `cache`: a dict kept per program."""
    if cache is None:
        cache = {}
    key = ("writers", resource)
    if key not in cache:

        def scan(stmts, now_only=True):
            return [
                s.span
                for s, _ in sem.walk(stmts, now_only=now_only)
                if resource in sem.fact(s).writes
            ]

        per_ab = {a.idx: scan(bodies(a)) for a in p.abilities}
        night_extra: list[Span] = []
        for site in sem.sites(p):
            if site.what == "reaction" or (site.what == "hook" and site.event == "night_start"):
                night_extra += scan(site.body)
            for s, _ in sem.walk(site.body):  # delayed blocks run at the start of a night
                if isinstance(s, ir.Delayed):
                    night_extra += scan(s.body)
        cache[key] = (per_ab, night_extra)
    per_ab, night_extra = cache[key]
    out: list[Span] = []
    for other in p.abilities:
        same_phase = other.at_night == ab.at_night and other.phase == ab.phase
        if other.idx == ab.idx or (same_phase and other.rank < ab.rank):
            out += per_ab[other.idx]
    if ab.at_night:
        out += night_extra
    return out
