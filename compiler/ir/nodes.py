"""The intermediate representation: a resolved, indexed, typed program.

Everything is numbered (roles, teams, causes, marks, abilities) so that emitted code works on
small ints, and every node keeps the span of the spec text it came from. Emit and check read only
this module's types.
"""

from __future__ import annotations

import dataclasses
import operator
import typing
from dataclasses import dataclass
from typing import Union

from maf.dsl.diagnostics import Span


# ------------------------------------------------------------------ expressions
@dataclass(frozen=True, slots=True)
class Const:
    span: Span
    value: object  # int | bool | str


@dataclass(frozen=True, slots=True)
class Var:
    """A name bound by the ability: a target seat or a chosen value."""

    span: Span
    name: str
    type: str


@dataclass(frozen=True, slots=True)
class Builtin:
    """self, alive, players, night, day, chaos, defenders."""

    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class Sym:
    """A reference to a declaration: kind in role|team|mark|memslot|ability; idx its number."""

    span: Span
    kind: str
    idx: int
    name: str


@dataclass(frozen=True, slots=True)
class Call:
    span: Span
    func: str
    args: tuple["Expr", ...]


@dataclass(frozen=True, slots=True)
class Unary:
    span: Span
    op: str
    operand: "Expr"


@dataclass(frozen=True, slots=True)
class Binary:
    span: Span
    op: str
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True, slots=True)
class In:
    span: Span
    value: "Expr"
    kind: str  # role | team
    members: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Quant:
    """count | some | every over the living seats `var` for which `cond` holds."""

    span: Span
    func: str
    var: str
    cond: "Expr"


@dataclass(frozen=True, slots=True)
class InSet:
    """Is seat `value` in the seat set `seats` (visitors(x), visits(x))?"""

    span: Span
    value: "Expr"
    seats: "Expr"


@dataclass(frozen=True, slots=True)
class Seen:
    """`team(x)` / `role(x)` / `kind(x)` read by information (an expression whose value only
    decides what is told): a seat whose role `registers as` something shows the true value or
    one of its registrations, as the moderator chooses (Game.seen), once per seat and kind in
    the outermost statement holding the read. `kind`: team | role | kind."""

    span: Span
    kind: str
    seat: "Expr"


Expr = Union[Const, Var, Builtin, Sym, Call, Unary, Binary, In, InSet, Quant, Seen]
# the expression node classes, for isinstance tests (one list: the union above)
EXPR_NODES: tuple[type, ...] = typing.get_args(Expr)


# ------------------------------------------------------------------ statements
@dataclass(frozen=True, slots=True)
class Kill:
    span: Span
    target: Expr
    cause: int
    piercing: bool
    attack: int = 1  # fails against a defence level >= attack (unless piercing)
    at_once: bool = False  # `at once`: settles as it resolves (later abilities see it), not at dawn


@dataclass(frozen=True, slots=True)
class Protect:
    span: Span
    target: Expr
    causes: tuple[int, ...]
    level: int = -1  # `protect x at N`: defence level N for the night (causes empty); -1: none


@dataclass(frozen=True, slots=True)
class Guard:
    span: Span
    target: Expr
    causes: tuple[int, ...]
    body: tuple["Stmt", ...] = ()  # run (builtin `attacker`) when the guard takes an attack
    # `takes the attack`: the guard dies by the kill he takes, which his own protections,
    # immunity and defence level may stop (never another guard); else he dies piercing
    takes: bool = False


@dataclass(frozen=True, slots=True)
class SetMark:
    span: Span
    target: Expr
    mark: int
    remove: bool


@dataclass(frozen=True, slots=True)
class Convert:
    span: Span
    target: Expr
    role: int


@dataclass(frozen=True, slots=True)
class Tell:
    span: Span
    parts: tuple[Expr, ...]
    to: Expr | None


@dataclass(frozen=True, slots=True)
class Announce:
    span: Span
    parts: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Remember:
    span: Span
    slot: int
    value: Expr


@dataclass(frozen=True, slots=True)
class Trial:
    span: Span
    a: Expr
    b: Expr
    cancel_when: Expr | None
    refund: bool
    reveal: bool
    tie: str
    judgement: bool = False  # innocent votes count: the loser needs more votes than they


