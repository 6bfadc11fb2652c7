"""Checker timings, whole process (imports + compile + every check), side by side with a
baseline commit. No assertions (benchmarks are not tests).

    python bench/bench_check.py [--baseline REV] [--this REV] [--runs N] [--no-big]

Prints, best of N runs each, this tree's and the baseline's checker run alternately on the
same spec files (so both see the same machine load):
* `maf check specs/*.maf` on the shipped specs (target: at most 2 s on 2 cores), CPU and wall
  (`--baseline-specs`: the baseline on the specs of its own revision, for one that cannot
  compile today's);
* a generated spec with 400 night abilities (bench/gen_big.py; target: at most 10 s and 1 GB),
  its time, peak memory and the number of findings (each defect once: 2);
* `import maf.compiler.tools.cli` alone, and the time per check on specs/classic.maf (this tree).

The baseline (default 99ee4e8, the commit before the checker's speed work of issue 20 item 5)
is `git archive`d into a temporary folder with a `maf/` package pointing at its dsl/ and
compiler/, found on sys.path before the editable install; `--this REV` measures REV the same
way instead of the working tree (which other engineers may be editing). CPU time (user +
system of the child and the processes it forks) is what the machine's load changes least; wall
time is printed too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "99ee4e8"
CHILD = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[1])
t = time.perf_counter()
from maf.compiler.tools.cli import main
try:
    code = main(["check", "--format", "json", *sys.argv[2:]])
except SystemExit as e:
    code = e.code
sys.stderr.write("BENCH %s %.4f %d\n" % (code, time.perf_counter() - t,
                 resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
"""
COMPILES = r"""
import sys
sys.path.insert(0, sys.argv[1])
from maf.compiler.driver import compile_file
for spec in sys.argv[2:]:
    try:
        compile_file(spec, generate=False)
    except Exception:
        continue
    print(spec)
"""
IMPORT = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
t = time.process_time()
import maf.compiler.tools.cli
sys.stderr.write("BENCH %.4f\n" % (time.process_time() - t))
"""


class Run:
    """Best CPU and wall seconds, peak memory and findings over the runs of one command."""

    def __init__(self) -> None:
        self.cpu: float | None = None
        self.wall: float | None = None
        self.kb = 0
        self.found: int | None = None

    def add(self, cpu: float, wall: float, kb: int, found: int | None) -> None:
        self.cpu = cpu if self.cpu is None else min(self.cpu, cpu)
        self.wall = wall if self.wall is None else min(self.wall, wall)
        self.kb = max(self.kb, kb)
        self.found = found


def _cpu() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(tree: Path, specs: list[str], into: Run) -> None:
    """`maf check` in a fresh process of `tree`'s checker, cwd = this tree (the same specs)."""
    c0 = _cpu()
    t = time.perf_counter()
    p = subprocess.run(
        [sys.executable, "-c", CHILD, str(tree), *specs], cwd=ROOT, capture_output=True, text=True
    )
    wall = time.perf_counter() - t
    cpu = _cpu() - c0
    line = next((x for x in p.stderr.splitlines() if x.startswith("BENCH")), None)
    kb = int(line.split()[3]) if line else 0
    try:
        data = json.loads(p.stdout)
        found: int | None = sum(len(s["findings"]) for s in data["specs"])
    except (ValueError, KeyError):
        found = None
        sys.stderr.write(f"bench: {tree} failed:\n{p.stderr[-2000:]}\n")
    into.add(cpu, wall, kb, found)


def import_time(tree: Path, runs: int) -> float:
    best = None
    for _ in range(runs):
        p = subprocess.run(
            [sys.executable, "-c", IMPORT, str(tree)], cwd=ROOT, capture_output=True, text=True
        )
        line = next((x for x in p.stderr.splitlines() if x.startswith("BENCH")), "BENCH nan")
        v = float(line.split()[1])
        best = v if best is None else min(best, v)
    return best or 0.0


