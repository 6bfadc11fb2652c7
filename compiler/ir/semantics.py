"""The abstract meaning of every IR construct, once: what it reads and writes, when it takes
effect, what it can kill, save, block or convert, and with what it commutes.

The runtime (compiler/runtime/core.py) is the concrete semantics; this table is what the checks
(compiler/verify/check/) know of it. Every check reads its facts from here instead of keeping
its own list of statement kinds: a construct is not finished until it has an entry (the
completeness test, tests/check/test_semantics.py, enumerates the IR's node kinds, the builtin
functions and names, and fails on one without an entry; tests replay the generated engine to
confirm the facts).

Resources (what a construct reads or writes; a write key is `(resource, detail...)`):

    role     the roles and teams of seats (role, team, `in`, living, living_role)
    alive    who is alive (alive(x), alive, quantifiers, left/right, `each`)
    departed who has left, and why (departed, cause_of): written when kills settle
    mark     a mark, per mark (has; `inverted` via inverting marks, `granted by`)
    mem      a memory slot, per slot (recall): `remember` writes the actor's own row
    doom     tonight's pending kills, the deaths so far (doomed): settled at dawn
    save     tonight's protections and defence levels (read only when kills settle)
    guard    tonight's guards (one per seat: a later guard replaces an earlier one)
    visit    tonight's visits (visitors, visits), recorded as each ability resolves
    block    blocks (blocked; every blockable night ability reads them)
    plan     the actions submitted this phase (acted): fixed before anything resolves
    uses     the actor's uses of an ability (used)
    middle   the cards in the middle of the table (in_middle)
    vote     votes, vote weight, defenders, skips, the vote being held (voted, defending)
    trial    the scheduled trial
    targets  whose action a steal redirects (every targeted ability reads it)
    winner   a declared winner
    calendar night and day numbers, a skipped night, the chaos day
    table    the deal: players, the initial roles (count_role, count_team): never written
    message  private and public messages (tell, announce): they commute
    delayed  effects scheduled for a later night

When (`Timing`): NOW (as the statement runs, seen by everything after it that night), DAWN (when
the night's kills settle: after every action), LATER (at the start of a later night, before any
action), DAY (in the coming day). Nested blocks carry their own timing: a guard's reaction runs
when the kills settle, a delayed block at the start of night N, `if`/`each` bodies at once.

Validation: a night ability's target filters and `when` are checked when the actions are
validated, before anything of the night resolves (core.Game._resolve_night). A read whose
value at that point is fixed (`ReadFact.at_validation`: nothing is doomed yet) is replaced
by that value in filters (`at_validation`). An ability whose filters or `when` read the night
so far (`ReadFact.at_wake`: doomed, visitors, visits) has them read at its wake instead, when it
resolves (`read_at_wake`; core.Game._at_wake): there a read stays fixed only if nothing before
the ability in the night order writes it (`written_before`).

"""

from __future__ import annotations

import dataclasses
import math
import operator
import typing
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import Any, NamedTuple

from maf.compiler.ir import nodes as ir


class Timing(str, Enum):
    NOW = "now"  # at once: later statements and later abilities of the night see it
    DAWN = "dawn"  # when the night's kills settle, after every action
    LATER = "later"  # at the start of a later night (`in N nights`), before its actions
    DAY = "day"  # in the coming day (trial, vote weight, cancelled vote)


class Commute(str, Enum):
    ALWAYS = "always"  # two writes in either order leave the same state
    SAME = "same"  # commute when they write the same detail (same mark op, same role, winner)
    NEVER = "never"  # the later write replaces the earlier one: order decides


@dataclass(frozen=True)
class Resource:
    name: str
    commute: Commute
    keyed: bool  # do reads and writes name one item (a mark, a slot)?
    lasts_night: bool  # cleared before the next night (a within-night channel)
    doc: str


RESOURCES: dict[str, Resource] = {
    r.name: r
    for r in (
        Resource("role", Commute.SAME, False, False, "roles and teams of seats"),
        Resource("alive", Commute.ALWAYS, False, False, "who is alive"),
        Resource("departed", Commute.ALWAYS, False, False, "who left, and the cause"),
        Resource("mark", Commute.SAME, True, False, "marks, per mark"),
        Resource("mem", Commute.ALWAYS, True, False, "memory slots (the actor's own row)"),
        Resource("doom", Commute.ALWAYS, False, True, "tonight's pending kills"),
        Resource("save", Commute.ALWAYS, False, True, "tonight's protections and levels"),
        Resource("guard", Commute.NEVER, False, True, "tonight's guards, one per seat"),
        Resource("visit", Commute.ALWAYS, False, True, "tonight's visits"),
        Resource("block", Commute.ALWAYS, False, True, "blocks"),
        Resource("plan", Commute.ALWAYS, False, True, "the actions submitted this phase"),
        Resource("uses", Commute.ALWAYS, False, False, "uses of abilities"),
        Resource("middle", Commute.NEVER, False, False, "cards in the middle"),
        Resource("vote", Commute.ALWAYS, False, False, "votes, weights, the vote held"),
        Resource("trial", Commute.NEVER, False, False, "the scheduled trial"),
        Resource("targets", Commute.NEVER, False, True, "steals of actions"),
        Resource("winner", Commute.SAME, False, False, "a declared winner"),
        Resource("calendar", Commute.ALWAYS, False, False, "night/day numbers, skips"),
        Resource("table", Commute.ALWAYS, False, False, "the deal"),
        Resource("message", Commute.ALWAYS, False, False, "messages"),
        Resource("delayed", Commute.ALWAYS, False, False, "effects scheduled later"),
    )
}


