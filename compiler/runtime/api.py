# maf: omit
"""The API a bot drives: legal actions, the night in wake order, what the engine waits for.

Copied into every engine by the emitter (compiler/runtime/__init__.py); this block is not.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import compress
from typing import TYPE_CHECKING, Any

from maf.compiler.runtime.spec import (
    AB_CHOICES,
    AB_EFFECTS,
    AB_EXCLUSIVE,
    AB_FROM,
    AB_GRANTED,
    AB_HOLDERS,
    AB_NAME,
    AB_NOREPEAT,
    AB_PER_GAME,
    AB_PHASE,
    AB_ROLE,
    AB_SELF_PER_GAME,
    AB_TABLE_GROUP,
    AB_TARGETS,
    ABILITIES,
    AT_WAKE,
    CHAOS,
    DEAD_ACTS,
    DRAW_ALL,
    DRAW_NIGHT,
    ELECTION,
    FAST_DAY,
    FAST_NIGHT,
    FEATURE_AT_WAKE,
    FEATURE_MODERATOR,
    FEATURE_STATUSES,
    FILTER_TEXT,
    FILTERS,
    INQUIRY_FROM_DAY,
    INQUIRY_MAX,
    MARKS,
    NIGHT_ORDER,
    PLAY_NIGHT,
    QUIET_DAYS,
    QUIET_NIGHTS,
    ROLES,
    TEAMS,
    TITLE_ROLES,
    TRIAL_CANCEL,
    VOTE,
    WHEN,
    IllegalAction,
    _chaos,
    _election_held,
    _inquiry_allowed,
)
from maf.compiler.runtime.tables import (
    CALLS,
    EXPELLING_MASK,
    HELD_AT_PLAY,
    HELD_BY_ROLE,
    OWN,
    STATUS_MASK,
    _short,
)

# maf: end omit
# ---------------------------------------------------------------- the API a bot drives (generic)
# Below this line the code is the same in every generated engine (docs/engine.md, "Driving a
# game"). It reads the tables above and asks the engine's own validation, so what it lists is
# exactly what the engine accepts.


def _group(groups: tuple[int, ...], a: int) -> tuple[str, ...]:
    """The other abilities of ability a's group in `groups` (-1: none), by full id."""
    return tuple(ABILITIES[b] for b, g in enumerate(groups) if g == groups[a] >= 0 and b != a)


def _ability_info() -> dict[str, dict[str, Any]]:
    """ABILITY_INFO: static metadata per ability, keyed by full id, in ABILITIES order."""
    out = {}
    for a, full in enumerate(ABILITIES):
        out[full] = {
            "id": full,
            "name": AB_NAME[a],
            "role": ROLES[AB_ROLE[a]] if AB_ROLE[a] >= 0 else None,
            "phase": AB_PHASE[a],  # night | day | vote | any | card | call
            "targets": FILTER_TEXT[a],  # each target line as the spec writes it
            "choices": AB_CHOICES[a],  # "role" | "team" per `choose` line
            "per_game": AB_PER_GAME[a],  # 0: unlimited
            "self_per_game": AB_SELF_PER_GAME[a],  # 0: unlimited
            "from": AB_FROM[a],  # first phase number it may be used in
            "no_repeat": AB_NOREPEAT[a],  # "" | "consecutive" | "ever"
            "exclusive": AB_EXCLUSIVE[a] >= 0,  # excludes the holder's other group members
            "table_exclusive": AB_TABLE_GROUP[a] >= 0,  # one per phase at the whole table
            # the abilities it excludes: the holder's (one per phase) and the table's
            "exclusive_with": _group(AB_EXCLUSIVE, a),
            "table_exclusive_with": _group(AB_TABLE_GROUP, a),
            "holders": tuple(ROLES[r] for r in AB_HOLDERS[a]),  # the chain of `held by` roles
            "granted_by": MARKS[AB_GRANTED[a]] if AB_GRANTED[a] >= 0 else None,
            "conditional": WHEN[a] is not None,  # has a `when` condition
            "effects": AB_EFFECTS[a],  # statement kinds in its body: kill, protect...
        }
    return out


ABILITY_INFO = _ability_info()
_LEGAL_EXPAND_LIMIT = 4096  # candidate actions per ability beyond which choices stay compact


