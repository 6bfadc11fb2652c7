"""Regenerate docs/balance.md's figures and tables: every shipped seed spec at every table size it
allows (fixed setups), under both built-in policies.

    python -m compiler.simulate.balance [--games N] [--workers K]

It rewrites docs/balance/*.svg and the part of docs/balance.md between the `generated` markers;
the prose around them is written by hand from what the figures show.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from maf.compiler.driver import load_engine
from maf.compiler.tools.simulate import simulate, tables
from maf.compiler.tools.simulate.cli import engine_source
from maf.compiler.tools.simulate.report import plot, sides

ROOT = Path(__file__).resolve().parents[3]
SPECS = ("bazpors", "classic", "online", "takavar")
POLICIES = ("random", "informed")
START, END = "<!-- generated: start -->", "<!-- generated: end -->"


def section(sims) -> str:
    out = []
    for spec, policy, sim, eng in sims:
        who = [w for w in sides(eng, sim.stats) if any(t.wins.get(w) for t in sim.stats)]
        out.append(f"### {spec}, `{policy}` policy\n")
        out.append(f"![{spec} win rates, {policy} policy](balance/{spec}-{policy}.svg)\n")
        out.append(
            "| players | setup | games | " + " | ".join(who) + " | unfinished | days (mean) |"
        )
        out.append("|---:|---|---:|" + "---:|" * len(who) + "---:|---:|")
        for t in sim.stats:
            cells = [
                f"{100 * t.rate(w):.1f}% ({100 * t.ci95(w)[0]:.1f}–{100 * t.ci95(w)[1]:.1f})"
                for w in who
            ]
            out.append(
                f"| {t.players} | {t.setup or ''} | {t.games} | "
                + " | ".join(cells)
                + f" | {t.unfinished} | {t.mean_days:.2f} |"
            )
        best = sim.most_balanced(eng.TEAMS)
        if best is not None:
            out.append(
                f"\nMost balanced: {best.players} players"
                + (f" (setup {best.setup})" if best.setup else "")
                + ".\n"
            )
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m compiler.simulate.balance", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--games", type=int, default=1000, help="games per table (default 1000)")
    ap.add_argument("--workers", type=int, default=None, help="worker processes (default: all)")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    import matplotlib

    matplotlib.rcParams["svg.hashsalt"] = "maf-balance"  # deterministic SVG ids
    figs = ROOT / "docs" / "balance"
    figs.mkdir(parents=True, exist_ok=True)
    sims = []
    for spec in SPECS:
        src, name = engine_source(spec)
        eng = load_engine(src, name)
        for policy in POLICIES:
            print(f"{spec} / {policy} ...", file=sys.stderr, flush=True)
            sim = simulate(
                src,
                name,
                tables(eng),
                games=args.games,
                seed=args.seed,
                policy=policy,
                workers=args.workers,
            )
            plot(sim, eng, str(figs / f"{spec}-{policy}.svg"))
            sims.append((spec, policy, sim, eng))
    doc = ROOT / "docs" / "balance.md"
    text = doc.read_text(encoding="utf-8")
    body = f"{START}\n{section(sims)}\n{END}"
    text = re.sub(re.escape(START) + ".*?" + re.escape(END), lambda _: body, text, flags=re.S)
    doc.write_text(text, encoding="utf-8")
    print(f"wrote {doc.relative_to(ROOT)} and {len(sims)} figures", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
