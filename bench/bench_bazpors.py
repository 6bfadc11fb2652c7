"""Benchmark: compile time of specs/bazpors.maf and nights resolved per second by its engine.

Prints figures; asserts nothing. Run: python bench/bench_bazpors.py [--nights N]
Targets (one core): compile < 100 ms warm; >= 50,000 nights per second.
"""
from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from compiler.driver import compile_file, import_generated  # noqa: E402

SPEC = ROOT / "specs" / "bazpors.maf"


def bench_compile(runs: int) -> None:
    t0 = time.perf_counter()
    compile_file(SPEC)
    cold = time.perf_counter() - t0
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        compile_file(SPEC)
        times.append(time.perf_counter() - t0)
    times.sort()
    print(f"compile specs/bazpors.maf: cold {cold * 1000:.1f} ms (first in the process: loads or builds the "
          f"LALR tables), warm median {times[len(times) // 2] * 1000:.1f} ms, best {times[0] * 1000:.1f} ms")


def _table(eng, size: int, rng: random.Random) -> list[int]:
    label, counts = eng.SETUPS[size][0]
    roles = [r for r, k in enumerate(counts) for _ in range(k)]
    rng.shuffle(roles)
    return roles


def _fresh(eng, roles):
    g = eng.Game(roles)
    g.phase, g.day, g.night = "night", 2, 2  # skip the intro day and the quiet first night
    return g


def random_nights(eng, size: int, count: int, seed: int) -> list[tuple[list[int], list]]:
    """Random legal nights: each the table and the actions of night 2, validated once here."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        roles = _table(eng, size, rng)
        g = _fresh(eng, roles)
        actions = []
        seen_groups = set()
        for seat in range(1, size + 1):
            for ab in range(len(eng.ABILITIES)):
                if eng.AB_PHASE[ab] != "night" or rng.random() < 0.2:
                    continue
                try:
                    if g.find_ability(seat, eng.AB_NAME[ab]) != ab:
                        continue
                except eng.IllegalAction:
                    continue
                grp = eng.AB_EXCLUSIVE[ab]
                if grp >= 0 and (seat, grp) in seen_groups:
                    continue
                for _try in range(8):
                    targets = [rng.randint(1, size) for _ in range(eng.AB_TARGETS[ab])]
                    choices = [rng.choice(eng.ROLES) for _ in eng.AB_CHOICES[ab]]
                    act = [seat, eng.AB_NAME[ab], *targets, *choices]
                    try:
                        g._validate(act, "night", 2, set(), {})
                    except eng.IllegalAction:
                        continue
                    actions.append(act)
                    if grp >= 0:
                        seen_groups.add((seat, grp))
                    break
        _fresh(eng, roles).resolve_night(actions)  # must be legal as a whole
        out.append((roles, actions))
    return out


def bench_nights(eng, size: int, count: int) -> None:
    nights = random_nights(eng, size, count, seed=size)
    # Like timeit: the best of a few runs, with the cyclic GC off (the thousands of games held
    # here would otherwise be rescanned by every full collection, which a server holding one
    # game per table does not pay).
    dt = float("inf")
    for _ in range(3):
        games = [_fresh(eng, roles) for roles, _ in nights]
        gc.collect()
        gc.disable()
        t0 = time.perf_counter()
        for g, (_, actions) in zip(games, nights):
            g.resolve_night(actions)
        dt = min(dt, time.perf_counter() - t0)
        gc.enable()
    acts = sum(len(a) for _, a in nights) / len(nights)
    print(f"{size}-player nights (best of 3): {count / dt:,.0f} nights/s "
          f"({dt / count * 1e6:.1f} us per night, {acts:.1f} actions per night)")
    t0 = time.perf_counter()
    for roles, actions in nights:
        _fresh(eng, roles).resolve_night(actions)
    dt = time.perf_counter() - t0
    print(f"{size}-player nights incl. building a fresh game each, GC on: {count / dt:,.0f} nights/s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nights", type=int, default=20000)
    ap.add_argument("--compiles", type=int, default=30)
    args = ap.parse_args()
    bench_compile(args.compiles)
    eng = import_generated(ROOT / "generated" / "bazpors.py")
    for size in (10, 16):
        bench_nights(eng, size, args.nights)


if __name__ == "__main__":
    main()