class _BotApi:
    """Queries for a program that plays: what may be submitted now, and by whom."""

    __slots__ = tuple()  # none of its own (a call, so mypy leaves the slots to Game)
    if TYPE_CHECKING:
        # what these queries read of a game (Game keeps it); for type checkers only (as in
        # Game, the block is dead at run time and Cython, compiler/backend/native.py, skips it)
        n: int
        phase: str
        day: int
        night: int
        chaos: bool
        over: bool
        repeat: bool
        winner: str | None
        alive: list[bool]
        role: list[int]
        marks: list[int]  # per seat, a bit mask (bit m: mark m)
        trial: tuple[Any, ...] | None
        inquiries: int
        cards_on: bool
        _awaiting: Any  # the awaited decision (a mapping) or None
        _wake: Any  # the night so far in wake order (a mapping) or None
        _plan: list[Any] | None
        _answers: list[Any] | None
        _apos: int
        _keyed: bool
        _decided: Callable[..., dict[str, Any]]
        resolve_night: Callable[[Any], dict[str, Any]]
        holder: Callable[[int], int]
        find_ability: Callable[[int, Any], int]
        _first_rule: Callable[[int, int, int, int], str | None]
        _check_ability: Callable[..., None]
        _validate: Callable[..., tuple[Any, ...]]
        _snapshot: Callable[[], dict[str, Any]]
        _restore: Callable[[dict[str, Any]], None]
        _legal_at_wake: Callable[..., list[list[Any]]]

    @property
    def number(self) -> int:
        """The current phase's number (the day number by day, the night number by night)."""
        return self.day if self.phase == "day" else self.night

    def alive_seats(self) -> list[int]:
        """The living seats, ascending."""
        return [*compress(range(1, self.n + 1), self.alive[1:])]

    def held_abilities(self, seat: Any) -> list[str]:
        """The abilities `seat` holds now (ids), whatever the phase: own, held by, granted."""
        if type(seat) is not int or not 1 <= seat <= self.n:
            return []
        return [ABILITIES[a] for a in self._held(seat)]

    def _held(self, seat: int) -> tuple[int, ...] | list[int]:
        """held_abilities, as ability numbers in ABILITIES order: the role's own (a table), and
        those whose holder is decided at play, a granted one by its mark and a `held by` one
        by its chain (Game.holder)."""
        role = self.role[seat]
        own, maybe = HELD_BY_ROLE[role], HELD_AT_PLAY[role]
        if not maybe:
            return own
        marks = self.marks[seat]
        more = [
            a
            for a in maybe
            if (marks >> AB_GRANTED[a] & 1 if AB_GRANTED[a] >= 0 else self.holder(a) == seat)
        ]
        return sorted(own + tuple(more)) if more else own

    def legal_actions(self, seat: Any, expand: bool = False) -> list[list[Any]]:
        """Every action `seat` may submit in the current phase, each on its own.

        At night: actions for `resolve_night`; by day: for the day's `actions` (day, vote and
        any-time abilities). Each is `[seat, full ability id, target..., choice...]`. Choices
        (`choose r: role`) are COMPACT unless `expand`: one entry per target combination whose
        choice slots hold the tuple of every id accepted there (expand it with
        `expand_action`). Entries are in ability order, then target order.
        """
        if self.over or self.repeat and self.phase == "night":
            return []
        if self._awaiting is not None:  # a decision is awaited: only it (resolve_choice)
            return self._legal_decision(seat, expand)
        if type(seat) is not int or not 1 <= seat <= self.n or not (self.alive[seat] or DEAD_ACTS):
            return []
        phase, number = self.phase, self.number
        out = []
        for a in self._held(seat):
            ph = AB_PHASE[a]
            if phase == "night":
                if ph not in ("night", "any"):
                    continue
                vphase = "night"
            else:
                if ph not in ("day", "vote", "any"):
                    continue
                vphase = "vote" if ph == "vote" else "day"
                if ph == "vote" and (self.chaos or VOTE is None):
                    continue  # no vote to act in
            out.extend(self._legal_for(seat, a, ABILITIES[a], vphase, number, expand))
        return out

    def _legal_for(
        self, seat: int, a: int, full: str, vphase: str, number: int, expand: bool
    ) -> list[list[Any]]:
        n = self.n
        # a refusal of the ability itself (its life, phase, quiet, too early, used up) refuses
        # every combination: the validation's own checks, asked once before enumerating them
        try:
            self._check_ability(seat, a, full, vphase, number, set(), {})
        except IllegalAction:
            return []
        if FEATURE_AT_WAKE:
            if vphase == "night" and a in AT_WAKE:
                return self._legal_at_wake(seat, a, full, number, expand)
        # target combinations slot by slot: the k-th filter sees targets 1..k, so a prefix
        # it refuses is never extended
        combos: list[tuple[int, ...]] = [()]
        for k, f in enumerate(FILTERS[a][: AB_TARGETS[a]]):
            if k == 0:  # (the first slot: no targets before it)
                combos = [(t,) for t in range(1, n + 1) if f(self, seat, t)]
            else:
                combos = [c + (t,) for c in combos for t in range(1, n + 1) if f(self, seat, *c, t)]
        tables = [CHOICE_VALUES[k] for k in AB_CHOICES[a]]
        picks: list[tuple[Any, ...]] = [()]
        for table in tables:
            picks = [p + (v,) for p in picks for v in table]
        # What is left of the validation reads the arguments (Game._validate_full): the filters
        # (applied above), the `when` condition, then the limit on oneself and the repeat rule,
        # which read the first target alone (Game._first_rule). Choices are read only by a
        # `when`; without one, either every choice of a combination is accepted or none is.
        no_when = WHEN[a] is None
        filters_decide = no_when and not AB_SELF_PER_GAME[a] and not AB_NOREPEAT[a]
        if not tables and no_when:
            # no choices: an action per combination the filters (and the first target) pass
            if filters_decide:
                return [[seat, full, *c] for c in combos]
            rule = self._first_rule
            return [
                [seat, full, *c] for c in combos if rule(seat, a, c[0] if c else 0, number) is None
            ]
        out: list[list[Any]] = []
        for c in combos:
            if filters_decide:
                ok = picks
            elif no_when:  # the filters passed: what is left reads the first target alone
                ok = picks if self._first_rule(seat, a, c[0] if c else 0, number) is None else []
            else:
                ok = [p for p in picks if self._accepts([seat, full, *c, *p], vphase, number)]
            if not ok:
                continue
            if not tables or expand or len(picks) > _LEGAL_EXPAND_LIMIT:
                out.extend([seat, full, *c, *p] for p in ok)
            else:
                slots = [tuple(dict.fromkeys(p[k] for p in ok)) for k in range(len(tables))]
                size = 1
                for slot in slots:
                    size *= len(slot)
                if len(ok) == size:
                    out.append([seat, full, *c, *slots])
                else:  # the accepted choices do not form a product: list them one by one
                    out.extend([seat, full, *c, *p] for p in ok)
        return out

    def _legal_decision(self, seat: Any, expand: bool) -> list[list[Any]]:
        """The awaited decision as actions `[seat, id, target..., choice...]` for
        `resolve_choice(seat, entry[2:])`: `[seat, id]` declines; the first target ranges over
        the awaited `options`, further targets and choices over every seat and id (they are
        checked when given)."""
        aw = self._awaiting
        if seat != aw["seat"]:
            return []
        if FEATURE_MODERATOR:
            if seat == "moderator":  # the moderator's choice: `[moderator, id]` declines
                return [[seat, aw["ability"]]] + [[seat, aw["ability"], o] for o in aw["options"]]
        a = ABILITIES.index(aw["ability"])
        full = aw["ability"]
        rest = [tuple(range(1, self.n + 1))] * max(AB_TARGETS[a] - 1, 0) + [
            CHOICE_VALUES[k] for k in AB_CHOICES[a]
        ]
        firsts = [(o,) for o in aw["options"]] if AB_TARGETS[a] else [()]
        out = [[seat, full]]
        for f in firsts:
            entry = [seat, full, *f, *(tuple(r) for r in rest)]
            out.extend(expand_action(entry) if expand else [entry])
        return out

    # ------------------------------------------------------------ the night in wake order
    def next_wake(self) -> dict[str, Any] | None:
        """Who wakes next tonight, in the night order: `{"ability", "seats", "slot"}` (the next
        night ability some living seat holds), or None when nobody is left to wake."""
        if (
            self.phase != "night"
            or self.over
            or self._awaiting is not None
            or self.repeat
            or self.night in QUIET_NIGHTS
        ):
            return None
        pos = self._wake["pos"] if self._wake is not None else 0
        alive = self.alive_seats()
        for k in range(pos, len(NIGHT_ORDER)):
            a = NIGHT_ORDER[k]
            if AB_FROM[a] > self.night:
                continue
            seats = [s for s in alive if ABILITIES[a] in self.held_abilities(s)]
            if seats:
                return {"ability": ABILITIES[a], "seats": seats, "slot": k}
        return None

    def wake(self, actions: Any) -> dict[str, Any]:
        """The woken seats' actions (`[actor, ability, target..., arg...]`, the ability
        `next_wake()` named; `[]`: they pass). Returns the night so far: the report the night
        would give if it ended now (who would die, what was told), what the moderator tells the
        next roles. Illegal actions raise IllegalAction and change nothing. A decision the night
        so far asks for suspends the wake (`awaiting`, resolve_choice); the night keeps it."""
        if CALLS and self._answers is None:  # played under _replay: decisions (resolve_choice)
            w = self._wake
            return self._decided("wake", (actions,), {}, w.get("answers", ()) if w else ())
        nxt = self.next_wake()
        if nxt is None:
            raise IllegalAction(
                None, None, "no-wake", "nobody is left to wake tonight: end_night()"
            )
        if not isinstance(actions, (list, tuple)):
            raise IllegalAction(
                None,
                None,
                "malformed",
                f"the woken seats' actions are a list, not {_short(actions)}",
            )
        slot = NIGHT_ORDER[nxt["slot"]]
        for raw in actions:
            if not isinstance(raw, (list, tuple)) or len(raw) < 2 or raw[0] not in nxt["seats"]:
                raise IllegalAction(
                    None,
                    None,
                    "not-awake",
                    f"{_short(raw)}: only seats {nxt['seats']} are awake ({nxt['ability']})",
                )
            if self._named(raw[0], raw[1]) != slot:
                raise IllegalAction(
                    raw[0],
                    raw[1],
                    "not-awake",
                    f"{nxt['ability']} is awake now, not {_short(raw[1])}",
                )
        so_far = (self._wake["actions"] if self._wake is not None else []) + [
            list(raw) for raw in actions
        ]
        keyed, self._keyed = self._keyed, CALLS
        try:
            report = self._preview(so_far)
        finally:
            self._keyed = keyed
        w = {"pos": nxt["slot"] + 1, "actions": so_far}
        if CALLS and self._apos and self._answers is not None:  # the decisions taken, per seat
            w["answers"] = self._answers[: self._apos]
        self._wake = w
        return report

    def _named(self, seat: int, name: Any) -> int:
        """The ability `seat` means by `name`, as resolve_night reads it: the seat's own role's
        ability of that name first (unless passed down to another seat or granted), else the
        one ability of that name it holds (`ambiguous` if several, ...)."""
        ab = OWN.get((self.role[seat], name)) if name.__class__ is str else None
        if ab is None or (AB_HOLDERS[ab] and self.holder(ab) != seat) or AB_GRANTED[ab] >= 0:
            ab = self.find_ability(seat, name)
        return ab

    def end_night(self) -> dict[str, Any]:
        """The night played in wake order ends: every action given resolves as one night
        (`resolve_night`), seats not woken yet pass. Returns the dawn report."""
        w = self._wake
        self._wake = None
        try:
            if CALLS and self._answers is None and w is not None:  # with the decisions kept
                return self._decided("resolve_night", (w["actions"],), {}, w.get("answers", ()))
            return self.resolve_night(w["actions"] if w is not None else [])
        except Exception:
            self._wake = w
            raise

    def _preview(self, actions: Any) -> dict[str, Any]:
        """The night as resolved with these actions, on the side: the game is left as it was."""
        snap, aw, w = self._snapshot(), self._awaiting, self._wake
        self._wake = None
        try:
            return self.resolve_night(actions)
        finally:
            self._restore(snap)
            self._awaiting, self._wake, self._plan = aw, w, None

    def _accepts(self, raw: Any, vphase: str, number: int) -> bool:
        try:
            self._validate(raw, vphase, number, set(), {})
        except IllegalAction:
            return False
        return True

    def _trial_called_off(self, chaos: bool) -> bool:
        """Does the scheduled trial's `cancel when` hold, read on a day with this `chaos`? (The
        day then drops it: `trial` can change nothing.)"""
        actor, ab, a, b = self.trial[:4] if self.trial is not None else (0, -1, 0, 0)
        cancel = TRIAL_CANCEL.get(ab)
        if cancel is None:
            return False
        was, self.chaos = self.chaos, chaos
        try:
            return bool(cancel(self, actor, a, b))
        finally:
            self.chaos = was

    def waiting(self) -> dict[str, Any]:
        """The step the engine waits for now, and the inputs that may matter in it.

        `{"step": "resolve_night" | "resolve_day" | None, "phase", "number", "inputs": [...],
        "actors": [seats with at least one legal action]}`; `step` is None once there is a
        winner. Day inputs listed are those that can change something today. A decision
        awaited: `"resolve_choice"`; a night under way in wake order: `"wake"` (the woken seats
        that may act) or, nobody left to wake, `"end_night"`.
        """
        if self.over:
            return {
                "step": None,
                "phase": self.phase,
                "number": self.number,
                "inputs": [],
                "actors": [],
            }
        if self._awaiting is not None:  # a step is suspended until this decision is given
            return {
                "step": "resolve_choice",
                "phase": self.phase,
                "number": self.number,
                "inputs": ["choice"],
                "actors": [self._awaiting["seat"]],
            }
        if self._wake is not None:  # a night under way in wake order: wake(), end_night()
            nxt = self.next_wake()
            if nxt is None:
                return {
                    "step": "end_night",
                    "phase": "night",
                    "number": self.night,
                    "inputs": [],
                    "actors": [],
                }
            awake = nxt["ability"]
            return {
                "step": "wake",
                "phase": "night",
                "number": self.night,
                "inputs": ["actions"],
                "actors": [
                    s for s in nxt["seats"] if any(a[1] == awake for a in self.legal_actions(s))
                ],
            }
        seats = range(1, self.n + 1) if DEAD_ACTS else self.alive_seats()
        actors = [s for s in seats if self.legal_actions(s)]
        if self.phase == "night":
            return {
                "step": "resolve_night",
                "phase": "night",
                "number": self.night,
                "inputs": ["actions"],
                "actors": actors,
            }
        inputs = []
        quiet = self.day in QUIET_DAYS
        # resolve_day decides anew whether the day is a chaos day (a moderator step may have
        # changed the table since dawn), unless the day is played again
        chaos = self.chaos if self.repeat else bool(_chaos(self))
        rules = CHAOS if chaos else VOTE
        if rules is not None and not quiet:
            # a day of nominations takes them instead of `votes` (and has one round)
            nominating = rules.get("nominations", False)
            inputs += ["eliminate", "nominations" if nominating else "votes"]
            if rules["rounds"] != 1 and not chaos and not nominating:
                inputs.append("defense")
            if rules["tie"] == "runoff":
                inputs.append("runoff")
            if rules.get("judgement", False):  # the deciding round's innocent votes
                inputs.append("innocent")
        if self.trial is not None and not quiet and not self._trial_called_off(chaos):
            inputs.append("trial")
        if ELECTION is not None and _election_held(self):
            inputs.append("election")
        if (
            INQUIRY_MAX
            and not quiet
            and self.inquiries < INQUIRY_MAX
            and self.day >= INQUIRY_FROM_DAY
            and _inquiry_allowed(self)
        ):
            inputs.append("inquiry")
        if actors:
            inputs.append("actions")
        if EXPELLING_MASK and any(EXPELLING_MASK & self.marks[s] for s in self.alive_seats()):
            inputs.append("breach")
        if self.cards_on:
            inputs.append("card")
        return {
            "step": "resolve_day",
            "phase": "day",
            "number": self.day,
            "inputs": inputs,
            "actors": actors,
        }

    # ------------------------------------------------------------ playouts (docs/engine.md)
    # What a simulation needs, without listing every legal action: a uniformly random legal
    # action of one ability, the random player's inputs of a whole phase, and a cheap
    # snapshot to roll a game back to. The draw asks the same validation as legal_actions
    # (the ability's checks, the compiled target filters, then what reads the arguments), so
    # every action drawn is one legal_actions(seat, expand=True) lists.

    def draw_action(self, seat: Any, ability: Any, rng: Any) -> list[Any] | None:
        """A uniformly random action among those `legal_actions(seat, expand=True)` lists for
        `ability` (a full id), or None when it lists none; `rng` is a `random.Random`. Targets
        (and choices) are drawn from every seat (and id) and kept when the validation accepts
        them (rejection sampling: uniform over the accepted ones); after `_DRAW_TRIES` refused
        draws the accepted ones are listed and one is drawn among them (uniform too)."""
        if type(seat) is not int or not 1 <= seat <= self.n or type(ability) is not str:
            return None
        a = _AB_INDEX.get(ability, -1)
        if a < 0 or a not in self._held(seat):
            return None
        vphase = self._draw_phase(seat, a)
        if vphase is None:
            return None
        return self._draw_ability(seat, a, ability, vphase, self.number, rng)

    def _draw_phase(self, seat: int, a: int) -> str | None:
        """The validation phase `legal_actions` asks for ability `a` of `seat` now, or None
        when it lists nothing for it."""
        if self.over or self.repeat and self.phase == "night" or self._awaiting is not None:
            return None
        if not (self.alive[seat] or DEAD_ACTS):
            return None
        ph = AB_PHASE[a]
        if self.phase == "night":
            return "night" if ph in ("night", "any") else None
        if ph not in ("day", "vote", "any"):
            return None
        if ph == "vote":
            return None if self.chaos or VOTE is None else "vote"
        return "day"

    def _draw_ability(
        self, seat: int, a: int, full: str, vphase: str, number: int, rng: Any
    ) -> list[Any] | None:
        try:
            self._check_ability(seat, a, full, vphase, number, set(), {})
        except IllegalAction:
            return None
        filters, tables, rule = _DRAW_PLAN[a]
        n = self.n
        random = rng.random  # floor(random() * k): uniform within 2**-53 for k <= 256 seats
        for _ in range(_DRAW_TRIES):
            targets: list[int] = []
            for f in filters:
                targets.append(int(random() * n) + 1)
                if not f(self, seat, *targets):
                    break
            else:
                raw = [seat, full, *targets]
                for table in tables:
                    raw.append(table[int(random() * len(table))])
                if rule == 0:  # the filters decide
                    return raw
                if rule == 1:  # what is left reads the first target alone
                    if self._first_rule(seat, a, targets[0] if targets else 0, number) is None:
                        return raw
                elif self._accepts(raw, vphase, number):  # a `when`: the whole validation
                    return raw
        # refused every time: few actions are legal; list them and draw one
        legal = self._legal_for(seat, a, full, vphase, number, True)
        return legal[int(random() * len(legal))] if legal else None

    def draw_actions(self, rng: Any, act: float = 1.0, seats: Any = None) -> list[list[Any]]:
        """The random player's actions for the current phase (`maf simulate --policy random`):
        for each seat of `seats` (default: every seat by night, the living by day), each
        ability it may use now, in id order, with probability `act`, on a uniformly random
        legal action (draw_action); by day, vote-time abilities are left out (they need a
        counted vote). Of abilities that exclude each other one drawn uniformly at random is
        kept: a seat's (`exclusive`), then the table's (`table_exclusive`)."""
        night = self.phase == "night"
        if not (_NIGHT_ANY if night else _DAY_ANY):  # no role acts in this phase
            return []
        number = self.number
        if (
            self.over
            or (self.repeat and night)
            or self._awaiting is not None
            or number in (QUIET_NIGHTS if night else QUIET_DAYS)  # every ability refuses
        ):
            return []
        compiled = DRAW_NIGHT if night else ()
        draw_all = DRAW_ALL if night else None
        if FEATURE_STATUSES:
            if any(m & STATUS_MASK for m in self.marks):
                compiled, draw_all = (), None  # a status is carried: the generic draw
        if draw_all is not None and seats is None:
            return draw_all(self, rng, act)  # this loop by night, compiled per role
        if seats is None:
            seats = range(1, self.n + 1) if night else self.alive_seats()
        acts = _NIGHT_ROLE if night else _DAY_ROLE
        vphase = "night" if night else "day"
        usable = _NIGHT_ABILITY if night else _DAY_ABILITY
        own = (_OWN_HELD or _own_held())[0 if night else 1]
        rnd, partial = rng.random, act < 1.0
        role, alive, n = self.role, self.alive, self.n
        holders: dict[int, int] = {}  # a `held by` ability's holder, asked once
        out: list[list[Any]] = []
        for seat in seats:
            if type(seat) is not int or not 1 <= seat <= n or not (alive[seat] or DEAD_ACTS):
                continue
            r = role[seat]
            if not acts[r]:  # (most seats: no ability of this phase at all)
                continue
            held = own[r]  # its role's own abilities of this phase
            if HELD_AT_PLAY[r]:
                marks = self.marks[seat]
                more = []
                for a in HELD_AT_PLAY[r]:
                    if AB_GRANTED[a] >= 0:
                        if marks >> AB_GRANTED[a] & 1:
                            more.append(a)
                    else:
                        h = holders.get(a)
                        if h is None:
                            h = holders[a] = self.holder(a)
                        if h == seat:
                            more.append(a)
                if more:
                    held = tuple(a for a in sorted(HELD_BY_ROLE[r] + tuple(more)) if usable[a])
            mine: list[list[Any]] = []
            for a in held:
                if partial and rnd() >= act:
                    continue
                d = compiled[a] if compiled else None
                if d is not None:  # the spec's compiled draw (nightgen.render_draws)
                    action = d(self, seat, number, rnd)
                else:
                    action = self._draw_ability(seat, a, ABILITIES[a], vphase, number, rng)
                if action is not None:
                    mine.append(action)
            if mine:
                out += _one_per_group(mine, AB_EXCLUSIVE, rng) if len(mine) > 1 else mine
        return _one_per_group(out, AB_TABLE_GROUP, rng) if len(out) > 1 and _TABLE_ANY else out

    def playout(
        self, rng: Any, act: float = 1.0, max_days: int = 50, log: list[Any] | None = None
    ) -> tuple[str, Any] | None:
        """The random player's game from here on (`maf simulate --policy random`), each step
        drawn as the random policy draws it: by night `draw_actions(rng, act)`; by day
        `draw_actions(rng, act)`, then, on a day that votes, a uniformly random living seat
        eliminated. Each step the compiled night or day plays is played without a report
        (the state as resolve_night/resolve_day leaves it) and appended to `log` as a scenario
        step ({"night": actions} or {"day": {...}}). Returns None when the game is over or
        past day `max_days`; else the drawn inputs of a step they do not play, the game
        untouched by them: ("night", actions) or ("day", {"eliminate": seat, "actions": [...]},
        each key only when given), for the caller to submit (resolve_night(actions) or
        resolve_day(**kw)), and then to call playout again."""
        night_fast, day_fast = FAST_NIGHT, FAST_DAY
        if CALLS:  # decisions: the generic steps play them (Game._decided)
            night_fast = day_fast = None
        quiet = QUIET_DAYS if VOTE else None  # (without a day vote, nobody is eliminated)
        draw = self.draw_actions
        # draw_actions' common case called straight: by night the compiled draw of every seat
        # (DRAW_ALL) while none of draw_actions' guards holds; by day nothing where no role
        # acts by day - the same random numbers, the same actions
        draw_all: Any = DRAW_ALL if _NIGHT_ANY else None
        # ... and, where it may (PLAY_NIGHT), the drawn night played at once: the draw records
        # the compiled night's locals as it draws and, when every action is one the night's
        # validation accepts as it is, plays it past that validation (nightgen.render_draw_night)
        play: Any = PLAY_NIGHT if PLAY_NIGHT is draw_all and night_fast is not None else None
        # the day's elimination, rng.choice(self.alive_seats()), unrolled for a generator of
        # the stdlib's class: Random.choice(seq) is seq[Random._randbelow(len(seq))], drawn by
        # rejection, len(seq).bit_length() bits at a time - the same random numbers, the same
        # seat (tests/simulate/test_play_random.py plays it against RandomPolicy's own choice)
        bits = rng.getrandbits if rng.__class__ is _STD_RANDOM else None
        seats = range(1, self.n + 1)
        while self.winner is None and not self.over:
            if self.day > max_days:
                return None
            night = self.phase == "night"
            if not night:
                acts = draw(rng, act) if _DAY_ANY else []
            else:
                generic = draw_all is None or self.repeat or self._awaiting is not None
                if FEATURE_STATUSES:
                    # (a status carried: draw_actions draws generic)
                    generic = generic or any(m & STATUS_MASK for m in self.marks)
                if generic:
                    acts = draw(rng, act)
                elif self.night in QUIET_NIGHTS:
                    acts = []  # (every ability refuses)
                elif play is not None and self._wake is None:
                    acts, played = play(self, rng, act, True)
                    if played:  # (else validated below, as any drawn night)
                        if log is not None:
                            log.append({"night": acts})
                        continue
                else:
                    acts = draw_all(self, rng, act)
            if night:
                if night_fast is None or self._wake is not None:
                    return ("night", acts)
                if night_fast(self, acts, self.night) is None:  # (its report is dropped)
                    return ("night", acts)
                if log is not None:
                    log.append({"night": acts})
            else:
                kw: dict[str, Any] = {"actions": acts} if acts else {}
                if quiet is not None and self.day not in quiet:
                    living = [*compress(seats, self.alive[1:])]  # (alive_seats())
                    m = len(living)
                    if bits is None or not m:
                        kw["eliminate"] = rng.choice(living)
                    else:
                        k = m.bit_length()
                        r = bits(k)
                        while r >= m:
                            r = bits(k)
                        kw["eliminate"] = living[r]
                if day_fast is None or day_fast(self, kw.get("eliminate"), acts, False) is None:
                    return ("day", kw)
                if log is not None:
                    log.append({"day": kw})
        return None

    def snapshot(self) -> Any:
        """A copy of the game's state to roll back to (`rollback`): the pieces a step changes,
        each copied as deep as a step changes it in place (cheaper than `to_json`). For this
        game only, not a saved state (`to_json` is)."""
        return (self._snapshot(), _tree_copy(self._awaiting), _tree_copy(self._wake))

    def rollback(self, snap: Any) -> None:
        """Put the game back as it was when `snap` (from `snapshot`) was taken; the same
        snapshot may be rolled back to any number of times."""
        state, awaiting, wake = snap
        self._restore(state)
        self._restore(self._snapshot())  # the game plays on copies: `snap` stays as it was
        self._awaiting, self._wake, self._plan = _tree_copy(awaiting), _tree_copy(wake), None


