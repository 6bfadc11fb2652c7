"""The .maf abstract syntax tree: frozen dataclasses, every node with a source span.

The parser builds these; nothing mutates them. Names that refer to other declarations are kept
as ``Ident`` (a name with its own span) so that analysis can point at the exact use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from maf.dsl.diagnostics import Span


@dataclass(frozen=True, slots=True)
class Ident:
    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class Names:
    span: Span
    entries: tuple[tuple[str, str], ...]  # (lang, text)


# ------------------------------------------------------------------ expressions
@dataclass(frozen=True, slots=True)
class Int:
    span: Span
    value: int


@dataclass(frozen=True, slots=True)
class Str:
    span: Span
    value: str


@dataclass(frozen=True, slots=True)
class Name:
    span: Span
    name: str


@dataclass(frozen=True, slots=True)
class AbilityRef:
    span: Span
    owner: str
    name: str


@dataclass(frozen=True, slots=True)
class Call:
    span: Span
    func: str
    args: tuple["Expr", ...]


@dataclass(frozen=True, slots=True)
class Unary:
    span: Span
    op: str  # "not" | "-"
    operand: "Expr"


@dataclass(frozen=True, slots=True)
class Binary:
    span: Span
    op: str  # and or == != < <= > >= + - * / %
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True, slots=True)
class Member:
    span: Span
    value: "Expr"
    names: tuple[Ident, ...]


@dataclass(frozen=True, slots=True)
class Quant:
    """`count(x: COND)`, `some(x: COND)`, `every(x: COND)` over the living seats."""

    span: Span
    func: str
    var: Ident
    cond: "Expr"


@dataclass(frozen=True, slots=True)
class InSet:
    """`y in S`: is seat y in the seat set S (`visitors(x)`, `visits(x)`)?"""

    span: Span
    value: "Expr"
    seats: "Expr"


Expr = Union[Int, Str, Name, AbilityRef, Call, Unary, Binary, Member, InSet, Quant]


# ------------------------------------------------------------------ statements (effects)
@dataclass(frozen=True, slots=True)
class Kill:
    span: Span
    target: Expr
    cause: Ident
    piercing: bool
    attack: int | None = None  # `attack N`; None: the default level 1
    at_once: bool = False  # `at once`: settles as it resolves, not at dawn


@dataclass(frozen=True, slots=True)
class Protect:
    span: Span
    target: Expr
    causes: tuple[Ident, ...]
    level: int | None = None  # `protect x at N`: a defence level for the night (causes empty)


@dataclass(frozen=True, slots=True)
class Guard:
    """The actor takes, in the guarded seat's place, tonight's kills of these causes; the
    optional body (builtin `attacker`) runs when he does."""

    span: Span
    target: Expr
    causes: tuple[Ident, ...]
    body: tuple["Stmt", ...] | None = None
    # `takes the attack`: the guard dies by the kill he takes (his protections, immunity and
    # defence level may stop it); without it he dies in the seat's place whatever protects him
    takes: bool = False


@dataclass(frozen=True, slots=True)
class Mark:
    span: Span
    target: Expr
    mark: Ident
    remove: bool


@dataclass(frozen=True, slots=True)
class Convert:
    span: Span
    target: Expr
    role: Ident  # a role id, or a local holding a role (`choose r: role`)
    role_expr: Expr | None = None  # any other role-typed expression (`role(x)`)


@dataclass(frozen=True, slots=True)
class Tell:
    span: Span
    parts: tuple[Expr, ...]
    to: Expr | None  # None: the actor


@dataclass(frozen=True, slots=True)
class Announce:
    span: Span
    parts: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Remember:
    span: Span
    name: Ident
    value: Expr


@dataclass(frozen=True, slots=True)
class Trial:
    span: Span
    a: Expr
    b: Expr
    cancel_when: Expr | None
    refund: bool
    reveal: bool
    tie: str | Ident  # a tie kind, or a role whose living seat leaves on a tie
    # `judgement`: a ballot is guilty (a vote for a defendant), innocent or abstain; the loser
    # leaves only when his votes outnumber the innocent ones
    judgement: bool = False


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
    who: Ident


@dataclass(frozen=True, slots=True)
class SkipNight:
    """The coming night is not played: the game goes straight to the next day."""

    span: Span


@dataclass(frozen=True, slots=True)
class CancelVote:
    """Today's vote eliminates nobody."""

    span: Span