@dataclass(frozen=True)
class StmtFact:
    """What one statement kind means to the checks."""

    writes: tuple[str, ...]  # resources it writes (RESOURCES)
    when: Timing  # when its own effect takes effect
    kills: bool = False  # can it kill (queue a kill)
    saves: bool = False  # can it save a seat from a kill (protect, guard)
    blocks: bool = False  # does it stop abilities (block)
    converts: bool = False  # can it change a seat's role (or card)
    declares_win: bool = False
    revives: bool = False
    # nested statement blocks: (field name, when they run)
    nested: tuple[tuple[str, Timing], ...] = ()
    doc: str = ""
    # the field holding the seat it acts on (the seat killed, saved, marked, converted ...)
    seat: str | None = None
    repeats: bool = False  # its nested blocks run once per seat (`each`): any number of times
    tie: str | None = None  # it holds a vote of its own (a trial): the field of its tie rule
    weighs: bool = False  # it changes how much a seat's vote counts
    # the fields (seat variable, its filter) of the seat its nested blocks bind (`each`)
    binds: tuple[str, str] | None = None


def _f(*writes, when=Timing.NOW, **kw) -> StmtFact:
    return StmtFact(tuple(writes), when, **kw)


STMT: dict[type, StmtFact] = {
    ir.Kill: _f(
        "doom",
        kills=True,
        seat="target",
        doc="queues a kill at once (doomed() sees it); it settles at dawn against saves, "
        "guards, immunity and defence (attack vs level), unless piercing. `at once` "
        "(Kill.at_once, see FIELDS): it settles as it runs instead, against the saves made so "
        "far; the seat is dead for every later ability of the night",
    ),
    ir.Protect: _f(
        "save",
        saves=True,
        seat="target",
        doc="saves from the causes (or grants a level) for the night",
    ),
    ir.Guard: _f(
        "guard",
        saves=True,  # and the guard dies instead of the guarded seat
        seat="target",
        nested=(("body", Timing.DAWN),),
        doc="the guard takes tonight's kills of the causes aimed at the seat (a later guard "
        "of the seat replaces it); its reaction runs when the kills settle. He dies piercing, "
        "or, `takes the attack`, by the kill itself: his own saves, immunity and level stop it",
    ),
    ir.SetMark: _f("mark", seat="target", doc="sets or removes a mark at once"),
    ir.Convert: _f("role", converts=True, seat="target", doc="changes role and team at once"),
    ir.Tell: _f("message", doc="a private message (messages commute)"),
    ir.Announce: _f("message", doc="a public message (messages commute)"),
    ir.Remember: _f("mem", doc="writes the actor's own memory slot at once"),
    ir.Trial: _f("trial", when=Timing.DAY, tie="tie", doc="replaces the scheduled trial"),
    ir.Steal: _f("targets", doc="redirects the source's stealable action, if still to resolve"),
    ir.Revive: _f("alive", revives=True, seat="target", doc="a dead seat lives again at once"),
    ir.Weight: _f("vote", when=Timing.DAY, weighs=True, doc="the actor's vote weight for the day"),
    ir.WinNow: _f("winner", declares_win=True, doc="declares the winner if none is"),
    ir.SkipNight: _f("calendar", when=Timing.DAY, doc="the next night is skipped"),
    ir.CancelVote: _f("vote", when=Timing.DAY, doc="the day's vote is not held"),
    ir.Each: _f(
        nested=(("body", Timing.NOW),),
        repeats=True,
        binds=("var", "filter"),
        doc="the body once per seat, at once",
    ),
    ir.If: _f(doc="the first branch whose condition holds (branches: nested, at once)"),
    ir.CallAbility: _f(
        doc="the seat decides an `on call` ability at once: its effects are that ability's"
    ),
    ir.Visit: _f(
        "visit",
        seat="target",
        doc="the actor visits the seat at once (visitors/visits); its `on visited` reactions "
        "run now, and may kill (a veteran's shot)",
    ),
    ir.Block: _f(
        "block",
        blocks=True,
        seat="target",
        doc="the seat's night abilities still to resolve do not; its `on blocked` runs now",
    ),
    ir.Delayed: _f(
        "delayed",
        when=Timing.LATER,
        nested=(("body", Timing.LATER),),
        doc="the body runs at the start of night now+N, before that night's actions",
    ),
    ir.ModeratorChoice: _f(
        nested=(("body", Timing.NOW), ("orelse", Timing.NOW)),
        doc="the moderator picks, at once, a value of its kind the filter accepts (an input of "
        "the step, like a decision: any of them may be picked); the body runs with it, or, "
        "declined or with none to pick, the `else` block",
    ),
    ir.MiddleSwap: _f(
        "middle",
        converts=True,
        seat="target",
        doc="the seat's card and a middle card change places (lowering pairs it with a "
        "Convert of the seat to the new card's role: the role change is that statement's)",
    ),
}


# fields of IR nodes that change what a construct means (beyond its kind's entry above)
FIELDS: dict[tuple[str, str], str] = {
    (
        "Kill",
        "at_once",
    ): "settles as it runs (Game._settle_now), against the protections, guards, immunity and "
    "defence made so far: a later protection cannot save; the seat's triggers run then; "
    "every later action of the night sees it dead: an ability that may wake after it has its "
    "actor's life and its filters and `when` reading alive/departed read at its wake "
    "(read_at_wake: a dead actor, a dead target refused there, with a reason; alive: "
    "Timing.NOW)",
    (
        "Mark",
        "powerless",
    ): "a status: while a seat carries it, its role's powers are suspended: its abilities "
    "cannot be used (rule `powerless`; nor called), its death triggers, `on any death`, hooks, "
    "`on visited`/`on blocked` reactions, immunities, defence level and `instead of death` do "
    "not run or hold. Its role and team read as they are (role(x)); marks it carries (votes, "
    "weights, granted abilities) are not its role's powers and keep working",
    (
        "Mark",
        "malfunctions",
    ): "a status: as `powerless`, except that its abilities are still used (charged, visiting, "
    "called): each runs its `inverted` block, or nothing if it has none",
    (
        "Role",
        "replacements",
    ): "`instead of death`: in Game._die, before the seat dies: the first replacement whose "
    "causes and `when` match (a seat whose powers are active) runs its body instead; the seat "
    "does not die, no death trigger nor `on any death` runs, and no save is reported",
    (
        "Team",
        "members",
    ): "a side made by marks: no role is on it (`living` per team counts none); `living(SIDE)` "
    "is lowered to a count of the living seats `members` accepts (a Quant, read: alive, and "
    "what the condition reads); a win of the side names as winning seats those it accepts, "
    "dead or alive, when the game ends (Game.winning_seats)",
    (
        "Role",
        "title",
    ): "a title's role (`title ID`, dsl/titles.py): dealt to no seat (Game.new refuses it; no "
    "setup counts it), so no seat is ever of it and no conversion leads to it; its abilities "
    "are `on call` decisions called for the holder or granted by the title's mark; its `on "
    "death` is a top-level `on any death` guarded by `has(victim, ID)` (victim for self)",
    (
        "Role",
        "kind",
    ): "the role's kind: `kind(x)` reads it through the seat's role now (resource role), "
    "`count_kind`/`max_count` through the deal (table)",
}