@dataclass(frozen=True, slots=True)
class Steal:
    span: Span
    source: Expr
    dest: Expr


@dataclass(frozen=True, slots=True)
class Revive:
    span: Span
    target: Expr


@dataclass(frozen=True, slots=True)
class Weight:
    span: Span
    value: Expr


@dataclass(frozen=True, slots=True)
class WinNow:
    span: Span
    kind: str  # team | role
    idx: int


@dataclass(frozen=True, slots=True)
class SkipNight:
    span: Span


@dataclass(frozen=True, slots=True)
class CancelVote:
    span: Span


@dataclass(frozen=True, slots=True)
class Each:
    span: Span
    var: str
    filter: Expr
    body: tuple["Stmt", ...]
    source: Expr | None = None  # `each v in S`: the seats of the set S (no alive filter)


@dataclass(frozen=True, slots=True)
class Block:
    span: Span
    target: Expr


@dataclass(frozen=True, slots=True)
class Visit:
    """`visit x`: the actor visits x now (Game.visit), as a resolving action visits."""

    span: Span
    target: Expr


@dataclass(frozen=True, slots=True)
class Delayed:
    """The body runs at the start of night (now + nights), with self and locals as values."""

    span: Span
    nights: int
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class CallAbility:
    """`seat` (None: the acting seat) takes the decision of an `on call` ability now."""

    span: Span
    ability: int
    seat: Expr | None


@dataclass(frozen=True, slots=True)
class MiddleSwap:
    """The seat's card goes to the middle of the table and `role`'s card leaves it (lowering
    pairs it with a Convert of the seat to `role`)."""

    span: Span
    target: Expr
    role: int


@dataclass(frozen=True, slots=True)
class ModeratorChoice:
    """The moderator picks a value of `kind` (seat | role | team | number) that `filter`
    accepts, an input of the step (Game.moderate; Program.moderator_sites[site] names it); the
    body runs with it bound to `var`. Declined, or with nothing to pick: `orelse`."""

    span: Span
    site: int
    var: str
    kind: str
    filter: Expr | None
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...] = ()


@dataclass(frozen=True, slots=True)
class If:
    span: Span
    branches: tuple[tuple[Expr, tuple["Stmt", ...]], ...]
    orelse: tuple["Stmt", ...]


Stmt = Union[
    Kill,
    Protect,
    Guard,
    SetMark,
    Convert,
    Tell,
    Announce,
    Remember,
    Trial,
    Steal,
    Revive,
    Weight,
    WinNow,
    SkipNight,
    CancelVote,
    Each,
    If,
    CallAbility,
    Block,
    Visit,
    Delayed,
    MiddleSwap,
    ModeratorChoice,
]


@dataclass(frozen=True, slots=True)
class Reaction:
    kind: str  # visited (builtin `visitor`) | blocked (builtin `blocker`)
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Hook:
    when: str  # night_start | night_end | dawn | day_start | day_end
    body: tuple[Stmt, ...]
    span: Span


# how nodes() goes through a value of each type: _SEQ (a tuple or list: its items), _LEAF
# (nothing), or the dataclass's field getter (operator.attrgetter of its fields, in order)
_SEQ, _LEAF = object(), object()
_SHAPES: dict[type, object] = {}


def _shape(t: type) -> object:
    if issubclass(t, (tuple, list)):
        shape: object = _SEQ
    elif issubclass(t, type) or not dataclasses.is_dataclass(t):  # (a class is no node)
        shape = _LEAF
    else:
        names = [f.name for f in dataclasses.fields(t)]
        shape = operator.attrgetter(*names) if len(names) > 1 else tuple(names)
    _SHAPES[t] = shape
    return shape


def nodes(x):
    """Every IR node reachable from `x` (through dataclass fields, tuples and lists), spans
    included, without recursion limits: depth first, each node's fields in order. (The way
    through each type is looked up once, _SHAPES: a 2,000-ability spec walks nodes about
    450,000 times as it compiles.)"""
    todo = [x]
    pop, extend, shapes = todo.pop, todo.extend, _SHAPES
    while todo:
        v = pop()
        shape = shapes.get(type(v))
        if shape is None:
            shape = _shape(type(v))
        if shape is _SEQ:
            extend(v)
        elif shape is not _LEAF:
            yield v
            if shape.__class__ is tuple:  # no field, or one
                extend([getattr(v, name) for name in shape])  # type: ignore[attr-defined]
            else:
                extend(shape(v))  # type: ignore[operator]


