# maf: omit
"""Tables derived from the spec's tables when an engine loads, and `_short`.

Copied into every engine by the emitter (compiler/runtime/__init__.py); this block is not.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable

from maf.compiler.runtime.spec import (
    AB_CHOICES,
    AB_EXCLUSIVE,
    AB_FROM,
    AB_GRANTED,
    AB_HOLDERS,
    AB_NAME,
    AB_NOREPEAT,
    AB_PER_GAME,
    AB_PHASE,
    AB_RANK,
    AB_ROLE,
    AB_SELF_PER_GAME,
    AB_TABLE_GROUP,
    AB_TARGETS,
    ABILITIES,
    EXPELLING,
    FEATURE_MODERATOR,
    FILTERS,
    FIRST_PHASE,
    HELD,
    IMMUNE,
    INVERTING_MARKS,
    MALFUNCTION_MARKS,
    MARK_LIFETIME,
    MARKS,
    POWERLESS_MARKS,
    ROLE_ABILITIES,
    ROLES,
    SILENCING_MARKS,
    TEAMS,
    VOTE,
    VOTELESS_MARKS,
    VOTES_WITH,
)

# maf: end omit
# ---------------------------------------------------------------- the resolver (generic)
# Below this line the code is the same in every generated engine: it knows targets, kills,
# protections, marks, conversions, trials, votes and phases -- never a role by name.

DAWN_MARKS = frozenset(i for i, life in enumerate(MARK_LIFETIME) if life == "dawn")
DUSK_MARKS = frozenset(i for i, life in enumerate(MARK_LIFETIME) if life == "dusk")


# A seat's marks are one int (Game.marks[seat]): bit m set when the seat carries mark m.
def _mask(marks: Iterable[int]) -> int:
    """The bit mask of a collection of marks."""
    out = 0
    for m in marks:
        out |= 1 << m
    return out


def _bits(mask: int) -> list[int]:
    """The marks of a bit mask, in mark order."""
    return [m for m in range(len(MARKS)) if mask >> m & 1]


DAWN_MASK = _mask(DAWN_MARKS)
DUSK_MASK = _mask(DUSK_MARKS)
INVERTING_MASK = _mask(INVERTING_MARKS)
VOTELESS_MASK = _mask(VOTELESS_MARKS)
SILENCING_MASK = _mask(SILENCING_MARKS)
POWERLESS_MASK = _mask(POWERLESS_MARKS)
MALFUNCTION_MASK = _mask(MALFUNCTION_MARKS)
STATUS_MASK = POWERLESS_MASK | MALFUNCTION_MASK  # a carrier's role powers are suspended
# (role, short or full ability name) -> ability, for a role's own abilities
OWN = {(AB_ROLE[a], k): a for a in range(len(ABILITIES)) for k in (AB_NAME[a], ABILITIES[a])}
# static facts per ability, in the order _validate unpacks them
INFO = tuple(
    (
        AB_PHASE[a],
        AB_RANK[a],
        AB_TARGETS[a],
        AB_CHOICES[a],
        AB_PER_GAME[a],
        AB_SELF_PER_GAME[a],
        AB_FROM[a],
        AB_NOREPEAT[a],
        AB_EXCLUSIVE[a],
        AB_TABLE_GROUP[a],
        FILTERS[a],
    )
    for a in range(len(ABILITIES))
)
CARDS = tuple(a for a, phase in enumerate(AB_PHASE) if phase == "card")
# what a seat holds (Game._held), per role: the abilities the role holds by itself, and those
# a seat of the role may hold by the state of play (granted by a mark; passed down by `held by`
# to a chain that names the role)
HELD_BY_ROLE = tuple(
    tuple(
        a
        for a in range(len(ABILITIES))
        if AB_ROLE[a] == r and AB_PHASE[a] != "card" and AB_GRANTED[a] < 0 and not AB_HOLDERS[a]
    )
    for r in range(len(ROLES))
)
HELD_AT_PLAY = tuple(
    tuple(
        a
        for a in range(len(ABILITIES))
        if AB_PHASE[a] != "card" and (AB_GRANTED[a] >= 0 or r in AB_HOLDERS[a])
    )
    for r in range(len(ROLES))
)
# (role) -> every cause an immunity of it names (Game._settle tests it before Game._immune)
IMMUNE_TO = tuple(frozenset(c for causes, _, _ in im for c in causes) for im in IMMUNE)
NOREPEAT_EVER = frozenset(a for a, kind in enumerate(AB_NOREPEAT) if kind == "ever")
GRANTED = tuple(a for a, m in enumerate(AB_GRANTED) if m >= 0)
# (role, short or full ability name) for every name a seat of the role may hold an ability by:
# its role's own, granted (by a mark) and passed-down (`held by`) ones; any other name is
# unknown to it (find_ability refuses it at once)
NAMED = frozenset(
    (r, k)
    for r in range(len(ROLES))
    for a in ROLE_ABILITIES[r] + GRANTED + HELD
    for k in (AB_NAME[a], ABILITIES[a])
)
EXPELLING_MARKS = frozenset(i for i, m in enumerate(MARKS) if m in EXPELLING)
EXPELLING_MASK = _mask(EXPELLING_MARKS)
TOMORROW_MARKS = frozenset(i for i, life in enumerate(MARK_LIFETIME) if life == "tomorrow")
TOMORROW_MASK = _mask(TOMORROW_MARKS)
# a role's first targeted night ability without choices: what a taker steals from it
STEALABLE = tuple(
    next(
        (
            a
            for a in ROLE_ABILITIES[r]
            if AB_PHASE[a] == "night" and AB_TARGETS[a] and not AB_CHOICES[a]
        ),
        -1,
    )
    for r in range(len(ROLES))
)

# what a new game starts from, fixed by the spec (Game.__init__)
FIRST_DAY = 1 if FIRST_PHASE == "day" else 0
FIRST_NIGHT = 1 if FIRST_PHASE == "night" else 0
SKIPS = VOTE["skips"] if VOTE else 0
GHOSTS = VOTE.get("ghost", 0) if VOTE else 0  # each dead player's votes (`ghost votes`)
FOLLOWERS = any(x is not None for x in VOTES_WITH)  # some role `votes only with` another seat
TEAM_IDS = (*range(len(TEAMS)), -1)  # Game.nteam's slots: the teams, then no team

# untrusted input quoted in an IllegalAction message: bounded in size, whatever it is (a YAML
# alias bomb is a small object whose plain repr() is exponentially long)
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 3, 60, 60, 40


def _short(value: object) -> str:
    if type(value) is str and len(value) <= 60:
        text = repr(value)  # what reprlib gives a string whose repr fits (the common case, fast)
        if len(text) <= 60:
            return text
    try:
        return _SHORT.repr(value)
    except Exception:  # a hostile __repr__ must not escape as a traceback
        return f"<{type(value).__name__}>"


# does any ability wait for a decision taken when a `call` fires (`ability X on call`), or the
# moderator's (`moderator chooses`, `registers as`)? Then a step may be suspended (_replay)
CALLS = any(phase == "call" for phase in AB_PHASE)
if FEATURE_MODERATOR:
    CALLS = True
STEP_PHASE = {
    "resolve_night": "night",
    "resolve_day": "day",
    "moderator_kill": "kill",
    "moderator_revive": "revive",
    "wake": "night",  # a night in wake order, suspended at a wake (docs/engine.md)
}
