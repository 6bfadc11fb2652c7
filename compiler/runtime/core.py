# maf: omit
"""The resolver: class `Game` (construction, effects, deaths, night, day, votes, JSON).

Copied into every engine by the emitter (compiler/runtime/__init__.py); this block is not.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from itertools import compress
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn

from maf.compiler.runtime.api import (
    CHOICE_VALUES,
    _BotApi,
)
from maf.compiler.runtime.spec import (
    AB_CHOICES,
    AB_GRANTED,
    AB_HOLDERS,
    AB_LIFE,
    AB_NAME,
    AB_NOREPEAT,
    AB_PER_GAME,
    AB_PHASE,
    AB_RANK,
    AB_ROLE,
    AB_SELF_PER_GAME,
    AB_TARGETS,
    AB_UNBLOCKABLE,
    AB_VISITS,
    ABILITIES,
    ANY_DEATH,
    ANY_SAVE,
    AT_WAKE,
    BLOCKED_AB,
    BLOCKED_ROLE,
    C_MODERATOR,
    C_VOTE,
    CALM,
    CAUSES,
    CHAOS,
    CHECK_WINS_AT,
    CLOSURES,
    COWINNERS,
    CUSTOM_SETUPS,
    DEAD_ACTS,
    DRAWS,
    ELECTION,
    FAST,
    FAST_DAY,
    FAST_NIGHT,
    FEATURE_ANY_DEATHS,
    FEATURE_AT_ONCE,
    FEATURE_AT_WAKE,
    FEATURE_BLOCKS,
    FEATURE_DELAYS,
    FEATURE_HOOK_DAWN,
    FEATURE_HOOK_DAY_END,
    FEATURE_HOOK_DAY_START,
    FEATURE_HOOK_NIGHT_END,
    FEATURE_HOOK_NIGHT_START,
    FEATURE_LEVELS,
    FEATURE_MODERATOR,
    FEATURE_REPLACEMENTS,
    FEATURE_STATUSES,
    FEATURE_VISITS,
    FILTER_TEXT,
    FILTERS,
    FIRST_PHASE,
    FLAT_SLOTS,
    HELD,
    HOOKS_DAWN,
    HOOKS_DAY_END,
    HOOKS_DAY_START,
    HOOKS_NIGHT_END,
    HOOKS_NIGHT_START,
    IMMUNE,
    INQUIRY_FROM_DAY,
    INQUIRY_MAX,
    INVERTED,
    KINDS,
    MAF_VERSION,
    MARKS,
    MAX_PLAYERS,
    MEMSLOTS,
    MIN_PLAYERS,
    MODERATOR_SITES,
    NIGHT_TIMERS,
    NOMINATED_ROLE,
    QUIET_DAYS,
    QUIET_NIGHTS,
    REG_KINDS,
    REG_ROLES,
    REG_TEAMS,
    REPLACE,
    ROLE_ABILITIES,
    ROLE_DEFENSE,
    ROLE_KIND,
    ROLE_TEAM,
    ROLES,
    RUN,
    SETUP_MIDDLE,
    SETUPS,
    SIDE_MEMBERS,
    SPEAKING,
    SPEC,
    SPEC_SHA256,
    START,
    START_HOOKS,
    START_ROLE_HOOKS,
    STEALS,
    STOLEN,
    TEAMS,
    TITLE_ROLES,
    TRIAL_CANCEL,
    TRIAL_JUDGEMENT,
    TRIGGERS,
    VISITED_AB,
    VISITED_ROLE,
    VOTE,
    VOTES_READ,
    VOTES_WITH,
    WEIGHING_MARKS,
    WHEN,
    IllegalAction,
    IllegalSetup,
    _chaos,
    _chaos_threshold,
    _chaos_timers,
    _cowinners,
    _day_timers,
    _draw,
    _election_held,
    _election_threshold,
    _fn_fold,
    _inquiry_allowed,
    _inquiry_threshold,
    _night_timers,
    _vote_defenders_vote,
    _vote_defense_threshold,
    _vote_threshold,
    _vote_timers,
    _wins,
)
from maf.compiler.runtime.state import (
    check_state,
    check_suspended,
)
from maf.compiler.runtime.tables import (
    CALLS,
    CARDS,
    DAWN_MASK,
    DUSK_MARKS,
    DUSK_MASK,
    EXPELLING_MASK,
    FIRST_DAY,
    FIRST_NIGHT,
    FOLLOWERS,
    GHOSTS,
    GRANTED,
    IMMUNE_TO,
    INFO,
    INVERTING_MASK,
    MALFUNCTION_MASK,
    NAMED,
    NOREPEAT_EVER,
    OWN,
    POWERLESS_MASK,
    SILENCING_MASK,
    SKIPS,
    STATUS_MASK,
    STEALABLE,
    STEP_PHASE,
    TEAM_IDS,
    TOMORROW_MARKS,
    TOMORROW_MASK,
    VOTELESS_MASK,
    _bits,
    _mask,
    _short,
)


# maf: end omit
class _Await(Exception):
    """Raised inside a step when a `call` needs a decision that has not been given yet (or the
    moderator's choice: `seat` "moderator", `ab` -1, `info` the awaited entry's other keys)."""

    def __init__(self, seat: Any, ab: int, options: list[Any], info: Any = None) -> None:
        super().__init__(seat, ab)
        self.seat, self.ab, self.options, self.info = seat, ab, options, info


# Empties every game shares (the constructor is cheap, issue 9): the state a game only reads
# until a step replaces it, or that its spec never fills, starts as one of these. They are
# read-only, so a writer that would change one in place fails loudly; the writers that may meet
# one replace it with a container of the game's own (weigh, guard, shield, _immune).
# Typed Any: each stands for the container it replaces. (A seat's marks are an int, no container.)
_NO_DICT: Any = MappingProxyType({})
_NO_SET: Any = frozenset()
_NO_LIST: Any = ()
_MEMW = len(MEMSLOTS)  # the width of a seat's row in Game.memory


_STATE = (
    "n",
    "role",
    "team",
    "alive",
    "nalive",
    "nteam",
    "phase",
    "day",
    "night",
    "chaos",
    "winner",
    "uses",
    "self_uses",
    "last_target",
    "marks",
    "memory",
    "trial",
    "inquiries",
    "departed",
    "seed",
    "draws",
    "repeat",
    "initial",
    "absorbed",
    "ever",
    "later",
    "cards_on",
    "skip",
    "skips",
    "weight",
    "blocked",
    "delayed",
    "over",
    "winners",
    "votes",
    "death_cause",
    "start_report",
    "start_pending",
    "vis_in",
    "vis_out",
    "middle",
    "ghosts",
)


# Bookkeeping the compiled night keeps lazily (issue 9): it charges limited abilities in a flat
# per-seat list of ints (`_flat`, a cache rebuilt from the dicts by `_fn_flat`) and journals
# each night in one record (`_journal`, folded into the dicts by `_fn_fold`). Reading or
# setting one of these attributes folds the journal first and drops the cache, so every other
# reader (generic resolver, to_json, snapshots, bots) sees the dicts exactly as before.
_LAZY = ("uses", "self_uses", "last_target", "ever")


def _lazy(slot: str) -> property:
    def get(self: Game) -> Any:
        if self._journal:
            self._fold()
        self._flat = None  # the caller may change the dict: the cache is rebuilt from it
        return getattr(self, slot)

    def put(self: Game, value: Any) -> None:
        if self._journal:
            self._fold()
        self._flat = None
        setattr(self, slot, value)

    return property(get, put)


_EAGER = tuple(k for k in _STATE if k not in _LAZY)  # the state kept in plain slots


_ROLE_ID = {r: i for i, r in enumerate(ROLES)}  # role id -> its index
# (setup asked for, the dealt role indexes sorted) -> (the fixed setup it matched,): Game._new's
# answer for a table with those seats per role
_MATCHED: dict[tuple[Any, tuple[int, ...]], tuple[Any]] = {}


class Game(_BotApi):
    __slots__ = _EAGER + (
        "_uses",
        "_self_uses",
        "_last_target",
        "_ever",
        "_journal",
        "_flat",
        "prot",
        "guards",
        "pending",
        "stolen",
        "_plan",
        "_submitted",
        "_pos",
        "level",
        "_blockings",
        "defenders",
        "vote_cancelled",
        "_exits",
        "_runoff",
        "_innocent",
        "_deferred",
        "_deaths",
        "_answers",
        "_apos",
        "_keyed",
        "_awaiting",
        "_wake",
        "_public",
        "_private",
        "_changes",
        "_silenced",
    )
    if TYPE_CHECKING:
        # the state (see __init__ for what each holds); for type checkers only
        n: int
        role: list[int]
        team: list[int]
        alive: list[bool]
        nalive: int
        nteam: list[int]
        phase: str
        day: int
        night: int
        chaos: bool
        winner: str | None
        over: bool
        winners: list[str]
        votes: set[tuple[int, int]]
        death_cause: dict[int, int]
        start_report: Any  # a report (mapping) or None
        start_pending: bool
        _uses: dict[tuple[int, int], int]
        _self_uses: dict[tuple[int, int], int]
        _last_target: dict[tuple[int, int], tuple[int, int]]
        _ever: dict[tuple[int, int], list[int]]
        _journal: list[Any]
        _flat: list[int] | None
        marks: list[int]  # per seat, a bit mask: bit m set when it carries mark m
        memory: list[int]
        trial: Any  # (actor, ability, a, b, refund, reveal, tie) or None
        inquiries: int
        departed: list[tuple[int, int]]
        seed: int
        draws: int
        repeat: bool
        initial: tuple[int, ...]
        absorbed: dict[tuple[int, int], int]
        later: list[list[int]]
        cards_on: bool
        skip: bool
        skips: int
        middle: list[int]
        weight: dict[int, int]
        blocked: dict[int, int]
        vis_in: dict[int, list[int]]
        vis_out: dict[int, list[int]]
        delayed: list[list[Any]]
        # while a step runs
        defenders: set[int]
        vote_cancelled: bool
        prot: dict[int, set[int]]
        guards: dict[int, tuple[int, frozenset[int], Any, bool]]
        level: dict[int, int]
        pending: list[tuple[Any, ...]]
        stolen: dict[int, tuple[int, int]]
        _blockings: set[tuple[int, int]]
        _plan: list[Any] | None
        _submitted: Any
        _pos: int
        _runoff: Any
        _innocent: Any
        ghosts: dict[int, int]
        _deferred: list[Any]
        _answers: list[Any] | None
        _apos: int
        _keyed: bool
        _awaiting: Any
        _wake: Any
        _deaths: list[int]
        _exits: list[tuple[int, int]]
        _public: list[str]
        _private: dict[int, list[str]]
        _changes: list[dict[str, Any]]
        _silenced: set[int]

    # ------------------------------------------------------------ construction
    def __init__(
        self, roles: Sequence[int], seed: int = 0, cards: bool = True, _start: bool = True
    ) -> None:
        # cheap (issue 9): a container is made only where a game may change it in place;
        # the rest start as the read-only empties every game shares (_NO_DICT... above)
        n = len(roles)
        self.n = n
        self.role = role = [-1]
        role += roles
        self.team = team = [-1]
        team += map(ROLE_TEAM.__getitem__, roles)
        self.alive = alive = [True] * (n + 1)
        alive[0] = False
        self.nalive = n
        # living players per team; the last slot: no team (-1), seat 0 not counted
        self.nteam = nteam = [*map(team.count, TEAM_IDS)]
        nteam[-1] -= 1
        self.phase = FIRST_PHASE
        self.day = FIRST_DAY
        self.night = FIRST_NIGHT
        self.chaos = False
        self.winner = None
        self.over = False  # the game has ended (a win or a draw)
        self.winners = _NO_LIST  # every team/role that won, once the game is over
        # (voter, accused) of the most recent day vote, if rules read it
        self.votes = set() if VOTES_READ else _NO_SET
        self.death_cause = {}  # seat -> cause of its death (`cause_of`)
        self.start_report = None  # what `on start` hooks told and announced
        self.start_pending = False  # ... not yet merged into a step's report
        self._journal = []  # nights the compiled night charged, not yet folded (_LAZY)
        # the compiled night's per-seat counters (_LAZY): all zero, as the dicts are empty (made
        # here, not by the first night: _fn_flat's walk of empty dicts cost 8% of a night)
        self._flat = [0] * ((n + 1) * FLAT_SLOTS)
        self._uses = {}  # (seat, ability) -> uses so far
        self._self_uses = {}  # (seat, ability) -> self-targeted uses so far
        self._last_target = {}  # (seat, ability) -> (night, first target)
        self.marks = [0] * (n + 1)  # per seat, a bit mask of its marks (bit m: mark m)
        # `remember`: flat, one row of _MEMW ints per seat (slot k of seat s at s * _MEMW + k);
        # 0, no seat, until a seat remembers one
        self.memory = [0] * ((n + 1) * _MEMW)
        self.trial = None  # (actor, ability, a, b, refund, reveal, tie)
        self.inquiries = 0
        self.departed = []  # (seat, team at exit)
        self.seed = seed
        self.draws = 0
        self.repeat = False
        self.initial = tuple(roles)  # the table as dealt: count_role/count_team read it
        self.absorbed = _NO_DICT  # (seat, immunity index) -> kills absorbed so far (_immune)
        # (seat, ability) -> seats targeted so far (for `no repeat ever`)
        self._ever = {} if NOREPEAT_EVER else _NO_DICT
        self.later = _NO_LIST  # [seat, mark]: `until tomorrow` marks that expire at the next dusk
        self.cards_on = bool(cards and CARDS)
        self.skip = False  # the coming night is skipped
        self.skips = SKIPS  # the table's skip tokens left
        self.middle = _NO_LIST  # roles left undealt in the middle of the table (`setup ... middle`)
        self.defenders = _NO_SET  # today's defenders, while the vote is on
        self._runoff = None  # today's runoff ballots, if a tie calls for one
        self._innocent = None  # today's innocent votes, until the judgement counts them
        self.ghosts = {} if GHOSTS else _NO_DICT  # dead seat -> the ghost votes it spent
        self._deferred = _NO_LIST  # vote-time actions of defenders, once the defense is decided
        self.vote_cancelled = False
        self.prot = {}
        self.guards = _NO_DICT  # (Game.guard)
        self.level = _NO_DICT  # seat -> defence level granted for the night (Game.shield)
        if FEATURE_BLOCKS:
            self.blocked = {}  # seat -> its (first) blocker, until dawn
            self._blockings = set()  # (seat, blocker) pairs applied: each reacts once
        else:
            self.blocked = _NO_DICT
            self._blockings = _NO_SET
        self.vis_in = _NO_DICT  # seat -> the seats that visited it, the last night
        self.vis_out = _NO_DICT  # seat -> the seats it visited, the last night
        if FEATURE_DELAYS:
            self.delayed = []  # [night, closure, seat, captured values]: delayed effects
        else:
            self.delayed = _NO_LIST
        self.pending = []
        self.stolen = {} if STEALS else _NO_DICT
        self.weight = _NO_DICT  # seat -> vote weight for the day (Game.weigh)
        self._plan = None
        self._submitted = None  # the night's actions while they validate (`acted()`)
        self._pos = 0
        self._answers = None  # the decisions given for the step being played (`call`)
        self._apos = 0  # how many of them were taken so far
        self._keyed = False  # a night in wake order: decisions are kept per seat (wake())
        self._awaiting = None  # the decision a suspended step waits for (see resolve_choice)
        self._wake = None  # a night played in wake order: {"pos", "actions"} (see wake())
        self._deaths = []  # the step's report so far (_reset_reports)
        self._exits = []
        self._public = []
        self._private = {}
        self._changes = []
        self._silenced = _NO_SET
        if FIRST_PHASE == "day":
            self.chaos = _chaos(self)
        if START and _start:
            self._start()

    uses = _lazy("_uses")
    self_uses = _lazy("_self_uses")
    last_target = _lazy("_last_target")
    ever = _lazy("_ever")

    def _fold(self) -> None:
        """Fold the compiled night's journal into the bookkeeping dicts (see _LAZY)."""
        journal, self._journal = self._journal, []
        _fn_fold(self, journal)

    def _start(self) -> None:
        """Run the `on start` hooks; their report waits for the first step's (see _report)."""
        for fn in START_HOOKS:
            fn(self)
        hooks = START_ROLE_HOOKS
        for seat in range(1, self.n + 1):
            for fn in hooks[self.role[seat]]:
                fn(self, seat)
        if self.pending:
            self._settle()
        self.start_report = {
            "deaths": sorted(self._deaths),
            "public": self._public,
            "private": self._private,
            "changes": self._changes,
        }
        self.start_pending = True
        self._reset_reports()

    def random_seat(self, accepts: Callable[[int], Any]) -> int:
        """`random(x: COND)`: a living seat drawn among those COND accepts, or 0; seeded by the
        game's seed and draw counter (the lottery's), so a replay draws the same seats."""
        seats = [s for s in range(1, self.n + 1) if self.alive[s] and accepts(s)]
        if not seats:
            return 0
        self.draws += 1
        return random.Random(self.seed * 1000003 + self.draws).choice(seats)

    @classmethod
    def new(
        cls,
        seats: Iterable[Any],
        setup: Any = None,
        seed: int = 0,
        cards: bool = True,
        middle: Iterable[Any] | None = None,
    ) -> Game:
        """A game from a seat list of role ids (seat 1 first), checked against the setups.

        `cards=False` plays without last-move cards (where the spec has them). `middle`: the
        cards left in the middle of the table as they were dealt (role ids, as many as the
        table's setup lays there), instead of the setup's own.
        """
        g = cls._new(seats, setup, seed, cards)
        if middle is not None:
            g.middle = g._dealt_middle(list(middle))
        return g

    def _dealt_middle(self, middle: list[Any]) -> list[int]:
        """`Game.new(middle=...)`: the middle cards as dealt, checked against the table's."""
        unknown = [r for r in middle if r not in ROLES]
        if unknown:
            raise IllegalSetup(
                None, None, "setup", f"unknown role id(s): {', '.join(map(str, unknown))}"
            )
        if len(middle) != len(self.middle):
            raise IllegalSetup(
                None,
                None,
                "setup",
                f"this table lays {len(self.middle)} card(s) in the middle, not {len(middle)}",
            )
        return [ROLES.index(r) for r in middle]

    @classmethod
    def _new(cls, seats: Iterable[Any], setup: Any, seed: int, cards: bool) -> Game:
        """Game.new without `middle`: the seat list checked against the setups."""
        seats = list(seats)
        # a table whose counts matched a fixed setup before (a simulation deals thousands):
        # the same setup, without the checks below, which gave that answer for these counts
        try:
            dealt = [_ROLE_ID[s] for s in seats]
        except (KeyError, TypeError):  # an unknown id: the checks below name it
            dealt = None
        if dealt is not None and (setup is None or setup.__class__ is str):
            matched = _MATCHED.get((setup, tuple(sorted(dealt))))  # (the counts, as a multiset)
            if matched is not None:
                g = cls(dealt, seed, cards)
                if SETUP_MIDDLE:
                    g.middle = list(SETUP_MIDDLE.get((len(dealt), matched[0]), ()))
                return g
        n = len(seats)
        unknown = [s for s in seats if s not in ROLES]
        if unknown:
            raise IllegalSetup(
                None, None, "setup", f"unknown role id(s): {', '.join(map(str, unknown))}"
            )
        custom = tuple(
            c for c in CUSTOM_SETUPS if c[1] <= n <= c[2] and (setup is None or c[0] == setup)
        )
        if n not in SETUPS and not custom:
            if setup is not None and MIN_PLAYERS <= n <= MAX_PLAYERS:
                raise IllegalSetup(
                    None, None, "setup", f"no setup named {_short(setup)} for {n} players"
                )
            raise IllegalSetup(
                None,
                None,
                "setup",
                f"{SPEC} plays with {MIN_PLAYERS}..{MAX_PLAYERS} players, not {n}",
            )
        roles = [ROLES.index(s) for s in seats]
        titles = [ROLES[r] for r in roles if r in TITLE_ROLES]
        if titles:
            raise IllegalSetup(
                None,
                None,
                "setup",
                f"{titles[0]} is a title, not a role: no seat is dealt it",
            )
        counts = [0] * len(ROLES)
        for r in roles:
            counts[r] += 1
        options = SETUPS.get(n, ())
        if setup is not None:
            options = tuple(o for o in options if o[0] == setup)
            if not options and not custom:
                raise IllegalSetup(
                    None, None, "setup", f"no setup named {_short(setup)} for {n} players"
                )
        for label, c in options:
            if c == tuple(counts):
                _MATCHED[(setup, tuple(sorted(roles)))] = (label,)
                g = cls(roles, seed, cards)
                if SETUP_MIDDLE:
                    g.middle = list(SETUP_MIDDLE.get((n, label), ()))
                return g
        view = cls(roles, seed, cards)
        for label, _, _, rule in custom:
            if rule(view):
                if SETUP_MIDDLE:  # the cards this custom table lays in the middle
                    view.middle = list(SETUP_MIDDLE.get((n, label), ()))
                return view
        want = "; or ".join(
            ", ".join(f"{ROLES[i]} x{k}" if k > 1 else ROLES[i] for i, k in enumerate(c) if k)
            for _, c in options
        )
        if custom:
            want = (
                (want + "; or " if want else "")
                + "a custom table within the spec's rules ("
                + ", ".join(repr(c[0]) for c in custom)
                + ")"
            )
        raise IllegalSetup(
            None, None, "setup", f"these {n} seats match no setup of {SPEC}; expected {want}"
        )

    # ------------------------------------------------------------ queries used by rules
    def living(self, team: int) -> int:
        return self.nteam[team]

    def ndeparted(self, team: int) -> int:
        return sum(1 for _, t in self.departed if t == team)

    def skip_night(self) -> None:
        self.skip = True

    def cancel_vote(self) -> None:
        self.vote_cancelled = True

    def living_role(self, role: int) -> int:
        """`living_role(r)`: the living seats of role r (the roles of the living, listed in C by
        compress: 1.6x the generator over seats; seat 0, never alive, has role -1)."""
        return [*compress(self.role, self.alive)].count(role)

    def acted(self, ability: int, role: int) -> bool:
        """Was `ability` submitted this phase (by a seat whose role is `role`; -1: anyone)?
        While the night's actions are validated (a `when`, a target filter), before its plan
        exists, the actions submitted are read: the same answer the plan gives once built."""
        plan = self._plan
        if plan is None:
            if self._submitted is None:
                return False
            plan = self._plan_of(self._submitted)
        r = self.role
        return any(e[2] == ability and (role == -1 or r[e[1]] == role) for e in plan)

    def _plan_of(self, actions: Any) -> list[tuple[int, int, int]]:
        """(0, actor, ability) of each submitted action naming a seat and an ability it holds
        (any other makes the night illegal: what `acted` answers then is never seen)."""
        out = []
        n = self.n
        for raw in actions:
            if (raw.__class__ is list or raw.__class__ is tuple) and len(raw) >= 2:
                actor = raw[0]
                if actor.__class__ is int and 0 < actor <= n:
                    try:
                        out.append((0, actor, self.find_ability(actor, raw[1])))
                    except IllegalAction:
                        pass
        return out

    def middle_swap(self, seat: int, role: int) -> None:
        """`seat` takes `role`'s card from the middle of the table and lays his own there."""
        if 1 <= seat <= self.n and role in self.middle:
            self.middle.remove(role)
            self.middle.append(self.role[seat])

    def doomed(self, seat: int) -> bool:
        """Is a kill on `seat` pending, as tonight has resolved so far (before saves and
        immunities are weighed at dawn)?"""
        return any(k[0] == seat for k in self.pending)

    def holder(self, ability: int) -> int:
        """The seat holding a passed-down ability: first alive by the holders chain, lowest seat."""
        role, alive = self.role, self.alive
        for r in AB_HOLDERS[ability]:
            s = 0
            while r in role[s + 1 :]:
                s = role.index(r, s + 1)
                if alive[s]:
                    return s
        return 0

    # ------------------------------------------------------------ effects used by rules
    if FEATURE_LEVELS:

        def kill(self, seat: int, cause: int, piercing: bool, by: int, attack: int = 1) -> None:
            if 1 <= seat <= self.n:
                self.pending.append((seat, cause, piercing, by, attack))
    else:

        def kill(self, seat: int, cause: int, piercing: bool, by: int) -> None:
            if 1 <= seat <= self.n:
                self.pending.append((seat, cause, piercing, by))

    if FEATURE_AT_ONCE:

        def kill_now(self, seat: int, cause: int, piercing: bool, by: int, attack: int = 1) -> None:
            """`kill x by C at once`: the kill settles now, against the protections, guards,
            immunity and defence made so far (a later protection cannot save); the seat's
            triggers run now, and every later action of the night sees it dead (_resolve_night)."""
            if 1 <= seat <= self.n:
                queued = self.pending
                if FEATURE_LEVELS:
                    self.pending = [(seat, cause, piercing, by, attack)]
                else:
                    self.pending = [(seat, cause, piercing, by)]
                try:
                    self._settle()
                finally:
                    self.pending = queued

    def shield(self, seat: int, level: int) -> None:
        """`protect seat at level`: a defence level for the night."""
        if 1 <= seat <= self.n and self.level.get(seat, 0) < level:
            if self.level is _NO_DICT:
                self.level = {}
            self.level[seat] = level

    def protect(self, seat: int, causes: Iterable[int]) -> None:
        p = self.prot.get(seat)
        if p is None:
            self.prot[seat] = set(causes)
        else:
            p.update(causes)

    def guard(
        self, seat: int, causes: Iterable[int], by: int, react: Any = None, takes: bool = False
    ) -> None:
        """`by` takes tonight's kills of `causes` aimed at `seat`; then runs `react`
        (closure number, captured values) with the attacker, if given. `takes` (`takes the
        attack`): `by` dies by the kill he takes, which his own protections, immunity and
        defence level may stop (never another guard: the kill is queued with piercing None);
        else he dies piercing."""
        if 1 <= seat <= self.n and seat != by:
            if self.guards is _NO_DICT:
                self.guards = {}
            self.guards[seat] = (by, frozenset(causes), react, takes)

    def block(self, seat: int, by: int) -> None:
        """`seat`'s night abilities still to resolve (this night, or the coming one when
        blocked by day) do not resolve; its `on blocked` reactions run now."""
        if not 1 <= seat <= self.n or (seat, by) in self._blockings:
            return  # a second block by the same seat changes nothing (and reacts once)
        self._blockings.add((seat, by))
        self.blocked.setdefault(seat, by)
        if FEATURE_STATUSES:
            if self.marks[seat] & STATUS_MASK:
                return  # a status suspends the role's reactions
        if self.alive[seat]:
            fn = BLOCKED_ROLE[self.role[seat]]
            if fn is not None:
                fn(self, seat, by)
            for ab, fn in BLOCKED_AB:
                if self._used(seat, ab):
                    fn(self, seat, by)

    if FEATURE_STATUSES:

        def _role_power(self, seat: int, ab: int) -> bool:
            """Is `ab` a power of `seat`'s role (its own, or passed down by `held by`), which a
            status suspends? An ability granted by a mark is the mark's, not the role's."""
            r = self.role[seat]
            return AB_GRANTED[ab] < 0 and (AB_ROLE[ab] == r or r in AB_HOLDERS[ab])

    def _used(self, seat: int, ab: int) -> bool:
        """Did `seat` submit `ab` this night?"""
        plan = self._plan
        return plan is not None and any(e[1] == seat and e[2] == ab for e in plan)

    def visit(self, actor: int, seat: int) -> None:
        """`visit seat`: `actor` visits `seat` now, as a resolving action visits its target:
        recorded, then the living seat's `on visited` reactions run (an ability's only if the
        seat used it tonight and it resolves)."""
        if seat == actor or not 1 <= seat <= self.n:
            return
        if self.vis_in is _NO_DICT:
            self.vis_in, self.vis_out = {}, {}
        seats = self.vis_in.setdefault(seat, [])
        if actor not in seats:
            seats.append(actor)
        seats = self.vis_out.setdefault(actor, [])
        if seat not in seats:
            seats.append(seat)
        if FEATURE_STATUSES:
            if self.marks[seat] & STATUS_MASK:
                return  # a status suspends the role's reactions
        if self.alive[seat]:
            fn = VISITED_ROLE[self.role[seat]]
            if fn is not None:
                fn(self, seat, actor)
            for a, fn in VISITED_AB:
                if self._used(seat, a) and (AB_UNBLOCKABLE[a] or seat not in self.blocked):
                    fn(self, seat, actor)

    def _visit(self, actor: int, ab: int, args: Sequence[int]) -> None:
        """`actor`'s action `ab` resolves: it visits its target seats (not itself), whose
        `on visited` reactions run before the action's body."""
        done = []
        alive, vis_in, vis_out = self.alive, self.vis_in, self.vis_out
        for t in args[: AB_TARGETS[ab]]:
            if t == actor or t in done or not 1 <= t <= self.n:
                continue
            done.append(t)
            seats = vis_in.setdefault(t, [])
            if actor not in seats:
                seats.append(actor)
            seats = vis_out.setdefault(actor, [])
            if t not in seats:
                seats.append(t)
            if FEATURE_STATUSES:
                if self.marks[t] & STATUS_MASK:
                    continue  # a status suspends the role's reactions
            if alive[t]:
                fn = VISITED_ROLE[self.role[t]]
                if fn is not None:
                    fn(self, t, actor)
                for a, fn in VISITED_AB:
                    if self._used(t, a) and (AB_UNBLOCKABLE[a] or t not in self.blocked):
                        fn(self, t, actor)

    def delay(self, nights: int, k: int, seat: int, captured: Iterable[int]) -> None:
        """Run closure `k` at the start of the night `nights` from now."""
        self.delayed.append([self.night + nights, k, seat, list(captured)])

    def _run_delayed(self, number: int) -> None:
        due = [d for d in self.delayed if d[0] <= number]
        if due:
            self.delayed = [d for d in self.delayed if d[0] > number]
            for _, k, seat, captured in due:
                CLOSURES[k](self, seat, *captured)

    def _hooks(self, hooks: Iterable[tuple[int, Callable[..., Any]]]) -> None:
        """Run hooks: a top-level one once (no seat), a role's once per living seat of it."""
        for role, fn in hooks:
            if role < 0:
                fn(self, 0)
            elif role in self.role:  # (else no seat holds it, and none comes to)
                for s in range(1, self.n + 1):
                    if self.role[s] == role and self.alive[s]:
                        if FEATURE_STATUSES:
                            if self.marks[s] & STATUS_MASK:
                                continue  # a status suspends the role's hooks
                        fn(self, s)

    def convert(self, seat: int, role: int) -> None:
        if self.role[seat] != role:
            if self.alive[seat]:
                self.nteam[self.team[seat]] -= 1
                self.nteam[ROLE_TEAM[role]] += 1
            self.role[seat] = role
            self.team[seat] = ROLE_TEAM[role]
            self._changes.append(
                {
                    "seat": seat,
                    "role": ROLES[role],
                    "team": TEAMS[ROLE_TEAM[role]] if ROLE_TEAM[role] >= 0 else None,
                }
            )

    def mark(self, seat: int, mark: int) -> None:
        """`mark seat with m`: bit m of the seat's marks."""
        self.marks[seat] |= 1 << mark

    def weigh(self, seat: int, value: int) -> None:
        """`weight N`: the seat's vote weight for the day."""
        if self.weight is _NO_DICT:
            self.weight = {}
        self.weight[seat] = value

    def tell(self, seat: int, text: str) -> None:
        self._private.setdefault(seat, []).append(text)

    def announce(self, text: str) -> None:
        self._public.append(text)

    def revive(self, seat: int) -> None:
        if 1 <= seat <= self.n and not self.alive[seat]:
            self.alive[seat] = True
            self.nalive += 1
            self.nteam[self.team[seat]] += 1
            if seat in self._deaths:
                self._deaths.remove(seat)
            self.departed = [d for d in self.departed if d[0] != seat]
            self.death_cause.pop(seat, None)

    def left(self, seat: int) -> int:
        """The nearest living seat before `seat` (wrapping), or 0."""
        for k in range(1, self.n):
            s = (seat - 1 - k) % self.n + 1
            if self.alive[s]:
                return s
        return 0

    def right(self, seat: int) -> int:
        """The nearest living seat after `seat` (wrapping), or 0."""
        for k in range(1, self.n):
            s = (seat - 1 + k) % self.n + 1
            if self.alive[s]:
                return s
        return 0

    def schedule_trial(
        self, actor: int, ability: int, a: int, b: int, refund: bool, reveal: bool, tie: str
    ) -> None:
        self.trial = (actor, ability, min(a, b), max(a, b), refund, reveal, tie)

    def steal(self, taker: int, source: int, dest: int) -> None:
        """The taker (the stealing actor) takes `source`'s stealable night ability and uses it
        on `dest` tonight.

        If `source` submitted it and its turn is still to come, the taker takes that action
        over. If its turn has passed (it resolved already, or was never submitted), the taker
        uses it at once; if it was never submitted it is charged to `source`'s uses. If it was
        not submitted and its turn is still to come, it is added on `source`'s behalf.
        """
        plan = self._plan
        ab = STEALABLE[self.role[source]] if 1 <= source <= self.n else -1
        if plan is None or ab < 0 or not self.alive[source] or source in self.stolen:
            return
        pos = self._pos
        for k in range(pos, len(plan)):
            if plan[k][1] == source and plan[k][2] == ab:
                self.stolen[source] = (taker, dest)
                return
        key = (source, ab)
        done = any(e[1] == source and e[2] == ab for e in plan[:pos])
        if not done and AB_PER_GAME[ab] and self.uses.get(key, 0) >= AB_PER_GAME[ab]:
            return
        if not done:
            self.uses[key] = self.uses.get(key, 0) + 1
        args = (dest,) * AB_TARGETS[ab]
        if done or AB_RANK[ab] < plan[pos - 1][0]:
            self.stolen[source] = (taker, dest)
            (STOLEN[ab] or RUN[ab])(self, taker, ab, *args)
            return
        entry = (AB_RANK[ab], source, ab, args, dest)
        k = pos
        while k < len(plan) and plan[k] < entry:
            k += 1
        plan.insert(k, entry)
        self.stolen[source] = (taker, dest)

    def call_ability(self, seat: int, ab: int) -> None:
        """`call`: `seat` decides, now, how to use the `on call` ability `ab` (or declines).

        The decision is the next answer given for this step (resolve_choice); without one, the
        step stops here (_Await) and the game waits for it. A used-up ability calls nobody.
        """
        if not (seat.__class__ is int and 1 <= seat <= self.n):
            return
        key = (seat, ab)
        if AB_PER_GAME[ab] and self.uses.get(key, 0) >= AB_PER_GAME[ab]:
            return
        if FEATURE_STATUSES:
            if self.marks[seat] & POWERLESS_MASK and self._role_power(seat, ab):
                return  # a powerless seat is not asked
        answers = self._answers
        values = None
        if answers is not None and self._apos < len(answers):
            values = answers[self._apos]
            if values.__class__ is dict:  # a decision kept by a night in wake order (wake())
                values = self._kept_decision(seat, ab, values)
                if values is None:  # no longer this call's: asked again from here
                    del answers[self._apos :]
        if values is None:
            options = (
                [s for s in range(1, self.n + 1) if FILTERS[ab][0](self, seat, s)]
                if AB_TARGETS[ab]
                else []
            )
            raise _Await(seat, ab, options)
        if self._keyed and answers is not None:  # kept by a night in wake order: this call's
            answers[self._apos] = {"seat": seat, "ability": ABILITIES[ab], "values": list(values)}
        self._apos += 1
        if not values:
            return  # declined
        args = self._arguments(seat, ab, values)
        when = WHEN[ab]
        if when is not None and not when(self, seat, *args):
            raise IllegalAction(
                seat,
                ABILITIES[ab],
                "condition",
                f"{ABILITIES[ab]} cannot be used now (its `when` condition does not hold)",
            )
        self._charge(
            seat,
            ab,
            args[0] if AB_TARGETS[ab] else 0,
            self.night if self.phase == "night" else self.day,
        )
        if FEATURE_STATUSES:
            if MALFUNCTION_MASK & self.marks[seat] and self._role_power(seat, ab):
                (INVERTED[ab] or _nothing)(self, seat, ab, *args)  # malfunctions
                return
        RUN[ab](self, seat, ab, *args)

    if FEATURE_MODERATOR:

        def moderate(self, site: int, kind: str, accepts: Callable[[Any], Any] | None) -> Any:
            """`moderator chooses NAME: KIND where COND`: the value the moderator picks among
            those of KIND (seats 1..n, roles, teams, numbers 0..n) that COND accepts, or None
            (declined, or nothing to pick: nobody is asked). The pick is the next answer given
            for this step (resolve_choice("moderator", [value])); without one the step waits."""
            n = self.n
            values: Sequence[Any] = (
                range(1, n + 1)
                if kind == "seat"
                else range(n + 1)
                if kind == "number"
                else [i for i in range(len(ROLES)) if i not in TITLE_ROLES]
                if kind == "role"
                else range(len(TEAMS))
            )
            if accepts is not None:
                values = [v for v in values if accepts(v)]
            if not values:
                return None
            shown = ROLES if kind == "role" else TEAMS if kind == "team" else None
            options = [shown[v] for v in values] if shown is not None else list(values)
            pick = self._moderator(MODERATOR_SITES[site], kind, options, None)
            return None if pick is None else values[options.index(pick)]

        def seen(self, kind: str, seat: Any, shown: dict[Any, int]) -> int:
            """`team(x)` / `role(x)` read by information: the truth, or, for a role that
            `registers as` something, what the moderator picks among the truth and its
            registrations (declining: the truth), once per seat and kind in a statement
            (`shown`: its answers so far)."""
            if not (seat.__class__ is int and 1 <= seat <= self.n):
                return -1
            key = (kind, seat)
            if key in shown:
                return shown[key]
            shown[key] = value = self._seen(kind, seat)
            return value

        def _seen(self, kind: str, seat: int) -> int:
            role = self.role[seat]
            if kind == "role":
                true, shown = role, ROLES
                alts = [r for r in REG_ROLES[role] if r != role]
            elif kind == "kind":
                true, shown = ROLE_KIND[role], KINDS
                alts = [k for k in REG_KINDS[role] if k != true]
            else:
                true, shown = self.team[seat], TEAMS
                alts = [t for t in REG_TEAMS[role] if t != true]
            if not alts:
                return true
            values = [true, *alts]
            options = [shown[v] if v >= 0 else None for v in values]
            pick = self._moderator(f"{ROLES[role]}:registers", kind, options, seat)
            return true if pick is None else values[options.index(pick)]

        def _moderator(self, site: str, kind: str, options: list[Any], about: Any) -> Any:
            """The moderator's next answer for this step: one of `options`, or None (declined);
            with none given yet, the step stops here (_Await) and waits for it."""
            answers = self._answers
            if answers is None:  # (not under a step's replay: nothing to wait in)
                return None
            values = None
            if self._apos < len(answers):
                values = answers[self._apos]
                if values.__class__ is dict:  # kept by a night in wake order (wake())
                    v = values.get("values")
                    if (
                        values.get("seat") == "moderator"
                        and values.get("ability") == site
                        and v.__class__ is list
                        and (not v or len(v) == 1 and v[0] in options)
                    ):
                        values = v
                    else:  # no longer this choice's: asked again from here
                        del answers[self._apos :]
                        values = None
            info = {"ability": site, "choices": [kind], "about": about}
            if values is None:
                raise _Await("moderator", -1, options, info)
            if self._keyed:  # kept by a night in wake order: this choice's
                answers[self._apos] = {"seat": "moderator", "ability": site, "values": list(values)}
            self._apos += 1
            if not values:
                return None
            pick = values[0]
            if len(values) != 1 or pick.__class__ not in (int, str) or pick not in options:
                raise IllegalAction(
                    "moderator",
                    site,
                    "bad-choice",
                    f"the moderator picks one of {_short(options)} for {site}, "
                    f"not {_short(values)}",
                )
            return pick

    def _kept_decision(self, seat: int, ab: int, kept: dict[str, Any]) -> list[Any] | None:
        """A decision a night in wake order kept (`{"seat", "ability", "values"}`): its values
        if it answers this call (the same seat and ability) and is still legal now, else None
        (the night changed since it was given: asked again)."""
        values = kept.get("values")
        if kept.get("seat") != seat or kept.get("ability") != ABILITIES[ab]:
            return None
        if values.__class__ is not list:
            return None
        if not values:
            return values
        try:
            args = self._arguments(seat, ab, values)
        except IllegalAction:
            return None
        when = WHEN[ab]
        return values if when is None or when(self, seat, *args) else None

    def _decided(
        self, step: str, args: tuple[Any, ...], kw: dict[str, Any], answers: Any = ()
    ) -> dict[str, Any]:
        """Play a step of a spec with called abilities: the step is replayed from its start with
        the decisions given so far, so that a decision still missing leaves the game exactly as
        before the step (plus the decision it awaits). `answers`: those a night in wake order
        kept."""
        aw = self._awaiting
        if aw is not None:
            raise IllegalAction(
                aw["seat"],
                aw["ability"],
                "awaiting",
                f"seat {aw['seat']} must first decide {aw['ability']} (resolve_choice)",
            )
        return self._replay(step, args, kw, list(answers))

    def _replay(
        self, step: str, args: Sequence[Any], kw: dict[str, Any], answers: list[Any]
    ) -> dict[str, Any]:
        snap = self._snapshot()
        weight = dict(self.weight)
        self._answers, self._apos = answers, 0
        try:
            return getattr(self, step)(*args, **kw)
        except _Await as w:
            self._restore(snap)
            self.weight = weight
            self._plan = None
            self._declinable(step, args, kw, answers)
            if w.info is not None:  # the moderator's choice: {ability, choices, about}
                self._awaiting = {"seat": w.seat, "targets": 0, "options": w.options, **w.info}
            else:
                self._awaiting = {
                    "seat": w.seat,
                    "ability": ABILITIES[w.ab],
                    "targets": AB_TARGETS[w.ab],
                    "choices": list(AB_CHOICES[w.ab]),
                    "options": w.options,
                }
            self._awaiting.update(step=step, args=list(args), kw=dict(kw), answers=answers)
            return self._awaiting_report()
        except Exception:
            self._restore(snap)
            self.weight = weight
            self._plan = None
            raise
        finally:
            self._answers = None

    def _declinable(
        self, step: str, args: Sequence[Any], kw: dict[str, Any], answers: list[Any]
    ) -> None:
        """Before a step waits for a decision: played on the side with it and every later one
        declined, the step must go through, so that declining always moves the game on
        (docs/security.md, "Liveness"). Else the IllegalAction it meets is raised now: the
        step (or the decision just given) is refused and nothing changes."""
        given = _copy(answers) + [[]]
        w, aw, keyed = self._wake, self._awaiting, self._keyed
        for _ in range(10_000):
            snap = self._snapshot()
            weight = dict(self.weight)
            self._answers, self._apos = given, 0
            try:
                getattr(self, step)(*args, **kw)
                return
            except _Await:
                given.append([])
            finally:
                self._restore(snap)
                self.weight = weight
                self._plan = None
                self._wake, self._awaiting, self._keyed = w, aw, keyed
                self._reset_reports()

    def pending_choices(self) -> list[dict[str, Any]]:
        """The decision the game waits for: [{seat, ability, targets, choices, options}] or []."""
        aw = self._awaiting
        if aw is None:
            return []
        keys: tuple[str, ...] = ("seat", "ability", "targets", "choices", "options")
        if FEATURE_MODERATOR:
            if aw["seat"] == "moderator":  # whose registration it is (a seat), or None
                keys += ("about",)
        return [{k: _copy(aw[k]) for k in keys}]

    def resolve_choice(self, seat: Any, values: Any = None) -> dict[str, Any]:
        """Give the awaited decision: `values` = [target..., choice...]; None or [] declines.
        The suspended step is then played on; returns its report (or the next awaited one)."""
        aw = self._awaiting
        if aw is None:
            raise IllegalAction(seat, None, "no-choice", "no decision is awaited")
        if seat != aw["seat"]:
            raise IllegalAction(
                seat,
                aw["ability"],
                "not-awaited",
                f"seat {aw['seat']} decides {aw['ability']} now, not seat {seat!r}",
            )
        if values is not None and not isinstance(values, (list, tuple)):
            raise IllegalAction(
                seat,
                aw["ability"],
                "malformed",
                f"a decision is a list [target..., choice...], not {values!r}",
            )
        self._awaiting = None
        try:
            return self._replay(
                aw["step"], aw["args"], aw["kw"], aw["answers"] + [list(values or ())]
            )
        except Exception:
            self._awaiting = aw
            raise

    def _awaiting_report(self) -> dict[str, Any]:
        aw = self._awaiting
        phase = STEP_PHASE[aw["step"]]
        return {
            "phase": phase,
            "number": self.day if self.phase == "day" else self.night,
            "deaths": [],
            "causes": {},
            "public": [],
            "private": {},
            "changes": [],
            "silenced": [],
            "winner": self.winner,
            "winners": list(self.winners),
            "awaiting": self.pending_choices(),
        }

    def win_now(self, who: str) -> None:
        if not self.over:
            self.winner = who
            self.over = True

    # ------------------------------------------------------------ deaths
    def _die(self, seat: int, cause: int, by: int = 0) -> None:
        if FEATURE_REPLACEMENTS:
            if REPLACE[self.role[seat]] and self._replaced(seat, cause, by):
                return  # `instead of death`: the seat does not die
        self.alive[seat] = False
        self.nalive -= 1
        self.nteam[self.team[seat]] -= 1
        self._deaths.append(seat)
        self._exits.append((seat, cause))
        self.departed.append((seat, self.team[seat]))
        self.death_cause[seat] = cause
        if FEATURE_STATUSES:
            if not self.marks[seat] & STATUS_MASK:  # a status suspends the role's triggers
                for when, fn in TRIGGERS[self.role[seat]]:
                    if when is None or cause in when:
                        fn(self, seat, by, cause)
        else:
            for when, fn in TRIGGERS[self.role[seat]]:
                if when is None or cause in when:
                    fn(self, seat, by, cause)
        if FEATURE_ANY_DEATHS:
            # `on any death` triggers
            for role, causes, fn in ANY_DEATH:
                if causes is not None and cause not in causes:
                    continue
                if role < 0:
                    fn(self, 0, seat, by, cause)
                    continue
                if role not in self.role:
                    continue  # no seat holds it (and none comes to: fn is called for none)
                for s in range(1, self.n + 1):
                    if self.role[s] == role and self.alive[s]:
                        if FEATURE_STATUSES:
                            if self.marks[s] & STATUS_MASK:
                                continue  # a status suspends the role's `on any death`
                        fn(self, s, seat, by, cause)

    if FEATURE_REPLACEMENTS:

        def _replaced(self, seat: int, cause: int, by: int) -> bool:
            """The first `instead of death` of the seat's role whose causes and `when` match
            runs in place of its death (True); none does while a status suspends its powers."""
            if FEATURE_STATUSES:
                if self.marks[seat] & STATUS_MASK:
                    return False
            for causes, when, fn in REPLACE[self.role[seat]]:
                if (causes is None or cause in causes) and (
                    when is None or when(self, seat, by, cause)
                ):
                    fn(self, seat, by, cause)
                    return True
            return False

    def _settle(self) -> None:
        """Apply pending kills in order; triggers and guards may add more (met by the loop
        too: a list's iterator reads its length at each step).

        The one meaning of a kill: the compiled night (compiler/backend/nightgen.py) inlines
        this method and _die, specialised to its spec by compiler/backend/specialise.py, which
        reads their source: keep them in the plain Python it reads (its docstring)."""
        pending, prot, alive, role = self.pending, self.prot, self.alive, self.role
        for entry in pending:
            if FEATURE_LEVELS:
                seat, cause, piercing, by, attack = entry
            else:
                seat, cause, piercing, by = entry
            if not alive[seat]:
                continue
            if not piercing:
                p = prot.get(seat)
                if p is not None and cause in p:
                    if ANY_SAVE:
                        self._saved(seat, cause, by)
                    continue
                if cause in IMMUNE_TO[role[seat]] and self._immune(seat, cause):
                    if ANY_SAVE:
                        self._saved(seat, cause, by)
                    continue
                if FEATURE_LEVELS:
                    if FEATURE_STATUSES:
                        if (
                            attack <= ROLE_DEFENSE[role[seat]]
                            and not self.marks[seat] & STATUS_MASK  # it suspends the role's
                        ) or attack <= self.level.get(seat, 0):
                            if ANY_SAVE:
                                self._saved(seat, cause, by)
                            continue  # the defence level holds
                    else:
                        if attack <= ROLE_DEFENSE[role[seat]] or attack <= self.level.get(seat, 0):
                            if ANY_SAVE:
                                self._saved(seat, cause, by)
                            continue  # the defence level holds
                gd = self.guards.get(seat) if self.guards and piercing is not None else None
                if gd is not None and cause in gd[1] and alive[gd[0]]:
                    # the guard dies in his place (piercing), or takes the attack (None:
                    # his protections hold, no guard of his takes it further)
                    pierce = None if gd[3] else True
                    if FEATURE_LEVELS:
                        pending.append((gd[0], cause, pierce, by, attack))
                    else:
                        pending.append((gd[0], cause, pierce, by))
                    if gd[2] is not None:  # and reacts, knowing the attacker
                        CLOSURES[gd[2][0]](self, gd[0], by, *gd[2][1])
                    continue
            self._die(seat, cause, by)
        pending.clear()

    def _saved(self, seat: int, cause: int, by: int) -> None:
        """A kill of `cause` by `by` on `seat` was stopped (a protection, an immunity, the
        defence level): the `on any save` triggers run, in spec order."""
        for causes, fn in ANY_SAVE:
            if causes is None or cause in causes:
                fn(self, 0, seat, by, cause)

    def _immune(self, seat: int, cause: int) -> bool:
        if FEATURE_STATUSES:
            if self.marks[seat] & STATUS_MASK:
                return False  # a status suspends the role's immunities
        for k, (causes, unless, times) in enumerate(IMMUNE[self.role[seat]]):
            if cause in causes and (unless < 0 or not self.marks[seat] >> unless & 1):
                if times:
                    used = self.absorbed.get((seat, k), 0)
                    if used >= times:
                        continue
                    if self.absorbed is _NO_DICT:
                        self.absorbed = {}
                    self.absorbed[(seat, k)] = used + 1
                return True
        return False

    def _check_wins(self) -> None:
        if not self.over:
            self.winner = _wins(self)
            self.over = self.winner is not None or DRAWS and _draw(self)

    def _final_winners(self) -> list[str]:
        """The winners of an ended game: the team/role whose win ended it, then co-winners."""
        out = [self.winner] if self.winner is not None else []
        if COWINNERS:
            out += [r for r in _cowinners(self) if r not in out]
        return out

    def winning_seats(self) -> list[int]:
        """The seats that won, dead or alive, once the game is over: a team's seats (by their
        team now), a role's, a side's members (`side ... members`), the co-winners' seats."""
        if not self.over:
            return []
        out = set()
        for w in self.winners:
            if w in TEAMS:
                t = TEAMS.index(w)
                member = SIDE_MEMBERS.get(t)
                for s in range(1, self.n + 1):
                    if member(self, s) if member is not None else self.team[s] == t:
                        out.add(s)
            elif w in ROLES:
                r = ROLES.index(w)
                out.update(s for s in range(1, self.n + 1) if self.role[s] == r)
        return sorted(out)

    def max_count(self, kind: int) -> int:
        """The most seats dealt one role of that kind (`max_count(KIND)`)."""
        counts = [0] * len(ROLES)
        for r in self.initial:
            counts[r] += 1
        return max([counts[r] for r in range(len(ROLES)) if ROLE_KIND[r] == kind] or [0])

    def _vote_weight(self, seat: int) -> int:
        """A voter's weight: the day's `weight`, or a `weighs N` mark he carries (the larger)."""
        w = self.weight.get(seat, 1)
        marks = self.marks[seat]
        if marks:
            for m, k in WEIGHING_MARKS.items():
                if marks >> m & 1 and k > w:
                    w = k
        return w

    # ------------------------------------------------------------ reports
    def _reset_reports(self) -> None:
        self._deaths = []
        self._exits = []
        self._public = []
        self._private = {}
        self._changes = []
        self._silenced = _NO_SET

    def _report(self, phase: str, number: int, **extra: Any) -> dict[str, Any]:
        rep: dict[str, Any] = {
            "phase": phase,
            "number": number,
            "deaths": sorted(self._deaths),
            "causes": {s: CAUSES[c] for s, c in self._exits if s in self._deaths},
            "public": self._public,
            "private": self._private,
            "changes": self._changes,
            "silenced": sorted(self._silenced),
            "winner": self.winner,
        }
        if self.over:
            self.winners = self._final_winners()
        rep["winners"] = list(self.winners)
        rep["over"] = self.over
        if self.start_pending:  # the start hooks' report rides on the first step's
            self.start_pending = False
            start = self.start_report
            rep["start"] = _copy(start)
            rep["public"] = start["public"] + rep["public"]
            private = {s: list(t) for s, t in start["private"].items()}
            for s, t in rep["private"].items():
                private.setdefault(s, []).extend(t)
            rep["private"] = private
        rep.update(extra)
        self._reset_reports()
        return rep

    def _game_over(self) -> NoReturn:
        raise IllegalAction(
            None,
            None,
            "game-over",
            f"the game is over: {self.winner} won"
            if self.winner is not None
            else "the game is over: a draw",
        )

    def _require(self, phase: str) -> None:
        if self.over:
            self._game_over()
        if self.phase != phase:
            if self.repeat:
                raise IllegalAction(
                    None,
                    None,
                    "wrong-phase",
                    f"day {self.day} repeats (a tie on a chaos day): play it again",
                )
            raise IllegalAction(
                None,
                None,
                "wrong-phase",
                f"it is {self.phase} {self.day if self.phase == 'day' else self.night}, "
                f"not a {phase}",
            )

    # ------------------------------------------------------------ the night
    def find_ability(self, seat: int, name: Any) -> int:
        """The ability `name` (short or full id) as held by `seat` now, or raise."""
        role = self.role[seat]
        found = []
        # a name no ability of the role, granted or passed down bears is unknown at once
        if name.__class__ is not str or (role, name) in NAMED:
            for a in ROLE_ABILITIES[role]:
                if (
                    (AB_NAME[a] == name or ABILITIES[a] == name)
                    and (not AB_HOLDERS[a] or self.holder(a) == seat)
                    and AB_GRANTED[a] < 0
                ):
                    found.append(a)
            marks = self.marks[seat]
            for a in GRANTED:
                if (AB_NAME[a] == name or ABILITIES[a] == name) and marks >> AB_GRANTED[a] & 1:
                    found.append(a)
            for a in HELD:
                if (
                    AB_ROLE[a] != role
                    and (AB_NAME[a] == name or ABILITIES[a] == name)
                    and self.holder(a) == seat
                ):
                    found.append(a)
        if len(found) == 1:
            return found[0]
        if found:
            raise IllegalAction(
                seat,
                name,
                "ambiguous",
                f"{_short(name)} is ambiguous here; use the full id: "
                + ", ".join(ABILITIES[a] for a in found),
            )
        for a in ROLE_ABILITIES[role]:
            if AB_NAME[a] == name or ABILITIES[a] == name:
                raise IllegalAction(
                    seat,
                    ABILITIES[a],
                    "not-holder",
                    f"seat {seat} ({ROLES[role]}) does not hold {ABILITIES[a]} now",
                )
        raise _no_ability(seat, role, name)

    def _validate(
        self, raw: Any, phase: str, number: int, seen: set[Any], groups: dict[Any, int]
    ) -> tuple[Any, ...]:
        """One action -> (rank, actor, ability, args, first target); raises IllegalAction.

        The common legal case goes through the ability's generated fast check, and a name the
        living actor holds no ability by is refused at once (what the full check would say);
        anything else (and every other error) through the full check, which names the broken rule.
        """
        if (raw.__class__ is list or raw.__class__ is tuple) and len(raw) >= 2:
            actor = raw[0]
            if (
                actor.__class__ is int
                and 0 < actor <= self.n
                and self.alive[actor]
                and raw[1].__class__ is str
            ):
                if FEATURE_STATUSES:
                    if self.marks[actor] & POWERLESS_MASK:  # the full check names the rule
                        return self._validate_full(raw, phase, number, seen, groups)
                key = (self.role[actor], raw[1])
                ab = OWN.get(key)
                if ab is None:
                    if key not in NAMED:  # (a bot's probe, most often: raised from here)
                        raise _no_ability(actor, key[0], key[1])
                elif AB_GRANTED[ab] < 0 and (not AB_HOLDERS[ab] or self.holder(ab) == actor):
                    fast = FAST[ab]
                    if fast is not None:
                        entry = fast(self, actor, raw, phase, number, seen, groups)
                        if entry is not None:
                            return entry
        return self._validate_full(raw, phase, number, seen, groups)

    def _validate_full(
        self, raw: Any, phase: str, number: int, seen: set[Any], groups: dict[Any, int]
    ) -> tuple[Any, ...]:
        if type(raw) not in (list, tuple) or len(raw) < 2:
            raise IllegalAction(
                None,
                None,
                "malformed",
                f"an action is [actor, ability, targets...], not {_short(raw)}",
            )
        actor, name = raw[0], raw[1]
        if type(name) is not str:
            raise IllegalAction(
                None, None, "malformed", f"ability name {_short(name)} is not a string"
            )
        if type(actor) is not int or not 1 <= actor <= self.n:
            raise IllegalAction(None, name, "bad-seat", f"no seat {_short(actor)}")
        living = self.alive[actor]
        if not living and not DEAD_ACTS:
            raise IllegalAction(actor, name, "dead-actor", f"seat {actor} is dead and cannot act")
        ab = OWN.get((self.role[actor], name))
        if ab is None or (AB_HOLDERS[ab] and self.holder(ab) != actor) or AB_GRANTED[ab] >= 0:
            ab = self.find_ability(actor, name)
        self._check_ability(actor, ab, name, phase, number, seen, groups)
        _, rank, nt, _, _, self_per_game, _, norepeat, _, _, _ = INFO[ab]
        wakes = False  # its filters and `when` read the night so far: read at its wake
        if FEATURE_AT_WAKE:
            wakes = phase == "night" and ab in AT_WAKE
        args = self._arguments(actor, ab, raw[2:], wakes)
        when = WHEN[ab]
        if when is not None and not wakes and not when(self, actor, *args):
            raise IllegalAction(
                actor,
                ABILITIES[ab],
                "condition",
                f"{ABILITIES[ab]} cannot be used now (its `when` condition does not hold)",
            )
        first = args[0] if nt else 0
        rule = self._first_rule(actor, ab, first, number) if self_per_game or norepeat else None
        if rule == "self-limit":
            raise IllegalAction(
                actor,
                ABILITIES[ab],
                "self-limit",
                f"{ABILITIES[ab]} on oneself is used up ({self_per_game} per game)",
            )
        if rule == "repeat":
            raise IllegalAction(
                actor,
                ABILITIES[ab],
                "repeat",
                f"{ABILITIES[ab]} cannot take seat {first} a second time"
                if norepeat == "ever"
                else f"{ABILITIES[ab]} cannot take seat {first} two {phase}s running",
            )
        return (rank, actor, ab, tuple(args), first)

    def _check_ability(
        self,
        actor: int,
        ab: int,
        name: str,
        phase: str,
        number: int,
        seen: set[Any],
        groups: dict[Any, int],
    ) -> None:
        """The checks of an action that read the ability and its actor, not its arguments:
        the life it is used in, the phase, a quiet phase, `from night N`, once per phase,
        exclusive groups (noted in `seen` and `groups`), `uses N per game`. Raises
        IllegalAction; legal_actions asks it once per ability before listing targets."""
        living = self.alive[actor]
        if DEAD_ACTS and AB_LIFE[ab] != "both" and (AB_LIFE[ab] == "dead") == living:
            if living:
                raise IllegalAction(
                    actor,
                    ABILITIES[ab],
                    "living-actor",
                    f"{ABILITIES[ab]} is used only by the dead",
                )
            raise IllegalAction(actor, name, "dead-actor", f"seat {actor} is dead and cannot act")
        if FEATURE_STATUSES:
            if self.marks[actor] & POWERLESS_MASK and self._role_power(actor, ab):
                raise IllegalAction(
                    actor,
                    ABILITIES[ab],
                    "powerless",
                    f"seat {actor} carries "
                    + ", ".join(MARKS[m] for m in _bits(self.marks[actor] & POWERLESS_MASK))
                    + f": its role's powers are lost ({ABILITIES[ab]})",
                )
        ab_phase, _, _, _, per_game, _, start, _, grp, tgrp, _ = INFO[ab]
        if (
            ab_phase != phase
            and not (phase == "day" and ab_phase == "vote")
            and not (ab_phase == "any" and phase != "vote")
        ):
            raise IllegalAction(
                actor, ABILITIES[ab], "wrong-phase", f"{ABILITIES[ab]} is a {ab_phase} ability"
            )
        if number in (QUIET_NIGHTS if phase == "night" else QUIET_DAYS):
            raise IllegalAction(
                actor, ABILITIES[ab], "quiet-phase", f"no abilities are used on {phase} {number}"
            )
        if number < start:
            raise IllegalAction(
                actor,
                ABILITIES[ab],
                "too-early",
                f"{ABILITIES[ab]} can be used from {phase} {start} on",
            )
        key = (actor, ab)
        if key in seen:
            raise IllegalAction(
                actor, ABILITIES[ab], "duplicate", f"{ABILITIES[ab]} is used once per {phase}"
            )
        seen.add(key)
        if grp >= 0:
            other = groups.get((actor, grp))
            if other is not None:
                raise IllegalAction(
                    actor,
                    ABILITIES[ab],
                    "exclusive",
                    f"{ABILITIES[ab]} and {ABILITIES[other]} exclude each other in one {phase}",
                )
            groups[(actor, grp)] = ab
        if tgrp >= 0:
            other = groups.get((0, tgrp))
            if other is not None:
                raise IllegalAction(
                    actor,
                    ABILITIES[ab],
                    "exclusive",
                    f"only one of its holders uses {ABILITIES[ab]} per {phase} at the table"
                    if other == ab
                    else f"only one of {ABILITIES[other]} and {ABILITIES[ab]} is used "
                    f"per {phase} at the table",
                )
            groups[(0, tgrp)] = ab
        if per_game and self.uses.get(key, 0) >= per_game:
            raise IllegalAction(
                actor, ABILITIES[ab], "used-up", f"{ABILITIES[ab]} is used up ({per_game} per game)"
            )

    def _first_rule(self, actor: int, ab: int, first: int, number: int) -> str | None:
        """The last checks of an action, which read its first target alone (0: none):
        "self-limit" when it is the actor and `uses N on self` is spent, "repeat" when `no
        repeat` forbids it, else None. (legal_actions asks it once per first target.)"""
        if not first:
            return None
        key = (actor, ab)
        self_per_game = AB_SELF_PER_GAME[ab]
        if first == actor and self_per_game and self.self_uses.get(key, 0) >= self_per_game:
            return "self-limit"
        norepeat = AB_NOREPEAT[ab]
        if norepeat == "ever":
            if first in self.ever.get(key, ()):
                return "repeat"
        elif norepeat:
            last = self.last_target.get(key)
            if last is not None and last[0] == number - 1 and last[1] == first:
                return "repeat"
        return None

    def _arguments(
        self, actor: int, ab: int, given: Sequence[Any], wakes: bool = False
    ) -> list[Any]:
        """Check an action's target seats (against their filters, unless they are read at the
        ability's wake: `wakes`) and choices; returns the arguments with choices turned into
        role/team numbers."""
        nt, kinds = AB_TARGETS[ab], AB_CHOICES[ab]
        if len(given) != nt + len(kinds):
            raise IllegalAction(
                actor,
                ABILITIES[ab],
                "arity",
                f"{ABILITIES[ab]} takes {nt} target seat(s)"
                + (f" and {len(kinds)} choice(s) ({', '.join(kinds)})" if kinds else "")
                + f", got {len(given)} value(s)",
            )
        args = list(given)
        for k in range(nt):
            t = args[k]
            if type(t) is not int or not 1 <= t <= self.n:
                raise IllegalAction(actor, ABILITIES[ab], "bad-target", f"no seat {_short(t)}")
            if not wakes and not FILTERS[ab][k](self, actor, *args[: k + 1]):
                raise IllegalAction(
                    actor,
                    ABILITIES[ab],
                    "bad-target",
                    f"seat {t} is not a valid target of {ABILITIES[ab]}: {FILTER_TEXT[ab][k]}",
                )
        for k, kind in enumerate(kinds, nt):
            table = ROLES if kind == "role" else TEAMS
            if args[k] not in CHOICE_VALUES[kind]:
                why = "a title, not a role" if args[k] in table else f"not a {kind} id"
                raise IllegalAction(
                    actor, ABILITIES[ab], "bad-choice", f"{_short(args[k])} is {why}"
                )
            args[k] = table.index(args[k])
        return args

    def _at_wake(self, actor: int, ab: int, args: Sequence[int], before: dict[str, Any]) -> None:
        """An action whose target filters and `when` read the night so far, at its wake (as
        it resolves): they hold, or the whole night is refused and the game is restored to
        its start (`before`), as any illegal action refuses it. In a spec with kills at once,
        the actor of an ability of the living must be alive there too (`dead-actor`)."""
        if FEATURE_AT_ONCE:
            if not self.alive[actor] and AB_LIFE[ab] == "alive":  # killed at once tonight
                self._restore(before)
                self._plan = None
                raise IllegalAction(
                    actor,
                    ABILITIES[ab],
                    "dead-actor",
                    f"seat {actor} is dead when {ABILITIES[ab]} wakes (killed at once tonight)",
                )
        bad = None
        for k in range(AB_TARGETS[ab]):
            if not FILTERS[ab][k](self, actor, *args[: k + 1]):
                bad = IllegalAction(
                    actor,
                    ABILITIES[ab],
                    "bad-target",
                    f"seat {args[k]} is not a valid target of {ABILITIES[ab]} when it wakes: "
                    f"{FILTER_TEXT[ab][k]}",
                )
                break
        when = WHEN[ab]
        if bad is None and when is not None and not when(self, actor, *args):
            bad = IllegalAction(
                actor,
                ABILITIES[ab],
                "condition",
                f"{ABILITIES[ab]} cannot be used now (its `when` condition does not hold when "
                "it wakes)",
            )
        if bad is not None:
            self._restore(before)
            self._plan = None
            raise bad

    def _legal_at_wake(
        self, seat: int, a: int, full: str, number: int, expand: bool
    ) -> list[list[Any]]:
        """The actions of an ability whose filters and `when` are read at its wake (they read
        the night so far): those the night accepts with the actions given so far (the night in
        wake order's, none before a wake), each tried on the side (Game._preview)."""
        so_far = list(self._wake["actions"]) if self._wake is not None else []
        combos: list[tuple[Any, ...]] = [()]
        for _ in range(AB_TARGETS[a]):
            combos = [c + (t,) for c in combos for t in range(1, self.n + 1)]
        for k in AB_CHOICES[a]:
            combos = [c + (v,) for c in combos for v in CHOICE_VALUES[k]]
        out: list[list[Any]] = []
        for c in combos:
            action = [seat, full, *c]
            if not self._accepts(action, "night", number):
                continue
            try:
                self._preview(so_far + [action])
            except IllegalAction:
                continue
            except _Await:  # a decision the night asks for: the action itself was accepted
                pass
            out.append(action)
        return out

    def _charge(self, actor: int, ab: int, first: int, number: int) -> None:
        """Count one use of `ab` by `actor` (per game, on self, last and past targets)."""
        key = (actor, ab)
        self.uses[key] = self.uses.get(key, 0) + 1
        if first:
            if first == actor:
                self.self_uses[key] = self.self_uses.get(key, 0) + 1
            self.last_target[key] = (number, first)
            if ab in NOREPEAT_EVER:
                self.ever.setdefault(key, []).append(first)

    def resolve_night(self, actions: Any) -> dict[str, Any]:
        """Validate every action, then resolve them in order; returns the dawn report."""
        if (
            FAST_NIGHT is not None
            and self.phase == "night"
            and not self.over
            and self._wake is None
            and (not CALLS or self._answers is not None)  # (decisions: under _replay only)
        ):  # the spec's compiled night, for its common legal case
            if FEATURE_STATUSES:
                if any(m & STATUS_MASK for m in self.marks):
                    return self._resolve_night(actions)  # a status is carried: generic
            report = FAST_NIGHT(self, actions, self.night)
            if report is not None:
                return report
        return self._resolve_night(actions)

    def _resolve_night(self, actions: Any) -> dict[str, Any]:
        """resolve_night, generic: every night the compiled one does not play (a method of its
        own, so that a compiled night's call does not set up _generic_night's 30 locals)."""
        try:
            return self._generic_night(actions)
        finally:
            self._submitted = None  # (a refused night leaves no actions for `acted()`)

    def _generic_night(self, actions: Any) -> dict[str, Any]:
        if CALLS and self._answers is None:
            return self._decided("resolve_night", (actions,), {})
        if self._wake is not None:
            raise IllegalAction(
                None,
                None,
                "wake-order",
                "this night is played in wake order: wake() or end_night()",
            )
        self._require("night")
        if actions.__class__ is not list and actions.__class__ is not tuple:
            raise IllegalAction(
                None,
                None,
                "malformed",
                f"night actions are a list of [actor, ability, targets...], not {_short(actions)}",
            )
        number = self.night
        timers = _night_timers(self) if NIGHT_TIMERS else {}
        seen: set[tuple[int, int]] = set()
        groups: dict[tuple[int, int], int] = {}
        # `_validate`, inlined for the legal case: the night's hot path
        plan = []
        n, alive, role = self.n, self.alive, self.role
        self._submitted = actions  # what `acted()` reads while they validate
        for raw in actions:
            entry = None
            if (raw.__class__ is list or raw.__class__ is tuple) and len(raw) >= 2:
                actor = raw[0]
                if (
                    actor.__class__ is int
                    and 0 < actor <= n
                    and alive[actor]
                    and raw[1].__class__ is str
                ):
                    ab = OWN.get((role[actor], raw[1]))
                    if FEATURE_STATUSES:
                        if self.marks[actor] & POWERLESS_MASK:
                            ab = None  # the full check names the rule (`powerless`)
                    if (
                        ab is not None
                        and FAST[ab] is not None
                        and AB_GRANTED[ab] < 0
                        and (not AB_HOLDERS[ab] or self.holder(ab) == actor)
                    ):
                        entry = FAST[ab](self, actor, raw, "night", number, seen, groups)
            plan.append(entry or self._validate_full(raw, "night", number, seen, groups))
        self._submitted = None  # (the plan from now on)
        plan.sort()
        # filters read at the wake: one refused there restores the start of the night
        if FEATURE_AT_WAKE:
            before = self._snapshot() if any(e[2] in AT_WAKE for e in plan) else None
        # -- commit: nothing below raises for a valid plan (but a filter read at the wake, see
        # _at_wake). `acted()` reads the whole plan, so every action is charged before the
        # first one resolves.
        uses, self_uses, last = self.uses, self.self_uses, self.last_target
        role = self.role
        self.prot = {}
        self.guards = {}
        if FEATURE_LEVELS:
            self.level = {}
        stolen: dict[int, tuple[int, int]] = {}
        self.stolen = stolen
        if FEATURE_VISITS:
            self.vis_in, self.vis_out = {}, {}
        for _, actor, ab, _, first in plan:  # `_charge`, inlined: the night's hot path
            key = (actor, ab)
            uses[key] = uses.get(key, 0) + 1
            if first:
                if first == actor:
                    self_uses[key] = self_uses.get(key, 0) + 1
                last[key] = (number, first)
                if ab in NOREPEAT_EVER:
                    self.ever.setdefault(key, []).append(first)
        marks = self.marks
        run, inverted, steals = RUN, INVERTED, STEALS
        self._plan = plan
        if FEATURE_DELAYS:
            if self.delayed:  # delayed effects due tonight run before the actions
                self._run_delayed(number)
        if FEATURE_HOOK_NIGHT_START:
            if HOOKS_NIGHT_START:
                self._hooks(HOOKS_NIGHT_START)
        if FEATURE_BLOCKS:
            blocked = self.blocked
        i = 0
        while i < len(plan):
            _, actor, ab, args, _ = plan[i]
            i += 1
            fn = run[ab]
            if FEATURE_STATUSES:
                if POWERLESS_MASK & marks[actor] and self._role_power(actor, ab):
                    continue  # powerless since it was given: it does not resolve
            if FEATURE_AT_WAKE:
                if before is not None and ab in AT_WAKE:
                    self._at_wake(actor, ab, args, before)
            if FEATURE_BLOCKS:
                if actor in blocked and not AB_UNBLOCKABLE[ab]:
                    continue  # blocked: the action neither resolves nor visits
            if steals:
                self._pos = i
                taken = stolen.get(actor)
                if taken is not None and ab == STEALABLE[role[actor]]:
                    # the taker uses the ability instead, on his second target
                    actor, args = taken[0], (taken[1],) * AB_TARGETS[ab]
                    fn = STOLEN[ab] or fn
            if FEATURE_VISITS:
                if AB_VISITS[ab]:
                    self._visit(actor, ab, args)
            if inverted[ab] is not None and INVERTING_MASK & marks[actor]:
                fn = inverted[ab]
            if FEATURE_STATUSES:
                if MALFUNCTION_MASK & marks[actor] and self._role_power(actor, ab):
                    fn = inverted[ab] or _nothing  # malfunctions: the inverted block, or nothing
            fn(self, actor, ab, *args)
        if FEATURE_HOOK_NIGHT_END:
            if HOOKS_NIGHT_END:
                self._hooks(HOOKS_NIGHT_END)
        self._plan = None
        if self.pending:
            self._settle()
        if FEATURE_HOOK_DAWN:
            if HOOKS_DAWN:
                self._hooks(HOOKS_DAWN)
                self._settle()
        if FEATURE_BLOCKS:
            self.blocked = {}
            self._blockings = set()
        if DAWN_MASK:
            s = -1
            for m in marks:  # (a counter: cheaper than enumerate on mostly 0s)
                s += 1
                if m:
                    marks[s] = m & ~DAWN_MASK
        if SILENCING_MASK:
            self._silenced = {
                s for s in range(1, self.n + 1) if self.alive[s] and SILENCING_MASK & marks[s]
            }
        self.prot = {}
        self.guards = {}
        if FEATURE_LEVELS:
            self.level = {}
        if CALM is not None and not self._deaths:
            self.announce(CALM)
        # -- dawn: the day begins
        self.phase = "day"
        self.day += 1
        self.chaos = _chaos(self)
        if "dawn" in CHECK_WINS_AT or "death" in CHECK_WINS_AT and self._deaths:
            self._check_wins()
        return self._report("night", number, timers=timers)

    def _settle_trial(self) -> bool:
        """Drop the scheduled trial if its cancel condition holds; True if it was dropped."""
        t = self.trial
        if t is None:
            return False
        actor, ab, a, b, refund, reveal, tie = t
        cancel = TRIAL_CANCEL.get(ab)
        if cancel is not None and cancel(self, actor, a, b):
            self.trial = None
            if refund:
                self.uses[(actor, ab)] -= 1
            return True
        return False

    # ------------------------------------------------------------ the day
    def _snapshot(self) -> dict[str, Any]:
        # the bookkeeping of _LAZY is read from its slots once folded: a copy changes nothing,
        # so the compiled night's counters stay valid (a property read would drop them)
        if self._journal:
            self._fold()
        # each piece copied as deep as a step changes it in place (the day snapshots twice when
        # a step is rejected: generic _copy cost a quarter of a whole game); tests check the
        # keys are _STATE's
        return {
            "n": self.n,
            "role": self.role[:],
            "team": self.team[:],
            "alive": self.alive[:],
            "nalive": self.nalive,
            "nteam": self.nteam[:],
            "phase": self.phase,
            "day": self.day,
            "night": self.night,
            "chaos": self.chaos,
            "winner": self.winner,
            "uses": self._uses.copy(),  # values: ints
            "self_uses": self._self_uses.copy(),
            "last_target": self._last_target.copy(),  # values: tuples
            "marks": self.marks[:],  # of ints
            "memory": self.memory[:],  # of ints
            "trial": self.trial,  # a tuple
            "inquiries": self.inquiries,
            "departed": self.departed[:],  # of tuples
            "seed": self.seed,
            "draws": self.draws,
            "repeat": self.repeat,
            "initial": self.initial,  # a tuple
            "absorbed": self.absorbed.copy(),
            "ever": {k: v[:] for k, v in self._ever.items()},  # lists grow in place
            "later": self.later[:],  # its [seat, mark] pairs are never changed, only replaced
            "cards_on": self.cards_on,
            "skip": self.skip,
            "skips": self.skips,
            "weight": self.weight.copy(),
            "blocked": self.blocked.copy(),
            "delayed": self.delayed[:],  # its entries are never changed, only dropped
            "over": self.over,
            "winners": self.winners[:],
            "votes": self.votes.copy(),  # of tuples
            "death_cause": self.death_cause.copy(),
            "start_report": _copy(self.start_report),
            "start_pending": self.start_pending,
            "vis_in": {k: v[:] for k, v in self.vis_in.items()},  # lists grow in place
            "vis_out": {k: v[:] for k, v in self.vis_out.items()},
            "middle": self.middle[:],
            "ghosts": self.ghosts.copy(),  # values: ints
        }

    def _restore(self, snap: dict[str, Any]) -> None:
        for k, v in snap.items():
            setattr(self, k, v)
        if FEATURE_BLOCKS:
            self._blockings = set(self.blocked.items())
        self.pending = []
        self._deferred = _NO_LIST
        self.prot = {}
        self.guards = _NO_DICT
        if FEATURE_LEVELS:
            self.level = _NO_DICT
        # (vote weights are part of the snapshot: a rejected day keeps them)
        self.defenders = _NO_SET
        self.vote_cancelled = False
        self._reset_reports()

    def resolve_day(
        self,
        eliminate: Any = None,
        votes: Any = None,
        defense: Any = None,
        trial: Any = None,
        inquiry: Any = None,
        actions: Any = None,
        breach: Any = None,
        card: Any = None,
        runoff: Any = None,
        election: Any = None,
        nominations: Any = None,
        innocent: Any = None,
    ) -> dict[str, Any]:
        """Play the day; returns its report. Raises IllegalAction and changes nothing on error."""
        if (
            FAST_DAY is not None
            and self.phase == "day"
            and not self.over
            and votes is None
            and defense is None
            and trial is None
            and inquiry is None
            and breach is None
            and card is None
            and runoff is None
            and election is None
            and nominations is None
            and innocent is None
            and (not CALLS or self._answers is not None)  # (decisions: under _replay only)
        ):  # the spec's compiled day, for its common legal case: no snapshot needed
            report = FAST_DAY(self, eliminate, actions)
            if report is not None:
                return report
        if CALLS and self._answers is None:
            return self._decided(
                "resolve_day",
                (),
                dict(
                    eliminate=eliminate,
                    votes=votes,
                    defense=defense,
                    trial=trial,
                    inquiry=inquiry,
                    actions=actions,
                    breach=breach,
                    card=card,
                    runoff=runoff,
                    election=election,
                    nominations=nominations,
                    innocent=innocent,
                ),
            )
        self._require("day")
        snap = self._snapshot()
        try:
            self._runoff = runoff
            self._innocent = innocent
            return self._day(
                eliminate,
                votes,
                defense,
                trial,
                inquiry,
                actions or [],
                breach,
                card,
                election,
                nominations,
            )
        except IllegalAction:
            self._restore(snap)
            raise
        except (TypeError, ValueError, KeyError, IndexError) as e:
            self._restore(snap)
            raise IllegalAction(None, None, "malformed", f"malformed day input: {e}") from None

    def _seat(self, s: Any, what: str) -> int:
        if not isinstance(s, int) or isinstance(s, bool) or not 1 <= s <= self.n:
            raise IllegalAction(None, None, "bad-seat", f"{what}: no seat {_short(s)}")
        return s

    def _living_seat(self, s: Any, what: str) -> int:
        self._seat(s, what)
        if not self.alive[s]:
            raise IllegalAction(s, None, "dead-player", f"{what}: seat {s} is dead")
        return s

    def _day(
        self,
        eliminate: Any,
        votes: Any,
        defense: Any,
        trial: Any,
        inquiry: Any,
        actions: Any,
        breach: Any,
        card: Any,
        election: Any = None,
        nominations: Any = None,
    ) -> dict[str, Any]:
        number = self.day
        quiet = number in QUIET_DAYS
        if not self.repeat:  # the moderator may have changed the table since dawn
            self.chaos = _chaos(self)
        chaos = self.chaos
        held = ELECTION is not None and _election_held(self)
        dropped = self._settle_trial()
        rules = CHAOS if chaos else VOTE
        speaker = self._speaker(number)
        timers = _day_timers(self)
        if rules is not None:
            timers.update((_chaos_timers if chaos else _vote_timers)(self))
        self.repeat = False
        if chaos:
            self.announce("chaos")
        if FEATURE_HOOK_DAY_START:
            if HOOKS_DAY_START:
                self._hooks(HOOKS_DAY_START)
        if quiet and (eliminate is not None or votes or defense or trial or inquiry or nominations):
            raise IllegalAction(None, None, "quiet-day", f"there is no vote on day {number}")
        # -- players who broke a speaking restriction (an `expels` mark) leave
        for seat in breach or ():
            self._living_seat(seat, "breach")
            if not EXPELLING_MASK & self.marks[seat]:
                raise IllegalAction(
                    seat, None, "no-restriction", f"seat {seat} is under no speaking restriction"
                )
            self._die(seat, C_MODERATOR)
        self._settle()
        # -- the trial a night ability scheduled
        if self.trial is not None:
            self._run_trial(trial)
        elif trial:
            if dropped:
                raise IllegalAction(
                    None,
                    None,
                    "chaos" if chaos else "no-trial",
                    "no trial today: the scheduled one is called off"
                    + (" (a chaos day)" if chaos else ""),
                )
            raise IllegalAction(None, None, "no-trial", "no trial is scheduled for today")
        # -- the election of a title
        if election is not None:
            if not held:
                raise IllegalAction(
                    None,
                    None,
                    "no-election",
                    "no election today" if ELECTION else f"{SPEC} has no election",
                )
            self._elect(election)
        # -- day abilities in the order given; abilities `at vote` wait for the defenders
        seen: set[tuple[int, int]] = set()
        groups: dict[tuple[int, int], int] = {}
        at_vote = []
        for raw in actions:
            if (
                isinstance(raw, (list, tuple))
                and len(raw) >= 2
                and type(raw[0]) is int
                and 1 <= raw[0] <= self.n
                and type(raw[1]) is str
                and self.alive[raw[0]]
            ):
                if AB_PHASE[self.find_ability(raw[0], raw[1])] == "vote":
                    at_vote.append(raw)
                    continue
            self._act(self._validate(raw, "day", number, seen, groups))
        self._settle()
        # -- status inquiry
        if inquiry is not None:
            self._inquiry(number, inquiry)
        # -- the vote
        if eliminate is not None and (votes or defense):
            raise IllegalAction(None, None, "malformed", "give `eliminate` or `votes`, not both")
        if at_vote and eliminate is not None:
            raise IllegalAction(
                at_vote[0][0],
                at_vote[0][1],
                "no-vote",
                "an ability used during the vote needs a vote, not `eliminate`",
            )
        if (eliminate is not None or votes or at_vote or nominations) and rules is None:
            raise IllegalAction(None, None, "no-vote", f"{SPEC} has no day vote")
        by_nomination = rules is not None and rules.get("nominations", False)
        if nominations is not None:
            if not by_nomination:
                raise IllegalAction(
                    None,
                    None,
                    "no-nominations",
                    "a chaos day has a plain vote, not nominations"
                    if chaos
                    else f"{SPEC}'s day vote takes `votes`, not nominations",
                )
            if eliminate is not None or votes or defense:
                raise IllegalAction(
                    None, None, "malformed", "give `nominations` or `eliminate`, not both"
                )
        elif by_nomination and (votes or defense):
            raise IllegalAction(
                None,
                None,
                "bad-vote",
                "the day vote is by nominations: give `nominations` "
                "([{by: SEAT, nominee: SEAT, voters: [SEAT...]}...]), not `votes`",
            )
        out = None
        if VOTES_READ:
            self.votes = set()  # `voted` reads the most recent day vote: today's from now on
        if eliminate is not None:
            out = self._living_seat(eliminate, "eliminate")
        elif nominations is not None or (by_nomination and at_vote):
            out = self._nominate(nominations or [], at_vote, number, seen, groups)
        elif votes is not None or at_vote:
            out = self._vote(votes or {}, defense, chaos, at_vote, number, seen, groups)
        elif defense:
            raise IllegalAction(None, None, "malformed", "a second round needs a first (`votes`)")
        if out:
            self._die(out, C_VOTE)
            self._settle()
        if self._deferred:
            self.defenders = _NO_SET
            for raw in self._deferred:
                if not self.alive[raw[0]]:
                    raise IllegalAction(
                        raw[0],
                        raw[1],
                        "dead-actor",
                        f"seat {raw[0]} left the game in the vote before acting",
                    )
                self._act(self._validate(raw, "vote", number, seen, groups))
            self._deferred = _NO_LIST
            self._settle()
        if self._runoff:
            raise IllegalAction(None, None, "bad-vote", "no tie today calls for a runoff")
        if self._innocent:
            raise IllegalAction(
                None,
                None,
                "bad-vote",
                "innocent votes belong to a judgement: "
                + (
                    "the deciding round was not counted today"
                    if rules is not None and rules.get("judgement")
                    else f"{SPEC}'s day vote has none (abstain by naming nobody)"
                ),
            )
        voted_out = out or next((s for s, c in self._exits if c == C_VOTE), 0)
        self.defenders = _NO_SET
        self.vote_cancelled = False
        self.weight = _NO_DICT  # vote weights last for the day
        self.prot = {}  # so do protections and guards taken by day
        self.guards = {}
        if FEATURE_LEVELS:
            self.level = {}
        # -- the last-move card of the player voted out
        if card is not None:
            self._play_card(voted_out, card)
        if FEATURE_HOOK_DAY_END:
            if HOOKS_DAY_END:  # dusk
                self._hooks(HOOKS_DAY_END)
                self._settle()
        # -- dusk
        if DUSK_MARKS or self.later:
            marks = self.marks
            for seat, mark in self.later:
                marks[seat] &= ~(1 << mark)
            for s, m in enumerate(marks):
                if m & DUSK_MASK:
                    marks[s] = m & ~DUSK_MASK
        self.later = (
            [
                [s, m]
                for s in range(1, self.n + 1)
                if self.marks[s] & TOMORROW_MASK
                for m in _bits(self.marks[s] & TOMORROW_MASK)
            ]
            if TOMORROW_MARKS
            else _NO_LIST
        )
        skipped = False
        if self.skip and not self.repeat:
            self.skip = False
            skipped = True  # the night is not played: straight to the next day
            self.night += 1
            self.day += 1
            self.chaos = _chaos(self)
        elif not self.repeat:
            self.phase = "night"
            self.night += 1
            self.chaos = False  # a chaos day ends with the day
        if (
            "vote" in CHECK_WINS_AT
            or "dusk" in CHECK_WINS_AT
            or ("death" in CHECK_WINS_AT and self._deaths)
        ):
            self._check_wins()
        return self._report(
            "day",
            number,
            chaos=chaos,
            speaker=speaker,
            repeat=self.repeat,
            skipped_night=skipped,
            timers=timers,
        )

    def _act(self, plan_entry: tuple[Any, ...]) -> None:
        """Charge and run one validated day action."""
        _, actor, ab, args, first = plan_entry
        self._charge(actor, ab, first, self.day)
        inv = INVERTED[ab]
        if FEATURE_STATUSES:
            if MALFUNCTION_MASK & self.marks[actor] and self._role_power(actor, ab):
                (inv or _nothing)(self, actor, ab, *args)  # malfunctions
                return
        if inv is not None and INVERTING_MASK & self.marks[actor]:
            inv(self, actor, ab, *args)
        else:
            RUN[ab](self, actor, ab, *args)

    def _play_card(self, seat: int, raw: Any) -> None:
        if not CARDS:
            raise IllegalAction(None, None, "no-cards", f"{SPEC} has no last-move cards")
        if not self.cards_on:
            raise IllegalAction(None, None, "no-cards", "this game is played without cards")
        if not seat:
            raise IllegalAction(
                None, None, "no-card", "a card is drawn only by a player voted out today"
            )
        raw = [raw] if isinstance(raw, str) else list(raw)
        name = raw[0] if raw else None
        ab = next((a for a in CARDS if name in (AB_NAME[a], ABILITIES[a])), None)
        if ab is None:
            raise IllegalAction(seat, name, "unknown-card", f"no card {_short(name)}")
        args = self._arguments(seat, ab, raw[1:])
        self.announce(f"card {AB_NAME[ab]}")
        RUN[ab](self, seat, ab, *args)
        self._settle()

    def _speaker(self, number: int) -> int | None:
        if SPEAKING is None:
            return None
        first, shift, from_day = SPEAKING
        seat = first + (shift * (number - from_day + 1) if number >= from_day else 0)
        seat = (seat - 1) % self.n + 1
        for _ in range(self.n):
            if self.alive[seat]:
                return seat
            seat = seat % self.n + 1
        return None

    def _run_trial(self, given: Any) -> None:
        actor, ab, a, b, refund, reveal, tie = self.trial
        self.trial = None  # (whether it runs on a chaos day is the spec's `cancel when`)
        self.announce(f"trial {a} {b}")
        if not given:
            return
        if not isinstance(given, dict):
            raise IllegalAction(None, ABILITIES[ab], "malformed", "trial: expected a mapping")
        forms = [k for k in ("cancel", "votes", "eliminate") if given.get(k) not in (None, False)]
        if len(forms) > 1 or set(given) - {"cancel", "votes", "eliminate", "innocent"}:
            raise IllegalAction(
                None,
                ABILITIES[ab],
                "malformed",
                "trial: give one of `cancel: true`, `votes` (and `innocent`) or `eliminate`",
            )
        judged = ab in TRIAL_JUDGEMENT
        if given.get("innocent") and (not judged or "votes" not in given):
            raise IllegalAction(
                None,
                ABILITIES[ab],
                "bad-vote",
                "trial: innocent votes come with the trial's `votes`"
                if judged
                else "trial: this trial has no innocent votes (abstain by naming nobody)",
            )
        if given.get("cancel"):
            if not self.alive[actor]:
                raise IllegalAction(
                    actor,
                    ABILITIES[ab],
                    "dead-actor",
                    f"seat {actor} is dead and cannot cancel the trial",
                )
            self.announce("trial cancelled")
            return
        loser = given.get("eliminate")
        if loser is None and "votes" in given:
            counts = {a: 0, b: 0}
            voted = set()
            for seat, voters in dict(given["votes"]).items():
                if seat not in counts:
                    raise IllegalAction(
                        seat,
                        ABILITIES[ab],
                        "bad-vote",
                        f"the trial is between seats {a} and {b}, not {seat}",
                    )
                for v in voters:
                    self._living_seat(v, "trial vote")
                    if v in (a, b):
                        raise IllegalAction(
                            v, ABILITIES[ab], "bad-vote", f"seat {v} is on trial and does not vote"
                        )
                    if VOTELESS_MASK & self.marks[v]:
                        raise IllegalAction(
                            v, ABILITIES[ab], "bad-vote", f"trial vote: seat {v} has no vote"
                        )
                    if v in voted:
                        raise IllegalAction(v, ABILITIES[ab], "bad-vote", f"seat {v} voted twice")
                    voted.add(v)
                    counts[seat] += (
                        self._vote_weight(v) if WEIGHING_MARKS else self.weight.get(v, 1)
                    )
                if FOLLOWERS:
                    self._follow(set(voters), f"seat {seat}", "trial vote")
            # a judgement: guilty (a vote for a seat), innocent or abstain (named nowhere);
            # nobody leaves unless the top seat has more votes than the innocent ones
            innocent = (
                self._judgement(given.get("innocent"), voted, (a, b), 0, "trial vote")
                if judged
                else 0
            )
            if judged and max(counts[a], counts[b]) <= innocent:
                loser = None
            elif counts[a] == counts[b]:
                loser = self._tie([a, b], tie) if tie != "none" else None
            else:
                loser = a if counts[a] > counts[b] else b
        elif loser is not None and loser not in (a, b):
            raise IllegalAction(
                loser, ABILITIES[ab], "bad-vote", f"the trial is between seats {a} and {b}"
            )
        if loser:
            self._living_seat(loser, "trial")
            if reveal:
                t = self.team[loser]
                self.announce(f"side {loser} {TEAMS[t] if t >= 0 else ROLES[self.role[loser]]}")
            self._die(loser, C_VOTE)
            self._settle()

    def _inquiry(self, number: int, voters: Any) -> None:
        if not INQUIRY_MAX:
            raise IllegalAction(None, None, "no-inquiry", f"{SPEC} has no status inquiry")
        if not _inquiry_allowed(self):
            raise IllegalAction(None, None, "no-inquiry", "no status inquiry by vote in this game")
        if number < INQUIRY_FROM_DAY:
            raise IllegalAction(
                None, None, "too-early", f"status inquiries start on day {INQUIRY_FROM_DAY}"
            )
        if self.inquiries >= INQUIRY_MAX:
            raise IllegalAction(
                None, None, "used-up", f"the {INQUIRY_MAX} status inquiries are used up"
            )
        seen = set()
        for v in voters:
            self._living_seat(v, "inquiry vote")
            if v in seen:
                raise IllegalAction(v, None, "bad-vote", f"seat {v} voted twice")
            if VOTELESS_MASK & self.marks[v]:
                raise IllegalAction(v, None, "bad-vote", f"inquiry vote: seat {v} has no vote")
            seen.add(v)
        if len(seen) >= _inquiry_threshold(self):
            self.inquiries += 1
            counts = [0] * len(TEAMS)
            for _, t in self.departed:
                if t >= 0:
                    counts[t] += 1
            self.announce(
                "status " + " ".join(f"{TEAMS[i]} {counts[i]}" for i in range(len(TEAMS)))
            )

    def _tally(
        self,
        ballots: Any,
        candidates: set[int] | None,
        single: bool,
        what: str,
        excluded: tuple[int, ...] = (),
        ghost: int = 0,
        voted: set[int] | None = None,
    ) -> dict[int, int]:
        """Each accused's votes, every hand checked (`_hand`). `ghost`: the votes each dead
        player keeps (0: the dead do not vote); `voted`: a single ballot's voters so far (the
        ballots of a day of nominations share one)."""
        counts = {}
        if voted is None:
            voted = set()
        for seat, voters in dict(ballots).items():
            self._living_seat(seat, what)
            if candidates is not None and seat not in candidates:
                raise IllegalAction(
                    seat, None, "bad-vote", f"{what}: seat {seat} is not a candidate"
                )
            n = 0
            hands: set[int] = set()
            for v in voters:
                if ghost:  # the dead may vote: each hand through _hand
                    n += self._hand(v, what, f"seat {seat}", hands, excluded, ghost)
                else:  # (_hand's checks for the living, inlined: a vote's hot loop)
                    self._living_seat(v, what)
                    if v in hands:
                        raise IllegalAction(
                            v,
                            None,
                            "bad-vote",
                            f"{what}: seat {v} raised a hand for seat {seat} twice",
                        )
                    hands.add(v)
                    if VOTELESS_MASK & self.marks[v]:
                        raise IllegalAction(v, None, "bad-vote", f"{what}: seat {v} has no vote")
                    if v in excluded:
                        raise IllegalAction(v, None, "bad-vote", f"{what}: seat {v} does not vote")
                    n += self._vote_weight(v) if WEIGHING_MARKS else self.weight.get(v, 1)
                if single:
                    if v in voted:
                        raise IllegalAction(v, None, "bad-vote", f"{what}: seat {v} voted twice")
                    voted.add(v)
            if FOLLOWERS:
                self._follow(hands, f"seat {seat}", what)
            counts[seat] = n
            if VOTES_READ:
                self.votes.update((v, seat) for v in voters)
        return counts

    def _hand(
        self, v: Any, what: str, label: str, hands: set[int], excluded: Any, ghost: int
    ) -> int:
        """One raised hand, checked; its weight. A dead voter spends one of his `ghost` votes
        (a hand of the dead weighs 1)."""
        if ghost:
            self._seat(v, what)
        else:
            self._living_seat(v, what)
        if v in hands:
            raise IllegalAction(
                v, None, "bad-vote", f"{what}: seat {v} raised a hand for {label} twice"
            )
        hands.add(v)
        if VOTELESS_MASK & self.marks[v]:
            raise IllegalAction(v, None, "bad-vote", f"{what}: seat {v} has no vote")
        if v in excluded:
            raise IllegalAction(v, None, "bad-vote", f"{what}: seat {v} does not vote")
        if not self.alive[v]:  # (only with ghost votes: _seat above)
            spent = self.ghosts.get(v, 0)
            if spent >= ghost:
                raise IllegalAction(
                    v, None, "bad-vote", f"{what}: seat {v} is dead and has no ghost vote left"
                )
            if self.ghosts is _NO_DICT:
                self.ghosts = {}
            self.ghosts[v] = spent + 1
            return 1
        return self._vote_weight(v) if WEIGHING_MARKS else self.weight.get(v, 1)

    def _follow(self, hands: set[int], label: str, what: str) -> None:
        """`votes only with`: each voter of the role raised his hand only beside the seat he
        follows (`hands`: the seats raising a hand for the same accused)."""
        for v in hands:
            rule = VOTES_WITH[self.role[v]]
            if rule is not None and not rule[0](self, v, hands):
                raise IllegalAction(
                    v,
                    None,
                    "votes-with",
                    f"{what}: seat {v} ({ROLES[self.role[v]]}) votes only with {rule[1]}, "
                    f"who raised no hand for {label}",
                )

    def _judgement(self, given: Any, cast: set[int], excluded: Any, ghost: int, what: str) -> int:
        """The innocent votes `given` in a judgement, weighed; `cast`: the seats that voted
        guilty in that round (they cannot also vote innocent)."""
        if not given:
            return 0
        hands: set[int] = set()
        w = 0
        for v in given:
            if v in cast:
                raise IllegalAction(
                    v, None, "bad-vote", f"{what}: seat {v} voted both guilty and innocent"
                )
            w += self._hand(v, what, "innocent", hands, excluded, ghost)
        if FOLLOWERS:
            self._follow(hands, "innocent", what)
        return w

    def _spend_innocent(self) -> Any:
        """Today's innocent votes (the day input `innocent`), taken by the judgement."""
        given, self._innocent = self._innocent, None
        return given

    def _nominate(
        self,
        nominations: Any,
        at_vote: list[Any],
        number: int,
        seen: set[Any],
        groups: dict[Any, int],
    ) -> int | None:
        """A day of nominations: each in the order given, by a living player who has not
        nominated today, of a living player not nominated today; the nominee's `on nominated`
        reactions run (their kills settle), then the nomination's voters are counted (the dead
        with a ghost vote). The top nominee leaves if he has at least the threshold and more
        votes than any other; a tie for the most goes to the tie rule. An execution by a
        reaction (a kill by cause `vote`) ends the nominations."""
        rules = VOTE
        if not isinstance(nominations, (list, tuple)):
            raise IllegalAction(
                None,
                None,
                "malformed",
                "nominations: expected a list of {by: SEAT, nominee: SEAT, voters: [SEAT...]}",
            )
        ghost = rules.get("ghost", 0)
        single = rules["ballot"] == "single"
        exempt = rules["exempt"]
        cast: set[int] = set()
        nominators: set[int] = set()
        counts: dict[int, int] = {}
        for nom in nominations:
            if not isinstance(nom, dict) or set(nom) - {"by", "nominee", "voters"}:
                raise IllegalAction(
                    None,
                    None,
                    "malformed",
                    f"nomination {_short(nom)}: expected {{by: SEAT, nominee: SEAT, voters: "
                    "[SEAT...]}",
                )
            executed = next((s for s, c in self._exits if c == C_VOTE), 0)
            if executed:
                raise IllegalAction(
                    None,
                    None,
                    "bad-nomination",
                    f"seat {executed} was executed: the day's nominations are over",
                )
            by = self._living_seat(nom.get("by"), "nomination: the nominator")
            nominee = self._living_seat(nom.get("nominee"), "nomination: the nominee")
            if by in nominators:
                raise IllegalAction(
                    by, None, "bad-nomination", f"seat {by} has already nominated today"
                )
            if nominee in counts:
                raise IllegalAction(
                    nominee,
                    None,
                    "bad-nomination",
                    f"seat {nominee} has already been nominated today",
                )
            if exempt >= 0 and self.marks[nominee] >> exempt & 1:
                raise IllegalAction(
                    nominee, None, "exempt", f"seat {nominee} cannot be nominated today"
                )
            nominators.add(by)
            counts[nominee] = 0
            self.announce(f"nomination {by} {nominee}")
            react = NOMINATED_ROLE[self.role[nominee]]
            if react is not None:
                react(self, nominee, by)
                self._settle()
            voters = nom.get("voters") or []
            if not self.alive[nominee] or any(c == C_VOTE for _, c in self._exits):
                if voters:
                    raise IllegalAction(
                        nominee,
                        None,
                        "bad-nomination",
                        f"the nomination of seat {nominee} ended before its vote"
                        + (" (he left the game)" if not self.alive[nominee] else ""),
                    )
                del counts[nominee]
                continue
            counts.update(
                self._tally(
                    {nominee: voters},
                    None,
                    single,
                    "nomination vote",
                    ghost=ghost,
                    voted=cast,
                )
            )
        if any(c == C_VOTE for _, c in self._exits):
            return None  # a reaction executed someone: the day's execution
        need = _vote_threshold(self)
        self.defenders = {s for s, c in counts.items() if c >= need}
        for raw in at_vote:
            self._act(self._validate(raw, "vote", number, seen, groups))
        if at_vote:
            self._settle()
            if self.vote_cancelled or any(c == C_VOTE for _, c in self._exits):
                return None
        counts = {s: c for s, c in counts.items() if self.alive[s]}
        best = max(counts.values(), default=0)
        if best < need or best == 0:
            return None
        top = sorted(s for s, c in counts.items() if c == best)
        return top[0] if len(top) == 1 else self._tie(top, rules["tie"])

    def _vote(
        self,
        votes: Any,
        defense: Any,
        chaos: bool,
        at_vote: list[Any],
        number: int,
        seen: set[Any],
        groups: dict[Any, int],
    ) -> int | None:
        rules = CHAOS if chaos else VOTE
        exempt, forced = rules["exempt"], rules["forced"]
        for seat in votes:
            if exempt >= 0 and 1 <= seat <= self.n and self.marks[seat] >> exempt & 1:
                raise IllegalAction(seat, None, "exempt", f"seat {seat} cannot be accused today")
        if chaos:
            if defense or at_vote:
                raise IllegalAction(
                    None, None, "bad-vote", "a chaos day has a single round of votes"
                )
            counts = self._tally(votes, None, rules["ballot"] == "single", "chaos vote")
            need = _chaos_threshold(self)
            top = [s for s, c in counts.items() if c >= need]
            if len(top) == 1:
                return top[0]
            if len(top) > 1:
                best = max(counts[s] for s in top)
                top = [s for s in top if counts[s] == best]
                return top[0] if len(top) == 1 else self._tie(sorted(top), rules["tie"])
            # nobody reached the threshold: the votes are split, a tie among all named
            return self._tie(sorted(counts), rules["tie"])
        counts = self._tally(
            votes, None, rules["ballot"] == "single", "vote", ghost=rules.get("ghost", 0)
        )
        need = _vote_threshold(self)
        if rules["rounds"] == 1:
            return self._single_round(votes, counts, need, defense, at_vote, number, seen, groups)
        reached = {s for s, c in counts.items() if c >= need}
        if forced >= 0:
            reached.update(
                s for s in range(1, self.n + 1) if self.alive[s] and self.marks[s] >> forced & 1
            )
        defenders = sorted(reached)
        self.defenders = set(defenders)
        # abilities used during the vote (a veto, a blast) see the defenders;
        # a defender uses his only once the defense is decided, if he survives it
        self._deferred = [raw for raw in at_vote if raw[0] in self.defenders]
        at_vote = [raw for raw in at_vote if raw[0] not in self.defenders]
        for raw in at_vote:
            self._act(self._validate(raw, "vote", number, seen, groups))
        if at_vote:
            self._settle()
            if self.vote_cancelled or any(c == C_VOTE for _, c in self._exits):
                if defense:
                    raise IllegalAction(
                        None,
                        None,
                        "bad-vote",
                        "the vote was decided by an ability: no second round",
                    )
                return None
        if not defenders:
            if defense:
                raise IllegalAction(None, None, "bad-vote", "nobody reached the defense")
            return None
        if not defense:
            return None
        defenders = [s for s in defenders if self.alive[s]]
        excluded = () if _vote_defenders_vote(self, len(defenders)) else tuple(defenders)
        ghost = rules.get("ghost", 0)
        guilty: set[int] = set()
        second = self._tally(
            defense, set(defenders), True, "defense vote", excluded, ghost=ghost, voted=guilty
        )
        need2 = _vote_defense_threshold(self, len(defenders))
        # a judgement: the top defender leaves only with more votes than the innocent ones
        judged = rules.get("judgement", False)
        innocent = (
            self._judgement(self._spend_innocent(), guilty, excluded, ghost, "defense vote")
            if judged
            else 0
        )
        if not second:
            return None
        best = max(second.values())
        top = sorted(s for s, c in second.items() if c == best)
        if best < need2 or judged and best <= innocent:
            return None
        if len(top) == 1:
            return top[0]
        return self._tie(top, rules["tie"])

    def _single_round(
        self,
        votes: Any,
        counts: dict[int, int],
        need: int,
        defense: Any,
        at_vote: list[Any],
        number: int,
        seen: set[Any],
        groups: dict[Any, int],
    ) -> int | None:
        """A vote the first round decides: the unique top seat with enough votes leaves.

        With skip tokens, the players who named nobody vote `skip`; enough of them end the day
        without an elimination and spend a token (only while tokens remain).
        """
        rules = VOTE
        if defense:
            raise IllegalAction(None, None, "bad-vote", "this vote has a single round")
        innocent = 0
        if rules.get("judgement"):  # the top seat leaves only with more votes than innocent
            cast = {v for voters in votes.values() for v in voters}
            innocent = self._judgement(
                self._spend_innocent(), cast, (), rules.get("ghost", 0), "vote"
            )
        self.defenders = {s for s, c in counts.items() if c >= need}
        for raw in at_vote:
            self._act(self._validate(raw, "vote", number, seen, groups))
        if at_vote:
            self._settle()
            if self.vote_cancelled or any(c == C_VOTE for _, c in self._exits):
                return None
        if rules["skips"]:
            cast = {v for voters in votes.values() for v in voters}
            if self.skips > 0 and self.nalive - len(cast) >= need:
                self.skips -= 1
                self.announce("skip")
                return None
        if not counts:
            return None
        best = max(counts.values())
        top = sorted(s for s, c in counts.items() if c == best)
        if best < need or best == 0 or rules.get("judgement") and best <= innocent:
            return None
        return top[0] if len(top) == 1 else self._tie(top, rules["tie"])

    def _elect(self, ballots: Any) -> None:
        """One vote per player among any living seats; the unique top seat with at least the
        threshold carries the title from now on (a tie goes to the election's tie rule)."""
        if not isinstance(ballots, dict):
            raise IllegalAction(None, None, "malformed", "election: expected {seat: [voter...]}")
        counts = self._tally(ballots, None, True, "election")
        best = max(counts.values(), default=0)
        if not best or best < _election_threshold(self):
            return
        top = sorted(s for s, c in counts.items() if c == best)
        seat = top[0] if len(top) == 1 else self._tie(top, ELECTION["tie"])
        if seat:
            self.mark(seat, ELECTION["title"])
            self.announce(f"elected {seat}")

    def _tie(self, seats: list[int], rule: str) -> int | None:
        if rule.startswith("role:"):  # the living seat of that role leaves (lowest seat first)
            r = ROLES.index(rule[5:])
            return next(
                (s for s in range(1, self.n + 1) if self.alive[s] and self.role[s] == r), None
            )
        if rule == "runoff":
            ballots = self._runoff
            self._runoff = None
            if not ballots:
                return None
            self.announce("runoff " + " ".join(map(str, seats)))
            counts = self._tally(ballots, set(seats), True, "runoff", ghost=GHOSTS)
            best = max(counts.values(), default=0)
            top = [s for s, c in counts.items() if c == best]
            return top[0] if best and len(top) == 1 else None
        if rule == "lottery" and seats:
            self.draws += 1
            seat = random.Random(self.seed * 1000003 + self.draws).choice(seats)
            self.announce(f"lottery {seat}")
            return seat
        if rule == "repeat":
            self.repeat = True
        return None

    # ------------------------------------------------------------ the moderator
    def moderator_kill(self, seat: Any) -> dict[str, Any]:
        """The moderator removes a player (cause `moderator`); wins are checked after."""
        if CALLS and self._answers is None:
            return self._decided("moderator_kill", (seat,), {})
        if self.over:
            self._game_over()
        self._living_seat(seat, "kill")
        self._die(seat, C_MODERATOR)
        self._settle()
        if "moderator" in CHECK_WINS_AT or "death" in CHECK_WINS_AT:
            self._check_wins()
        rep = self._report("kill", self.day if self.phase == "day" else self.night)
        if self._wake is not None:  # in a night under way in wake order (docs/engine.md)
            self._rewake()
        return rep

    def moderator_revive(self, seat: Any) -> dict[str, Any]:
        """The moderator brings a player back; wins are checked after."""
        if CALLS and self._answers is None:
            return self._decided("moderator_revive", (seat,), {})
        if self.over:
            self._game_over()
        self._seat(seat, "revive")
        if self.alive[seat]:
            raise IllegalAction(seat, None, "alive", f"seat {seat} is alive")
        self.revive(seat)
        if "moderator" in CHECK_WINS_AT:
            self._check_wins()
        rep = self._report("revive", self.day if self.phase == "day" else self.night)
        if self._wake is not None:
            self._rewake()
        return rep

    def _rewake(self) -> None:
        """A moderator step in a night under way in wake order (docs/engine.md, "The
        moderator"): the night goes on from where it was, without the actions it no longer
        accepts (the dead seat's own, and those a target filter now refuses: the actions aimed
        at him), and without the decisions it no longer asks for (asked again when it does)."""
        w = self._wake
        if self.over or self.phase != "night":
            self._wake = None
            return
        kept = self._wake_actions(w["actions"])
        nw: dict[str, Any] = {"pos": w["pos"], "actions": kept}
        answers = self._wake_answers(kept, w.get("answers", ()))
        if answers:
            nw["answers"] = answers
        self._wake = nw

    def _wake_actions(self, actions: list[Any]) -> list[Any]:
        """The actions of a night in wake order the night still accepts, in order: each checked
        as resolve_night checks it after those kept before it (a woken seat is a living one)."""
        seen: set[Any] = set()
        groups: dict[Any, int] = {}
        kept = []
        for raw in actions:
            s2, g2 = set(seen), dict(groups)
            try:
                self._validate(raw, "night", self.night, s2, g2)
            except IllegalAction:
                continue
            if self.alive[raw[0]]:
                seen, groups = s2, g2
                kept.append(raw)
        return kept

    def _wake_answers(self, actions: list[Any], answers: Any) -> list[Any]:
        """The decisions a night in wake order kept that the night `actions` still takes, in
        order: those before the first call it asks anew (see call_ability)."""
        if not CALLS or not answers:
            return []
        saved = self._answers, self._apos, self._keyed
        self._answers, self._apos, self._keyed = list(answers), 0, True
        try:
            self._preview(actions)
        except (_Await, IllegalAction):
            pass
        finally:
            taken = self._answers[: self._apos]
            self._answers, self._apos, self._keyed = saved
        return taken

    # ------------------------------------------------------------ serialization
    def to_json(self) -> dict[str, Any]:
        """The whole game state as JSON-ready data; Game.from_json restores it exactly."""
        d = {
            "spec": SPEC,
            "maf_version": MAF_VERSION,  # the stamp: from_json reads states of this engine only
            "spec_sha256": SPEC_SHA256,
            "n": self.n,
            "roles": [ROLES[r] for r in self.role[1:]],
            "teams": [TEAMS[t] if t >= 0 else None for t in self.team[1:]],
            "alive": self.alive[1:],
            "phase": self.phase,
            "day": self.day,
            "night": self.night,
            "chaos": self.chaos,
            "winner": self.winner,
            "repeat": self.repeat,
            "uses": sorted([s, ABILITIES[a], k] for (s, a), k in self.uses.items()),
            "self_uses": sorted([s, ABILITIES[a], k] for (s, a), k in self.self_uses.items()),
            "last_target": sorted(
                [s, ABILITIES[a], nt, t] for (s, a), (nt, t) in self.last_target.items()
            ),
            "marks": [sorted(MARKS[m] for m in _bits(ms)) for ms in self.marks[1:]],
            "memory": [  # per seat, its slots that hold a seat (0, no seat, is left out)
                {str(k): v for k in range(_MEMW) if (v := self.memory[s * _MEMW + k])}
                for s in range(1, self.n + 1)
            ],
            "trial": None
            if self.trial is None
            else [self.trial[0], ABILITIES[self.trial[1]]] + list(self.trial[2:]),
            "inquiries": self.inquiries,
            "departed": [[s, TEAMS[t] if t >= 0 else None] for s, t in self.departed],
            "seed": self.seed,
            "draws": self.draws,
            "initial": [ROLES[r] for r in self.initial],
            "absorbed": sorted([s, k, v] for (s, k), v in self.absorbed.items()),
            "ever": sorted([s, ABILITIES[a], list(v)] for (s, a), v in self.ever.items()),
            "later": [[s, MARKS[m]] for s, m in self.later],
            "cards_on": self.cards_on,
            "skip": self.skip,
            "skips": self.skips,
            "weight": sorted([s, w] for s, w in self.weight.items()),
            "blocked": sorted([s, b] for s, b in self.blocked.items()),
            "visits": sorted([s, list(t)] for s, t in self.vis_out.items()),
            "delayed": [[nt, k, s, list(c)] for nt, k, s, c in self.delayed],
            "over": self.over,
            "winners": list(self.winners),
            "votes": sorted([v, a] for v, a in self.votes),
            "death_cause": sorted([s, CAUSES[c]] for s, c in self.death_cause.items()),
        }
        if START:
            d["start_report"] = _jsonable(self.start_report)
            d["start_pending"] = self.start_pending
        if CALLS:  # the decision a suspended step waits for, with the step's inputs
            d["awaiting"] = _jsonable(self._awaiting)
        if self._wake is not None:  # a night under way in wake order
            d["wake"] = _jsonable(self._wake)
        if SETUP_MIDDLE:  # the cards in the middle of the table
            d["middle"] = [ROLES[r] for r in self.middle]
        if GHOSTS:  # the ghost votes the dead have spent
            d["ghosts"] = sorted([s, k] for s, k in self.ghosts.items())
        return d

    @classmethod
    def from_json(cls, d: Any) -> Game:
        """Restore a `to_json` state; raises StateError (a ValueError) naming the first problem."""
        check_state(d)
        g = cls([ROLES.index(r) for r in d["initial"]], d["seed"], _start=False)
        g.role = [-1] + [ROLES.index(r) for r in d["roles"]]
        g.team = [-1] + [TEAMS.index(t) if t is not None else -1 for t in d["teams"]]
        g.alive = [False] + list(d["alive"])
        g.nalive = sum(g.alive)
        g.nteam = [0] * (len(TEAMS) + 1)
        for s in range(1, g.n + 1):
            if g.alive[s]:
                g.nteam[g.team[s]] += 1
        for k in ("phase", "day", "night", "chaos", "winner", "repeat", "inquiries", "draws"):
            setattr(g, k, d[k])
        g.uses = {(s, ABILITIES.index(a)): k for s, a, k in d["uses"]}
        g.self_uses = {(s, ABILITIES.index(a)): k for s, a, k in d["self_uses"]}
        g.last_target = {(s, ABILITIES.index(a)): (nt, t) for s, a, nt, t in d["last_target"]}
        g.marks = [0] + [_mask(MARKS.index(m) for m in ms) for ms in d["marks"]]
        g.memory = [0] * ((g.n + 1) * _MEMW)
        for s, m in enumerate(d["memory"], 1):
            for k, v in m.items():
                g.memory[s * _MEMW + int(k)] = v
        t = d["trial"]
        g.trial = None if t is None else (t[0], ABILITIES.index(t[1])) + tuple(t[2:])
        g.departed = [(s, TEAMS.index(t) if t is not None else -1) for s, t in d["departed"]]
        g.absorbed = {(s, k): v for s, k, v in d["absorbed"]}
        g.ever = {(s, ABILITIES.index(a)): list(v) for s, a, v in d["ever"]}
        g.later = [[s, MARKS.index(m)] for s, m in d["later"]]
        g.cards_on, g.skip, g.skips = d["cards_on"], d["skip"], d["skips"]
        g.weight = {s: w for s, w in d.get("weight", ())}
        g.over = d.get("over", g.winner is not None)
        g.winners = list(d.get("winners", [g.winner] if g.winner is not None else []))
        g.votes = {(v, a) for v, a in d.get("votes", ())}
        g.death_cause = {s: CAUSES.index(c) for s, c in d.get("death_cause", ())}
        if START:
            g.start_report = _unjson(d.get("start_report"))
            g.start_pending = d.get("start_pending", False)
        if CALLS and d.get("awaiting") is not None:
            g._awaiting = _unjson(d["awaiting"])
        if d.get("wake") is not None:
            g._wake = _unjson(d["wake"])
        if SETUP_MIDDLE:
            g.middle = [ROLES.index(r) for r in d.get("middle", ())]
        if GHOSTS:
            g.ghosts = {s: k for s, k in d.get("ghosts", ())}
        g.blocked = {s: b for s, b in d.get("blocked", ())}
        g._blockings = set(g.blocked.items())
        vis_in: dict[int, list[int]] = {}
        vis_out: dict[int, list[int]] = {}
        for s, targets in d.get("visits", ()):
            vis_out[s] = list(targets)
            for t in targets:
                vis_in.setdefault(t, []).append(s)
        if vis_out:
            g.vis_in, g.vis_out = vis_in, vis_out
        g.delayed = [[nt, k, s, list(c)] for nt, k, s, c in d.get("delayed", ())]
        if g._wake is not None or g._awaiting is not None:
            check_suspended(g)  # checked as when first given: played again (state.py)
        return g


