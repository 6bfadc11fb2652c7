# maf: omit
"""Saved states: `check_state` validates a `Game.to_json` state before it is restored.

Copied into every engine by the emitter (compiler/runtime/__init__.py); this block is not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from maf.compiler.runtime.spec import (
    AB_CHOICES,
    AB_PER_GAME,
    AB_PHASE,
    AB_TARGETS,
    ABILITIES,
    CAUSES,
    CLOSURE_TYPES,
    CLOSURES,
    FEATURE_MODERATOR,
    FIRST_PHASE,
    IMMUNE,
    INQUIRY_MAX,
    MAF_VERSION,
    MARKS,
    MAX_PLAYERS,
    MEMSLOTS,
    MIN_PLAYERS,
    MODERATOR_SITES,
    NIGHT_ORDER,
    ROLE_TEAM,
    ROLES,
    SETUP_MIDDLE,
    SPEC,
    SPEC_SHA256,
    START,
    TEAMS,
    VOTE,
    IllegalAction,
)
from maf.compiler.runtime.tables import (
    CALLS,
    CARDS,
    STEP_PHASE,
    TOMORROW_MARKS,
    _short,
)


# maf: end omit
# ---------------------------------------------------------------- saved states (generic)
class StateError(ValueError):
    """A saved state (`Game.from_json`) that this engine cannot restore; names the first problem."""


_STATE_KEYS: tuple[str, ...] = (
    "spec",
    "n",
    "roles",
    "teams",
    "alive",
    "phase",
    "day",
    "night",
    "chaos",
    "winner",
    "repeat",
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
    "initial",
    "absorbed",
    "ever",
    "later",
    "cards_on",
    "skip",
    "skips",
    "weight",
    "blocked",
    "visits",
    "delayed",
    "over",
    "winners",
    "votes",
    "death_cause",
)
_STATE_KEYS += ("awaiting",) if "call" in AB_PHASE else ()
if FEATURE_MODERATOR:
    # the moderator's choices suspend a step as decisions do
    if "call" not in AB_PHASE:
        _STATE_KEYS += ("awaiting",)
_STATE_KEYS += ("start_report", "start_pending") if START else ()
_STATE_KEYS += ("wake",)
_STATE_KEYS += ("maf_version", "spec_sha256")  # the stamp: the engine that wrote the state
_STATE_KEYS += ("middle",) if SETUP_MIDDLE else ()
# the votes each dead player keeps (`ghost votes`; tables.GHOSTS, which loads after this module)
_GHOSTS = VOTE.get("ghost", 0) if VOTE else 0
_STATE_KEYS += ("ghosts",) if _GHOSTS else ()  # the ghost votes the dead have spent
# absent in states saved before they were kept
_OPTIONAL_KEYS = frozenset(
    (
        "weight",
        "awaiting",
        "blocked",
        "visits",
        "delayed",
        "over",
        "winners",
        "votes",
        "death_cause",
        "start_report",
        "start_pending",
        "wake",
        "middle",
        "ghosts",
        "maf_version",
        "spec_sha256",
    )
)
_DAY_INPUTS = frozenset(
    (
        "eliminate",
        "votes",
        "defense",
        "trial",
        "inquiry",
        "actions",
        "breach",
        "card",
        "runoff",
        "election",
        "nominations",
        "innocent",
    )
)


def _bad(where: str, problem: str) -> NoReturn:
    raise StateError(f"invalid saved state: {where}: {problem}")


def _int(v: Any, where: str, lo: int | None = None, hi: int | None = None) -> int:
    if v.__class__ is not int:
        _bad(where, f"expected an integer, got {v!r}")
    if lo is not None and v < lo or hi is not None and v > hi:
        _bad(where, f"{v} is out of range {lo}..{'' if hi is None else hi}")
    return v


def _bool(v: Any, where: str) -> bool:
    if v.__class__ is not bool:
        _bad(where, f"expected true or false, got {v!r}")
    return v


def _str(v: Any, where: str) -> str:
    if v.__class__ is not str:
        _bad(where, f"expected a string, got {v!r}")
    return v


def _list(v: Any, where: str, length: int | None = None) -> list[Any]:
    if v.__class__ is not list:
        _bad(where, f"expected a list, got {type(v).__name__}")
    if length is not None and len(v) != length:
        _bad(where, f"expected {length} entries, got {len(v)}")
    return v


def _id(v: Any, table: tuple[str, ...], what: str, where: str) -> int:
    if v.__class__ is not str or v not in table:
        _bad(where, f"{v!r} is not a {what} id of {SPEC}")
    return table.index(v)


def _entries(v: Any, where: str, width: int) -> list[Any]:
    for k, e in enumerate(_list(v, where)):
        _list(e, f"{where}[{k}]", width)
    return v


def check_state(d: Any) -> None:
    """Validate the shape, types, ranges and consistency of a `to_json` state; raise StateError
    naming the first problem. Returns nothing: `Game.from_json` calls it before restoring."""
    if d.__class__ is not dict:
        _bad("state", f"expected a mapping, got {type(d).__name__}")
    if d.get("spec") != SPEC:
        _bad("spec", f"state is for spec {d.get('spec')!r}, not {SPEC!r}")
    _check_stamp(d)
    for key in _STATE_KEYS:
        if key not in d and key not in _OPTIONAL_KEYS:
            _bad(key, "missing")
    for key in d:
        if key not in _STATE_KEYS:
            _bad(str(key), "unknown key")
    n = _int(d["n"], "n", MIN_PLAYERS, MAX_PLAYERS)
    seat = lambda v, where: _int(v, where, 1, n)  # noqa: E731
    alive = _check_seats(d, n)
    phase, day, night = _check_clock(d)
    _check_end(d)
    _check_reports(d, n, seat)
    _check_uses(d, seat, max(day, night))
    _check_marks(d, n)
    _check_trial(d["trial"], d["uses"], seat)
    _int(d["inquiries"], "inquiries", 0, INQUIRY_MAX)
    _check_departed(d, n, alive, seat)
    _int(d["seed"], "seed")
    _int(d["draws"], "draws", 0)
    _check_history(d, seat)
    if _bool(d["cards_on"], "cards_on") and not CARDS:
        _bad("cards_on", f"{SPEC} has no cards")
    _bool(d["skip"], "skip")
    _int(d["skips"], "skips", 0, VOTE["skips"] if VOTE else 0)
    aw = d.get("awaiting")
    if aw is not None:
        _check_awaiting(aw, seat, phase)
    for k, r in enumerate(_list(d.get("middle", []), "middle")):
        _id(r, ROLES, "role", f"middle[{k}]")
    if _GHOSTS:
        spent = _entries(d.get("ghosts", []), "ghosts", 2)
        if len({e[0] for e in spent}) != len(spent):
            _bad("ghosts", "a seat appears twice")
        for k, (who, used) in enumerate(spent):  # (a revived seat keeps what it spent)
            seat(who, f"ghosts[{k}]")
            _int(used, f"ghosts[{k}]", 1, _GHOSTS)
    wk = d.get("wake")
    if wk is not None:
        _check_wake_state(wk, seat, phase)
    _check_weight(d, seat)
    _check_night_state(d, n, seat)


def _check_seats(d: dict[str, Any], n: int) -> list[bool]:
    """Each seat's role, team, life and first role; returns who is alive."""
    roles = [
        _id(r, ROLES, "role", f"roles[{k}]") for k, r in enumerate(_list(d["roles"], "roles", n))
    ]
    for k, t in enumerate(_list(d["teams"], "teams", n)):
        want = ROLE_TEAM[roles[k]]
        got = -1 if t is None else _id(t, TEAMS, "team", f"teams[{k}]")
        if got != want:
            _bad(
                f"teams[{k}]",
                f"seat {k + 1} ({ROLES[roles[k]]}) is on "
                f"{TEAMS[want] if want >= 0 else 'no team'}, not {t!r}",
            )
    alive = [_bool(a, f"alive[{k}]") for k, a in enumerate(_list(d["alive"], "alive", n))]
    [
        _id(r, ROLES, "role", f"initial[{k}]")
        for k, r in enumerate(_list(d["initial"], "initial", n))
    ]
    return alive


