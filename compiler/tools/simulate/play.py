"""Playing simulated games: one game through a generated engine's public API, and batches of
games for a worker (a local process or a Ray task).

Games come in blocks of BLOCK consecutive indexes per table; a block's games play in index order
on one generator, seeded by (simulation seed, table, block index) alone, so results do not
depend on how games are spread over workers (a batch that starts inside a block first replays
the block's earlier games, uncounted; simulate's batches start on block boundaries). Seeding a
Mersenne Twister costs as much as a tenth of a Bazpors game, hence blocks, not a generator per
game.
"""

from __future__ import annotations

import _random
import random
from dataclasses import dataclass
from hashlib import sha512
from typing import Any

from maf.compiler.tools.deal import custom_table, shuffled
from maf.compiler.tools.simulate.policies import Policy, RandomPolicy
from maf.compiler.tools.simulate.stats import GameResult, TableStats

MAX_DAYS = 50  # a game still running after this many days counts as unfinished


class PolicyError(Exception):
    """A policy submitted an action the engine rejected (other than an exclusivity conflict)."""

    def __init__(self, message: str, scenario: dict):
        super().__init__(message)
        self.scenario = scenario


@dataclass(frozen=True)
class Table:
    players: int
    setup: str | None  # the named setup, or None
    counts: tuple[int, ...] | None  # seats per role, in ROLES order; None: a custom setup

    @property
    def key(self) -> tuple:
        return (self.players, self.setup or "")


BLOCK = 16  # games per generator (see above); a batch of simulate is a multiple of it