def status_marks(p) -> tuple[int, ...]:
    """The marks that suspend their carrier's role powers (`powerless`, `malfunctions`)."""
    return tuple(m.idx for m in p.marks if m.powerless or m.malfunctions)


def suspended_by(p, ab) -> tuple[tuple[int, bool], ...]:
    """The statuses that suspend ability `ab` while its user carries one (Game._role_power):
    (mark idx, malfunctions). A `powerless` one refuses it; a `malfunctions` one runs its
    `inverted` block (or nothing) instead of its body. None suspends an ability granted by a
    mark (the mark's power, not the role's: a title's abilities too)."""
    if ab.granted >= 0:
        return ()
    return tuple((m.idx, bool(m.malfunctions)) for m in p.marks if m.powerless or m.malfunctions)


def inverted_by(p, ab) -> tuple[int, ...]:
    """The marks under which ability `ab` runs its `inverted` block instead of its body (the
    runtime's INVERTED, under INVERTING_MASK or a malfunctions status): any `inverts` mark,
    and the `malfunctions` statuses that suspend it."""
    mal = {m for m, malfunctions in suspended_by(p, ab) if malfunctions}
    return tuple(m.idx for m in p.marks if m.inverts or m.idx in mal)


@dataclass(frozen=True)
class ReadFact:
    """What an expression (kind, builtin function or builtin name) reads."""

    reads: tuple[str, ...]
    # its value while actions are validated (before the night resolves), if fixed there
    at_validation: object = None
    doc: str = ""
    # a number of seats it is: the living ("living"), the living per team ("team") or per role
    # ("role"), the table size ("players"); None: no count of seats
    count: str | None = None
    # it reads the night so far: a night ability whose target filters or `when` read it has
    # them read at its wake (when it resolves, after the abilities before it), not at
    # validation (read_at_wake)
    at_wake: bool = False
    # a function of a seat's role now: its role ("role"), team ("team") or kind ("kind")
    of_seat: str | None = None
    # a function of its arguments' values alone: the engine's value from theirs (the emitted
    # code: backend/pycode.py CALLS; an abstraction that knows the arguments knows it)
    value: Callable[..., Any] | None = None
    # its integer argument is read exactly: `/` inside divides into a fraction (rounding)
    exact: bool = False
    # a number never below this (the night and day numbers count from 1)
    at_least: int | None = None


EXPR: dict[type, ReadFact] = {
    ir.Const: ReadFact(()),
    ir.Var: ReadFact((), doc="a local: a target, a choice, a reaction's seat"),
    ir.Builtin: ReadFact((), doc="see BUILTINS"),
    ir.Sym: ReadFact((), doc="a declaration's number"),
    ir.Call: ReadFact((), doc="see CALLS"),
    ir.Unary: ReadFact(()),
    ir.Binary: ReadFact((), doc="OPERATORS (`/` floors; exact in floor/ceil/round)"),
    ir.In: ReadFact(("role",), doc="a seat's role or team among some"),
    ir.InSet: ReadFact((), doc="membership in a seat set (visitors/visits)"),
    ir.Quant: ReadFact(("alive",), doc="over the living seats"),
    ir.Seen: ReadFact(
        ("role",),
        doc="team(x) / role(x) / kind(x) read by information only (a tell's parts, the "
        "conditions of an `if`, `each` or moderator choice whose bodies only tell): the true "
        "value, or, for a "
        "role that `registers as` something, any of its registrations, as the moderator "
        "chooses once per seat and kind in the outermost statement holding the reads; kills, "
        "filters, `when`, wins and every other read see the truth",
    ),
}


def _clamp(v, lo, hi):
    """clamp(v, lo, hi) as the engine computes it: min(max(v, lo), hi) (so hi when lo > hi)."""
    return min(max(v, lo), hi)


def _half_up(x):
    """round(x), half up: round(5 / 2) is 3, round(-5 / 2) is -2 (the engine's _round)."""
    return math.floor(x + Fraction(1, 2))


def _div(a, b):
    """`/` as the engine computes it: floor division, and x / 0 is 0 (docs/language.md)."""
    return a // b if b else 0


def _mod(a, b):
    """`%` as the engine computes it: the remainder of floor division, and x % 0 is 0."""
    return a % b if b else 0


# the value of each binary operator on numbers, as the engine computes it (the emitted code:
# backend/pycode.py, the engine's _div/_mod); `and`/`or` are not here: an abstraction gives
# them its own three-valued meaning
OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": _div,
    "%": _mod,
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