def _check_clock(d: dict[str, Any]) -> tuple[str, int, int]:
    """The phase and the day and night numbers; returns them."""
    phase = d["phase"]
    if phase not in ("day", "night"):
        _bad("phase", f"expected 'day' or 'night', got {phase!r}")
    day, night = _int(d["day"], "day", 0), _int(d["night"], "night", 0)
    # first day: a day is numbered one ahead of the night before it; first night: a night one
    # ahead of the day before it
    lead = (1 if phase == "day" else 0) if FIRST_PHASE == "day" else (0 if phase == "day" else -1)
    if day - night != lead or day + night == 0:
        _bad("day", f"day {day} and night {night} cannot be the numbers of a {phase}")
    _bool(d["chaos"], "chaos")
    if d["chaos"] and phase == "night":
        _bad("chaos", "a night is never chaotic")
    if _bool(d["repeat"], "repeat") and phase == "night":
        _bad("repeat", "only a day repeats")
    return phase, day, night


def _check_end(d: dict[str, Any]) -> None:
    """The winner, the winners and whether the game is over."""
    w = d["winner"]
    if w is not None and (w.__class__ is not str or w not in TEAMS and w not in ROLES):
        _bad("winner", f"{w!r} is neither a team nor a role id")
    over = _bool(d.get("over", w is not None), "over")
    if w is not None and not over:
        _bad("over", "a game with a winner is over")
    winners = _list(d.get("winners", []), "winners")
    for k, x in enumerate(winners):
        if x.__class__ is not str or x not in TEAMS and x not in ROLES:
            _bad(f"winners[{k}]", f"{x!r} is neither a team nor a role id")
    if winners and not over or w is not None and winners and winners[0] != w:
        _bad("winners", f"{winners!r} does not fit the game's end (winner {w!r})")