# the ids a choice of each kind may name (`choose r: role`, `moderator chooses r: role`): every
# role but a title's (TITLE_ROLES), which no seat is ever dealt or made; every team
CHOICE_VALUES: dict[str, tuple[str, ...]] = {
    "role": tuple(r for i, r in enumerate(ROLES) if i not in TITLE_ROLES),
    "team": tuple(TEAMS),
}
_STD_RANDOM = random.Random  # (Game.playout unrolls its choice)
_DRAW_TRIES = 8  # refused random draws of one ability before its legal actions are listed
_TRIES = (0,) * _DRAW_TRIES  # (the compiled draws loop over it: no range() per draw)
_AB_INDEX = {name: a for a, name in enumerate(ABILITIES)}
# per ability: its target filters, the tables its choices draw from, and what of the
# validation is left once the filters pass (0: nothing, 1: the first target's rules, 2: the
# whole validation, for a `when` that may read every argument) - as legal_actions reads them
_DRAW_PLAN = tuple(
    (
        tuple(FILTERS[a][: AB_TARGETS[a]]),
        tuple(CHOICE_VALUES[k] for k in AB_CHOICES[a]),
        2 if WHEN[a] is not None else 1 if AB_SELF_PER_GAME[a] or AB_NOREPEAT[a] else 0,
    )
    for a in range(len(ABILITIES))
)
# the abilities the random player draws by night, and by day (vote-time ones need a vote)
_NIGHT_ABILITY = tuple(AB_PHASE[a] in ("night", "any") for a in range(len(ABILITIES)))
_DAY_ABILITY = tuple(AB_PHASE[a] in ("day", "any") for a in range(len(ABILITIES)))