# builtin functions (dsl/analysis.py BUILTIN_FUNCS)
CALLS: dict[str, ReadFact] = {
    "alive": ReadFact(("alive",)),
    "role": ReadFact(("role",), of_seat="role"),
    "team": ReadFact(("role",), of_seat="team"),
    "living": ReadFact(("role", "alive"), count="team"),
    "living_role": ReadFact(("role", "alive"), count="role"),
    "has": ReadFact(("mark",)),
    # (no constant at validation: while the actions validate it is what was submitted
    # tonight, all of it, as the plan then resolved by: Game.acted reads the actions)
    "acted": ReadFact(("plan",), doc="submitted this phase"),
    "recall": ReadFact(("mem",)),
    "used": ReadFact(("uses",)),
    "doomed": ReadFact(
        ("doom",), at_validation=False, at_wake=True, doc="a kill pending tonight so far"
    ),
    "in_middle": ReadFact(("middle",)),
    "departed": ReadFact(("departed",)),
    "defending": ReadFact(("vote",)),
    "left": ReadFact(("alive",)),
    "right": ReadFact(("alive",)),
    "pick": ReadFact((), doc="its second argument if the first holds, else its third"),
    "min": ReadFact((), value=min),
    "max": ReadFact((), value=max),
    "clamp": ReadFact((), value=_clamp),
    "floor": ReadFact((), value=math.floor, exact=True),
    "ceil": ReadFact((), value=math.ceil, exact=True),
    "round": ReadFact((), value=_half_up, exact=True),
    # () at validation: the empty seat set (nobody has visited yet); folded in `count(...)`
    "visitors": ReadFact(("visit",), at_validation=(), at_wake=True),
    "visits": ReadFact(("visit",), at_validation=(), at_wake=True),
    "count": ReadFact(()),
    "count_role": ReadFact(("table",)),
    "count_team": ReadFact(("table",)),
    # kinds of role: a seat's kind follows its role now; the counts read the deal
    "kind": ReadFact(("role",), of_seat="kind", doc="the kind of the seat's role now (-1: none)"),
    "count_kind": ReadFact(("table",), doc="seats dealt a role of the kind"),
    "max_count": ReadFact(("table",), doc="the most seats dealt one role of the kind"),
    "blocked": ReadFact(("block",)),
    "voted": ReadFact(("vote",)),
    "cause_of": ReadFact(("departed",)),
}

# builtin names (dsl/analysis.py BUILTIN_NAMES)
BUILTINS: dict[str, ReadFact] = {
    "self": ReadFact(()),
    "true": ReadFact(()),
    "false": ReadFact(()),
    "alive": ReadFact(("alive",), count="living"),
    "players": ReadFact(("table",), count="players"),
    "night": ReadFact(("calendar",), at_least=1),
    "day": ReadFact(("calendar",), at_least=1),
    "chaos": ReadFact(("calendar",)),
    "defenders": ReadFact(("vote",), at_least=0),
    "skips": ReadFact(("vote",), at_least=0),
}


def fact(s) -> StmtFact:
    """The entry of a statement (KeyError for a kind the table does not know)."""
    return STMT[type(s)]


# ------------------------------------------------------------------ reads
def subexprs(e):
    """Every sub-expression of an IR expression (pre-order), without recursion limits."""
    todo = [e]
    while todo:
        x = todo.pop()
        yield x
        kids = [
            getattr(x, f.name)
            for f in dataclasses.fields(x)
            if f.name != "span" and isinstance(getattr(x, f.name), (tuple, *ir.EXPR_NODES))
        ]
        for k in reversed(kids):
            if isinstance(k, tuple):
                todo.extend(reversed([y for y in k if isinstance(y, ir.EXPR_NODES)]))
            else:
                todo.append(k)


def read_keys(e):
    """(read key, expression) for everything `e` reads; keyed resources name their item."""
    for x in subexprs(e):
        if isinstance(x, ir.Call):
            rf = CALLS.get(x.func)
            for r in rf.reads if rf else ():
                if RESOURCES[r].keyed:
                    arg = x.args[1] if r == "mark" else x.args[0]
                    if isinstance(arg, ir.Sym):
                        yield (r, arg.idx), x
                else:
                    yield (r,), x
        elif isinstance(x, ir.Builtin):
            for r in BUILTINS.get(x.name, ReadFact(())).reads:
                yield (r,), x
        else:
            for r in EXPR[type(x)].reads:
                yield (r,), x


def reads_resource(e, resource: str) -> bool:
    return any(k[0] == resource for k, _ in read_keys(e))


def roles_named(e) -> set[int] | None:
    """The roles an expression tells apart (`role(x) == R`, `x in R, S`, a role constant), or
    None when it compares with a chosen role (a `role` variable: any role)."""
    out: set[int] = set()
    for x in subexprs(e):
        if isinstance(x, ir.Sym) and x.kind == "role":
            out.add(x.idx)
        elif isinstance(x, ir.In) and x.kind == "role":
            out.update(x.members)
        elif isinstance(x, ir.Var) and x.type == "role":
            return None
    return out


def counts_read(exprs) -> set[str]:
    """The numbers of seats (ReadFact.count: living, team, role, players) the expressions read."""
    out: set[str] = set()
    for e in exprs:
        for x in subexprs(e):
            if isinstance(x, ir.Call):
                rf = CALLS.get(x.func)
            elif isinstance(x, ir.Builtin):
                rf = BUILTINS.get(x.name)
            else:
                rf = EXPR.get(type(x))
            if rf is not None and rf.count is not None:
                out.add(rf.count)
    return out


# what a kill `at once` changes mid-night (write_keys): in a spec with such kills, a night ability
# whose wake may follow one has its filters and `when` read at its wake if they read these, and
# so has its actor's life if it is used by the living (read_at_wake, Game._at_wake)
AT_ONCE_READS = ("alive", "departed")


