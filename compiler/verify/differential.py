"""Differential testing: a generated engine against the reference interpreter
(compiler/verify/interp.py).

Random full games, seeded, with legal and illegal steps, days with votes, moderator steps and
JSON round trips. After every step both must agree on the outcome (the report, or the rejection's
seat, ability and rule code), on the whole `to_json()` state and on what a bot reads of the game
(`waiting()`, `held_abilities` of every seat, `alive_seats()`, the phase and its number; also
when a game starts and after a round trip; not after a rejected step, which changed nothing);
now and then their `legal_actions` are compared too. The first divergence comes back as a
scenario (YAML) that replays the game up to the diverging step, expecting what the interpreter
did.

Used by tests/test_differential.py and by `maf fuzz --differential SPEC --steps N`.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml

from maf.compiler.driver import compile_file, load_engine
from maf.compiler.tools import deal
from maf.compiler.verify import interp


@dataclass
class Divergence:
    what: str  # what differed: outcome, state, bot view, legal actions, crash
    step: int  # the step (counted over the whole run) at which it happened
    engine: object  # what the engine did
    oracle: object  # what the interpreter did
    scenario: str  # YAML replaying the game up to the diverging step


@dataclass
class Stats:
    steps: int = 0
    rejected: int = 0
    games: int = 0
    round_trips: int = 0
    legal_checks: int = 0
    draw_checks: int = 0  # the random player's draws compared (draw_actions)
    playouts: int = 0  # games played out by the random player on both sides (playout)
    bot_views: int = 0  # bot views compared (each game's start, accepted steps, round trips)
    rules: dict = field(default_factory=dict)
    kinds: dict = field(default_factory=dict)  # accepted steps by kind (night, day, choices...)


def _outcome(eng, fn):
    try:
        return ("ok", fn())
    except eng.IllegalAction as e:
        return ("illegal", (e.seat, e.ability, e.rule))
    except Exception as e:  # a crash is a finding, reported as such
        return ("crash", f"{type(e).__name__}: {e}")


def _plain(v):
    """Reports compared as JSON data (int keys -> str), so both sides compare alike."""
    return json.loads(json.dumps(v, sort_keys=True, default=repr))


def _bot_view(g) -> dict[str, Any]:
    """What a bot reads of a game (docs/engine.md, "Driving a game"), as compared."""
    return {
        "phase": g.phase,
        "number": g.number,
        "alive": g.alive_seats(),
        "waiting": g.waiting(),
        "held": {s: g.held_abilities(s) for s in range(1, g.n + 1)},
    }


def _view_differences(mine: dict, theirs: dict) -> dict[str, Any]:
    """The parts of two bot views that differ, as a scenario's final `expect` checks them
    (the interpreter's side): `waiting` keys, `held` seats, `alive`; `phase` and `number`
    under `waiting`, which carries them too."""
    want: dict[str, Any] = {}
    for key in ("phase", "number"):
        if mine[key] != theirs[key]:
            want.setdefault("waiting", {})[key] = theirs[key]
    waits = {k: v for k, v in theirs["waiting"].items() if mine["waiting"].get(k) != v}
    if waits or mine["waiting"].keys() != theirs["waiting"].keys():
        want["waiting"] = {**want.get("waiting", {}), **waits}
    if mine["alive"] != theirs["alive"]:
        want["alive"] = theirs["alive"]
    held = {s: v for s, v in theirs["held"].items() if mine["held"].get(s) != v}
    if held:
        want["held"] = held
    return want


LEGAL_GAMES = 0.25  # the share of games whose nights are drawn from legal_actions


def _yamlable(v):
    """Step inputs for a scenario file: tuples become lists, seat keys stay ints (a vote
    `{4: [1, 2]}` must replay with seat 4, not the string '4')."""
    if isinstance(v, dict):
        return {
            k if isinstance(k, (int, str)) and not isinstance(k, bool) else repr(k): _yamlable(x)
            for k, x in v.items()
        }
    if isinstance(v, (list, tuple)):
        return [_yamlable(x) for x in v]
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    return repr(v)


class _Player:
    """Draws random inputs for one game, from the engine's static tables only."""

    def __init__(self, eng, rng: random.Random, legal: bool = False):
        self.eng, self.rng, self.legal = eng, rng, legal
        self.names: dict[str, list[int]] = {}
        for a in range(len(eng.ABILITIES)):
            self.names.setdefault(eng.AB_PHASE[a], []).append(a)
        self.held = [
            a for a in range(len(eng.ABILITIES)) if eng.AB_HOLDERS[a] or eng.AB_GRANTED[a] >= 0
        ]

    def woken(self, g) -> list:
        """The actions of the seats next_wake() names, for its ability (each seat acts or
        passes); now and then a seat or an ability not awake."""
        rng, nxt = self.rng, g.next_wake()
        seats = nxt["seats"] if nxt else []
        acts = [
            self.action(g, s, ("night", "any"), only=nxt["ability"])
            for s in seats
            if rng.random() < 0.7
        ]
        if rng.random() < 0.03:
            acts.append(self.action(g, rng.randint(1, g.n), ("night", "any")))
        return [a for a in acts if a is not None]

    def action(self, g, seat, phases, only=None):
        """An action of `seat`: mostly one of the abilities it holds, now and then any."""
        eng, rng = self.eng, self.rng
        cands = []
        life = getattr(eng, "AB_LIFE", None)
        if 1 <= seat <= g.n:
            cands = [
                a
                for a in eng.ROLE_ABILITIES[g.role[seat]]
                if not eng.AB_HOLDERS[a] and eng.AB_GRANTED[a] < 0
            ]
            if life is not None and rng.random() < 0.9:  # mostly one its holder may use now
                ok = ("alive", "both") if g.alive[seat] else ("dead", "both")
                cands = [a for a in cands if life[a] in ok]
            cands += [
                a
                for a in self.held
                if (
                    g.marks[seat] >> eng.AB_GRANTED[a] & 1  # a bit mask per seat (Game.marks)
                    if eng.AB_GRANTED[a] >= 0
                    else g.holder(a) == seat
                )
            ]
        cands = [a for a in cands if eng.AB_PHASE[a] in phases]
        if only is not None and rng.random() < 0.97:
            cands = [eng.ABILITIES.index(only)]
        if rng.random() < 0.02:
            cands = list(range(len(eng.ABILITIES)))
        if not cands:
            return None
        a = rng.choice(cands)
        alive = [s for s in range(1, g.n + 1) if g.alive[s]] or [1]
        targets: list[int] = []
        for k in range(eng.AB_TARGETS[a]):
            pool = alive
            if rng.random() < 0.9 and 1 <= seat <= g.n:  # mostly a target its filter accepts
                pool = [t for t in alive if eng.FILTERS[a][k](g, seat, *targets, t)] or alive
            targets.append(rng.choice(pool) if rng.random() < 0.97 else rng.randint(0, g.n + 1))
        choices = [
            rng.choice(eng.ROLES if k == "role" else eng.TEAMS) if rng.random() < 0.97 else "nobody"
            for k in eng.AB_CHOICES[a]
        ]
        name = eng.AB_NAME[a] if rng.random() < 0.7 else eng.ABILITIES[a]
        act = [seat, name, *targets, *choices]
        if rng.random() < 0.02:
            act = act[: rng.randint(0, len(act))] + (
                [rng.randint(0, 3)] if rng.random() < 0.5 else []
            )
        return act

    def night(self, g):
        rng = self.rng
        if self.legal and hasattr(g, "legal_actions"):
            # a game of legal nights (deeper games): each seat, mostly, one action it may take
            acts = []
            groups: set = set()
            for s in range(1, g.n + 1):
                options = [a for a in g.legal_actions(s, expand=True) if a[1] not in groups]
                if options and rng.random() < 0.8:
                    act = rng.choice(options)
                    if self.eng.AB_TABLE_GROUP[self.eng.ABILITIES.index(act[1])] >= 0:
                        groups.add(act[1])
                    acts.append(act)
            rng.shuffle(acts)
            return acts
        alive = [s for s in range(1, g.n + 1) if g.alive[s]]
        busy = 0.05 if g.night in self.eng.QUIET_NIGHTS else 0.6
        acts = [self.action(g, s, ("night", "any")) for s in alive if rng.random() < busy]
        life = getattr(self.eng, "AB_LIFE", None)
        if life is not None:  # the dead who have an ability of the dead use it now and then
            acts += [
                self.action(g, s, ("night", "any"))
                for s in range(1, g.n + 1)
                if not g.alive[s]
                and any(life[a] != "alive" for a in self.eng.ROLE_ABILITIES[g.role[s]])
                and rng.random() < busy / 2
            ]
        if rng.random() < 0.03:
            acts.append(self.action(g, rng.randint(0, g.n + 1), ("night", "any", "day")))
        acts = [a for a in acts if a is not None]
        rng.shuffle(acts)
        return acts

    def choice(self, g, aw):
        """A decision for the awaited `call` (resolve_choice): mostly one of the offered first
        targets, sometimes a refusal, a wrong seat, a wrong target or a wrong arity."""
        rng, n = self.rng, g.n
        seat = aw["seat"] if rng.random() < 0.95 else rng.randint(0, n + 1)
        if rng.random() < 0.15:
            return seat, []
        if aw["seat"] == "moderator":  # one of the options, now and then another value
            if rng.random() < 0.9 and aw["options"]:
                return seat, [rng.choice(aw["options"])]
            return seat, [rng.choice([rng.randint(0, n + 1), *self.eng.ROLES])]
        options = aw["options"] or list(range(1, n + 1))
        values = [rng.choice(options) if rng.random() < 0.9 else rng.randint(0, n + 1)]
        values = values[: aw["targets"]]
        values += [rng.randint(1, n) for _ in range(aw["targets"] - 1)]
        values += [
            rng.choice(self.eng.ROLES if k == "role" else self.eng.TEAMS) for k in aw["choices"]
        ]
        if rng.random() < 0.03:
            values = values[:-1] if values and rng.random() < 0.5 else values + [1]
        return seat, values

    def day(self, g):
        eng, rng = self.eng, self.rng
        alive = [s for s in range(1, g.n + 1) if g.alive[s]] or [1]
        kw: dict[str, Any] = {}  # resolve_day's keyword arguments
        r = rng.random()
        if g.day in eng.QUIET_DAYS and rng.random() < 0.95:
            r = 1
        rules = getattr(eng, "VOTE", None) or {}
        if r < 0.15:
            kw["eliminate"] = rng.choice(alive)
        elif r < 0.75 and rules.get("nominations"):  # a day of nominations (the dead may vote)
            seats = list(range(1, g.n + 1))
            noms: list[dict[str, Any]] = []
            for _ in range(rng.randint(0, 3)):
                voters = [v for v in seats if rng.random() < (0.5 if g.alive[v] else 0.2)]
                noms.append({"by": rng.choice(alive), "nominee": rng.choice(alive)})
                if voters or rng.random() < 0.5:
                    noms[-1]["voters"] = voters
            kw["nominations"] = noms
        elif r < 0.75:
            votes: dict[int, list[int]] = {}
            top = rng.sample(alive, min(len(alive), rng.randint(1, 3)))
            for v in alive:
                if rng.random() < 0.85:
                    votes.setdefault(rng.choice(top), []).append(v)
            kw["votes"] = votes
            if rng.random() < 0.7:
                defense: dict[int, list[int]] = {}
                for v in alive:
                    if rng.random() < 0.8:
                        defense.setdefault(rng.choice(top), []).append(v)
                kw["defense"] = defense
            if rng.random() < 0.1:
                kw["runoff"] = {rng.choice(top): [v for v in alive if rng.random() < 0.5]}
            if rules.get("judgement") and rng.random() < 0.6:  # innocent votes, some also guilty
                kw["innocent"] = [v for v in alive if rng.random() < 0.3]
        if g.trial is not None and rng.random() < 0.6:
            a, b = g.trial[2], g.trial[3]
            kw["trial"] = rng.choice(
                (
                    {"cancel": True},
                    {"eliminate": rng.choice((a, b))},
                    {
                        "votes": {
                            a: [v for v in alive if v not in (a, b) and rng.random() < 0.5],
                            b: [v for v in alive if v not in (a, b) and rng.random() < 0.3],
                        }
                    },
                )
            )
            if "votes" in kw["trial"] and rng.random() < 0.3:  # (a judgement's innocent votes)
                kw["trial"]["innocent"] = [v for v in alive if rng.random() < 0.3]
        if rng.random() < 0.08:
            kw["inquiry"] = [v for v in alive if rng.random() < 0.7]
        if rng.random() < (0.4 if getattr(eng, "ELECTION", None) is not None else 0.01):
            ballots: dict = {}
            top = rng.sample(alive, min(len(alive), rng.randint(1, 3)))
            for v in alive:
                if rng.random() < 0.8:
                    ballots.setdefault(rng.choice(top), []).append(v)
            kw["election"] = ballots
        busy = 0.01 if g.day in eng.QUIET_DAYS else 0.12
        acts = [self.action(g, s, ("day", "vote", "any")) for s in alive if rng.random() < busy]
        acts = [a for a in acts if a is not None]
        if acts:
            kw["actions"] = acts
        if rng.random() < 0.05:
            kw["breach"] = [rng.choice(alive)]
        cards = [a for a, ph in enumerate(eng.AB_PHASE) if ph == "card"]
        if cards and rng.random() < 0.15:
            a = rng.choice(cards)
            kw["card"] = (
                [eng.AB_NAME[a]]
                + [rng.choice(alive) for _ in range(eng.AB_TARGETS[a])]
                + [rng.choice(eng.ROLES) for _ in eng.AB_CHOICES[a]]
            )
        if rng.random() < 0.01:
            kw[rng.choice(("votes", "eliminate", "defense", "trial"))] = rng.choice(
                ("x", 0, -3, [1], {0: [1]}, {"1": 2})
            )
        return kw


def _wake(g, acts: list) -> dict:
    """A `wake` step as a scenario records it: the night so far, and who was woken."""
    woken = g.next_wake()
    return dict(g.wake(json.loads(json.dumps(acts))), woken=woken)


# random tables tried per game for a custom setup (`any where`): a rule that accepts one table in
# a hundred still deals one (a hundred tries missed it a third of the time, ending the run)
CUSTOM_TRIES = 2000


class NoTable(Exception):
    """The random player finds no table the spec accepts (nothing to play)."""


def _table(eng, ref, rng: random.Random) -> list[str]:
    """A seat list: a fixed setup's, or a random table a custom setup (`any where`) accepts —
    both sides must accept or refuse the same tables (the oracle is asked about every table
    the engine accepts and about one in ten it refuses)."""
    custom = getattr(eng, "CUSTOM_SETUPS", ())
    if custom and (not eng.SETUPS or rng.random() < 0.5):
        _label, lo, hi, _rule = rng.choice(custom)
        size = rng.randint(lo, hi)
        if deal.rare(eng, size):  # strict tables (e.g. werewolf's): dealt from their enumeration
            try:
                seats = deal.custom_table(eng, rng, size, tries=0)
            except deal.DealError:  # too many to enumerate: the random tries below
                seats = None
            if seats is not None:
                for other in [seats] + [[rng.choice(eng.ROLES) for _ in seats] for _ in range(9)]:
                    took = _accepts(eng, other)
                    if _accepts(ref, other) != took:
                        raise AssertionError(
                            f"setup {other}: engine accepts: {took}, oracle: {not took}"
                        )
                return seats
        for _ in range(CUSTOM_TRIES):
            size = rng.randint(lo, hi)
            if rng.random() < 0.7 and size <= len(eng.ROLES):  # mostly distinct roles
                seats = rng.sample(eng.ROLES, size)
            else:
                seats = [rng.choice(eng.ROLES) for _ in range(size)]
            took = _accepts(eng, seats)
            if took or rng.random() < 0.1:
                if _accepts(ref, seats) != took:
                    raise AssertionError(
                        f"setup {seats}: engine accepts: {took}, oracle: {not took}"
                    )
            if took:
                return seats
    fixed = deal.fixed_table(eng, rng)
    if fixed is None:
        raise NoTable(
            "the spec has no fixed setup"
            + (
                f", and {CUSTOM_TRIES:,} random tables its custom setups were asked about were all"
                " refused"
                if custom
                else ""
            )
        )
    return fixed[0]


def _accepts(side, seats: list[str]) -> bool:
    try:
        side.Game.new(seats)
    except side.IllegalSetup:
        return False
    return True


def _closure_lines(python: str) -> dict[int, int]:
    """Engine closure number -> the spec line of its `in N nights` block (the generated
    module's comment on each `_closure_K`)."""
    found = re.findall(
        r"def _closure_(\d+)\(g, seat[^)]*\):\n    # in \d+ nights: .*?:(\d+): ", python
    )
    return {int(k): int(line) for k, line in found}


def _state(d: dict, lines: dict[int, int] | None) -> dict:
    """A `to_json` state as compared: delayed effects name their block by its spec line and
    their captured values as a sorted list (engines number closures, the interpreter does not)."""
    d = dict(d)
    d.pop("maf_version", None)  # the engine's stamp (the interpreter is no engine: it has none)
    d.pop("spec_sha256", None)
    out = []
    for due, k, seat, captured in d.get("delayed", ()):
        vals = captured.values() if isinstance(captured, dict) else captured
        out.append([due, lines.get(k, k) if lines is not None else k, seat, sorted(vals)])
    d["delayed"] = out
    return d


def _scenario(spec_id, seats, seed, cards, history, last, oracle, note, final=None):
    """The scenario of a divergence: the game's accepted steps, then `last` (None: none),
    expecting the interpreter's outcome `oracle`; `final`: the top-level `expect`, checked
    after the last step (what a bot reads of the game then)."""
    steps = list(history) + ([dict(last)] if last is not None else [])
    kind, val = oracle
    if kind == "illegal":
        steps[-1]["expect"] = {"error": val[2]}
    elif kind == "ok":
        rep = val
        steps[-1]["expect"] = {
            k: rep[k] for k in ("deaths", "causes", "public", "private", "winner") if k in rep
        }
    data: dict[str, Any] = {"spec": spec_id, "seed": seed, "seats": seats}
    if not cards:
        data["cards"] = False
    data["steps"] = steps
    if final:
        data["expect"] = final
    text = yaml.safe_dump(_yamlable(data), sort_keys=False, allow_unicode=True, width=100)
    return "# " + "\n# ".join(note.splitlines()) + "\n" + text


def _next_step(
    g: Any, rng: random.Random, player: _Player, before: dict, retry: list | dict | None
) -> tuple[dict[str, Any], Callable[..., Any]]:
    """The next random step of game `g` (`before`: its state), and how to play it on either
    side: a decision awaited, a wake or the end of a night in wake order, a moderator kill or
    revive, a night or a day (`retry`: a rejected one made simpler, to try instead)."""
    r = rng.random()
    waits = g.pending_choices() if hasattr(g, "pending_choices") else []
    step: dict[str, Any]
    call: Callable[..., Any]
    if waits and rng.random() < 0.95:  # a decision is awaited: mostly, give it
        seat, values = player.choice(g, waits[0])
        step = {"choices": [[seat, waits[0]["ability"], *values]]}
        call = lambda x, s=seat, v=values: x.resolve_choice(s, list(v))  # noqa: E731
    elif (
        hasattr(g, "next_wake")
        and g.phase == "night"
        and not waits
        and ("wake" in before or rng.random() < 0.1)
        and rng.random() < 0.9
    ):  # a night in wake order: the next role wakes, or the night ends
        done = g.next_wake() is None  # nobody left to wake: mostly, end the night
        if "wake" in before and rng.random() < (0.9 if done else 0.15):
            step = {"end_night": {}}
            call = lambda x: x.end_night()  # noqa: E731
        else:
            acts = player.woken(g)
            step = {"wake": acts}
            call = lambda x, a=acts: _wake(x, a)  # noqa: E731
    elif r < 0.02:
        seat = rng.randint(0, g.n + 1)
        step = {"kill": seat}
        call = lambda x, s=seat: x.moderator_kill(s)  # noqa: E731
    elif r < 0.03:
        seat = rng.randint(0, g.n + 1)
        step = {"revive": seat}
        call = lambda x, s=seat: x.moderator_revive(s)  # noqa: E731
    elif (g.phase == "night") != (r < 0.04):
        acts = retry if retry is not None and isinstance(retry, list) else player.night(g)
        step = {"night": acts}
        call = lambda x, a=acts: x.resolve_night(json.loads(json.dumps(a)))  # noqa: E731
    else:
        kw = retry if isinstance(retry, dict) else player.day(g)
        step = {"day": kw}
        call = lambda x, k=kw: x.resolve_day(**_copy(k))  # noqa: E731
    return step, call


def _simpler(step: dict[str, Any], seat: Any, rng: random.Random) -> list | dict | None:
    """A rejected night or day is tried again without the part at fault (the action of `seat`,
    the seat the rejection names), or a part drawn at random, so that the game moves on."""
    if "night" in step and step["night"]:
        acts = list(step["night"])
        bad = [a for a in acts if isinstance(a, list) and a[:1] == [seat]]
        acts.remove(bad[0] if bad else rng.choice(acts))
        return acts
    if "day" in step and step["day"]:
        kw = dict(step["day"])
        del kw[rng.choice(sorted(kw))]
        return kw
    return None


def run(spec_path, steps: int, seed: int = 0, engine=None, oracle=None):
    """Play `steps` random steps on both sides. Returns (Divergence or None, Stats).

    Raises interp.Unsupported if the interpreter cannot play the spec. `engine` may be a loaded
    engine module (e.g. a native build); by default the spec is compiled and its engine loaded.
    `oracle` replaces the interpreter by another engine module (e.g. the same engine with its
    compiled night switched off, to compare the two resolvers of one engine).
    """
    compiled = compile_file(spec_path)
    ref: Any = oracle if oracle is not None else interp.load(compiled.program)
    eng = engine or load_engine(compiled.code, f"maf_diff_{compiled.program.id}")
    rng = random.Random(seed)
    draws = random.Random(seed + 1)  # when the random player's draws are compared, and how
    lines = _closure_lines(compiled.python or "")
    # how each side's states are compared (an engine standing in for the oracle numbers its
    # closures as the engine does)
    eng_state, ref_state = (
        (lambda d: _state(d, lines)),
        ((lambda d: _state(d, lines)) if oracle is not None else (lambda d: _state(d, None))),
    )
    stats = Stats()
    spec_id = compiled.program.id
    while stats.steps < steps:
        stats.games += 1
        seats = _table(eng, ref, rng)
        gseed = rng.randrange(1000)
        cards = rng.random() < 0.8
        g, o = (
            eng.Game.new(seats, seed=gseed, cards=cards),
            ref.Game.new(seats, seed=gseed, cards=cards),
        )
        player = _Player(eng, rng, legal=rng.random() < LEGAL_GAMES)
        history: list[dict] = []

        def _so_far(text, seats=seats, gseed=gseed, cards=cards, history=history):
            """The scenario of this game's steps so far, its last one the step under test
            (no oracle expectation: a divergence of the draws, playouts, legal actions)."""
            last = history[-1] if history else {"day": {}}
            return _scenario(spec_id, seats, gseed, cards, history[:-1], last, ("none", None), text)

        retry: list | dict | None = None  # a rejected night or day, made simpler, to try next
        before = g.to_json()
        # what a bot reads is compared as the game starts and after every step, except a
        # rejected one (it changed nothing, as checked) unless the game was reloaded since
        mine, theirs = _plain(_bot_view(g)), _plain(_bot_view(o))
        stats.bot_views, reloaded = stats.bot_views + 1, False
        if mine != theirs:  # as the game starts
            text = (
                f"divergence (bot view) at the start of game {stats.games} of `maf fuzz "
                f"--differential {spec_path} --seed {seed}`\nengine: {_short(mine)}\n"
                f"interpreter: {_short(theirs)}"
            )
            diff = _view_differences(mine, theirs)
            return Divergence(
                "bot view",
                stats.steps,
                mine,
                theirs,
                _scenario(spec_id, seats, gseed, cards, [], None, ("none", None), text, diff),
            ), stats
        for _ in range(300):
            if getattr(g, "over", g.winner is not None) or stats.steps >= steps:
                break
            # -- the step
            step, call = _next_step(g, rng, player, before, retry)
            retry = None
            got = _outcome(eng, lambda c=call, x=g: c(x))
            want = _outcome(ref, lambda c=call, x=o: c(x))
            stats.steps += 1
            note = None
            if got[0] == "crash" or want[0] == "crash":
                note = "crash"
            elif got[0] != want[0] or _plain(got[1]) != _plain(want[1]):
                note = "outcome"
            else:
                after = g.to_json()
                if eng_state(after) != ref_state(o.to_json()):
                    note = "state"
                elif got[0] == "illegal" and after != before:
                    note = "a rejected step changed the state"
                elif (got[0] != "illegal" or reloaded) and _plain(_bot_view(g)) != _plain(
                    _bot_view(o)
                ):
                    note = "bot view"
                if got[0] != "illegal" or reloaded:
                    stats.bot_views += 1
                    reloaded = False
                before = after
            if note is not None:
                text = (
                    f"divergence ({note}) at step {stats.steps} of `maf fuzz --differential "
                    f"{spec_path} --seed {seed}`\nengine: {_short(got)}\n"
                    f"interpreter: {_short(want)}"
                )
                final: dict[str, Any] | None = None
                sides: tuple[Any, Any] = (got, want)
                if note == "state":
                    a, b = eng_state(g.to_json()), ref_state(o.to_json())
                    keys = [k for k in a if a.get(k) != b.get(k)]
                    text += f"\nstate keys that differ: {keys}"
                elif note == "bot view":  # the scenario's final `expect` checks it
                    sides = (_plain(_bot_view(g)), _plain(_bot_view(o)))
                    final = _view_differences(*sides)
                    text += (
                        f"\nbot view, engine: {_short(sides[0], 600)}"
                        f"\ninterpreter: {_short(sides[1], 600)}"
                    )
                return Divergence(
                    note,
                    stats.steps,
                    sides[0],
                    sides[1],
                    _scenario(spec_id, seats, gseed, cards, history, step, want, text, final),
                ), stats
            if got[0] == "illegal":
                stats.rejected += 1
                stats.rules[got[1][2]] = stats.rules.get(got[1][2], 0) + 1
                retry = _simpler(step, got[1][0], rng)
            else:
                history.append(step)
                kind = next(iter(step))
                if got[0] == "ok" and isinstance(got[1], dict) and "awaiting" in got[1]:
                    kind += " (awaiting)"
                stats.kinds[kind] = stats.kinds.get(kind, 0) + 1
            # -- now and then: a JSON round trip on both sides, or the legal actions compared
            if rng.random() < 0.05:
                stats.round_trips += 1
                g = eng.Game.from_json(json.loads(json.dumps(before)))
                o = ref.Game.from_json(json.loads(json.dumps(o.to_json())))
                reloaded = True
            if rng.random() < 0.01 and hasattr(g, "legal_actions"):
                stats.legal_checks += 1
                seat = rng.randint(1, g.n)
                mine = sorted(map(repr, g.legal_actions(seat, expand=True)))
                theirs = sorted(map(repr, o.legal_actions(seat, expand=True)))
                if mine != theirs:
                    text = (
                        f"divergence (legal actions of seat {seat}) after step {stats.steps}\n"
                        f"engine only: {sorted(set(mine) - set(theirs))[:5]}\n"
                        f"interpreter only: {sorted(set(theirs) - set(mine))[:5]}"
                    )
                    return Divergence(
                        "legal actions",
                        stats.steps,
                        mine,
                        theirs,
                        _so_far(text),
                    ), stats
            # -- now and then: the random player's draws (a playout's, `maf simulate`'s), from
            # the same random numbers on both sides: the engine's compiled draws (DRAW_NIGHT,
            # DRAW_ALL) against the runtime's generic ones (own generator: the games above are
            # played as before)
            if draws.random() < 0.02 and hasattr(g, "draw_actions"):
                stats.draw_checks += 1
                k, act = draws.randrange(1 << 30), draws.choice((1.0, 0.5))
                mine_d = _outcome(eng, lambda x=g, k=k, a=act: x.draw_actions(random.Random(k), a))
                theirs_d = _outcome(
                    ref, lambda x=o, k=k, a=act: x.draw_actions(random.Random(k), a)
                )
                if _plain(mine_d) != _plain(theirs_d):
                    text = (
                        f"divergence (draws: draw_actions(random.Random({k}), {act})) after "
                        f"step {stats.steps}\nengine: {_short(mine_d)}\n"
                        f"interpreter: {_short(theirs_d)}"
                    )
                    return Divergence(
                        "draws",
                        stats.steps,
                        mine_d,
                        theirs_d,
                        _so_far(text),
                    ), stats
            # -- rarely: the random player's game played out from here (Game.playout) on a copy
            # on each side: the engine's compiled night and day without reports against the
            # runtime's steps (every step handed back and submitted), the same draws
            if draws.random() < 0.003 and hasattr(g, "playout"):
                stats.playouts += 1
                k = draws.randrange(1 << 30)
                mine_p = _play_out(eng, before, k, eng_state)
                theirs_p = _play_out(ref, o.to_json(), k, ref_state)
                if _plain(mine_p) != _plain(theirs_p):
                    at = next(
                        (
                            i
                            for i, (a, b) in enumerate(zip(mine_p[0], theirs_p[0], strict=False))
                            if a != b
                        ),
                        min(len(mine_p[0]), len(theirs_p[0])),
                    )
                    text = (
                        f"divergence (playout: Game.playout(random.Random({k}))) after step "
                        f"{stats.steps}, at its step {at}\nengine: {_short(mine_p[0][at:])}\n"
                        f"interpreter: {_short(theirs_p[0][at:])}"
                    )
                    return Divergence(
                        "playout",
                        stats.steps,
                        mine_p,
                        theirs_p,
                        _so_far(text),
                    ), stats
    return None, stats


def _play_out(mod: Any, state: dict, k: int, as_compared: Callable[[dict], dict]) -> tuple:
    """A copy of the game in `state` played out by the random player (Game.playout with
    random.Random(k)), each step it hands back submitted: (the steps played, in order; how it
    ended: None, or the first refusal or crash; the state it ended in, as compared)."""
    g = mod.Game.from_json(json.loads(json.dumps(state)))
    rng, steps, end = random.Random(k), [], None
    for _ in range(300):
        log: list[Any] = []
        out = _outcome(mod, lambda log=log: g.playout(rng, log=log))
        steps += log
        if out[0] != "ok" or out[1] is None:
            end = None if out[0] == "ok" else out
            break
        kind, inputs = out[1]
        steps.append({kind: inputs})
        done = _outcome(
            mod,
            lambda kind=kind, inputs=inputs: (
                g.resolve_night(inputs) if kind == "night" else g.resolve_day(**inputs)
            ),
        )
        if done[0] != "ok":
            end = done
            break
    return steps, end, as_compared(g.to_json())


def _copy(v):
    return (
        json.loads(json.dumps(v))
        if not isinstance(v, dict)
        else {k: _copy_keys(x) for k, x in v.items()}
    )


def _copy_keys(v):
    if isinstance(v, dict):
        return {k: _copy_keys(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy_keys(x) for x in v]
    return v


def _short(v, limit=300):
    text = repr(v)
    return text if len(text) <= limit else text[:limit] + "..."