_ONCE: dict[object, tuple[tuple[object, ...], object]] = {}


def once(fn, *args):
    """fn(*args), computed once for the same arguments (compared by identity: the IR is
    immutable) and kept until fn is asked about others: the per-program analyses that the
    renderers and the checks would otherwise redo for every ability, quadratic in the spec. One
    answer is kept per function (the arguments with it); it must not be mutated."""
    got = _ONCE.get(fn)
    if got is not None and len(got[0]) == len(args):
        if all(x is y for x, y in zip(got[0], args, strict=True)):
            return got[1]
    value = fn(*args)
    _ONCE[fn] = (args, value)
    return value


def unknown_field(node, known: dict[str, frozenset[str]]) -> str | None:
    """For a consumer that implements only the IR classes and fields in `known` (class name ->
    field names): the class name if the class is unknown, `Class.field` for a field outside
    `known` that does not hold its default (the construct is used), else None."""
    t = type(node)
    names = known.get(t.__name__)
    if names is None:
        return t.__name__
    for f in dataclasses.fields(node):
        if f.name in names:
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            return f"{t.__name__}.{f.name}"
        if getattr(node, f.name) != default:
            return f"{t.__name__}.{f.name}"
    return None


def statement_kinds(stmts) -> tuple[str, ...]:
    """The kinds of statement in a body, nested ones included: each statement class's name in
    lower case (`SetMark` is `mark`), sorted. Bots read them through ABILITY_INFO `effects`."""
    stmt_types = typing.get_args(Stmt)
    kinds = {type(n).__name__.lower() for n in nodes(stmts) if isinstance(n, stmt_types)}
    return tuple(sorted("mark" if k == "setmark" else k for k in kinds))


# ------------------------------------------------------------------ declarations
@dataclass(frozen=True, slots=True)
class Team:
    idx: int
    id: str
    names: tuple[tuple[str, str], ...]
    span: Span
    # a side (`side ID { members VAR: EXPR }`): made by marks, no role is on it; a seat for
    # which `members` holds (VAR bound to it, dead or alive) is a member. None: a team of roles
    members: Expr | None = None
    var: str = ""