def read_at_wake(ab, p=None) -> bool:
    """Are a night ability's target filters and `when` read at its wake rather than when the
    night's actions are validated? They are when one of them reads the night so far (a
    ReadFact with `at_wake`: doomed, visitors, visits): the engine checks the rest of the action
    up front and these when the ability resolves, in the night order (a night given at once
    is then rejected whole, as any illegal action rejects it; a wake refuses the action).
    In a program `p` with kills `at once` (killed_at_once_before), so are they when they read
    who is alive or departed (AT_ONCE_READS), and so is its actor's life, for an ability of the
    living (`dead-actor` at its wake). An `at any` ability used by day reads them at once, as
    every day ability does."""
    if ab.phase not in ("night", "any"):
        return False
    exprs = [t.filter for t in ab.targets] + ([ab.when] if ab.when is not None else [])
    if any(
        isinstance(x, ir.Call) and x.func in CALLS and CALLS[x.func].at_wake
        for e in exprs
        for x in subexprs(e)
    ):
        return True
    if p is None or not killed_at_once_before(p, ab):
        return False
    return ab.life == "alive" or any(reads_resource(e, r) for e in exprs for r in AT_ONCE_READS)


def _at_once_first(p) -> tuple[int | None, dict[int, int]]:
    """The night order's first position of a night ability holding a kill `at once` (-1: one
    outside the order; None: none), and the order's positions by ability."""
    pos = {a: k for k, a in enumerate(p.night_order)}
    first = min(
        (
            pos.get(a.idx, -1)
            for a in p.abilities
            if any(isinstance(n, ir.Kill) and n.at_once for n in ir.nodes(a.body))
        ),
        default=None,
    )
    return first, pos


def killed_at_once_before(p, ab) -> bool:
    """Can a kill `at once` (Kill.at_once) make a seat dead tonight before `ab` wakes: one in a
    night ability at or before it in the night order (itself too: another seat's use of it may
    resolve first; one outside the night order counts as first)? Asked for every ability:
    the program's answer is computed once (ir.once)."""
    first, pos = ir.once(_at_once_first, p)
    if first is None:
        return False
    return first <= pos.get(ab.idx, len(p.night_order))


def written_before(p, ab, resource: str) -> bool:
    """Can something write `resource` tonight before `ab` resolves: an ability earlier in the
    night order (a visit: any ability that visits its targets), a `night start` hook, a delayed
    block (they run before the actions)?"""
    pos = {a: k for k, a in enumerate(p.night_order)}
    mine = pos.get(ab.idx, len(pos))
    bodies = [x.body for x in p.abilities if x.at_night and pos.get(x.idx, len(pos)) < mine]
    bodies += [h.body for h in p.hooks if h.when == "night_start"]
    bodies += [h.body for r in p.roles for h in r.hooks if h.when == "night_start"]
    if resource == "visit" and any(
        x.at_night and x.targets and not x.astral and pos.get(x.idx, len(pos)) < mine
        for x in p.abilities
    ):
        return True
    for site in sites(p):
        for st, _ in walk(site.body):
            if isinstance(st, ir.Delayed):
                bodies.append(st.body)
    return any(resource in fact(st).writes for body in bodies for st, _ in walk(body))


def at_validation(e, ab=None, p=None):
    """`e` as a night ability's filter or `when` sees it: the reads fixed while the actions are
    validated (nothing doomed yet) replaced by their values there. For an ability whose filters
    are read at its wake (read_at_wake, with its program `p`), only the reads nothing writes
    before its wake stay fixed (no kill before it: nothing is doomed yet)."""
    if not fixed_at_validation(e, ab, p):
        return e
    return _subst(e, _fixed_funcs(ab, p))


def _fixed_funcs(ab, p):
    """The builtin functions whose value is fixed where `ab`'s filters are read."""
    out = {f for f, rf in CALLS.items() if rf.at_validation is not None}
    if ab is not None and p is not None and read_at_wake(ab, p):
        out = {f for f in out if not any(written_before(p, ab, r) for r in CALLS[f].reads)}
    return out


def _subst(e, funcs=None):
    if isinstance(e, ir.Call):
        a = e.args[0] if e.func == "count" and len(e.args) == 1 else None
        if isinstance(a, ir.Call) and _at_val(a.func) == () and (funcs is None or a.func in funcs):
            return ir.Const(e.span, 0)  # the size of a seat set empty there
        v = _at_val(e.func)
        if v is not None and v != () and (funcs is None or e.func in funcs):
            return ir.Const(e.span, v)
    return _rebuild(e, lambda y: _subst(y, funcs))


def _rebuild(e, f):
    """`e` with `f` applied to each of its sub-expressions (its fields holding an expression,
    alone or in a tuple); `e` itself when it has none."""
    changes = {}
    for fld in dataclasses.fields(e):
        v = getattr(e, fld.name)
        if isinstance(v, ir.EXPR_NODES):
            changes[fld.name] = f(v)
        elif isinstance(v, tuple) and any(isinstance(y, ir.EXPR_NODES) for y in v):
            changes[fld.name] = tuple(f(y) if isinstance(y, ir.EXPR_NODES) else y for y in v)
    return dataclasses.replace(e, **changes) if changes else e


def fixed_at_validation(e, ab=None, p=None):
    """The calls in `e` whose value is fixed where it is read: while actions are validated, or,
    for an ability whose filters are read at its wake (`ab` of program `p`), at its wake."""
    funcs = _fixed_funcs(ab, p)
    return [x for x in subexprs(e) if isinstance(x, ir.Call) and x.func in funcs]


def _at_val(func):
    rf = CALLS.get(func)
    return None if rf is None else rf.at_validation


# ------------------------------------------------------------------ statements
def own_exprs(s):
    """The expressions a statement evaluates itself (not those of its nested blocks)."""
    if isinstance(s, ir.If):
        return [c for c, _ in s.branches]
    out = []
    for f in dataclasses.fields(s):
        v = getattr(s, f.name)
        if isinstance(v, ir.EXPR_NODES):
            out.append(v)
        elif isinstance(v, tuple):
            out += [x for x in v if isinstance(x, ir.EXPR_NODES)]
    return out