def _check_reports(d: dict[str, Any], n: int, seat: Callable[[Any, str], int]) -> None:
    """The votes, the causes of death and the start's pending report."""
    for k, (v, a) in enumerate(_entries(d.get("votes", []), "votes", 2)):
        seat(v, f"votes[{k}]")
        seat(a, f"votes[{k}]")
    for k, (s, c) in enumerate(_entries(d.get("death_cause", []), "death_cause", 2)):
        seat(s, f"death_cause[{k}]")
        _id(c, CAUSES, "cause", f"death_cause[{k}]")
    if d.get("start_pending") is not None:
        _bool(d["start_pending"], "start_pending")
    sr = d.get("start_report")
    if sr is None:
        if d.get("start_pending"):  # the first step would add a report that is not there
            _bad("start_report", "expected the pending start report, got none")
        return
    if sr.__class__ is not dict or set(sr) != {"deaths", "public", "private", "changes"}:
        _bad("start_report", "expected deaths, public, private and changes")
    [_int(s, "start_report.deaths", 1, n) for s in _list(sr["deaths"], "start_report.deaths")]
    [_str(t, "start_report.public") for t in _list(sr["public"], "start_report.public")]
    if sr["private"].__class__ is not dict:
        _bad("start_report.private", "expected a mapping")
    for s, texts in sr["private"].items():
        _int(int(s) if s.__class__ is str and s.isdigit() else s, "start_report.private", 1, n)
        [_str(t, "start_report.private") for t in _list(texts, "start_report.private")]
    _list(sr["changes"], "start_report.changes")


def _check_uses(d: dict[str, Any], seat: Callable[[Any, str], int], last: int) -> None:
    """The uses of each ability and its last targets (`last`: the latest phase number)."""
    for key in ("uses", "self_uses"):
        seen = set()
        for k, (s, a, c) in enumerate(_entries(d[key], key, 3)):
            where = f"{key}[{k}]"
            seat(s, where)
            ab = _id(a, ABILITIES, "ability", where)
            _int(c, where, 0, AB_PER_GAME[ab] if key == "uses" and AB_PER_GAME[ab] else None)
            if (s, ab) in seen:
                _bad(where, f"seat {s} and {a} appear twice")
            seen.add((s, ab))
    for k, (s, a, num, t) in enumerate(_entries(d["last_target"], "last_target", 4)):
        seat(s, f"last_target[{k}]")
        _id(a, ABILITIES, "ability", f"last_target[{k}]")
        _int(num, f"last_target[{k}]", 0, last)
        seat(t, f"last_target[{k}]")


def _check_marks(d: dict[str, Any], n: int) -> None:
    """Each seat's marks and memory slots."""
    for k, ms in enumerate(_list(d["marks"], "marks", n)):
        ids = [_id(m, MARKS, "mark", f"marks[{k}]") for m in _list(ms, f"marks[{k}]")]
        if len(set(ids)) != len(ids):
            _bad(f"marks[{k}]", "a mark appears twice")
    for k, m in enumerate(_list(d["memory"], "memory", n)):
        if m.__class__ is not dict:
            _bad(f"memory[{k}]", "expected a mapping")
        for slot, v in m.items():
            if slot.__class__ is not str or not slot.isdigit() or int(slot) >= len(MEMSLOTS):
                _bad(f"memory[{k}]", f"no memory slot {slot!r}")
            _int(v, f"memory[{k}][{slot}]", 0, n)  # a seat, or 0: none


