"""Are docs/balance.md's results unchanged? Plays every table of docs/balance.md again with today's
engines and simulator (same games per table, another seed) and compares each win rate with the
95% interval the page gives, side by side.

Run: python bench/balance_check.py [--policy random] [--spec bazpors ...] [--workers K]

For each table and winner: the page's rate and interval, today's rate and interval, and whether
today's rate lies in the page's interval and the two intervals overlap. Same rules, same policy:
about 17% of rates fall outside the other run's interval by chance, and the intervals overlap in
all but about 1% of them. Figures, not a test.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from maf.compiler.driver import load_engine  # noqa: E402
from maf.compiler.tools.simulate import simulate, tables  # noqa: E402
from maf.compiler.tools.simulate.cli import engine_source  # noqa: E402

CELL = re.compile(r"([\d.]+)% \(([\d.]+)–([\d.]+)\)")


def page() -> dict:
    """{(spec, policy): {(players, setup): (games, {winner: (rate, lo, hi)})}} from the page."""
    out: dict = {}
    key = who = None
    for line in (ROOT / "docs" / "balance.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"### (\w+), `(\w+)` policy", line)
        if m:
            key = (m.group(1), m.group(2))
            out[key] = {}
            continue
        if key is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == "players":
            who = cells[3:-2]
            continue
        if not cells[0].isdigit() or who is None:
            continue
        rates = {}
        for w, c in zip(who, cells[3:-2], strict=True):
            m = CELL.fullmatch(c)
            if m:
                rates[w] = tuple(float(x) / 100 for x in m.groups())
        out[key][(int(cells[0]), cells[1] or None)] = (int(cells[2]), rates)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--policy", action="append")
    ap.add_argument("--spec", action="append")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    inside = overlap = total = 0
    for (spec, policy), rows in page().items():
        if args.spec and spec not in args.spec or args.policy and policy not in args.policy:
            continue
        src, name = engine_source(spec)
        eng = load_engine(src, name)
        games = max(g for g, _ in rows.values())
        sizes = sorted({p for p, _ in rows})
        tabs = [t for t in tables(eng, (sizes[0], sizes[-1])) if (t.players, t.setup) in rows]
        sim = simulate(src, name, tabs, games=games, seed=args.seed, policy=policy,
                       workers=args.workers)
        for t in sim.stats:
            _, rates = rows[(t.players, t.setup)]
            for w, (rate, lo, hi) in rates.items():
                now = t.rate(w)
                nlo, nhi = t.ci95(w)
                ok_in = lo <= now <= hi
                ok_over = nlo <= hi and lo <= nhi
                inside += ok_in
                overlap += ok_over
                total += 1
                flag = "" if ok_in else "  (outside)" if ok_over else "  (NO OVERLAP)"
                print(f"{spec:8} {policy:8} {t.players:3} {t.setup or '':8} {w:10} "
                      f"page {rate:6.1%} ({lo:.1%}-{hi:.1%})   now {now:6.1%} "
                      f"({nlo:.1%}-{nhi:.1%}){flag}", flush=True)
    print(f"{inside} of {total} rates inside the page's interval ({inside / max(total, 1):.0%}; "
          f"about 83% by chance alone), {overlap} of {total} intervals overlap")


if __name__ == "__main__":
    main()