@dataclass(frozen=True, slots=True)
class Kind:
    """`kind ID { name ... }`: a kind of role (townsfolk, outsider)."""

    idx: int
    id: str
    names: tuple[tuple[str, str], ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    filter: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Choice:
    name: str
    kind: str  # role | team
    span: Span


NIGHT_PHASES = ("night", "any")  # abilities resolved in the night order


@dataclass(frozen=True, slots=True)
class Ability:
    idx: int
    id: str  # "role.name"
    role: int
    name: str
    phase: str  # night | day | vote | any | card | call (used when a `call` fires)
    tier: int
    rank: int  # position in the resolution order of its phase
    per_game: int  # 0: unlimited
    per_phase: int  # 0: unlimited (one action per ability per phase is always the rule)
    self_per_game: int  # 0: unlimited
    from_number: int  # first phase number it may be used in (1: always)
    holders: tuple[int, ...]  # role chain the ability passes down; () = only its own role
    targets: tuple[Target, ...]
    choices: tuple[Choice, ...]
    norepeat: str  # "" | "consecutive" | "ever"
    body: tuple[Stmt, ...]
    inverted: tuple[Stmt, ...] | None
    stolen: tuple[Stmt, ...] | None
    when: Expr | None
    granted: int  # mark idx whose carriers hold the ability, or -1
    exclusive_group: int  # -1: none; else actions of one group exclude each other per actor
    table_group: int  # -1: none; else at most one action of the group per phase, table-wide
    before: tuple[int, ...]  # declared (before, after, order): this ability resolves before these
    span: Span
    astral: bool = False  # does not visit its targets
    unblockable: bool = False  # resolves even if its actor is blocked
    reactions: tuple[Reaction, ...] = ()  # active on a night its seat used the ability
    life: str = "alive"  # who may use it: "alive" | "dead" | "both"
    names: tuple[tuple[str, str], ...] = ()  # display names (`name LANG "..."`; rulebook only)

    @property
    def visits(self) -> bool:
        """Does it visit its targets when it resolves at night?"""
        return self.phase in NIGHT_PHASES and bool(self.targets) and not self.astral

    @property
    def at_night(self) -> bool:
        return self.phase in NIGHT_PHASES

    @property
    def effects(self) -> tuple[str, ...]:
        """The kinds of statement in the body, nested ones included (`kill`, `protect`, ...)."""
        return statement_kinds(self.body)


@dataclass(frozen=True, slots=True)
class Immunity:
    causes: tuple[int, ...]
    unless: int  # mark idx that suspends it, or -1
    times: int  # kills it absorbs before wearing off; 0: unlimited
    span: Span


@dataclass(frozen=True, slots=True)
class Trigger:
    causes: tuple[int, ...]  # empty: any cause
    body: tuple[Stmt, ...]
    span: Span
    any: bool = False  # `on any death`


@dataclass(frozen=True, slots=True)
class VotesWith:
    """`votes only with EXPR` in a role: a seat of the role may raise a hand for an accused only
    if `seat` (evaluated with self = the voter; 0: nobody) or, with `mark` >= 0, another seat
    carrying that mark raises a hand for the same accused in the same ballot."""

    seat: Expr | None  # None: `mark` names the seats to follow
    mark: int  # mark idx, or -1
    span: Span


@dataclass(frozen=True, slots=True)
class Replacement:
    """`instead of death [by CAUSE, ...] [when EXPR] { }`: a seat of the role that would die of
    one of `causes` (any: empty) while `when` holds (self, victim, killer, cause) does not die:
    no death, no death trigger, no `on any death`; `body` runs instead, at once."""

    causes: tuple[int, ...]
    when: Expr | None
    body: tuple[Stmt, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class Role:
    idx: int
    id: str
    team: int  # -1: independent
    names: tuple[tuple[str, str], ...]
    abilities: tuple[int, ...]
    immune: tuple[Immunity, ...]
    triggers: tuple[Trigger, ...]
    span: Span
    defense: int = 0  # innate defence level
    reactions: tuple[Reaction, ...] = ()  # on visited / on blocked, always active
    hooks: tuple[Hook, ...] = ()  # run once per living seat of the role
    any_deaths: tuple[Trigger, ...] = ()  # `on any death`, once per living seat of the role
    alongside: tuple[Expr, ...] = ()  # `wins alongside when`: co-wins if one holds
    start: tuple[tuple[Stmt, ...], ...] = ()  # `on start` bodies, run once per seat
    votes_with: VotesWith | None = None  # `votes only with`: a hand counts only beside another
    kind: int = -1  # `kind ID`: the role's kind (Program.kinds), -1: none
    title: bool = False  # a `title`'s role: its abilities' owner, dealt to no seat
    replacements: tuple[Replacement, ...] = ()  # `instead of death`: the first that applies
    # `registers as`: what information reads may see of its seats, (kind, idx) with kind team |
    # role, as the moderator chooses per statement (Seen)
    registers: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Win:
    kind: str  # team | role
    idx: int
    cond: Expr
    span: Span


@dataclass(frozen=True, slots=True)
class Setup:
    label: str | None
    size: int
    counts: tuple[tuple[int, int], ...]  # (role idx, count), role order
    span: Span
    middle: tuple[int, ...] = ()  # roles left undealt in the middle of the table


@dataclass(frozen=True, slots=True)
class Vote:
    threshold: Expr | None
    defense: Expr | None
    defenders_vote: Expr | None
    tie: str  # none | lottery | runoff | repeat | role:ID (that role's living seat leaves)
    ballot: str
    timers: tuple[tuple[str, Expr], ...]
    rounds: int
    skips: int
    exempt: int  # mark idx or -1
    forced: int  # mark idx or -1
    span: Span
    # stated outcomes (the runtime's meaning, written out; maf check K010 reads them):
    runoff_tie: str = ""  # "none": `runoff tie none`, a tied runoff eliminates nobody
    split: str = ""  # "none": `split none`, nobody (skip included) reaching the threshold
    nominations: bool = False  # the day's ballots are nominations (day input `nominations`)
    ghost: int = 0  # the dead keep this many votes for the rest of the game
    judgement: bool = False  # the deciding round counts innocent votes (day input `innocent`)


@dataclass(frozen=True, slots=True)
class Inquiry:
    from_day: int
    max: int
    threshold: Expr
    when: Expr | None
    span: Span


@dataclass(frozen=True, slots=True)
class Election:
    title: int  # mark idx given to the seat elected
    when: Expr | None  # None: held while no living seat carries the title
    threshold: Expr | None
    tie: str  # none | lottery | role:ID
    span: Span


@dataclass(frozen=True, slots=True)
class Day:
    vote: Vote | None
    chaos_when: Expr | None
    chaos: Vote | None
    inquiry: Inquiry | None
    speaking: tuple[int, int, int] | None  # first seat, shift, from day
    timers: tuple[tuple[str, Expr], ...]
    span: Span
    election: Election | None = None


@dataclass(frozen=True, slots=True)
class Mark:
    idx: int
    id: str
    lifetime: str
    inverts: bool
    silences: bool
    expels: bool  # its carrier leaves the game when reported breaking it (a day's `breach`)
    span: Span
    voteless: bool = False  # its carrier has no vote (in any ballot)
    weighs: int = 0  # a living carrier's vote counts this much in every vote (0: no weight)
    names: tuple[tuple[str, str], ...] = ()  # display names (`{ name LANG "..." }`; rulebook)
    # statuses: the powers of the carrier's role (abilities, triggers, hooks, reactions,
    # immunities, defence, replacements) are suspended; its role still reads as it is.
    # powerless: its abilities cannot be used; malfunctions: they are used and run their
    # `inverted` block, or nothing
    powerless: bool = False
    malfunctions: bool = False


@dataclass(frozen=True, slots=True)
class Program:
    id: str
    source: str  # spec path as given
    names: tuple[tuple[str, str], ...]
    min_players: int
    max_players: int
    first: str  # day | night
    quiet_days: tuple[int, ...]
    quiet_nights: tuple[int, ...]
    invariants: tuple[Expr, ...]
    teams: tuple[Team, ...]
    roles: tuple[Role, ...]
    causes: tuple[str, ...]
    marks: tuple[Mark, ...]
    memslots: tuple[str, ...]
    abilities: tuple[Ability, ...]
    night_order: tuple[int, ...]  # ability idx in resolution order
    wins: tuple[Win, ...]
    check_at: tuple[str, ...]
    setups: tuple[Setup, ...]
    custom_setups: tuple[tuple[str | None, int, int, Expr, Span], ...]  # (label, lo, hi, where)
    day: Day | None
    card_names: tuple[tuple[tuple[str, str], ...], ...]  # display names of the `card.*` abilities
    night_timers: tuple[tuple[str, Expr], ...]
    calm: str | None  # announced at a dawn with no deaths
    span: Span
    hooks: tuple[Hook, ...] = ()  # top-level hooks (no `self`)
    any_deaths: tuple[Trigger, ...] = ()  # top-level `on any death`, once per death
    draws: tuple[Expr, ...] = ()  # `draw when`: the game ends with no winner
    start: tuple[tuple[Stmt, ...], ...] = ()  # top-level `on start` bodies
    # display names of each cause, in the order of `causes` (() where the spec gives none)
    cause_names: tuple[tuple[tuple[str, str], ...], ...] = ()
    # the cards each custom setup lays in the middle of the table, in the order of
    # `custom_setups` (() where none lays any: `setup ... any where EXPR middle ROLE, ...`)
    custom_middle: tuple[tuple[int, ...], ...] = ()
    # top-level `on any save`, once per kill a protection, immunity or defence level stopped
    any_saves: tuple[Trigger, ...] = ()
    # the id of each `moderator chooses` (ModeratorChoice.site): `ABILITY:VAR`, `ROLE:VAR` (its
    # hooks and triggers) or `game:VAR` (top level)
    moderator_sites: tuple[str, ...] = ()
    kinds: tuple[Kind, ...] = ()  # kinds of role (`kind ID`)
