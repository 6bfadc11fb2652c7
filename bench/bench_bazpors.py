"""Benchmark: compile time of specs/bazpors.maf, and nights resolved per second by three
resolvers on the same action lists, side by side, with ratios (issue 9):

- new:      generated/bazpors.py, today's engine;
- previous: bench/bazpors_previous.py, a frozen copy of the generated engine before issue 9
            (the "previous shape": a generic table-driven runtime);
- hand:     bench/handwritten_bazpors.py, a resolver of the Bazpors night written by hand;
- native:   generated/bazpors_native*.so, the same engine compiled with Cython by
            `maf build --native` (compiler/backend/native.py): a column only when it is built and loads.

Also `Game()` construction and whole random games (engines only). Every benchmarked night is
first checked to give the same report on all three (and the same state on both engines).
Prints figures; asserts nothing. Run: python bench/bench_bazpors.py [--nights N]
Targets (issue 9, one core): new >= 3x previous and >= 0.6x hand; native >= 1.0x hand;
compile < 100 ms warm.
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

from maf.compiler.backend import native as native_build# noqa: E402
from maf.compiler.driver import compile_file, import_generated  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from handwritten_bazpors import HandGame  # noqa: E402

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


def night_actions(eng, g, size: int, rng: random.Random, abilities) -> list:
    """One random night for game `g`: each seat uses each of `abilities` (ids) it holds with
    probability 0.8, on random targets and choices its validation accepts (8 tries)."""
    actions = []
    seen_groups = set()
    for seat in range(1, size + 1):
        for ab in abilities:
            if rng.random() < 0.2:
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
    return actions


def random_nights(eng, size: int, count: int, seed: int) -> list[tuple[list[int], list]]:
    """Random legal nights: each the table and the actions of night 2, validated once here."""
    rng = random.Random(seed)
    night = [ab for ab in range(len(eng.ABILITIES)) if eng.AB_PHASE[ab] == "night"]
    out = []
    while len(out) < count:
        roles = _table(eng, size, rng)
        actions = night_actions(eng, _fresh(eng, roles), size, rng, night)
        _fresh(eng, roles).resolve_night(actions)  # must be legal as a whole
        out.append((roles, actions))
    return out


def time_nights(make, nights) -> float:
    """Seconds to resolve every night once, each on a game `make(table)` built beforehand, the
    cyclic GC off while timing."""
    games = [make(roles) for roles, _ in nights]
    gc.collect()
    gc.disable()
    t0 = time.perf_counter()
    for g, (_, actions) in zip(games, nights, strict=True):
        g.resolve_night(actions)
    dt = time.perf_counter() - t0
    gc.enable()
    return dt


def _best(make, nights, runs=3):
    """Best of `runs` (like timeit): seconds for all nights."""
    return min(time_nights(make, nights) for _ in range(runs))


def bench_nights(new, prev, size: int, count: int, nat=None) -> None:
    nights = random_nights(new, size, count, seed=size)
    # the resolvers must agree on every night before their times mean anything
    for roles, actions in nights:
        a, b, h = _fresh(new, roles), _fresh(prev, roles), HandGame(roles)
        ra, rb, rh = a.resolve_night(actions), b.resolve_night(actions), h.resolve_night(actions)
        assert ra == rh, (roles, actions, ra, rh)
        assert {k: v for k, v in ra.items() if k in rb} == rb, (roles, actions, ra, rb)
        ja, jb = a.to_json(), b.to_json()
        assert {k: v for k, v in ja.items() if k in jb} == jb, (roles, actions)
        if nat is not None:
            c = _fresh(nat, roles)
            assert c.resolve_night(actions) == ra and c.to_json() == ja, (roles, actions)
    # rounds interleave the resolvers, so a load change on a shared machine hits all alike
    t_new = t_prev = t_hand = t_nat = float("inf")
    for _ in range(5):
        t_new = min(t_new, _best(lambda r: _fresh(new, r), nights, 1))
        t_prev = min(t_prev, _best(lambda r: _fresh(prev, r), nights, 1))
        t_hand = min(t_hand, _best(HandGame, nights, 1))
        if nat is not None:
            t_nat = min(t_nat, _best(lambda r: _fresh(nat, r), nights, 1))
    acts = sum(len(a) for _, a in nights) / len(nights)
    print(f"{size}-player nights ({count} nights, {acts:.1f} actions per night, best of 5 interleaved rounds):")
    rows = [("new engine", t_new), ("previous shape", t_prev), ("hand-written", t_hand)]
    if nat is not None:
        rows.append(("native (Cython)", t_nat))
    for name, dt in rows:
        print(f"  {name:15s} {count / dt:10,.0f} nights/s  ({dt / count * 1e6:5.2f} us per night)")
    print(f"  new / previous = {t_prev / t_new:.2f}x   (target >= 3x)")
    print(f"  new / hand     = {t_hand / t_new:.2f}x   (target >= 0.6x)")
    if nat is not None:
        print(f"  native / hand     = {t_hand / t_nat:.2f}x   (target >= 1.0x)")
        print(f"  native / previous = {t_prev / t_nat:.2f}x;  native / new = {t_new / t_nat:.2f}x")


def bench_construction(new, prev, count: int = 20000, nat=None) -> None:
    roles = _table(new, 10, random.Random(1))
    line = []
    makers = [("new engine", new.Game), ("previous shape", prev.Game), ("hand-written", HandGame)]
    if nat is not None:
        makers.append(("native", nat.Game))
    for name, make in makers:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for _ in range(count):
                make(roles)
            best = min(best, time.perf_counter() - t0)
        line.append((name, best / count * 1e6))
    print("Game() construction, 10 players: " + ", ".join(f"{n} {us:.2f} us" for n, us in line)
          + f"; new / previous = {line[1][1] / line[0][1]:.2f}x"
          + (f", native / new = {line[0][1] / line[3][1]:.2f}x" if nat is not None else ""))


def _whole_game(eng, seats, rng):
    """A whole random game through the public API: random legal nights, random votes."""
    g = eng.Game.new(seats, seed=rng.randrange(100))
    steps = 0
    while g.winner is None and steps < 200:
        steps += 1
        alive = [s for s in range(1, g.n + 1) if g.alive[s]]
        if g.phase == "night":
            acts = []
            for s in alive:
                for name in ("shoot", "yakuza", "guess", "trick", "inquire", "save", "link",
                             "interrogate"):
                    if rng.random() < 0.6:
                        t = [rng.choice(alive) for _ in range(2 if name in ("yakuza", "interrogate") else 1)]
                        act = [s, name, *t] + (["citizen"] if name == "guess" else [])
                        try:
                            g._validate(act, "night", g.night, set(), {})
                        except eng.IllegalAction:
                            continue
                        acts.append(act)
                        break
            try:
                g.resolve_night(acts)
            except eng.IllegalAction:
                g.resolve_night([])
        else:
            votes = {}
            for v in alive:
                votes.setdefault(rng.choice(alive[:3]), []).append(v)
            try:
                g.resolve_day(votes=votes, defense={alive[0]: alive})
            except eng.IllegalAction:
                g.resolve_day()
    return steps


def bench_games(new, prev, count: int = 300, nat=None) -> None:
    out = []
    engines = [("new engine", new), ("previous shape", prev)]
    if nat is not None:
        engines.append(("native", nat))
    for name, eng in engines:
        best = float("inf")
        for _ in range(3):
            rng = random.Random(5)
            tables = [[eng.ROLES[r] for r in _table(eng, 10 + k % 7, rng)] for k in range(count)]
            t0 = time.perf_counter()
            for seats in tables:
                _whole_game(eng, seats, rng)
            best = min(best, time.perf_counter() - t0)
        out.append((name, count / best))
    print("whole random games (10..16 players, random legal nights and votes): "
          + ", ".join(f"{n} {gps:,.0f} games/s" for n, gps in out)
          + f"; new / previous = {out[0][1] / out[1][1]:.2f}x"
          + (f", native / new = {out[2][1] / out[0][1]:.2f}x" if nat is not None else ""))


def load_native():
    """The native engine built by `maf build --native`, or None (and why, on one line)."""
    path = native_build.target(ROOT / "generated" / "bazpors.py")
    if not path.exists():
        print(f"native: not built ({path.name}; run `maf build --native specs/bazpors.maf`)")
        return None
    if path.stat().st_mtime < (ROOT / "generated" / "bazpors.py").stat().st_mtime:
        print(f"native: {path.name} is older than generated/bazpors.py: rebuild it")
        return None
    try:
        return native_build.load(path)
    except ImportError as e:
        print(f"native: {path.name} does not load: {e}")
        return None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nights", type=int, default=20000)
    ap.add_argument("--compiles", type=int, default=30)
    args = ap.parse_args()
    bench_compile(args.compiles)
    new = import_generated(ROOT / "generated" / "bazpors.py")
    prev = import_generated(ROOT / "bench" / "bazpors_previous.py")
    nat = load_native()
    for size in (10, 16):
        bench_nights(new, prev, size, args.nights, nat)
    bench_construction(new, prev, nat=nat)
    bench_games(new, prev, nat=nat)


if __name__ == "__main__":
    main()