@dataclass(frozen=True, slots=True)
class Each:
    """Run the body once for every living seat the filter accepts, in seat order; or, with
    `source` (`each v in S`), once for every seat of the seat set S (filter is then true)."""

    span: Span
    var: Ident
    filter: Expr
    body: tuple["Stmt", ...]
    source: Expr | None = None


@dataclass(frozen=True, slots=True)
class Block:
    """`block x`: x's night abilities that have not resolved yet this night do not resolve."""

    span: Span
    target: Expr


@dataclass(frozen=True, slots=True)
class Visit:
    """`visit x`: the actor visits x now (visitors(x), x's `on visited` reactions), as a
    resolving action visits its targets; with `astral`, an ability chooses whom it visits."""

    span: Span
    target: Expr


@dataclass(frozen=True, slots=True)
class Delayed:
    """`in N nights { }` / `next night { }`: the body runs at the start of that night."""

    span: Span
    nights: int
    body: tuple["Stmt", ...]


@dataclass(frozen=True, slots=True)
class CallAbility:
    """A decision taken when it comes up: `seat` (None: self) uses an `on call` ability now."""

    span: Span
    ability: Ident  # "role.name" or a bare name of the enclosing role's abilities
    seat: "Expr | None"


@dataclass(frozen=True, slots=True)
class Exchange:
    """SEAT takes ROLE's card from the middle of the table and lays his own card there."""

    span: Span
    target: "Expr"
    role: Ident  # a role id, or a local holding a role
    role_expr: "Expr | None" = None


@dataclass(frozen=True, slots=True)
class ModeratorChoice:
    """`moderator chooses NAME: KIND [where COND] { ... } [else { ... }]`: the moderator picks a
    value of KIND (seat, role, team, number) that COND accepts; the body runs with it. Declined,
    or with nothing to pick, the `else` block runs instead (if any)."""

    span: Span
    var: Ident
    kind: Ident
    filter: Expr | None
    body: tuple["Stmt", ...]
    orelse: tuple["Stmt", ...] | None = None


@dataclass(frozen=True, slots=True)
class If:
    span: Span
    branches: tuple[tuple[Expr, tuple["Stmt", ...]], ...]
    orelse: tuple["Stmt", ...] | None


@dataclass(frozen=True, slots=True)
class Do:
    """`do NAME(args)`: the statements of a `procedure`, inlined before analysis (dsl/reuse.py)."""

    span: Span
    name: Ident
    args: tuple[Expr, ...]


Stmt = Union[
    Do,
    Kill,
    Protect,
    Guard,
    Mark,
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
    Exchange,
    ModeratorChoice,
]


# ------------------------------------------------------------------ declarations
@dataclass(frozen=True, slots=True)
class Ref:
    span: Span
    owner: str
    name: str

    def __str__(self) -> str:
        return f"{self.owner}.{self.name}"


@dataclass(frozen=True, slots=True)
class Uses:
    span: Span
    count: int
    per: str  # game | night | day
    self_only: bool


@dataclass(frozen=True, slots=True)
class Target:
    span: Span
    name: Ident
    filter: Expr


@dataclass(frozen=True, slots=True)
class Choose:
    span: Span
    name: Ident
    kind: Ident


@dataclass(frozen=True, slots=True)
class Ability:
    span: Span
    name: Ident
    phase: str
    tier: tuple[Span, int] | None
    before: tuple[Ref, ...]
    after: tuple[Ref, ...]
    uses: tuple[Uses, ...]
    from_: tuple[Span, str, int] | None
    held: tuple[Ident, ...]
    targets: tuple[Target, ...]
    chooses: tuple[Choose, ...]
    norepeat: str  # "" | "consecutive" (never twice running) | "ever" (never twice at all)
    inverted: tuple[Stmt, ...] | None  # run instead when the actor carries an inverting mark
    stolen: tuple[Stmt, ...] | None  # run instead when another player takes the ability (`steal`)
    when: Expr | None  # a precondition checked when the action is submitted
    granted: Ident | None  # a mark: whoever carries it holds the ability
    body: tuple[Stmt, ...]
    astral: bool = False  # does not visit its targets
    unblockable: bool = False  # resolves even when its actor is blocked
    # reactions and hooks written inside the ability (analysis reports the misplaced ones):
    # Reaction (visited / blocked) active on a night this seat used the ability, Hook, Trigger
    reactions: tuple["Reaction", ...] = ()
    misplaced: tuple[Union["Hook", "Trigger"], ...] = ()
    life: str = "alive"  # who may use it: "alive" | "dead" | "both"
    life_span: Span | None = None
    docs: tuple[Names, ...] = ()  # `doc LANG "..."`: rulebook text (`maf doc`)
    names: tuple[Names, ...] = ()  # `name LANG "..."`: display names (rulebook)