def baseline_tree(rev: str) -> Path:
    """REV's dsl/ and compiler/ in a temporary folder, importable as `maf.*` from sys.path."""
    d = Path(tempfile.mkdtemp(prefix="maf-baseline-"))
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "compiler", "dsl", "specs"],
        capture_output=True,
        check=True,
    ).stdout
    tar = d / "src.tar"
    tar.write_bytes(data)
    with tarfile.open(tar) as t:
        t.extractall(d, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(d)
    pkg = d / "maf"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    for sub in ("dsl", "compiler"):
        (pkg / sub).symlink_to(d / sub, target_is_directory=True)
    return d


def side_by_side(
    base: Path,
    specs: list[str],
    runs: int,
    base_specs: list[str] | None = None,
    this: Path = ROOT,
) -> tuple[Run, Run]:
    new, old = Run(), Run()
    for _ in range(runs):  # alternate: both see the same load
        run_once(this, specs, new)
        run_once(base, base_specs or specs, old)
    return new, old


def _row(name: str, r: Run) -> str:
    return (
        f"  {name:<22} {r.cpu or 0:6.2f} s cpu {r.wall or 0:6.2f} s wall "
        f"{r.kb / 1024:6.0f} MB  {r.found} finding(s)"
    )


def _ratio(new: Run, old: Run) -> str:
    if not new.cpu or not old.cpu:
        return ""
    return f"  ratio {new.cpu / old.cpu:4.2f} ({old.cpu / new.cpu:.1f}x faster)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-big", action="store_true", help="skip the 400-ability spec")
    ap.add_argument(
        "--baseline-specs",
        action="store_true",
        help="the baseline checks its own specs/ (as of REV: for a revision that cannot "
        "compile today's specs), this tree its own",
    )
    ap.add_argument(
        "--this",
        metavar="REV",
        help="measure REV (archived as the baseline is) instead of the installed working tree, "
        "which other engineers may be editing",
    )
    args = ap.parse_args()
    specs = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "specs").glob("*.maf"))
    base = baseline_tree(args.baseline)
    label = f"baseline {args.baseline}"
    this = baseline_tree(args.this) if args.this else ROOT
    mine = f"this tree {args.this}" if args.this else "this tree"

    own = sorted(str(p) for p in (base / "specs").glob("*.maf")) if args.baseline_specs else None
    common = specs
    if own is None:  # the specs the baseline can compile (a later spec may use newer syntax)
        p = subprocess.run(
            [sys.executable, "-c", COMPILES, str(base), *specs],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        common = [x for x in p.stdout.split() if x in specs]
    new, old = side_by_side(base, common, args.runs, own, this)
    print(
        f"maf check, {len(common)} specs (whole process, best of {args.runs}"
        + (
            "; the baseline on its own specs"
            if own
            else f"; the specs both compile: {' '.join(Path(x).name for x in common)}"
        )
        + ")"
    )
    print(_row(label, old))
    print(_row(mine, new) + _ratio(new, old))
    if common != specs:
        every = Run()
        for _ in range(args.runs):
            run_once(this, specs, every)
        print(f"maf check specs/*.maf, all {len(specs)} specs, {mine}")
        print(_row(mine, every) + "   (target <= 2 s)")

    if not args.no_big:
        sys.path.insert(0, str(ROOT))
        from bench.gen_big import spec

        with tempfile.TemporaryDirectory() as d:
            big = Path(d) / "big400.maf"
            big.write_text(spec(400), encoding="utf-8")
            bnew, bold = side_by_side(base, [str(big)], 1, None, this)
        print("generated spec, 400 abilities (bench/gen_big.py; best of 1)")
        print(_row(label, bold))
        print(
            _row(mine, bnew)
            + _ratio(bnew, bold)
            + "   (target <= 10 s, <= 1024 MB, each defect once: 2)"
        )

    print(
        f"import maf.compiler.tools.cli (CPU, best of {args.runs}): baseline "
        f"{import_time(base, args.runs):.2f} s, {mine} {import_time(this, args.runs):.2f} s"
    )
    from maf.compiler.driver import compile_file
    from maf.compiler.verify.check import CHECKS, check_program

    c = compile_file(ROOT / "specs" / "classic.maf", display="specs/classic.maf", generate=False)
    src = (ROOT / "specs" / "classic.maf").read_text(encoding="utf-8")
    print("per check, specs/classic.maf (this tree, in process, CPU):")
    for code, title, _ in CHECKS:
        t = time.process_time()
        check_program(c.program, src, None, only={code})
        print(f"  {code} {title:<28} {(time.process_time() - t) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