# per role: may a seat of it hold one of those (its own, or passed down or granted at play)?
def _may_hold(usable: tuple[bool, ...]) -> tuple[bool, ...]:
    return tuple(
        any(
            usable[a] and (AB_ROLE[a] == r or r in AB_HOLDERS[a] or AB_GRANTED[a] >= 0)
            for a in range(len(ABILITIES))
        )
        for r in range(len(ROLES))
    )


_NIGHT_ROLE = _may_hold(_NIGHT_ABILITY)
# per role: its own abilities (HELD_BY_ROLE) the random player draws by night, and by day;
# filled at the first draw (HELD_BY_ROLE comes after this part of the runtime in an engine)
_OWN_HELD: list[tuple[tuple[int, ...], ...]] = []


def _own_held() -> list[tuple[tuple[int, ...], ...]]:
    if not _OWN_HELD:
        for usable in (_NIGHT_ABILITY, _DAY_ABILITY):
            _OWN_HELD.append(tuple(tuple(a for a in h if usable[a]) for h in HELD_BY_ROLE))
    return _OWN_HELD


_DAY_ROLE = _may_hold(_DAY_ABILITY)
_NIGHT_ANY, _DAY_ANY = any(_NIGHT_ROLE), any(_DAY_ROLE)
_TABLE_ANY = any(g >= 0 for g in AB_TABLE_GROUP)  # some abilities exclude each other table-wide