@dataclass(frozen=True, slots=True)
class Trigger:
    span: Span
    causes: tuple[Ident, ...]  # empty: any cause
    body: tuple[Stmt, ...]
    any: bool = False  # `on any death`: any seat's death, not only self's


@dataclass(frozen=True, slots=True)
class AnySave:
    """Top-level `on any save [by CAUSE, ...] { }`: a kill that a protection, an immunity or a
    defence level stopped (builtins `victim`, `killer`, `cause`), once per stopped kill."""

    span: Span
    causes: tuple[Ident, ...]  # empty: any cause
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Reaction:
    """`on visited { }` (builtin `visitor`) or `on blocked { }` (builtin `blocker`)."""

    span: Span
    kind: str  # visited | blocked | nominated (builtin `nominator`, a role's only)
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Hook:
    """`on night start|night end|dawn|day start|day end { }`: top level or in a role."""

    span: Span
    when: str  # night_start | night_end | dawn | day_start | day_end
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Immunity:
    span: Span
    causes: tuple[Ident, ...]
    unless: Ident | None  # a mark that suspends it
    times: int | None  # absorbs this many kills, then wears off; None: always


@dataclass(frozen=True, slots=True)
class Role:
    span: Span
    name: Ident
    team: Ident | None  # None: an independent ("alone")
    names: tuple[Names, ...]
    abilities: tuple[Ability, ...]
    immune: tuple[Immunity, ...]
    exclusive: tuple[tuple[Ident, ...], ...]
    triggers: tuple[Trigger, ...]  # `on death` and `on any death`
    defense: tuple[tuple[Span, int], ...] = ()  # `defense N` (more than one: an error)
    reactions: tuple[Reaction, ...] = ()
    hooks: tuple[Hook, ...] = ()
    traits: tuple[Ident, ...] = ()  # `is NAME, ...`: expanded away by dsl/reuse.py
    alongside: tuple["Alongside", ...] = ()  # `wins alongside when EXPR`
    start: tuple["StartHook", ...] = ()  # `on start { ... }`, once per seat of the role
    docs: tuple[Names, ...] = ()  # `doc LANG "..."`: rulebook text (`maf doc`)
    # `registers as X [or Y]`: what information abilities may see of its seats (the moderator
    # chooses, per check)
    registers: tuple["Registers", ...] = ()
    kind: Ident | None = None  # `kind ID`: the role's kind (a `kind` declaration)
    title: bool = False  # the role a `title` desugars to: no seat is dealt it
    # `instead of death [by CAUSE, ...] [when EXPR] { ... }`: replacements of the seat's death
    replacements: tuple["Replacement", ...] = ()
    # `votes only with EXPR`: the seat's hand counts only beside that seat's (or a marked seat's)
    votes_with: tuple["VotesWith", ...] = ()


@dataclass(frozen=True, slots=True)
class VotesWith:
    """`votes only with EXPR` in a role: a seat of the role may raise a hand for an accused only
    if the seat EXPR names (self = the voter), or, EXPR a mark's name, a seat carrying the mark,
    raises a hand for the same accused in the same ballot."""

    span: Span
    seat: Expr


@dataclass(frozen=True, slots=True)
class Registers:
    """`registers as X [or Y ...]`: each item a team or a role (`team X` / `role X`, or a bare
    name that is one of them); the moderator chooses, per information read, what it shows."""

    span: Span
    items: tuple[tuple[str, Ident], ...]  # ("" | "team" | "role", name)