def _check_trial(t: Any, uses: list[Any], seat: Callable[[Any, str], int]) -> None:
    """The trial under way, if any (`uses`: the state's checked uses)."""
    if t is None:
        return
    _list(t, "trial", 7)
    seat(t[0], "trial[0]")
    _id(t[1], ABILITIES, "ability", "trial[1]")
    seat(t[2], "trial[2]")
    seat(t[3], "trial[3]")
    if t[2] > t[3]:
        _bad("trial", "the accused seats are not in order")
    _bool(t[4], "trial[4]")
    _bool(t[5], "trial[5]")
    if t[6] not in ("none", "lottery", "runoff", "repeat"):
        _bad("trial[6]", f"unknown tie rule {t[6]!r}")
    if t[4] and not any(u[0] == t[0] and u[1] == t[1] and u[2] >= 1 for u in uses):
        _bad("trial", f"a refundable trial by seat {t[0]} that {t[1]} never charged")


def _check_departed(
    d: dict[str, Any], n: int, alive: list[bool], seat: Callable[[Any, str], int]
) -> None:
    """The departed seats (and their teams) are the dead ones."""
    gone = []
    for k, (s, tm) in enumerate(_entries(d["departed"], "departed", 2)):
        gone.append(seat(s, f"departed[{k}]"))
        if tm is not None:
            _id(tm, TEAMS, "team", f"departed[{k}]")
    dead = [s for s in range(1, n + 1) if not alive[s - 1]]
    if sorted(gone) != dead:
        _bad("departed", f"the departed seats {sorted(gone)} are not the dead seats {dead}")


def _check_history(d: dict[str, Any], seat: Callable[[Any, str], int]) -> None:
    """Absorbed attacks, every target ever chosen and the marks due tomorrow."""
    for k, (s, i, c) in enumerate(_entries(d["absorbed"], "absorbed", 3)):
        seat(s, f"absorbed[{k}]")
        _int(i, f"absorbed[{k}]", 0, max(len(x) for x in IMMUNE) - 1 if IMMUNE else 0)
        _int(c, f"absorbed[{k}]", 0)
    for k, (s, a, ts) in enumerate(_entries(d["ever"], "ever", 3)):
        seat(s, f"ever[{k}]")
        _id(a, ABILITIES, "ability", f"ever[{k}]")
        [seat(x, f"ever[{k}]") for x in _list(ts, f"ever[{k}]")]
    for k, (s, m) in enumerate(_entries(d["later"], "later", 2)):
        seat(s, f"later[{k}]")
        if _id(m, MARKS, "mark", f"later[{k}]") not in TOMORROW_MARKS:
            _bad(f"later[{k}]", f"{m} is not an `until tomorrow` mark")


def _check_wake_state(wk: Any, seat: Callable[[Any, str], int], phase: str) -> None:
    """A night played in wake order: its position, actions and kept answers."""
    if not isinstance(wk, dict) or set(wk) - {"answers"} != {"pos", "actions"}:
        _bad("wake", "expected {pos, actions} (and answers)")
    if phase != "night":
        _bad("wake", "a night in wake order outside the night")
    _int(wk["pos"], "wake.pos", 0, len(NIGHT_ORDER))
    for k, raw in enumerate(_list(wk["actions"], "wake.actions")):
        _list(raw, f"wake.actions[{k}]")
    for k, a in enumerate(_list(wk.get("answers", []), "wake.answers")):
        _kept_decision(a, f"wake.answers[{k}]", seat)


def _check_weight(d: dict[str, Any], seat: Callable[[Any, str], int]) -> None:
    """The seats whose vote weighs other than one."""
    seen = set()
    for k, (s, v) in enumerate(_entries(d.get("weight", []), "weight", 2)):
        seat(s, f"weight[{k}]")
        _int(v, f"weight[{k}]")
        if s in seen:
            _bad(f"weight[{k}]", f"seat {s} appears twice")
        seen.add(s)


