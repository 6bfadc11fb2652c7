"""`maf simulate` throughput: whole Bazpors 10-player games per second under `random`, on one
worker and on two (the scaling ratio), and the projected time for the issue's target of
1,000,000 games. Figures, not a test: run `python bench/bench_simulate.py [GAMES]`.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from maf.compiler.driver import load_engine  # noqa: E402
from maf.compiler.tools.simulate import simulate, tables  # noqa: E402
from maf.compiler.tools.simulate.cli import engine_source  # noqa: E402


def rate(src, name, tabs, games, workers):
    t0 = time.perf_counter()
    sim = simulate(src, name, tabs, games=games, seed=1, workers=workers)
    dt = time.perf_counter() - t0
    assert sum(t.games for t in sim.stats) == games
    return games / dt


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    src, name = engine_source("bazpors")
    eng = load_engine(src, name)
    tabs = tables(eng, (10, 10))
    one = max(rate(src, name, tabs, games, 1) for _ in range(2))
    two = max(rate(src, name, tabs, games, 2) for _ in range(2))
    print(f"bazpors, 10 players, random policy, {games} games per run (best of 2)")
    print(f"  1 worker : {one:8,.0f} games/s")
    print(f"  2 workers: {two:8,.0f} games/s  (scaling {two / one:.2f}x)")
    print(f"  1,000,000 games on 2 workers: {1e6 / two / 60:.1f} min (target: 2 min, "
          f"{'met' if 1e6 / two <= 120 else 'NOT met'}: {two / (1e6 / 120):.2f}x of the needed rate)")


if __name__ == "__main__":
    main()
