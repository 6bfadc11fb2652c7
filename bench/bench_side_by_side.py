"""Benchmark: the night resolver of a spec's engine against a baseline engine, side by side.

Both engines resolve the same random legal nights, alternately, many rounds; each keeps its best
round (like timeit), so load on a shared machine hits both alike. Prints nights per second and
the ratio new / baseline; asserts nothing. Typical use, against an older commit:

    git worktree add /tmp/base COMMIT
    python bench/bench_side_by_side.py /tmp/base/generated/bazpors.py [--spec bazpors]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_bazpors import _fresh, random_nights, time_nights  # noqa: E402

from maf.compiler.driver import import_generated  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("baseline", help="a generated engine file of the baseline (another commit)")
    ap.add_argument("--spec", default="bazpors")
    ap.add_argument("--nights", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    new = import_generated(ROOT / "generated" / f"{args.spec}.py")
    base = import_generated(Path(args.baseline))
    for size in sorted(new.SETUPS)[:1] + sorted(new.SETUPS)[-1:]:
        nights = random_nights(new, size, args.nights, seed=size)
        best = {"baseline": float("inf"), "new": float("inf")}
        for _ in range(args.rounds):
            for name, eng in (("baseline", base), ("new", new)):
                best[name] = min(best[name], time_nights(lambda r, eng=eng: _fresh(eng, r), nights))
        rate = {k: args.nights / v for k, v in best.items()}
        print(f"{args.spec} {size}-player nights: baseline {rate['baseline']:,.0f}/s, "
              f"new {rate['new']:,.0f}/s, ratio new/baseline {rate['new'] / rate['baseline']:.3f}")


if __name__ == "__main__":
    main()
