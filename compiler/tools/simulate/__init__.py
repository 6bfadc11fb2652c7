"""`maf simulate`: balance by Monte Carlo. Plays whole games of a spec through its generated
engine, many times, and reports win rates per table size and setup (docs/simulate.md).

    tables(engine, players, setup)  -> the tables to play
    simulate(...)                   -> Simulation (per-table TableStats), on local processes or Ray
"""

from __future__ import annotations

import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path

from maf.compiler.tools.deal import dealable
from maf.compiler.tools.simulate.play import (
    BLOCK,
    CUSTOM_MIN_RATE,
    MAX_DAYS,
    PolicyError,
    Table,
    custom_rate,
    run_batch,
)
from maf.compiler.tools.simulate.policies import POLICIES, Policy
from maf.compiler.tools.simulate.stats import TableStats, vanilla_town_win, wilson

__all__ = [
    "MAX_DAYS",
    "POLICIES",
    "Policy",
    "PolicyError",
    "Simulation",
    "SimulationError",
    "Table",
    "TableStats",
    "cached_engine",
    "simulate",
    "tables",
    "vanilla_town_win",
    "wilson",
]


class SimulationError(Exception):
    """Bad input: an unknown table size or setup (one clear line for the user)."""


@dataclass
class Simulation:
    spec: str
    policy: str
    seed: int
    stats: list[TableStats]
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)

    def most_balanced(self, teams: tuple[str, ...]) -> TableStats | None:
        """The table whose two main teams' win rates are closest to 50/50."""
        best, score = None, None
        for t in self.stats:
            pair = sorted(teams, key=lambda x: -t.wins.get(x, 0))[:2] if len(teams) >= 2 else None
            if not pair or not t.games:
                continue
            a, b = t.rate(pair[0]), t.rate(pair[1])
            if a + b == 0:
                continue
            s = abs(a / (a + b) - 0.5)
            if score is None or s < score:
                best, score = t, s
        return best


def tables(
    engine,
    players: tuple[int, int] | None = None,
    setup: str | None = None,
    seats: list[str] | None = None,
    notes: list[str] | None = None,
) -> list[Table]:
    """The tables to simulate: each fixed setup of each size in range (one table per named
    setup); at a size with custom setups only, one table per custom setup whose games each draw
    a random seat list it accepts; or the one table `seats` gives. Raises SimulationError for
    sizes or setups the spec lacks. Custom tables that random seat lists rarely satisfy are
    dealt from their enumeration (compiler/tools/deal.py), or skipped when that is past its caps,
    with a line in `notes` (an error when no table is left)."""
    skipped: list[str] = []
    lo, hi = players or (engine.MIN_PLAYERS, engine.MAX_PLAYERS)
    if seats is not None:
        unknown = [r for r in seats if r not in engine.ROLES]
        if unknown:
            raise SimulationError(f"{engine.SPEC} has no role {unknown[0]!r}")
        try:
            engine.Game.new(seats, setup=setup)
        except engine.IllegalAction as e:
            raise SimulationError(
                f"these seats are not a table of {engine.SPEC}: {e.reason}"
            ) from None
        counts = tuple(seats.count(r) for r in engine.ROLES)
        return [Table(len(seats), setup, counts)]
    if lo > hi or lo < engine.MIN_PLAYERS or hi > engine.MAX_PLAYERS:
        raise SimulationError(
            f"{engine.SPEC} plays with {engine.MIN_PLAYERS}..{engine.MAX_PLAYERS} "
            f"players, not {lo}..{hi}"
            if lo != hi
            else f"{engine.SPEC} plays with {engine.MIN_PLAYERS}..{engine.MAX_PLAYERS} "
            f"players, not {lo}"
        )
    out = []
    labels = {label for n in range(lo, hi + 1) for label, _ in engine.SETUPS.get(n, ())}
    labels |= {c[0] for c in engine.CUSTOM_SETUPS if c[1] <= hi and lo <= c[2]}
    if setup is not None and setup not in labels:
        known = ", ".join(sorted(repr(x) for x in labels if x)) or "none"
        raise SimulationError(
            f"{engine.SPEC} has no setup named {setup!r} for {lo}..{hi} players "
            f"(named setups: {known})"
        )
    for n in range(lo, hi + 1):
        for label, counts in engine.SETUPS.get(n, ()):
            if setup is None or label == setup:
                out.append(Table(n, label or None, tuple(counts)))
        if any(setup is None or label == setup for label, _ in engine.SETUPS.get(n, ())):
            continue  # (a custom setup beside fixed ones is played when named: --setup open)
        # a size with custom setups only: each game draws a random table the rule accepts, if
        # the rule accepts random tables often enough (probed once, seeded) or the dealer
        # enumerates the tables it accepts
        for label, first, last, _rule in engine.CUSTOM_SETUPS:
            if first <= n <= last and (setup is None or label == setup):
                t = Table(n, label or None, None)
                probe = random.Random(f"maf-simulate-probe/{n}/{label}")
                if custom_rate(engine, t, probe) >= CUSTOM_MIN_RATE or dealable(
                    engine, n, t.setup
                ):  # rare tables: drawn from their enumeration (compiler/tools/deal.py)
                    out.append(t)
                else:
                    skipped.append(f"{n} players" + (f" ({label})" if label else ""))
    if skipped and not out:
        raise SimulationError(
            "no random table drawn from the custom setup for "
            + ", ".join(skipped)
            + ": give --seats"
        )
    if notes is not None:
        notes.extend(
            f"{x}: the custom setup accepts too few random tables; skipped (give --seats)"
            for x in skipped
        )
    if not out:
        raise SimulationError(f"{engine.SPEC} has no setup for {lo}..{hi} players")
    return out