def _nothing(g: Any, actor: int, ab: int, *args: Any) -> None:
    """What a malfunctioning seat's ability without an `inverted` block does."""


def _no_ability(seat: int, role: int, name: Any) -> IllegalAction:
    """The error for a name the seat holds no ability by (raised by the caller)."""
    return IllegalAction(
        seat, name, "unknown-ability", f"seat {seat} ({ROLES[role]}) has no ability {_short(name)}"
    )


def _kind_name(k: int) -> str:
    return KINDS[k] if 0 <= k < len(KINDS) else "none"


def _cause_name(c: int) -> str:
    """A cause as a player is told it: its id, or `none` (a living seat's `cause_of`)."""
    return CAUSES[c] if c >= 0 else "none"


def _jsonable(v: Any) -> Any:
    """Step inputs as JSON data: mapping keys become strings, tuples lists."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    return v


def _unjson(v: Any) -> Any:
    """The inverse of _jsonable for step inputs: seat keys ("3") become ints again."""
    if isinstance(v, dict):
        return {
            (int(k) if isinstance(k, str) and k.isdigit() else k): _unjson(x) for k, x in v.items()
        }
    if isinstance(v, list):
        return [_unjson(x) for x in v]
    return v


def _copy(v: Any) -> Any:
    if isinstance(v, list):
        return [_copy(x) for x in v]
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, set):
        return set(v)
    return v