def _tree_copy(v: Any) -> Any:
    """A copy of nested lists, dicts and sets (tuples and scalars are shared)."""
    if type(v) is list:
        return [_tree_copy(x) for x in v]
    if type(v) is dict:
        return {k: _tree_copy(x) for k, x in v.items()}
    if type(v) is set:
        return set(v)
    return v


def _one_per_group(actions: list[list[Any]], groups: Any, rng: Any) -> list[list[Any]]:
    """`actions` with, of those whose abilities share a group (groups[ability] >= 0), one drawn
    uniformly at random; order kept."""
    members: dict[int, list[int]] = {}
    for i, action in enumerate(actions):
        g = groups[_AB_INDEX[action[1]]]
        if g >= 0:
            members.setdefault(g, []).append(i)
    if not members:
        return actions
    drop: set[int] = set()
    for idx in members.values():
        if len(idx) > 1:
            kept = idx[rng.randrange(len(idx))]
            drop.update(i for i in idx if i != kept)
    return [x for i, x in enumerate(actions) if i not in drop] if drop else actions


def expand_action(action: Sequence[Any]) -> list[list[Any]]:
    """The concrete actions of a compact `legal_actions` entry (choice slots holding tuples)."""
    out: list[list[Any]] = [[]]
    for v in action:
        out = [o + [x] for o in out for x in v] if isinstance(v, tuple) else [o + [v] for o in out]
    return out
