"""A tiny reference spec: every name the generated part of an engine defines and the runtime
reads, with the values the emitter would give them for this spec (in outline, not exact .maf):

    team red
    team blue
    cause strike
    role alpha on red  { ability strike at night { target x: alive(x) and x != self
                                                   kill x by strike } }
    role beta  on blue { ability shelter at night { target x: alive(x)
                                                    limit 1 per game on self
                                                    protect x from strike } }
    role gamma on blue
    win blue when living(red) == 0
    win red  when living(red) > 0 and living(red) >= alive - living(red)
    vote { one round, a majority of the living }

It stands in for the generated part so that the runtime package imports, runs and is tested on
its own (tests/test_runtime.py). No engine carries this module: the runtime modules import from
it inside `# maf: omit` blocks, which the emitter strips (compiler/runtime/__init__.py).

The FEATURE_ constants at the end are not engine globals: they select runtime machinery, and
the emitter folds every `if FEATURE_X:` away for the spec it compiles. They are all True here, so
the package is the largest runtime there is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

# ---------------------------------------------------------------- the spec
SPEC: Final = "reference"
SOURCE: Final = "compiler/runtime/spec.py"
MAF_VERSION: Final = "0.1.0"
SPEC_SHA256: Final = "0" * 64
DISPLAY_NAMES: tuple[tuple[str, str], ...] = (("en", "Reference"),)
MIN_PLAYERS: Final = 3
MAX_PLAYERS: Final = 5
FIRST_PHASE: Final = "night"  # night | day
QUIET_DAYS: frozenset[int] = frozenset()  # days without a vote
QUIET_NIGHTS: frozenset[int] = frozenset()  # nights without abilities

# ---------------------------------------------------------------- teams
TEAMS: tuple[str, ...] = ("red", "blue")
T_RED: Final = 0
T_BLUE: Final = 1

# ---------------------------------------------------------------- roles
ROLES: tuple[str, ...] = ("alpha", "beta", "gamma")
R_ALPHA: Final = 0
R_BETA: Final = 1
R_GAMMA: Final = 2
ROLE_TEAM: tuple[int, ...] = (T_RED, T_BLUE, T_BLUE)  # -1: no team
ROLE_ABILITIES: tuple[tuple[int, ...], ...] = ((0,), (1,), ())
KINDS: tuple[str, ...] = ()  # kinds of role (`kind ID`)
ROLE_KIND: tuple[int, ...] = (-1, -1, -1)  # per role: its kind, -1 for none
TITLE_ROLES: frozenset[int] = frozenset()  # the roles of `title`s: dealt to no seat

# ---------------------------------------------------------------- causes and marks
CAUSES: tuple[str, ...] = ("vote", "moderator", "strike")
C_VOTE: Final = 0
C_MODERATOR: Final = 1
C_STRIKE: Final = 2
MEMSLOTS: tuple[str, ...] = ()  # `remember` slots, by number
MARKS: tuple[str, ...] = ()
MARK_LIFETIME: tuple[str, ...] = ()  # per mark: dawn | dusk | tomorrow | ""
EXPELLING: tuple[str, ...] = ()  # marks whose carriers leave when they break a speaking rule
INVERTING_MARKS: frozenset[int] = frozenset()
VOTELESS_MARKS: frozenset[int] = frozenset()  # carriers have no vote
SILENCING_MARKS: frozenset[int] = frozenset()
# statuses: a carrier's role powers are suspended (powerless: its abilities refused;
# malfunctions: they run their `inverted` block, or nothing)
POWERLESS_MARKS: frozenset[int] = frozenset()
MALFUNCTION_MARKS: frozenset[int] = frozenset()
WEIGHING_MARKS: dict[int, int] = {}  # mark -> the vote weight of a living carrier
# per role: (causes it blocks, mark that suspends it or -1, kills absorbed before it wears off)
IMMUNE: tuple[tuple[tuple[frozenset[int], int, int], ...], ...] = ((), (), ())

# ---------------------------------------------------------------- abilities
ABILITIES: tuple[str, ...] = ("alpha.strike", "beta.shelter")
A_ALPHA_STRIKE: Final = 0
A_BETA_SHELTER: Final = 1
AB_NAME: tuple[str, ...] = ("strike", "shelter")
AB_ROLE: tuple[int, ...] = (R_ALPHA, R_BETA)
AB_PHASE: tuple[str, ...] = ("night", "night")  # night | day | vote | any | card | call
AB_RANK: tuple[int, ...] = (1, 0)  # the order actions resolve in
AB_TARGETS: tuple[int, ...] = (1, 1)
AB_CHOICES: tuple[tuple[str, ...], ...] = ((), ())  # "role" | "team" per `choose` line
AB_PER_GAME: tuple[int, ...] = (0, 0)  # 0: unlimited
AB_SELF_PER_GAME: tuple[int, ...] = (0, 1)
AB_FROM: tuple[int, ...] = (1, 1)  # the first phase number it may be used in
AB_NOREPEAT: tuple[str, ...] = ("", "")  # "" | "consecutive" | "ever"
AB_EXCLUSIVE: tuple[int, ...] = (-1, -1)  # exclusive group among the holder's abilities
AB_TABLE_GROUP: tuple[int, ...] = (-1, -1)  # one per phase at the whole table
AB_GRANTED: tuple[int, ...] = (-1, -1)  # mark that grants it, or -1
AB_EFFECTS: tuple[tuple[str, ...], ...] = (("kill",), ("protect",))
AB_LIFE: tuple[str, ...] = ("alive", "alive")  # alive | dead | both
DEAD_ACTS: Final = False  # may the dead act?
AB_HOLDERS: tuple[tuple[int, ...], ...] = ((), ())  # the chain of `held by` roles
HELD: tuple[int, ...] = tuple(i for i, h in enumerate(AB_HOLDERS) if h)
# night abilities whose target filters and `when` are read at their wake, when they resolve
# (they read the night so far: doomed, visitors, visits), not when the night is validated
AT_WAKE: frozenset[int] = frozenset()
NIGHT_ORDER: tuple[int, ...] = (A_BETA_SHELTER, A_ALPHA_STRIKE)
CALM: str | None = "calm"  # announced at a dawn with no deaths
STEALS: Final = False  # does any ability steal?
CHECK_WINS_AT: frozenset[str] = frozenset(("dawn", "dusk", "moderator"))

# (label, role counts in ROLES order) per table size
SETUPS: dict[int, tuple[tuple[str | None, tuple[int, ...]], ...]] = {
    3: ((None, (1, 1, 1)),),
    4: ((None, (1, 1, 2)),),
    5: ((None, (1, 1, 3)),),
}
# (size, label) -> roles left undealt in the middle of the table
SETUP_MIDDLE: dict[tuple[int, str | None], tuple[int, ...]] = {}
# custom tables: (label, min size, max size, rule over the dealt roles)
CUSTOM_SETUPS: tuple[tuple[str | None, int, int, Callable[[Any], bool]], ...] = ()


class IllegalAction(Exception):
    """An action or step the rules do not allow. The game is left unchanged."""

    def __init__(self, seat: Any, ability: Any, rule: str, reason: str) -> None:
        super().__init__(
            f"seat {seat}: {ability}: {reason} [{rule}]" if seat else f"{reason} [{rule}]"
        )
        self.seat = seat
        self.ability = ability
        self.rule = rule
        self.reason = reason


class IllegalSetup(IllegalAction):
    """A seat list that no setup of the spec allows."""


# ---------------------------------------------------------------- generated rules
# `g` is the Game; an ability runs as fn(g, actor, ability, *targets)
def _f_alpha_strike_0(g: Any, actor: int, v_x: int) -> bool:
    # target x: alive(x) and x != self
    return bool(g.alive[v_x] and v_x != actor)


def _run_alpha_strike(g: Any, actor: int, ability: int, v_x: int) -> None:
    # kill x by strike
    g.kill(v_x, C_STRIKE, False, actor)


def _f_beta_shelter_0(g: Any, actor: int, v_x: int) -> bool:
    # target x: alive(x)
    return bool(g.alive[v_x])


def _run_beta_shelter(g: Any, actor: int, ability: int, v_x: int) -> None:
    # protect x from strike
    g.protect(v_x, (C_STRIKE,))


Rule = Callable[..., Any]
RUN: tuple[Rule, ...] = (_run_alpha_strike, _run_beta_shelter)
INVERTED: tuple[Rule | None, ...] = (None, None)  # the body run by an inverted actor
STOLEN: tuple[Rule | None, ...] = (None, None)  # the body run by a taker
FILTERS: tuple[tuple[Rule, ...], ...] = ((_f_alpha_strike_0,), (_f_beta_shelter_0,))
FAST: tuple[Any, ...] = (None, None)  # generated fast validation, where there is one
WHEN: tuple[Rule | None, ...] = (None, None)  # `when` conditions
FILTER_TEXT: tuple[tuple[str, ...], ...] = (
    ("target x: alive(x) and x != self",),
    ("target x: alive(x)",),
)
# per role: (causes or None, fn(g, seat, killer, cause)) run when a seat of it dies
TRIGGERS: tuple[tuple[tuple[frozenset[int] | None, Rule], ...], ...] = ((), (), ())
# per role: `instead of death` (causes or None; `when` fn(g, seat, killer, cause) or None;
# body fn(g, seat, killer, cause)), tried in order in place of the seat's death
REPLACE: tuple[tuple[tuple[frozenset[int] | None, Rule | None, Rule], ...], ...] = ((), (), ())

# ---------------------------------------------------------------- night interactions
AB_VISITS: tuple[bool, ...] = (True, True)
AB_UNBLOCKABLE: tuple[bool, ...] = (False, False)
ROLE_DEFENSE: tuple[int, ...] = (0, 0, 0)
VISITED_ROLE: tuple[Rule | None, ...] = (None, None, None)  # `on visited`, per role
VISITED_AB: tuple[tuple[int, Rule], ...] = ()  # `on visited`, per ability
BLOCKED_ROLE: tuple[Rule | None, ...] = (None, None, None)
BLOCKED_AB: tuple[tuple[int, Rule], ...] = ()
# hooks per phase boundary: (role, or -1 for a top-level hook; fn(g, seat))
HOOKS_NIGHT_START: tuple[tuple[int, Rule], ...] = ()
HOOKS_NIGHT_END: tuple[tuple[int, Rule], ...] = ()
HOOKS_DAWN: tuple[tuple[int, Rule], ...] = ()
HOOKS_DAY_START: tuple[tuple[int, Rule], ...] = ()
HOOKS_DAY_END: tuple[tuple[int, Rule], ...] = ()
# `on any death`: (role or -1; causes or None; fn(g, seat, victim, killer, cause))
ANY_DEATH: tuple[tuple[int, frozenset[int] | None, Rule], ...] = ()
# `on any save`: (causes or None; fn(g, 0, victim, killer, cause)), once per stopped kill
ANY_SAVE: tuple[tuple[frozenset[int] | None, Rule], ...] = ()
# delayed effects and guard reactions, by number; the types of the values each captures
CLOSURES: tuple[Rule, ...] = ()
CLOSURE_TYPES: tuple[tuple[str, ...], ...] = ()
TRIAL_CANCEL: dict[int, Rule] = {}  # ability -> its trial's `cancel when`
TRIAL_JUDGEMENT: frozenset[int] = frozenset()  # abilities whose trial counts innocent votes
# `on nominated`, per role: fn(g, seat, nominator), run when a seat of it is nominated
NOMINATED_ROLE: tuple[Rule | None, ...] = (None, None, None)
# `votes only with`, per role: (fn(g, voter, hands) -> may his hand count beside `hands`, the
# seats raising a hand for the same accused; the spec's words for whom he follows) or None
VOTES_WITH: tuple[tuple[Callable[..., bool], str] | None, ...] = (None, None, None)
# the moderator's choices (`moderator chooses`), by number: their ids (`ABILITY:VAR`, ...)
MODERATOR_SITES: tuple[str, ...] = ()
# `registers as`, per role: the teams / roles information reads may see its seats as
REG_TEAMS: tuple[tuple[int, ...], ...] = ((), (), ())
REG_ROLES: tuple[tuple[int, ...], ...] = ((), (), ())
REG_KINDS: tuple[tuple[int, ...], ...] = ((), (), ())


def _wins(g: Any) -> str | None:
    """The first satisfied win condition, in spec order."""
    if g.nteam[T_RED] == 0:
        return "blue"
    if g.nteam[T_RED] > 0 and g.nteam[T_RED] >= g.nalive - g.nteam[T_RED]:
        return "red"
    return None


DRAWS: Final = False


def _draw(g: Any) -> bool:
    return False


# sides made by marks (`side ID { members x: EXPR }`): team -> is the seat a member
SIDE_MEMBERS: dict[int, Callable[[Any, int], bool]] = {}
COWINNERS: Final = False


def _cowinners(g: Any) -> list[str]:
    return []


VOTES_READ: Final = True  # does a rule read `voted(...)`?
# `on start` hooks: top-level ones, then per role
START_HOOKS: tuple[Rule, ...] = ()
START_ROLE_HOOKS: tuple[tuple[Rule, ...], ...] = ((), (), ())
START: Final = bool(START_HOOKS) or any(START_ROLE_HOOKS)


def _chaos(g: Any) -> bool:
    return False


def _vote_threshold(g: Any, defenders: int = 0) -> int:
    return int(g.nalive // 2 + 1)


def _vote_defense_threshold(g: Any, defenders: int) -> int:
    return int(g.nalive // 2 + 1)


def _vote_defenders_vote(g: Any, defenders: int) -> bool:
    return True


def _vote_timers(g: Any) -> dict[str, int]:
    return {}


def _chaos_threshold(g: Any, defenders: int = 0) -> int:
    return 0


def _chaos_defense_threshold(g: Any, defenders: int) -> int:
    return 0


def _chaos_defenders_vote(g: Any, defenders: int) -> bool:
    return True


def _chaos_timers(g: Any) -> dict[str, int]:
    return {}


VOTE: Any = {  # a mapping, or None for a spec without a day vote (so are CHAOS, ELECTION)
    "tie": "none",
    "ballot": "multi",
    "exempt": -1,
    "forced": -1,
    "rounds": 1,
    "skips": 0,
    "nominations": False,  # the day's ballots are nominations (day input `nominations`)
    "ghost": 0,  # the dead keep this many votes for the rest of the game
    "judgement": False,  # the deciding round counts innocent votes (day input `innocent`)
}
CHAOS: Any = None
ELECTION: Any = None


def _election_held(g: Any) -> bool:
    return False


def _election_threshold(g: Any) -> int:
    return 0


INQUIRY_FROM_DAY: Final = 0
INQUIRY_MAX: Final = 0


def _inquiry_threshold(g: Any) -> int:
    return 0


def _inquiry_allowed(g: Any) -> bool:
    return False


SPEAKING: tuple[int, int, int] | None = None


def _day_timers(g: Any) -> dict[str, int]:
    return {}


NIGHT_TIMERS: Final = False


def _night_timers(g: Any) -> dict[str, int]:
    return {}


FAST_NIGHT: Any = None  # the spec's compiled night (compiler/backend/nightgen.py), if any
FAST_DAY: Any = None  # the spec's compiled day (nightgen.render_day), if any
DRAW_NIGHT: tuple[Any, ...] = ()  # per ability: its compiled night draw, or None
DRAW_ALL: Any = None  # the random player's whole night, compiled (nightgen.render_draw_night)
PLAY_NIGHT: Any = None  # ... drawn and played at once (DRAW_ALL's play mode), if it may be
FLAT_SLOTS: Final = 0  # its flat per-seat counters (Game._LAZY); none without a compiled night
_fn_fold: Any = None  # folds its journal into the bookkeeping dicts
_fn_flat: Any = None  # rebuilds its counters from the dicts

# ---------------------------------------------------------------- folded features
# Not engine globals: compiler.runtime.source keeps or drops the code under `if FEATURE_X:`.
FEATURE_LEVELS: Final = True
FEATURE_VISITS: Final = True
FEATURE_BLOCKS: Final = True
FEATURE_DELAYS: Final = True
FEATURE_MODERATOR: Final = True
FEATURE_ANY_DEATHS: Final = True
FEATURE_STATUSES: Final = True
FEATURE_REPLACEMENTS: Final = True
FEATURE_AT_ONCE: Final = True
FEATURE_AT_WAKE: Final = True
FEATURE_HOOK_NIGHT_START: Final = True
FEATURE_HOOK_NIGHT_END: Final = True
FEATURE_HOOK_DAWN: Final = True
FEATURE_HOOK_DAY_START: Final = True
FEATURE_HOOK_DAY_END: Final = True