def blocks(s):
    """(block, timing) for every nested statement block of `s`."""
    if isinstance(s, ir.If):
        return [(b, Timing.NOW) for _, b in s.branches] + [(s.orelse, Timing.NOW)]
    return [(getattr(s, name), t) for name, t in fact(s).nested]


def walk(stmts, path=(), now_only=False):
    """(stmt, path) for every statement, nested ones included; the path is the (condition,
    wanted truth) guards of the `if` branches around it. now_only: only what runs while the
    enclosing code runs (not a guard's reaction nor a delayed block)."""
    todo = [(s, path) for s in reversed(tuple(stmts))]
    while todo:
        s, pth = todo.pop()
        yield s, pth
        if isinstance(s, ir.If):
            negs: list[tuple[object, bool]] = []
            kids = []
            for cond, body in s.branches:
                g = pth + tuple(negs) + ((cond, True),)
                kids += [(x, g) for x in body]
                negs.append((cond, False))
            kids += [(x, pth + tuple(negs)) for x in s.orelse]
            todo.extend(reversed(kids))
            continue
        for body, t in blocks(s):
            if now_only and t is not Timing.NOW:
                continue
            todo.extend((x, pth) for x in reversed(body))


def write_keys(s) -> list[tuple]:
    """The write keys of one statement (its nested blocks not included)."""
    f = fact(s)
    out: list[tuple] = []
    for r in f.writes:
        if r == "mark":
            out.append(("mark", s.mark, "unset" if s.remove else "set"))
        elif r == "role":
            out.append(("role", s.role))
        elif r == "mem":
            out.append(("mem", s.slot))
        elif r == "winner":
            out.append(("winner", s.kind, s.idx))
        else:
            out.append((r,))
    if isinstance(s, ir.Kill) and s.at_once:  # FIELDS[("Kill", "at_once")]: dead at once
        out += [("alive",), ("departed",)]
    return out


def stmt_reads(s) -> list[tuple]:
    """What one statement reads as it runs, beyond its expressions (its nested blocks not
    included): a kill `at once` settles against the protections made so far (FIELDS[("Kill",
    "at_once")]), so a protection resolving after it is too late."""
    if isinstance(s, ir.Kill) and s.at_once:
        return [("save",)]
    return []


def read_key_of(wkey):
    """The read key a write key affects."""
    return wkey[:2] if RESOURCES[wkey[0]].keyed else wkey[:1]


def commutes(ka, kb) -> bool:
    """Do two writes (keys) commute?"""
    if ka[0] != kb[0]:
        return True
    rule = RESOURCES[ka[0]].commute
    if rule is Commute.ALWAYS:
        return True
    if rule is Commute.NEVER:
        return False
    if ka[0] == "mark":
        return ka[1] != kb[1] or ka[2] == kb[2]
    return ka == kb


def is_dispatch(s) -> bool:
    """Is `s` an `if` chain lowering wrote (a role known only at run time: one branch per role,
    `convert x to role(y)`, `exchange`)? Its conditions are not the author's: they share the
    statement's span."""
    return (
        isinstance(s, ir.If)
        and bool(s.branches)
        and all(c.span == s.span for c, _ in s.branches)
        and not s.orelse
    )


def kinds(stmts, pred) -> list:
    """The statements (nested ones included) whose entry satisfies `pred`."""
    return [s for s, _ in walk(stmts) if pred(fact(s))]


# ------------------------------------------------------------------ what a statement does
class KillOf(NamedTuple):
    """A statement that kills: the seat, the cause, piercing, the attack level."""

    seat: ir.Expr
    cause: int
    piercing: bool
    attack: int


def seat_of(s):
    """The expression of the seat a statement acts on (StmtFact.seat), or None."""
    name = fact(s).seat
    return None if name is None else getattr(s, name)


def kill_of(s) -> KillOf | None:
    """What a statement that kills (StmtFact.kills) kills: its seat, cause, piercing, attack."""
    if not fact(s).kills:
        return None
    return KillOf(seat_of(s), s.cause, s.piercing, getattr(s, "attack", 1))


def new_role(s) -> int | None:
    """The role a statement turns its seat into (its `role` write), or None."""
    for k in write_keys(s):
        if k[0] == "role":
            return k[1]
    return None


def declared_win(s) -> tuple[str, int] | None:
    """The winner (kind: team | role, idx) a statement declares (its `winner` write), or None."""
    for k in write_keys(s):
        if k[0] == "winner":
            return k[1], k[2]
    return None


def tie_rule(s) -> str | None:
    """The tie rule of a statement that holds a vote of its own (StmtFact.tie), or None."""
    name = fact(s).tie
    return None if name is None else getattr(s, name)


def choice(s):
    """(branches, orelse) of a statement that runs the first block whose condition holds (an
    `if`: [(condition, block)], the `else` block), or None."""
    if isinstance(s, ir.If):
        return s.branches, s.orelse
    return None


def nested_blocks(s) -> list[tuple[tuple, Timing, bool]]:
    """(block, timing, repeats) of the nested blocks of a statement that is not a choice."""
    f = fact(s)
    return [(getattr(s, name), t, f.repeats) for name, t in f.nested]


# ------------------------------------------------------------------ where code runs
@dataclass(frozen=True)
class Site:
    """A block of statements and who runs it."""

    what: str  # ability | reaction | trigger | any_death | any_save | hook | start | replacement
    body: tuple
    ability: ir.Ability | None = None  # (ability, an ability's reaction)
    role: ir.Role | None = None  # owning it (trigger, role reaction/hook/any death/start)
    label: str = ""
    event: str = ""  # a hook's moment (night_start ...), a reaction's kind (visited, blocked)
    causes: tuple[int, ...] = ()  # the death's causes it runs for (a trigger, a replacement...)


