"""Compile time against the size of the spec, whole process, side by side with a baseline commit.

Run: python bench/bench_compile.py [--sizes 100 400] [--baseline REV] [--rounds 3]

Each size N is a spec of N night abilities (bench/gen_big.py); each figure is one fresh
`python` process that imports the compiler and compiles the spec to an engine (start-up
included), the best of --rounds, wall clock and CPU time. The issue's budget: 400 abilities
cost at most 5x 100 abilities, and compile in at most 2 s. With --baseline, the commit is
checked out in a temporary git worktree and timed the same way on the same specs. Figures, not
a test.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.gen_big import spec  # noqa: E402

# run in the tree under test: its own compiler, as `maf.` (a shim directory of links to its
# dsl/ and compiler/, first on the path: found before the editable install's finder)
SNIPPET = (
    "import sys; sys.path.insert(0, {shim!r}); "
    "from maf.compiler.driver import compile_file; compile_file({path!r})"
)


def shim(root: Path, where: Path) -> Path:
    """A directory whose `maf/dsl` and `maf/compiler` are the tree's own."""
    out = where / f"shim-{root.name}"
    (out / "maf").mkdir(parents=True, exist_ok=True)
    for name in ("dsl", "compiler"):
        link = out / "maf" / name
        if not link.exists():
            link.symlink_to(root / name)
    return out


def timed(root: Path, path: Path, rounds: int) -> tuple[float, float]:
    """(best wall seconds, best CPU seconds) of compiling `path` in a fresh process."""
    best_wall = best_cpu = float("inf")
    paths = shim(root, path.parent)
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", SNIPPET.format(shim=str(paths), path=str(path))],
            cwd=root,
            check=True,
        )
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 400])
    ap.add_argument("--baseline", help="a commit to compare with, side by side")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        base = None
        if args.baseline:
            base = where / "baseline"
            subprocess.run(
                [
                    "git",
                    "-C",
                    str(ROOT),
                    "worktree",
                    "add",
                    "--detach",
                    "-q",
                    str(base),
                    args.baseline,
                ],
                check=True,
            )
        try:
            rows = {}
            for n in args.sizes:
                path = where / f"big{n}.maf"
                path.write_text(spec(n), encoding="utf-8")
                rows[n] = (
                    timed(ROOT, path, args.rounds),
                    timed(base, path, args.rounds) if base else None,
                )
                (wall, cpu), old = rows[n]
                line = f"{n:5} abilities: {wall:6.2f} s wall, {cpu:6.2f} s CPU"
                if old:
                    line += (
                        f"   {args.baseline}: {old[0]:6.2f} s wall, {old[1]:6.2f} s CPU"
                        f"   ({old[1] / cpu:.1f}x faster, CPU)"
                    )
                print(line, flush=True)
            lo, hi = min(args.sizes), max(args.sizes)
            if lo != hi:
                ratio = rows[hi][0][1] / rows[lo][0][1]
                line = f"{hi} / {lo} abilities: {ratio:.2f}x CPU (budget {hi / lo * 1.25:.0f}x)"
                if rows[hi][1]:
                    line += f"   {args.baseline}: {rows[hi][1][1] / rows[lo][1][1]:.2f}x"
                print(line)
            if 400 in rows:
                wall = rows[400][0][0]
                print(
                    f"400 abilities: {wall:.2f} s wall (target 2 s: "
                    f"{'met' if wall <= 2 else 'NOT met'})"
                )
        finally:
            if base is not None:
                subprocess.run(
                    ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                    check=False,
                )


if __name__ == "__main__":
    main()
