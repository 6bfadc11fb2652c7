"""`maf simulate` throughput side by side with its baseline: whole Bazpors 10-player games under
`random`, against bench/handwritten_game.py (a hand-written minimal loop playing the same random
policy), in CPU time in one process and as whole processes; then one worker against two (the
scaling), Ray against the process pool at equal workers (start-up excluded and reported
separately), and the projected time of the issue's 1,000,000 games on 2 cores.

Run: python bench/bench_simulate.py [GAMES] [--specs] [--ray] [--baseline REV] [--against REV]

--baseline REV plays the same games, CPU time in this process, interleaved (best of 3 each),
with the Bazpors engine of commit REV (generated/bazpors.py there) against today's: a step's
gain side by side with the commit before it.

--against REV plays whole simulations (engine and simulator) of the checkout of commit REV (a
temporary `git worktree`) and of this one, each in its own process, in interleaved rounds, CPU
time, with the hand-written loop between them: Bazpors at 10 players, then every shipped spec
at every table size (`--specs`), side by side.

--specs adds every shipped spec at every table size, the playout API's draws against the
random policy listing `legal_actions` (as the simulator played before it), side by side.
"""

from __future__ import annotations

import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import handwritten_game  # noqa: E402
from maf.compiler.driver import load_engine  # noqa: E402
from maf.compiler.tools.simulate import simulate, tables  # noqa: E402
from maf.compiler.tools.simulate.cli import engine_source  # noqa: E402
from maf.compiler.tools.simulate.policies import RandomPolicy  # noqa: E402

SPECS = ("bazpors", "classic", "online", "takavar", "tos", "werewolf")

TARGET = 1_000_000 / 120  # games/s on 2 cores for 1,000,000 games in 2 minutes


def cpu_rate_baseline(games: int) -> float:
    rng = random.Random(1)
    t0 = time.process_time()
    for _ in range(games):
        handwritten_game.play(rng)
    return games / (time.process_time() - t0)


def cpu_rate_maf(src, name, tabs, games: int) -> float:
    t0 = time.process_time()
    sim = simulate(src, name, tabs, games=games, seed=1, workers=1)
    dt = time.process_time() - t0
    assert sum(t.games for t in sim.stats) == games
    return games / dt


def wall_rate(src, name, tabs, games: int, workers: int, ray: str | None = None) -> float:
    t0 = time.perf_counter()
    sim = simulate(src, name, tabs, games=games, seed=1, workers=workers, ray_address=ray)
    dt = time.perf_counter() - t0
    assert sum(t.games for t in sim.stats) == games
    return games / dt


class ListingPolicy(RandomPolicy):
    """The random policy as it played before the playout API: every seat's `legal_actions`
    listed, then one drawn per ability (the same policy; its draws come in another order)."""

    def night(self, game):
        return self._pick_actions(game, range(1, len(self.seats) + 1))

    def day(self, game):
        kw = {}
        acts = self._pick_actions(game, game.alive_seats())
        if acts:
            kw["actions"] = acts
        if not self._quiet_day(game):
            kw["eliminate"] = self.rng.choice(game.alive_seats())
        return kw


def per_spec(games: int) -> None:
    """Every shipped spec at every table size, one worker, CPU time: the playout API's draws
    against listing `legal_actions` (the simulator before it), side by side."""
    print(f"every shipped spec, all table sizes, {games:,} games per table, 1 worker, CPU time:")
    for spec in SPECS:
        src, name = engine_source(spec)
        eng = load_engine(src, name)
        tabs = tables(eng)
        rates = []
        for policy in (RandomPolicy, ListingPolicy):
            t0 = time.process_time()
            simulate(src, name, tabs, games=games, seed=1, workers=1, policy=policy)
            rates.append(games * len(tabs) / (time.process_time() - t0))
        print(f"  {spec:8} {len(tabs):2} tables: {rates[0]:7,.0f} games/s; listing "
              f"legal_actions: {rates[1]:7,.0f}; {rates[0] / rates[1]:.2f}x")