def _check_night_state(d: dict[str, Any], n: int, seat: Callable[[Any, str], int]) -> None:
    """Blocks, last night's visits and pending delayed effects (issue 7)."""
    blocked = _entries(d.get("blocked", []), "blocked", 2)
    if len({b[0] for b in blocked}) != len(blocked):
        _bad("blocked", "a seat appears twice")
    for k, (s, b) in enumerate(blocked):
        seat(s, f"blocked[{k}]")
        _int(b, f"blocked[{k}]", 0, n)
    for k, (s, ts) in enumerate(_entries(d.get("visits", []), "visits", 2)):
        seat(s, f"visits[{k}]")
        [seat(x, f"visits[{k}]") for x in _list(ts, f"visits[{k}]")]
    top = {"seat": n, "role": len(ROLES) - 1, "team": len(TEAMS) - 1, "cause": len(CAUSES) - 1}
    for k, (nt, c, s, vals) in enumerate(_entries(d.get("delayed", []), "delayed", 4)):
        where = f"delayed[{k}]"
        _int(nt, where, 0)
        _int(c, where, 0, len(CLOSURES) - 1)
        _int(s, where, 0, n)
        types = CLOSURE_TYPES[c]
        for v, t in zip(_list(vals, where, len(types)), types, strict=True):
            _int(v, where, -1 if t == "team" else 0, top.get(t))


def _check_called(aw: Any, seat: Callable[[Any, str], int]) -> None:
    """An awaited decision of a seat: an `on call` ability, its first targets."""
    seat(aw["seat"], "awaiting.seat")
    ab = _id(aw["ability"], ABILITIES, "ability", "awaiting.ability")
    if aw["targets"] != AB_TARGETS[ab] or aw["choices"] != list(AB_CHOICES[ab]):
        _bad("awaiting", f"targets and choices are not those of {aw['ability']}")
    [seat(x, "awaiting.options") for x in _list(aw["options"], "awaiting.options")]


if FEATURE_MODERATOR:

    def _check_moderated(aw: Any, seat: Callable[[Any, str], int]) -> None:
        """An awaited moderator's choice: its id (a `moderator chooses`, or a role's
        registration), one value of a kind, the seat read (`about`) or None, the options."""
        site = aw["ability"]
        if site.__class__ is not str or not (
            site in MODERATOR_SITES or site.endswith(":registers") and site[:-10] in ROLES
        ):
            _bad("awaiting.ability", f"no moderator's choice {_short(site)}")
        if aw["targets"] != 0 or aw["choices"].__class__ is not list or len(aw["choices"]) != 1:
            _bad("awaiting", "a moderator's choice takes one value")
        if aw["choices"][0] not in ("seat", "role", "team", "number", "kind"):
            _bad("awaiting.choices", f"no kind {_short(aw['choices'][0])}")
        if aw["about"] is not None:
            seat(aw["about"], "awaiting.about")
        for x in _list(aw["options"], "awaiting.options"):
            if x is not None and x.__class__ not in (int, str):
                _bad("awaiting.options", f"not a value: {_short(x)}")


def _check_awaiting(aw: Any, seat: Callable[[Any, str], int], phase: str) -> None:
    """The suspended step of a spec with `on call` abilities (see resolve_choice)."""
    if aw.__class__ is not dict:
        _bad("awaiting", "expected a mapping or null")
    want: tuple[str, ...] = (
        *("seat", "ability", "targets", "choices", "options", "step", "args", "kw", "answers"),
    )
    if FEATURE_MODERATOR:
        if aw.get("seat") == "moderator":  # the moderator's choice (its id, kind, `about`)
            want += ("about",)
    if sorted(aw) != sorted(want):
        _bad("awaiting", f"expected the keys {', '.join(want)}")
    if FEATURE_MODERATOR:
        if aw["seat"] == "moderator":
            _check_moderated(aw, seat)
        else:
            _check_called(aw, seat)
    else:
        _check_called(aw, seat)
    step = aw["step"]
    if step.__class__ is not str or step not in STEP_PHASE:
        _bad("awaiting.step", f"no step {step!r}")
    if STEP_PHASE[step] in ("day", "night") and STEP_PHASE[step] != phase:
        _bad("awaiting.step", f"a {STEP_PHASE[step]} step cannot be suspended in a {phase}")
    args = _list(aw["args"], "awaiting.args", 0 if step == "resolve_day" else 1)
    if step.startswith("moderator_"):
        seat(args[0], "awaiting.args")
    if aw["kw"].__class__ is not dict or step != "resolve_day" and aw["kw"]:
        _bad("awaiting.kw", "expected the day's inputs (a mapping)")
    for key in aw["kw"]:
        if key not in _DAY_INPUTS:
            _bad("awaiting.kw", f"no day input {key!r}")
    for k, a in enumerate(_list(aw["answers"], "awaiting.answers")):
        if a.__class__ is dict:  # kept by a night in wake order
            _kept_decision(a, f"awaiting.answers[{k}]", seat)
        else:
            _list(a, f"awaiting.answers[{k}]")


