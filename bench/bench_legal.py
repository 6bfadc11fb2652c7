"""`legal_actions` calls per second on saved states of random games, for every shipped spec,
against the engines of a baseline commit, side by side.

Run: python bench/bench_legal.py [--baseline REV] [--states 300] [--spec bazpors ...]

The states come from random games played by today's engine (tests/randplay.py: legal and
illegal steps, days and nights); each is restored with `from_json` on both engines, and every
living seat's `legal_actions` is asked on both. With --baseline, the commit is checked out in a
temporary git worktree and its engines are built there by its own compiler (generated engines
are standalone modules, so each loads beside today's); the lists must be the same on both,
and the script says so. Prints figures; asserts nothing but that equality.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from maf.compiler.driver import import_generated  # noqa: E402
from tests.randplay import random_game  # noqa: E402

SPECS = ("bazpors", "classic", "online", "takavar", "tos")


def saved_states(eng, count: int, seed: int = 1) -> list[dict]:
    """`to_json` states of random games, a few steps into each, games not over."""
    rng = random.Random(seed)
    out: list[dict] = []
    while len(out) < count:
        g = random_game(eng, rng, 10)
        if g.winner is None:
            out.append(g.to_json())
    return out


def calls_per_second(eng, states: list[dict], rounds: int) -> tuple[float, list]:
    games = [eng.Game.from_json(s) for s in states]
    asks = [(g, s) for g in games for s in g.alive_seats()]
    lists = [g.legal_actions(s) for g, s in asks]
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for g, s in asks:
            g.legal_actions(s)
        best = min(best, time.perf_counter() - t0)
    return len(asks) / best, lists


def baseline_engines(rev: str, where: Path) -> Path:
    """The engines of commit `rev`, built by its own compiler in a worktree under `where`."""
    tree = where / "baseline"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), rev], check=True
    )
    subprocess.run(
        [sys.executable, "-m", "maf.compiler.tools.cli", "build", "--no-check"],
        cwd=tree,
        check=True,
        capture_output=True,
    )
    return tree / "generated"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", help="a commit to compare with, side by side")
    ap.add_argument("--states", type=int, default=300, help="saved states per spec")
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds (best is kept)")
    ap.add_argument("--spec", action="append", choices=SPECS, help="only these specs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base_dir = baseline_engines(args.baseline, Path(tmp)) if args.baseline else None
        try:
            for spec in args.spec or SPECS:
                eng = import_generated(ROOT / "generated" / f"{spec}.py")
                states = saved_states(eng, args.states)
                new, new_lists = calls_per_second(eng, states, args.rounds)
                line = f"{spec:8} {new:>10,.0f} legal_actions calls/s"
                if base_dir is not None:
                    old_eng = import_generated(base_dir / f"{spec}.py")
                    old, old_lists = calls_per_second(old_eng, states, args.rounds)
                    same = "same lists" if old_lists == new_lists else "LISTS DIFFER"
                    line += f"; {args.baseline}: {old:>10,.0f}; ratio {new / old:.2f}x ({same})"
                print(line, flush=True)
        finally:
            if base_dir is not None:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_dir.parent)],
                    check=False,
                )


if __name__ == "__main__":
    main()