def process(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of a whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def against_revision(rev: str, games: int) -> None:
    """Today's engine and simulator against the Bazpors engine of `rev`, interleaved."""
    old = subprocess.run(
        ["git", "show", f"{rev}:generated/bazpors.py"], cwd=ROOT, check=True,
        capture_output=True, text=True,
    ).stdout
    src, name = engine_source("bazpors")
    rates: dict[str, float] = {}
    for _ in range(3):
        for label, code in ((rev, old), ("today", src)):
            eng = load_engine(code, f"bazpors_{label}")
            rate = cpu_rate_maf(code, f"bazpors_{label}", tables(eng, (10, 10)), games)
            rates[label] = max(rates.get(label, 0.0), rate)
    print(f"bazpors, 10 players, {games:,} games, CPU time, best of 3 interleaved:")
    print(f"  engine of {rev:10}: {rates[rev]:9,.0f} games/s")
    print(f"  engine of today     : {rates['today']:9,.0f} games/s   "
          f"{rates['today'] / rates[rev]:.2f}x")


RATE = """
import sys, time
from maf.compiler.driver import load_engine
from maf.compiler.tools.simulate import simulate, tables
from maf.compiler.tools.simulate.cli import engine_source
games, spec, ten = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "10"
src, name = engine_source(spec)
tabs = tables(load_engine(src, name), (10, 10) if ten else None)
t0 = time.process_time()
simulate(src, name, tabs, games=games, seed=1, workers=1)
print(games * len(tabs) / (time.process_time() - t0))
"""


def _tree_rate(tree: Path, shim: Path, spec: str, games: int, ten: bool) -> float:
    """games/s (CPU) of `maf simulate` in the checkout `tree`, in a process of its own (its
    `maf` package found first through `shim`): at 10 players, or at every table size."""
    env = {**os.environ, "PYTHONPATH": str(shim)}
    out = subprocess.run(
        [sys.executable, "-c", RATE, str(games), spec, "10" if ten else "all"], cwd=tree, env=env,
        check=True,
        capture_output=True, text=True,
    ).stdout
    return float(out.split()[-1])


def against(rev: str, games: int, specs: bool, rounds: int = 3) -> None:
    """This checkout against commit `rev`'s, whole simulations, interleaved rounds."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), rev], cwd=ROOT,
                       check=True, capture_output=True)
        try:
            shims = {}
            for label, tree in (("base", base), ("today", ROOT)):
                shim = Path(tmp) / f"shim-{label}" / "maf"
                shim.mkdir(parents=True)
                (shim / "__init__.py").write_text("")
                for pkg in ("compiler", "dsl"):
                    (shim / pkg).symlink_to(tree / pkg)
                shims[label] = (tree, shim.parent)
            todo = [("bazpors", games, True)]
            todo += [(s, max(games // 20, 50), False) for s in SPECS if specs]
            for spec, n, ten in todo:
                best: dict[str, float] = {}
                for _ in range(rounds):
                    for label, (tree, shim) in shims.items():
                        rate = _tree_rate(tree, shim, spec, n, ten)
                        best[label] = max(best.get(label, 0.0), rate)
                    if ten:
                        best["loop"] = max(best.get("loop", 0.0), cpu_rate_baseline(n * 2))
                what = f"{spec} 10p" if ten else f"{spec} all"
                line = (f"  {what:12}: {rev[:10]} {best['base']:8,.0f}  today "
                        f"{best['today']:8,.0f} games/s (CPU)  {best['today'] / best['base']:.2f}x")
                if "loop" in best:
                    line += (f"; hand-written loop {best['loop']:8,.0f}: today "
                             f"{best['today'] / best['loop']:.2f}x, {rev[:10]} "
                             f"{best['base'] / best['loop']:.2f}x")
                print(line, flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT,
                           check=False, capture_output=True)


def main() -> None:
    if "--against" in sys.argv:
        i = sys.argv.index("--against")
        rev = sys.argv[i + 1]
        del sys.argv[i : i + 2]
        rest = [a for a in sys.argv[1:] if not a.startswith("--")]
        n = int(rest[0]) if rest else 5000
        print(f"whole simulations, this checkout against {rev}, {n:,} Bazpors 10-player games "
              f"(other specs: {max(n // 20, 50):,} per table), best of 3 interleaved rounds:")
        against(rev, n, "--specs" in sys.argv)
        return
    if "--baseline" in sys.argv:
        i = sys.argv.index("--baseline")
        rev = sys.argv[i + 1]
        del sys.argv[i : i + 2]
        rest = [a for a in sys.argv[1:] if not a.startswith("--")]
        against_revision(rev, int(rest[0]) if rest else 5000)
        return
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    games = int(args[0]) if args else 20000
    src, name = engine_source("bazpors")
    eng = load_engine(src, name)
    tabs = tables(eng, (10, 10))
    print(f"bazpors, 10 players, random policy, {games:,} games per run (best of 2)")

    base = max(cpu_rate_baseline(games) for _ in range(2))
    mine = max(cpu_rate_maf(src, name, tabs, games) for _ in range(2))
    print("one process, CPU time:")
    print(f"  hand-written loop : {base:9,.0f} games/s")
    print(f"  maf simulate      : {mine:9,.0f} games/s   {mine / base:.2f}x the loop "
          f"(target 0.5x, moonshot 1x)")

    hw = min(process([sys.executable, "bench/handwritten_game.py", str(games)])
             for _ in range(2))
    ms = min(process([sys.executable, "-m", "maf.compiler.tools.cli", "simulate", "bazpors",
                      "--players", "10", "--games", str(games), "--workers", "1",
                      "--format", "json"]) for _ in range(2))
    print("whole processes, 1 worker (start-up included):")
    print(f"  hand-written loop : {hw[0]:6.2f} s wall, {hw[1]:6.2f} s CPU")
    print(f"  maf simulate      : {ms[0]:6.2f} s wall, {ms[1]:6.2f} s CPU   "
          f"{hw[0] / ms[0]:.2f}x the loop (wall), {hw[1] / ms[1]:.2f}x (CPU)")

    one = max(wall_rate(src, name, tabs, games, 1) for _ in range(2))
    two = max(wall_rate(src, name, tabs, games, 2) for _ in range(2))
    print("workers (wall clock):")
    print(f"  1 worker : {one:9,.0f} games/s")
    print(f"  2 workers: {two:9,.0f} games/s   scaling {two / one:.2f}x (target 1.8x)")
    per_core = two / 2
    print(f"  per core : {per_core:9,.0f} games/s (target 8,000); 1,000,000 games on 2 workers: "
          f"{1e6 / two / 60:.1f} min (target 2 min: "
          f"{'met' if two >= TARGET else 'NOT met'}, {two / TARGET:.2f}x of the needed rate)")
    two_p = process([sys.executable, "-m", "maf.compiler.tools.cli", "simulate", "bazpors",
                     "--players", "10", "--games", str(games), "--workers", "2",
                     "--format", "json"])
    print(f"  2 workers, whole process: {games / two_p[0]:9,.0f} games/s (start-up included)")

    if "--specs" in sys.argv:
        per_spec(max(games // 20, 100))

    if "--ray" in sys.argv:
        import ray

        t0 = time.perf_counter()
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        start = time.perf_counter() - t0
        wall_rate(src, name, tabs, 2000, 2, "local")  # workers start and load the engine
        rate = max(wall_rate(src, name, tabs, games, 2, "local") for _ in range(2))
        ray.shutdown()
        print("Ray, local instance, 2 workers:")
        print(f"  start-up : {start:6.2f} s (ray.init; excluded below)")
        print(f"  Ray      : {rate:9,.0f} games/s   {rate / two:.2f}x the process pool "
              f"(target 0.8x)")


if __name__ == "__main__":
    main()