@dataclass(frozen=True, slots=True)
class Replacement:
    """`instead of death [by CAUSE, ...] [when EXPR] { ... }`: a seat of the role that would die
    of one of the causes (any cause without `by`) while EXPR holds does not die: no death, no
    death trigger, no `on any death`; the body runs instead (self, victim, killer, cause)."""

    span: Span
    causes: tuple[Ident, ...]  # empty: any cause
    when: Expr | None
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Alongside:
    """`wins alongside when EXPR`: the role (self = each of its seats) co-wins at the game's end."""

    span: Span
    cond: Expr


@dataclass(frozen=True, slots=True)
class StartHook:
    """`on start { ... }`: runs when the game is built (top level, or once per seat of a role)."""

    span: Span
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Trait:
    """`trait NAME { ... }`: role-body content, kept as a nameless role; roles include it."""

    span: Span
    name: Ident
    body: "Role"


@dataclass(frozen=True, slots=True)
class Define:
    """`define NAME(p, q) = EXPR`: a named condition, inlined where it is called."""

    span: Span
    name: Ident
    params: tuple[Ident, ...]
    body: Expr


@dataclass(frozen=True, slots=True)
class Procedure:
    """`procedure NAME(p, q) { ... }`: named statements, inlined where `do NAME(...)` runs them."""

    span: Span
    name: Ident
    params: tuple[Ident, ...]
    body: tuple[Stmt, ...]


@dataclass(frozen=True, slots=True)
class Draw:
    """`draw when EXPR`: the game ends with no winner."""

    span: Span
    cond: Expr


@dataclass(frozen=True, slots=True)
class Team:
    span: Span
    name: Ident
    names: tuple[Names, ...]
    docs: tuple[Names, ...] = ()  # `doc LANG "..."`: rulebook text (`maf doc`)
    # a side (`side ID { members x: EXPR }`): made by marks, not by roles; the seats for which
    # EXPR holds (the variable bound to each seat) are its members. None: a team of roles
    members: "tuple[Ident, Expr] | None" = None
    side: bool = False  # declared with `side` (a `members` line is required)


@dataclass(frozen=True, slots=True)
class Title:
    """`title ID [mark flags] { names; ability ... on call { }; on death { } }`: a mark held
    until forever (`election ID` gives it) that carries abilities of its own (`ID.ABILITY`) and
    death triggers (run when a seat carrying it dies, self = that seat). Desugared before
    analysis (dsl/titles.py) into the mark, a role no seat is dealt, and `on any death`."""

    span: Span
    name: Ident
    flags: tuple[str, ...]
    weighs: int | None
    names: tuple[Names, ...]
    abilities: tuple["Ability", ...]
    triggers: tuple["Trigger", ...]
    docs: tuple[Names, ...] = ()


@dataclass(frozen=True, slots=True)
class KindDecl:
    """`kind ID { name ... }`: a kind of role (townsfolk, outsider); roles say `kind ID`."""

    span: Span
    name: Ident
    names: tuple[Names, ...]
    docs: tuple[Names, ...] = ()


@dataclass(frozen=True, slots=True)
class CauseDecl:
    span: Span
    names: tuple[Ident, ...]
    displays: tuple[tuple[Names, ...], ...] = ()  # per cause: `{ name LANG "..." }` (rulebook)


@dataclass(frozen=True, slots=True)
class MarkDecl:
    span: Span
    name: Ident
    lifetime: str
    flags: tuple[str, ...]  # "inverts": its carrier acts with `inverted` blocks; "silences";
    #                         "expels"; "voteless": its carrier has no vote
    weighs: int | None = None  # `weighs N`: a living carrier's vote counts N in every vote
    displays: tuple[Names, ...] = ()  # `{ name LANG "..." }`: display names (rulebook)


@dataclass(frozen=True, slots=True)
class Game:
    span: Span
    name: Ident
    names: tuple[Names, ...]
    players: tuple[Span, int, int] | None
    first: str | None
    quiet: tuple[tuple[Span, str, tuple[int, ...]], ...]
    invariants: tuple[Expr, ...]
    language: tuple[Span, str] | None = None  # `language en`: the primary language
    docs: tuple[Names, ...] = ()  # `doc LANG "..."`: rulebook text (`maf doc`), not rules