def _kept_decision(a: Any, where: str, seat: Callable[[Any, str], int]) -> None:
    """A decision kept by a night in wake order: {seat, ability (an `on call` one), values}."""
    if a.__class__ is not dict or set(a) != {"seat", "ability", "values"}:
        _bad(where, "expected {seat, ability, values}")
    if FEATURE_MODERATOR:
        if a["seat"] == "moderator":  # a moderator's choice: checked again when it is used
            if a["ability"].__class__ is not str:
                _bad(f"{where}.ability", "expected the id of a moderator's choice")
            _list(a["values"], f"{where}.values")
            return
    seat(a["seat"], f"{where}.seat")
    if AB_PHASE[_id(a["ability"], ABILITIES, "ability", f"{where}.ability")] != "call":
        _bad(f"{where}.ability", f"{a['ability']} is not an `on call` ability")
    _list(a["values"], f"{where}.values")


def _release(version: Any) -> str:
    """A maf version's release line ("0.1" of "0.1.3"): states move only within one."""
    return ".".join(str(version).split(".")[:2])


def _check_stamp(d: dict[str, Any]) -> None:
    """The stamp of the engine that wrote the state (to_json): the same spec text (its hash)
    and a maf of the same release line. A state saved before the stamp existed has neither."""
    if "maf_version" not in d and "spec_sha256" not in d:
        return
    v, h = d.get("maf_version"), d.get("spec_sha256")
    if v.__class__ is not str or _release(v) != _release(MAF_VERSION):
        _bad(
            "maf_version",
            f"state written by maf {_short(v)}, which this engine (maf {MAF_VERSION}) cannot read",
        )
    if h != SPEC_SHA256:
        _bad(
            "spec_sha256",
            f"state is for another text of spec {SPEC!r} (sha256 {_short(h)}, "
            f"this engine's {SPEC_SHA256[:16]}...)",
        )


def check_suspended(g: Any) -> None:
    """The suspended inputs of a restored game (`Game.from_json`), checked as the engine checks
    them when they are first given: the actions of a night in wake order as that night checks
    them (each in its wake, by a living seat that holds it), its kept decisions by resolving the
    night with them, and an awaited decision by playing the suspended step again with the
    decisions given so far: it must stop at the same seat's same decision. Raises StateError."""
    wake, aw = g._wake, g._awaiting
    g._awaiting = None
    if wake is not None:
        _check_wake(g, wake)
    if aw is None:
        return
    try:
        g._replay(aw["step"], aw["args"], aw["kw"], _copy_json(aw["answers"]))
    except IllegalAction as e:
        _bad("awaiting", f"the suspended step {aw['step']} is refused: {e}")
    got = g._awaiting
    if got is None:
        _bad("awaiting", f"the suspended step {aw['step']} awaits no decision")
    if got != aw:
        _bad(
            "awaiting",
            f"the suspended step awaits seat {got['seat']}'s {got['ability']} "
            f"(options {got['options']}, after {len(got['answers'])} decision(s)), not what the "
            f"state says (seat {_short(aw['seat'])}'s {_short(aw['ability'])})",
        )


def _check_wake(g: Any, wake: dict[str, Any]) -> None:
    actions, pos = wake["actions"], wake["pos"]
    kept = g._wake_actions(actions)
    for k, raw in enumerate(actions):
        if k >= len(kept) or kept[k] is not raw:
            try:  # the night's own reason
                g._validate(raw, "night", g.night, set(), {})
            except IllegalAction as e:
                _bad(f"wake.actions[{k}]", str(e))
            _bad(f"wake.actions[{k}]", "the night tonight refuses it (with the actions before it)")
    last = 0
    for k, raw in enumerate(actions):
        ab = g._named(raw[0], raw[1])
        slot = NIGHT_ORDER.index(ab) if ab in NIGHT_ORDER else -1
        if not last <= slot < pos:
            _bad(f"wake.actions[{k}]", f"{ABILITIES[ab]} is not woken before position {pos}")
        last = slot
    answers = wake.get("answers", [])
    if CALLS and g._wake_answers(actions, answers) != answers:
        _bad("wake.answers", "decisions the night does not take, in this order")
    if not CALLS and answers:
        _bad("wake.answers", f"{SPEC} asks for no decisions")


def _copy_json(v: Any) -> Any:
    if v.__class__ is list:
        return [_copy_json(x) for x in v]
    if v.__class__ is dict:
        return {k: _copy_json(x) for k, x in v.items()}
    return v