def game_rng(seed: int, table: Table, index: int) -> random.Random:
    """The generator of game `index`'s block, as its first game starts with it."""
    return random.Random(_block_key(seed, table, index // BLOCK))


def _block_key(seed: int, table: Table, block: int) -> str:
    return f"maf-simulate/{seed}/{table.players}/{table.setup or ''}/block {block}"


def _reseed(rng: random.Random, key: str) -> random.Random:
    """`rng` in the state random.Random(key) starts in (a batch's generator, used again for its
    next block): Random.seed(key)'s own steps (version 2: the key's bytes and their SHA-512 read
    as one int seed the C generator; no Gaussian kept) without its Python call and a new
    generator (tests/simulate/test_play_setup.py: the same state)."""
    b = key.encode()
    _SEED(rng, int.from_bytes(b + sha512(b).digest()))
    rng.gauss_next = None  # type: ignore[attr-defined]
    return rng


_SEED = _random.Random.seed  # (random.Random.seed's `super().seed(a)`)


CUSTOM_TRIES = 20_000  # random seat lists tried to find one a custom setup accepts
CUSTOM_MIN_RATE = 0.01  # a custom setup is sampled only if it accepts this share of random lists


def custom_rate(engine, table: Table, rng: random.Random, tries: int = 1000) -> float:
    """The share of uniformly random seat lists that the custom setup of `table` accepts."""
    ok = 0
    for _ in range(tries):
        try:
            engine.Game.new(
                [rng.choice(engine.ROLES) for _ in range(table.players)], setup=table.setup
            )
            ok += 1
        except engine.IllegalAction:
            pass
    return ok / tries


def deal(engine, table: Table, rng: random.Random) -> list[str]:
    """The seats of one game of `table`: its fixed setup shuffled, or a seat list of its custom
    setup (`any where`) drawn uniformly at random (roles with repetition)."""
    if table.counts is None:
        seats = custom_table(engine, rng, table.players, table.setup, CUSTOM_TRIES)
        if seats is None:  # pragma: no cover - below one chance in e**200 after custom_rate
            raise RuntimeError(f"no table of {table.players} players drawn from the custom setup")
        return seats
    key = (tuple(engine.ROLES), table.counts)
    base = _BASE.get(key)
    if base is None:  # the setup's seats in role order, once per role list and setup
        base = _BASE[key] = shuffled(engine, table.counts, _NO_SHUFFLE)
    seats = base[:]
    if rng.__class__ is not random.Random:
        rng.shuffle(seats)  # (as deal.shuffled does: the same seats from the same generator)
        return seats
    # rng.shuffle(seats) unrolled: the same swaps from the same random numbers (Random.shuffle
    # swaps each seat i, from the last down, with a j below i + 1 that Random._randbelow
    # draws by rejection, k = (i + 1).bit_length() bits at a time; tests/simulate check it)
    bits = rng.getrandbits
    for i, k in _SWAPS.get(len(seats)) or _swaps(len(seats)):
        j = bits(k)
        while j > i:
            j = bits(k)
        seats[i], seats[j] = seats[j], seats[i]
    return seats


_SWAPS: dict[int, tuple[tuple[int, int], ...]] = {}  # seats -> Random.shuffle's (i, bits)


def _swaps(n: int) -> tuple[tuple[int, int], ...]:
    swaps = _SWAPS[n] = tuple((i, (i + 1).bit_length()) for i in reversed(range(1, n)))
    return swaps


class _NoShuffle:
    def shuffle(self, seats: list) -> None:
        pass


_NO_SHUFFLE: Any = _NoShuffle()
_BASE: dict[tuple, list[str]] = {}


def play_game(
    engine,
    table: Table,
    seed: int,
    index: int,
    policy_cls,
    act: float = 1.0,
    max_days: int = MAX_DAYS,
) -> GameResult:
    """Game `index` as run_batch plays it: on its block's generator, after the block's games
    before it (replayed, not counted)."""
    rng = game_rng(seed, table, index)
    for i in range(index - index % BLOCK, index):
        _play(engine, table, seed, i, policy_cls, act, max_days, rng)
    g, seats, finished = _play(engine, table, seed, index, policy_cls, act, max_days, rng)
    return _result(g, index, seats, finished)


def _play(engine, table, seed, index, policy_cls, act, max_days, rng) -> tuple[Any, list, bool]:
    """play_game's game: (the game as it ended, its seats as dealt, whether it ended), played
    on `rng`, its block's generator where the block's earlier games left it."""
    seats = deal(engine, table, rng)
    game_seed = rng.getrandbits(31)
    g = engine.Game.new(seats, setup=table.setup, seed=game_seed)
    if policy_cls is RandomPolicy and hasattr(g, "draw_actions"):  # the common case
        finished = _play_random(engine, g, table, index, seats, game_seed, rng, act, max_days)
        return g, seats, finished
    policy = policy_cls(engine, seats, rng, act)
    # (the base class's observe does nothing; a policy may also have none: it is optional)
    observes = getattr(type(policy), "observe", Policy.observe) is not Policy.observe
    log: list[dict] = []
    finished = False
    while True:
        if g.winner is not None or getattr(g, "over", False):
            finished = True
            break
        if g.day > max_days:
            break
        if g.phase == "night":
            report = _submit(
                engine, g, "night", policy.night(g), log, seats, game_seed, table, index, rng
            )
        else:
            report = _submit(
                engine, g, "day", policy.day(g), log, seats, game_seed, table, index, rng
            )
        while report.get("awaiting"):
            report = _decide(engine, g, policy, report, log, seats, game_seed, table, index)
        if observes:
            policy.observe(g, report)
    return g, seats, finished


def _alive(g, seats: list[str]) -> list[bool]:
    """Per seat (seat 0 none), whether it is alive: the engine's own list."""
    alive = getattr(g, "alive", None)
    if alive.__class__ is not list or len(alive) != len(seats) + 1:  # (an engine of before)
        alive = [False] * (len(seats) + 1)
        for s in g.alive_seats():
            alive[s] = True
    return alive


def _winners(g) -> tuple[str, ...]:
    return tuple(getattr(g, "winners", None) or ((g.winner,) if g.winner is not None else ()))


def _result(g, index: int, seats: list[str], finished: bool) -> GameResult:
    survivors = tuple(zip(seats, _alive(g, seats)[1:], strict=True))
    return GameResult(index, g.winner, _winners(g), finished, g.day, survivors)


def _play_random(engine, g, table, index, seats, game_seed, rng, act, max_days) -> bool:
    """The loop of play_game with a RandomPolicy, its calls unrolled: the same inputs from the
    same random numbers (by night and by day `draw_actions`; on a day that votes, a uniformly
    random living seat eliminated after them), submitted and repaired as `_submit` does, and
    decisions taken by the policy (made when the first is asked: it draws nothing when made).
    True when the game ended."""
    draw, night, day = g.draw_actions, g.resolve_night, g.resolve_day
    illegal = engine.IllegalAction
    # (RandomPolicy._quiet_day: a quiet day, or a spec without a day vote, eliminates nobody)
    quiet = engine.QUIET_DAYS if getattr(engine, "VOTE", True) else None
    log: list[dict] = []
    policy = None
    playout = getattr(g, "playout", None)  # (an engine of before it has none)
    while g.winner is None and not getattr(g, "over", False):
        if playout is not None:  # the engine plays on while its compiled steps play
            step = playout(rng, act, max_days, log)
            if step is None:
                break
            phase, inputs = step  # drawn, not played: submitted and repaired as any step
            report = _submit(engine, g, phase, inputs, log, seats, game_seed, table, index, rng)
            while report.get("awaiting"):
                if policy is None:
                    policy = RandomPolicy(engine, seats, rng, act)
                report = _decide(engine, g, policy, report, log, seats, game_seed, table, index)
            continue
        if g.day > max_days:
            return False
        acts = draw(rng, act)
        if g.phase == "night":
            try:  # (a refused step leaves the game untouched: _submit tries it again)
                report = night(acts)
                log.append({"night": acts})
            except illegal:
                report = _submit(engine, g, "night", acts, log, seats, game_seed, table, index, rng)
        else:
            kw: dict = {"actions": acts} if acts else {}
            if quiet is not None and g.day not in quiet:
                kw["eliminate"] = rng.choice(g.alive_seats())
            try:
                report = day(**kw)
                log.append({"day": kw})
            except illegal:
                report = _submit(engine, g, "day", kw, log, seats, game_seed, table, index, rng)
        while report.get("awaiting"):
            if policy is None:
                policy = RandomPolicy(engine, seats, rng, act)
            report = _decide(engine, g, policy, report, log, seats, game_seed, table, index)
    return g.winner is not None or getattr(g, "over", False)


def _submit(engine, g, phase, inputs, log, seats, game_seed, table, index, rng):
    """Play one step, repairing two kinds of clash between inputs each legal alone: an action
    excluded by another (rule `exclusive`) is dropped; a day's elimination of a seat that a day
    ability killed first (`dead-player`) is redrawn among the other living seats. Any other
    rejection is a PolicyError."""
    try:  # the common case: the inputs as the policy gave them, accepted (no copies)
        if phase == "night":
            report = g.resolve_night(inputs)
            log.append({"night": inputs})
        else:
            report = g.resolve_day(**inputs)
            log.append({"day": inputs})
        return report
    except engine.IllegalAction:
        pass  # (a rejected step leaves the game untouched): repaired below
    actions = list(inputs if phase == "night" else inputs.get("actions", ()))
    kw = {} if phase == "night" else dict(inputs)
    tried = set()
    for _ in range(len(actions) + len(seats) + 2):
        try:
            if phase == "night":
                report = g.resolve_night(actions)
                log.append({"night": actions})
            else:
                kw.pop("actions", None)
                if actions:
                    kw["actions"] = actions
                report = g.resolve_day(**kw)
                log.append({"day": kw})
            return report
        except engine.IllegalAction as e:
            if e.rule == "exclusive" and e.seat is not None:
                drop = next(
                    (i for i in range(len(actions) - 1, -1, -1) if actions[i][0] == e.seat), None
                )
                if drop is not None:
                    del actions[drop]
                    continue
            if e.rule == "dead-player" and kw.get("eliminate") == e.seat is not None:
                tried.add(e.seat)
                rest = [s for s in g.alive_seats() if s not in tried]
                if rest:
                    kw["eliminate"] = rng.choice(rest)
                else:
                    del kw["eliminate"]
                continue
            scenario = {
                "spec": engine.SPEC,
                "seed": game_seed,
                "seats": list(seats),
                "steps": log + [{phase: actions if phase == "night" else kw}],
            }
            if table.setup:
                scenario["setup"] = table.setup
            raise PolicyError(
                f"game {index} of {table.players} players"
                f"{' (' + table.setup + ')' if table.setup else ''}, seed {game_seed}, "
                f"step {len(log) + 1} ({phase}): {e}",
                scenario,
            ) from None
    raise PolicyError(
        f"game {index}, seed {game_seed}: step {len(log) + 1} ({phase}) could not be repaired",
        {"spec": engine.SPEC, "seed": game_seed, "seats": list(seats), "steps": log},
    )


def _decide(engine, g, policy, report, log, seats, game_seed, table, index):
    """A step stopped for a decision (a `call`): the policy takes it.

    Past the first target, a decision's entries range over every seat and id (the engine checks
    them when given): a combination the policy drew from them and the ability refuses (two
    targets that must differ) is drawn again, uniformly among the others, so the draw is
    uniform over the accepted ones; when none is accepted the seat declines. A refused entry
    that is not one of the listed combinations is the policy's error."""
    seat = report["awaiting"][0]["seat"]
    entries = g.legal_actions(seat)
    entry = list(policy.decide(g, seat, entries))
    options: list[list] | None = None  # every listed combination, expanded (when needed)
    refused: set[tuple] = set()
    while True:
        try:
            report = g.resolve_choice(seat, entry[2:])
            break
        except engine.IllegalAction as e:
            if options is None:
                options = [x for x in expand_entries(entries) if len(x) > 2]
            if len(entry) > 2 and entry in options:
                refused.add(tuple(entry))
                rest = [x for x in options if tuple(x) not in refused]
                decline = next((list(x) for x in entries if len(x) == 2), None)
                if rest:
                    entry = policy.rng.choice(rest)
                    continue
                if decline is not None:
                    entry = decline
                    continue
            scenario = {
                "spec": engine.SPEC,
                "seed": game_seed,
                "seats": list(seats),
                "steps": log[:-1] + [{**log[-1], "choices": log[-1].get("choices", []) + [entry]}],
            }
            raise PolicyError(
                f"game {index} of {table.players} players, seed {game_seed}, "
                f"step {len(log)} (decision of seat {seat}): {e}",
                scenario,
            ) from None
    log[-1].setdefault("choices", []).append(entry)
    return report


def expand_entries(entries: list) -> list[list]:
    """`legal_actions` entries in the compact form, one concrete action each."""
    result: list[list] = []
    for e in entries:
        out: list[list] = [[]]
        for x in e:
            if isinstance(x, tuple):
                out = [o + [v] for o in out for v in x]
            else:
                out = [o + [x] for o in out]
        result.extend(out)
    return result


def run_batch(
    engine, table: Table, seed: int, start: int, count: int, policy_cls, act: float, max_days: int
) -> TableStats:
    """Games start..start + count - 1 of `table`, counted. A start inside a block replays the
    block's games before it first (play_game's games), uncounted."""
    stats = TableStats(table.players, table.setup)
    rng = random.Random(0)  # each block's generator, reseeded as game_rng seeds a new one
    each = table.counts is None  # the roles dealt counted per game, or once (a fixed setup)
    for i in range(start - start % BLOCK, start + count):
        if not i % BLOCK:
            _reseed(rng, _block_key(seed, table, i // BLOCK))
        # play_game's game, counted without its GameResult (the same statistics)
        g, seats, finished = _play(engine, table, seed, i, policy_cls, act, max_days, rng)
        if i >= start:
            stats.add_game(_winners(g), finished, g.day, seats, _alive(g, seats), each)
    if table.counts is not None:  # every game of a fixed setup deals its roles (deal)
        stats.add_dealt(dict(zip(engine.ROLES, table.counts, strict=True)), count)
    return stats