@dataclass(frozen=True, slots=True)
class Win:
    span: Span
    who: Ident
    cond: Expr


@dataclass(frozen=True, slots=True)
class Check:
    span: Span
    events: tuple[Ident, ...]


@dataclass(frozen=True, slots=True)
class TableExclusive:
    """At most one of these abilities is used per phase at the whole table."""

    span: Span
    refs: tuple[Ref, ...]


@dataclass(frozen=True, slots=True)
class Order:
    span: Span
    first: Ref
    second: Ref


@dataclass(frozen=True, slots=True)
class SetupEntry:
    span: Span
    role: Ident
    count: int | str | None  # int, "rest", or None (one)


@dataclass(frozen=True, slots=True)
class Setup:
    span: Span
    label: str | None
    lo: int
    hi: int
    entries: tuple[SetupEntry, ...]
    where: Expr | None = None  # a custom table: any seat list for which this holds
    middle: tuple[Ident, ...] = ()  # roles left undealt in the middle of the table


@dataclass(frozen=True, slots=True)
class Timer:
    span: Span
    name: Ident
    value: Expr


@dataclass(frozen=True, slots=True)
class VoteSpec:
    span: Span
    threshold: Expr | None
    defense: Expr | None
    defenders_vote: Expr | None
    tie: str | Ident | None  # a tie kind, or a role whose living seat leaves on a tie
    ballot: str | None
    timers: tuple[Timer, ...]
    rounds: int  # 2: first round then the defense round; 1: the first round decides
    skips: int  # skip tokens of the table (0: none); see docs/language.md
    exempt: Ident | None  # a mark: its carriers cannot be accused
    forced: Ident | None  # a mark: its carriers go to the defense whatever the votes
    runoff_tie: str | None = None  # `runoff tie none`: a tied runoff eliminates nobody (stated)
    split: str | None = None  # `split none`: nobody (skip included) reaching the threshold
    nominations: bool = False  # `nominations`: the day's ballots are nominations, each with voters
    ghost: int | None = None  # `ghost votes N`: the dead keep N votes for the rest of the game
    judgement: bool = False  # `judgement`: guilty, innocent or abstain in the deciding round


@dataclass(frozen=True, slots=True)
class Chaos:
    span: Span
    when: Expr
    vote: VoteSpec


@dataclass(frozen=True, slots=True)
class Inquiry:
    span: Span
    from_day: int
    max: int
    threshold: Expr
    when: Expr | None


@dataclass(frozen=True, slots=True)
class Speaking:
    span: Span
    first: int
    shift: int
    from_day: int


@dataclass(frozen=True, slots=True)
class Election:
    """A day's election: the seat elected gets `title` (a mark); held while `when` holds
    (default: while no living seat carries the title)."""

    span: Span
    title: Ident
    when: Expr | None
    vote: VoteSpec


@dataclass(frozen=True, slots=True)
class Day:
    span: Span
    vote: VoteSpec | None
    chaos: Chaos | None
    inquiry: Inquiry | None
    speaking: Speaking | None
    timers: tuple[Timer, ...]
    election: Election | None = None


@dataclass(frozen=True, slots=True)
class Night:
    span: Span
    timers: tuple[Timer, ...]
    calm: str | None = None  # announced at a dawn with no deaths


@dataclass(frozen=True, slots=True)
class Card:
    span: Span
    name: Ident
    names: tuple[Names, ...]
    targets: tuple[Target, ...]
    chooses: tuple[Choose, ...]
    body: tuple[Stmt, ...]
    docs: tuple[Names, ...] = ()  # `doc LANG "..."`: rulebook text (`maf doc`)


Item = Union[
    Game,
    Team,
    Title,
    KindDecl,
    Role,
    CauseDecl,
    MarkDecl,
    Win,
    Check,
    Setup,
    Day,
    Night,
    Order,
    TableExclusive,
    Card,
    Hook,
    Trigger,
    Trait,
    Define,
    Procedure,
    Draw,
    StartHook,
]  # a top-level Trigger is an `on any death`


@dataclass(frozen=True, slots=True)
class Module:
    span: Span
    file: str
    items: tuple[Item, ...]