def sites(p) -> list[Site]:
    """Every block of statements the program can run, with its owner."""
    out = []
    for ab in p.abilities:
        body = tuple(ab.body) + tuple(ab.inverted or ()) + tuple(ab.stolen or ())
        out.append(Site("ability", body, ability=ab, label=f"`{ab.id}`"))
        for x in ab.reactions:
            out.append(
                Site("reaction", x.body, ability=ab, label=f"`{ab.id}` on {x.kind}", event=x.kind)
            )
    for r in p.roles:
        for t in r.triggers:
            out.append(
                Site(
                    "trigger",
                    t.body,
                    role=r,
                    label=f"the death trigger of `{r.id}`",
                    causes=t.causes,
                )
            )
        for x in r.reactions:
            out.append(
                Site("reaction", x.body, role=r, label=f"`{r.id}` on {x.kind}", event=x.kind)
            )
        for h in r.hooks:
            out.append(Site("hook", h.body, role=r, label=f"`{r.id}` on {h.when}", event=h.when))
        for t in r.any_deaths:
            out.append(
                Site("any_death", t.body, role=r, label=f"`{r.id}` on any death", causes=t.causes)
            )
        for b in r.start:
            out.append(Site("start", b, role=r, label=f"`{r.id}` on start"))
        for rp in r.replacements:
            # in place of the seat's death, when the kill would settle
            out.append(
                Site(
                    "replacement",
                    rp.body,
                    role=r,
                    label=f"`{r.id}` instead of death",
                    causes=rp.causes,
                )
            )
    for h in p.hooks:
        out.append(Site("hook", h.body, label=f"the `on {h.when}` hook", event=h.when))
    for t in p.any_deaths:
        out.append(Site("any_death", t.body, label="the top-level `on any death`", causes=t.causes))
    for t in p.any_saves:
        # when the kills settle, once per kill a protection, immunity or defence level stopped
        out.append(Site("any_save", t.body, label="the top-level `on any save`", causes=t.causes))
    for b in p.start:
        out.append(Site("start", b, label="the top-level `on start`"))
    return out


def all_kill_causes(p, piercing: bool | None = None) -> set[int]:
    """The causes some kill anywhere in the program uses (piercing: only those / never)."""
    return {
        s.cause
        for site in sites(p)
        for s, _ in walk(site.body)
        if isinstance(s, ir.Kill) and (piercing is None or s.piercing == piercing)
    }


# the seat variable a reaction of each kind binds (dsl/analysis.py, Analyzer.reactions): the
# living seat that visited, blocked or nominated the reacting one
REACTION_SUBJECT = {"visited": "visitor", "blocked": "blocker", "nominated": "nominator"}


def binding(s) -> tuple[str, Any] | None:
    """(the seat variable, its filter) a statement's nested blocks bind (StmtFact.binds), or
    None."""
    names = fact(s).binds
    return None if names is None else (getattr(s, names[0]), getattr(s, names[1]))


def walk_bound(stmts, env=None):
    """(stmt, env) for every statement, nested ones included: env maps the seat variables
    bound around it (an ability's targets, passed in; `each`) to their filters."""
    env = dict(env or {})
    for s in stmts:
        yield s, env
        bound = binding(s)
        inner = env if bound is None else {**env, bound[0]: bound[1]}
        for body, _ in blocks(s):
            yield from walk_bound(body, inner)


def conversions(p) -> list[tuple[int, Site, Any, dict[str, Any]]]:
    """Every conversion: (the new role, its site, the seat expression converted, the filters of
    the seat variables bound around it: the ability's targets, `each`)."""
    out = []
    for site in sites(p):
        env = {t.name: t.filter for t in site.ability.targets} if site.ability else {}
        for s, bound in walk_bound(site.body, env):
            if fact(s).converts and isinstance(s, ir.Convert):
                out.append((s.role, site, seat_of(s), bound))
    return out


def killerless(p, causes) -> bool:
    """A death by one of `causes` has no killer (`killer` is 0, no seat: Game._die's `by` for
    the day's elimination and the moderator) when each is `vote` or `moderator` and no kill
    statement uses it (a `kill ... by vote` names its actor as the killer)."""
    used = all_kill_causes(p)
    daily = {i for i, c in enumerate(p.causes) if c in ("vote", "moderator")}
    return bool(causes) and all(c in daily and c not in used for c in causes)


def no_seat(e, name):
    """`e` with the seat variable `name` bound to no seat (0): compared with a seat it is
    unequal (`==` false, `!=` true), and `alive(name)` is false."""
    if isinstance(e, ir.Binary) and e.op in ("==", "!="):
        if any(isinstance(x, ir.Var) and x.name == name for x in (e.left, e.right)):
            return ir.Const(e.span, e.op == "!=")
    if isinstance(e, ir.Call) and e.func == "alive" and e.args:
        a = e.args[0]
        if isinstance(a, ir.Var) and a.name == name:
            return ir.Const(e.span, False)
    return _rebuild(e, lambda y: no_seat(y, name))


def convert_dests(p, what=None) -> set[int]:
    """Roles some statement can turn a seat into (in the sites of kinds `what`; None: all)."""
    return {
        s.role
        for site in sites(p)
        if what is None or site.what in what
        for s, _ in walk(site.body)
        if fact(s).converts and isinstance(s, ir.Convert)
    }


def registrations(p) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """Per role, what an information read (ir.Seen) may show its seats as besides the truth,
    from `registers as`: (the teams, the roles, the kinds); a role named counts for its team and
    its kind too. The engine's REG_TEAMS / REG_ROLES / REG_KINDS (Game._seen) are these."""
    out: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = []
    for r in p.roles:
        teams = [i if k == "team" else p.roles[i].team for k, i in r.registers if k != "kind"]
        kinds = [i if k == "kind" else p.roles[i].kind for k, i in r.registers if k != "team"]
        roles = [i for k, i in r.registers if k == "role"]
        out.append(
            (
                tuple(dict.fromkeys(t for t in teams if t >= 0)),
                tuple(roles),
                tuple(dict.fromkeys(k for k in kinds if k >= 0)),
            )
        )
    return out


