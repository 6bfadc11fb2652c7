"""Benchmark: a spec's compiled night (`_night_fast`, compiler/backend/nightgen.py) against the generic
resolver of the same engine (FAST_NIGHT switched off), side by side, on the same random legal
nights; default spec: tos (issue 9: a compiled night with generic fallbacks per feature).

Tables are random role lists the spec accepts (`Game.new`: its setups or custom setups); each
night is night 2 of a fresh game (the first nights of a game may be quiet or limited), every
living seat using each of its night abilities with probability 0.8 on random legal targets. Before
timing, every night is checked to give the same report and `to_json` both ways, and the share of
nights the compiled night plays (not falling back to the generic resolver) is printed.
Prints figures; asserts nothing. Run: python bench/bench_compiled_night.py [--spec tos]
[--size 10] [--nights 5000]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from maf.compiler.driver import import_generated  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from bench_bazpors import night_actions, time_nights  # noqa: E402


def random_table(eng, size: int, rng: random.Random) -> list[str]:
    """A random role list of `size` seats the spec accepts (rejection sampling)."""
    for _ in range(100_000):
        if size in eng.SETUPS and rng.random() < 0.5:
            _, counts = rng.choice(eng.SETUPS[size])
            seats = [eng.ROLES[r] for r, k in enumerate(counts) for _ in range(k)]
            rng.shuffle(seats)
        else:
            seats = [rng.choice(eng.ROLES) for _ in range(size)]
        try:
            eng.Game.new(seats)
        except eng.IllegalSetup:
            continue
        return seats
    raise SystemExit(f"no table of {size} seats found")


def fresh(eng, seats):
    """A game at night 2; its first step played (the `on start` report rides on it)."""
    g = eng.Game.new(seats)
    if g.phase == "day":
        g.resolve_day()
    else:
        g.resolve_night([])
    g.phase, g.day, g.night = "night", 2, 2
    return g


def random_nights(eng, size: int, count: int, seed: int):
    """Random legal nights: (table, actions), each validated as a whole here."""
    rng = random.Random(seed)
    out = []
    night_abs = [a for a in range(len(eng.ABILITIES)) if eng.AB_PHASE[a] in ("night", "any")]
    while len(out) < count:
        seats = random_table(eng, size, rng)
        actions = night_actions(eng, fresh(eng, seats), size, rng, night_abs)
        try:
            fresh(eng, seats).resolve_night(actions)  # legal as a whole
        except eng.IllegalAction:
            continue
        out.append((seats, actions))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default="tos")
    ap.add_argument("--size", type=int, default=10)
    ap.add_argument("--nights", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    path = ROOT / "generated" / f"{args.spec}.py"
    compiled = import_generated(path)
    generic = import_generated(path)  # a second module: its FAST_NIGHT is switched off
    assert compiled is not generic
    if compiled.FAST_NIGHT is None:
        raise SystemExit(f"{args.spec}: no compiled night")
    generic.FAST_NIGHT = None
    nights = random_nights(compiled, args.size, args.nights, seed=args.size)
    played = []  # the nights the compiled night plays itself
    for seats, actions in nights:
        a, b = fresh(compiled, seats), fresh(generic, seats)
        ra = a.resolve_night(actions)
        assert ra == b.resolve_night(actions) and a.to_json() == b.to_json(), (seats, actions)
        if compiled.FAST_NIGHT(fresh(compiled, seats), actions, 2) is not None:
            played.append((seats, actions))
    n = len(nights)
    acts = sum(len(a) for _, a in nights) / n
    print(
        f"{args.spec}, {args.size}-player nights ({n} nights, {acts:.1f} actions per night, "
        f"best of {args.rounds} interleaved rounds):"
    )
    print(
        f"  the compiled night plays {len(played)} of {n} nights ({len(played) / n:.0%}); "
        f"the others fall back to the generic resolver"
    )
    for what, subset in (("all nights", nights), ("the nights it plays", played)):
        if not subset:
            continue
        t_fast = t_gen = float("inf")
        for _ in range(args.rounds):  # interleaved: a load change hits both alike
            t_fast = min(t_fast, time_nights(lambda s: fresh(compiled, s), subset))
            t_gen = min(t_gen, time_nights(lambda s: fresh(generic, s), subset))
        k = len(subset)
        print(f"  {what}:")
        for name, t in (("generic resolver", t_gen), ("compiled night", t_fast)):
            print(f"    {name:17s} {k / t:10,.0f} nights/s  ({t / k * 1e6:6.2f} us per night)")
        print(f"    compiled / generic = {t_gen / t_fast:.2f}x")


if __name__ == "__main__":
    main()
