"""Random tables for random players: the seat lists (role ids, seat 1 first) that the Monte Carlo
simulator, the differential fuzzer and the property tests deal to an engine.

A fixed setup (`setup 8: ...`) gives its roles in a shuffled order. A custom setup (`any where`)
has no list to shuffle: seat lists are drawn at random until the engine accepts one.
"""

from __future__ import annotations

import random
from collections.abc import Sequence


def shuffled(engine, counts: Sequence[int], rng: random.Random) -> list[str]:
    """The roles of a fixed setup (`counts[r]` seats of role `r`), in a random seat order."""
    seats = [r for r, k in zip(engine.ROLES, counts, strict=True) for _ in range(k)]
    rng.shuffle(seats)
    return seats


def fixed_table(engine, rng: random.Random) -> tuple[list[str], str] | None:
    """A fixed setup drawn at random (a size, then one of its setups), shuffled, with its label;
    None for a spec without one."""
    if not engine.SETUPS:
        return None
    size = rng.choice(sorted(engine.SETUPS))
    label, counts = rng.choice(engine.SETUPS[size])
    return shuffled(engine, counts, rng), label


def custom_table(
    engine,
    rng: random.Random,
    players: int | None = None,
    setup: str | None = None,
    tries: int = 1000,
) -> list[str] | None:
    """A seat list drawn uniformly at random (roles with repetition; `players` seats, or a number
    drawn in the spec's range each try) until the engine accepts it, of the custom setup `setup`
    or of any; None after `tries` refusals."""
    for _ in range(tries):
        n = players or rng.randint(engine.MIN_PLAYERS, engine.MAX_PLAYERS)
        seats = [rng.choice(engine.ROLES) for _ in range(n)]
        try:
            engine.Game.new(seats, setup=setup)
        except engine.IllegalAction:
            continue
        return seats
    return None