def stmt_kinds() -> tuple[type, ...]:
    return typing.get_args(ir.Stmt)


# the day's vote (every field of ir.Vote and ir.VotesWith, and the vote fields of other nodes:
# tests/check/test_semantics.py): what each option means to the checks (the vote checks, K005 and
# K010, read votes through compiler/verify/check/votes.py); Game._vote, _single_round,
# _nominate, _tie and _tally are their concrete meaning
VOTE_FIELDS: dict[tuple[str, str], str] = {
    ("Vote", "threshold"): "votes needed in round one (to the defense; with `rounds 1` or "
    "`nominations`, to leave); evaluated when the round is counted (reads: alive, vote)",
    ("Vote", "defense"): "votes needed in the defense round to leave (`defenders` bound)",
    ("Vote", "defenders_vote"): "do the defenders vote in the defense round",
    ("Vote", "tie"): "a tie at the top: none (nobody leaves) | lottery (seeded draw, writes "
    "calendar draws) | runoff (the `runoff` input) | repeat (the day is replayed: K005) | "
    "role:ID (that role's living seat leaves by the vote)",
    ("Vote", "ballot"): "single: one hand per voter in the round (across a day's "
    "nominations); multi: a hand per accused",
    ("Vote", "timers"): "durations reported with the day; no effect on the outcome",
    ("Vote", "rounds"): "2: accusation then defense; 1: the first round decides",
    ("Vote", "skips"): "the table's skip tokens (single round): skippers reaching the "
    "threshold end the day and spend one (writes vote)",
    ("Vote", "exempt"): "carriers of the mark cannot be accused (nor nominated)",
    ("Vote", "forced"): "living carriers of the mark go to the defense",
    ("Vote", "span"): "where the vote is stated",
    ("Vote", "runoff_tie"): "stated outcome (K010): a tied runoff eliminates nobody; no effect",
    ("Vote", "split"): "stated outcome (K010): nobody reaching the threshold eliminates "
    "nobody; no effect",
    ("Vote", "nominations"): "a day of nominations (Game._nominate, the day input "
    "`nominations`): one round per nominee, in order; a living seat nominates at most once, "
    "a living seat is nominated at most once; the nominee's `on nominated` reactions run "
    "(at once: their kills settle before his vote; an execution, a kill by cause vote, ends "
    "the nominations); the top nominee with at least `threshold` and more votes than any "
    "other leaves by the vote, a tie at the top goes to `tie`. Its threshold is read after "
    "the reactions' deaths (alive)",
    ("Vote", "ghost"): "the dead keep N votes for the rest of the game (Game.ghosts, state "
    "`ghosts`): a dead voter's hand (weight 1) spends one; so the voters of a day vote are "
    "up to alive + the dead (K005/K010 count them: votes.voters)",
    ("Vote", "judgement"): "the deciding round (defense, or the single round) counts innocent "
    "votes (the day input `innocent`): the top seat leaves only with more votes than they "
    "(weighed); abstainers (named nowhere) count for neither; a voter is never both",
    ("Trial", "judgement"): "the trial counts innocent votes (the trial input `innocent`): "
    "the accused with more votes leaves only if they outnumber the innocent ones",
    ("Role", "votes_with"): "`votes only with`: every ballot (vote rounds, nominations, runoff, "
    "election, trial, innocent votes) refuses a hand of a seat of the role unless the seat it "
    "follows (VotesWith.seat, self = the voter; or a carrier of VotesWith.mark) raises one "
    "for the same accused (reads what the expression reads, at the vote)",
    ("VotesWith", "seat"): "the seat followed (self = the voter; 0: nobody, he cannot vote)",
    ("VotesWith", "mark"): "the mark whose other carriers the voter follows (-1: `seat`)",
    ("VotesWith", "span"): "where it is stated",
    ("Reaction", "kind"): "visited (at night, a visit), blocked (at night, a block), "
    "nominated (by day: the role's seat is nominated; `nominator` bound; its kills settle at "
    "once, by day)",
}


def ability_bodies(ab) -> tuple:
    """All statement blocks of an ability: body, inverted, stolen."""
    return (
        tuple(ab.body)
        + tuple(getattr(ab, "inverted", None) or ())
        + tuple(getattr(ab, "stolen", None) or ())
    )


def all_nodes(node, seen=None):
    """Every IR node reachable from `node` (abilities, triggers, cards, rules: any construct),
    each once, spans left out."""
    if seen is None:
        seen = set()
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(x)
            continue
        if not dataclasses.is_dataclass(x) or isinstance(x, type) or id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        for f in dataclasses.fields(x):
            if f.name != "span":
                stack.append(getattr(x, f.name))


def mark_setters(p) -> dict[int, list[tuple[ir.SetMark, bool]]]:
    """mark idx -> [(SetMark statement, is it set only by night abilities)]: every statement
    that sets the mark (not a removal), and the day's election for its title."""
    out: dict[int, list[tuple[ir.SetMark, bool]]] = {}
    night_stmts = set()
    for ab in p.abilities:
        if ab.at_night and ab.phase == "night":
            for s, _ in walk(ability_bodies(ab)):
                night_stmts.add(id(s))
    for x in all_nodes(p):
        if isinstance(x, ir.SetMark) and not x.remove:
            out.setdefault(x.mark, []).append((x, id(x) in night_stmts))
    el = p.day.election if p.day is not None else None
    if el is not None:  # the day's election gives its title
        out.setdefault(el.title, []).append(
            (ir.SetMark(el.span, ir.Const(el.span, 0), el.title, False), False)
        )
    return out
