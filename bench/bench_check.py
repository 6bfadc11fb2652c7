"""Checker timings, whole process (imports + compile + every check), against a baseline run
side by side. No assertions (benchmarks are not tests).

    python bench/bench_check.py [--baseline REV] [--runs N]

Prints, best of N runs each:
* `maf check specs/*.maf` on the shipped specs (target: at most 2 s), for this tree and for the
  baseline revision's checker (default 2246e49, before issue 11) on the same spec files
  (the specs the baseline can compile), with the ratio;
* a generated spec with 400 night abilities (bench/gen_big.py; target: at most 10 s and 1 GB),
  its time, peak memory and the number of findings (each defect once: 2);
* the time per check on specs/classic.maf (this tree).
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
CHILD = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[1])
t = time.perf_counter()
from maf.compiler.tools.cli import main
try:
    code = main(["check", "--format", "json", *sys.argv[2:]])
except SystemExit as e:
    code = e.code
import io
sys.stderr.write("BENCH %d %.4f %d\n" % (code, time.perf_counter() - t,
                 resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))
"""


def _cpu():
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(tree: Path, specs: list[str], runs: int):
    """(best CPU seconds, peak KB, findings, best wall seconds) of `maf check` in a fresh
    process, cwd = tree. CPU time (user + system of the child) is what the machine's load does
    not change; wall time is printed too."""
    best, peak, found, wbest = None, 0, None, None
    for _ in range(runs):
        c0 = _cpu()
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", CHILD, str(tree), *specs], cwd=tree,
                           capture_output=True, text=True)
        wall = time.perf_counter() - t
        cpu = _cpu() - c0
        wbest = wall if wbest is None else min(wbest, wall)
        line = next((x for x in p.stderr.splitlines() if x.startswith("BENCH")), None)
        kb = int(line.split()[3]) if line else 0
        best = cpu if best is None else min(best, cpu)
        peak = max(peak, kb)
        try:
            data = json.loads(p.stdout)
            found = sum(len(s["findings"]) for s in data["specs"])
        except (ValueError, KeyError):
            found = None
    return best, peak, found, wbest


def baseline_tree(rev: str) -> Path:
    d = Path(tempfile.mkdtemp(prefix="maf-baseline-"))
    data = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "compiler", "dsl"],
                          capture_output=True, check=True).stdout
    tar = d / "src.tar"
    tar.write_bytes(data)
    with tarfile.open(tar) as t:
        t.extractall(d, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(d)
    return d


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default="2246e49")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    specs = sorted(str(p) for p in (ROOT / "specs").glob("*.maf"))
    old = ["bazpors.maf", "classic.maf", "online.maf"]
    common = [str(ROOT / "specs" / s) for s in old]
    base = baseline_tree(args.baseline)
    (base / "specs").mkdir(exist_ok=True)
    t_new, m_new, _, w_new = run(ROOT, common, args.runs)
    t_old, m_old, _, w_old = run(base, common, args.runs)
    t_all, m_all, _, w_all = run(ROOT, specs, args.runs)
    print(f"maf check {' '.join(old)} (whole process, best of {args.runs}; CPU s, wall s)")
    print(f"  baseline {args.baseline:<10} {t_old:6.2f} s cpu {w_old:6.2f} s wall "
          f"{m_old / 1024:6.0f} MB")
    print(f"  this tree           {t_new:6.2f} s cpu {w_new:6.2f} s wall {m_new / 1024:6.0f} MB"
          f"   ratio {t_new / t_old:4.2f} ({t_old / t_new:.1f}x faster)")
    print(f"maf check specs/*.maf ({len(specs)} specs)  {t_all:6.2f} s cpu {w_all:6.2f} s wall "
          f"{m_all / 1024:6.0f} MB   (target <= 2 s)")
    sys.path.insert(0, str(ROOT))
    from bench.gen_big import spec
    with tempfile.TemporaryDirectory() as d:
        big = Path(d) / "big400.maf"
        big.write_text(spec(400), encoding="utf-8")
        t_big, m_big, n_big, w_big = run(ROOT, [str(big)], 1)
        print(f"generated spec, 400 abilities  {t_big:6.2f} s cpu {w_big:6.2f} s wall "
              f"{m_big / 1024:6.0f} MB  "
              f"{n_big} finding(s)   (target <= 10 s, <= 1024 MB, each defect once: 2)")
    from maf.compiler.verify.check import CHECKS, check_program
    from maf.compiler.driver import compile_file
    c = compile_file(ROOT / "specs" / "classic.maf", display="specs/classic.maf")
    src = (ROOT / "specs" / "classic.maf").read_text(encoding="utf-8")
    print("per check, specs/classic.maf (this tree, in process):")
    for code, title, _ in CHECKS:
        t = time.perf_counter()
        check_program(c.program, src, c.python, only={code})
        print(f"  {code} {title:<28} {(time.perf_counter() - t) * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