# ------------------------------------------------------------------ workers
_ENGINES: dict[tuple[str, str], object] = {}  # (name, source) -> the engine it loads
_FORKED: dict[str, object] = {}  # name -> the engine a forked pool's workers inherit


def cached_engine(source: str | None, name: str):
    """The engine `source` loads, once per process (the same name may come with another
    source: a .maf file named like a shipped spec); `source` None: the engine the parent
    loaded before it forked this worker (_run_pool)."""
    if source is None:
        return _FORKED[name]
    eng = _ENGINES.get((name, source))
    if eng is None:
        from maf.compiler.engines import load_engine  # workers load engines lazily

        if len(_ENGINES) >= 8:  # (a long-lived process simulating many specs)
            _ENGINES.clear()
        eng = _ENGINES[(name, source)] = load_engine(source, name)
    return eng


def _job(job):
    source, name, table, seed, start, count, policy, act, max_days = job
    try:
        return (
            table,
            run_batch(
                cached_engine(source, name),
                table,
                seed,
                start,
                count,
                POLICIES[policy] if isinstance(policy, str) else policy,
                act,
                max_days,
            ),
            None,
        )
    except PolicyError as e:
        return table, None, (str(e), e.scenario)


def _ray_job(source, rest):
    """A Ray task: `_job` with the engine's source passed once through the object store."""
    return _job((source, *rest))


def _jobs(source, name, tabs, seed, games, policy, act, max_days, batch):
    for t in tabs:
        for start in range(0, games, batch):
            yield (source, name, t, seed, start, min(batch, games - start), policy, act, max_days)


def simulate(
    source: str,
    name: str,
    tabs: list[Table],
    *,
    games: int = 1000,
    seed: int = 0,
    policy: str | type[Policy] = "random",
    act: float = 1.0,
    workers: int | None = None,
    ray_address: str | None = None,
    max_days: int = MAX_DAYS,
    progress=None,
    batch: int | None = None,
) -> Simulation:
    """Play `games` games at each table. `source` is the engine's Python source (workers load it).

    `progress(done, total)` is called as batches finish. Results are identical for any number of
    workers and with or without Ray. KeyboardInterrupt stops the workers and returns the partial
    results (`interrupted=True`). A PolicyError is raised with a replayable scenario.
    """
    workers = workers or os.cpu_count() or 1
    # about four batches per worker and table (a batch of 500 Bazpors games is ~0.1 s: a
    # process-pool or Ray task costs well under 5% of it); Ray's larger tasks amortise more
    most = 2000 if ray_address is not None else 500
    # in whole blocks, so that no batch replays games of another's (play.BLOCK); a batch asked
    # for is kept as it is (a batch starting inside a block replays that block's earlier games)
    batch = batch or -(-max(1, min(most, games // (workers * 4) or 1)) // BLOCK) * BLOCK
    jobs = list(_jobs(source, name, tabs, seed, games, policy, act, max_days, batch))
    total = games * len(tabs)
    merged = {t.key: TableStats(t.players, t.setup) for t in tabs}
    sim = Simulation(
        name, policy if isinstance(policy, str) else policy.name, seed, list(merged.values())
    )
    done = 0

    def collect(result):
        nonlocal done
        table, stats, err = result
        if err is not None:
            raise PolicyError(*err)
        merged[table.key].merge(stats)
        done += stats.games
        if progress:
            progress(done, total)

    try:
        if ray_address is not None:
            _run_ray(jobs, ray_address, workers, collect)
        elif workers == 1:
            for job in jobs:
                collect(_job(job))
        else:
            _run_pool(jobs, workers, collect)
    except KeyboardInterrupt:
        sim.interrupted = True
    return sim


def _quiet_worker():
    """Workers leave Ctrl-C to the parent, which stops them and keeps the partial results."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_pool(jobs, workers, collect):
    import multiprocessing as mp

    fork = sys.platform.startswith("linux")
    ctx = mp.get_context("fork" if fork else "spawn")
    if fork and jobs:
        # the engine loaded here, before the fork: every worker inherits it (no worker compiles
        # and runs its 250 KB of source again, a tenth of a second each), and a job carries
        # the spec's name, not that source (cached_engine finds the engine by its name)
        _FORKED[jobs[0][1]] = cached_engine(jobs[0][0], jobs[0][1])
        jobs = [(None, *job[1:]) for job in jobs]
    pool = ctx.Pool(workers, initializer=_quiet_worker)
    try:
        for result in pool.imap_unordered(_job, jobs):
            collect(result)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _run_ray(jobs, address, workers, collect):
    try:
        import ray
    except ImportError:
        raise SimulationError(
            "--ray needs ray, which is not installed: pip install 'maf[ray]'"
        ) from None
    started = False
    if not ray.is_initialized():
        if address == "local":
            # the local instance runs this very checkout of maf
            root = str(Path(__file__).resolve().parents[3])
            path = os.pathsep.join(filter(None, (root, os.environ.get("PYTHONPATH"))))
            ray.init(
                num_cpus=workers,
                include_dashboard=False,
                log_to_driver=False,
                runtime_env={"env_vars": {"PYTHONPATH": path}},
            )
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    try:
        # the engine's source goes to the object store once, not with every task; each worker
        # process loads the engine once (cached_engine)
        source = ray.put(jobs[0][0]) if jobs else None
        remote = ray.remote(_ray_job)
        pending = [remote.remote(source, j[1:]) for j in jobs]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                collect(ray.get(ref))
    except BaseException:
        for ref in locals().get("pending", ()):
            ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()
