"""Output forms of `maf simulate`: text table, JSON (the pinned schema of docs/simulate.md), CSV,
and a plot of win rate against table size with the 95% interval as a band."""

from __future__ import annotations

import csv
import io
from typing import Any, cast

from maf.compiler.tools.simulate import Simulation
from maf.compiler.tools.simulate.stats import TableStats


def sides(engine, stats: list[TableStats]) -> list[str]:
    """Teams first (in spec order), then independent roles that won somewhere."""
    seen = {w for t in stats for w in t.wins}
    teams = [t for t in engine.TEAMS]
    return teams + [r for r in engine.ROLES if r in seen and r not in teams]


def to_json(sim: Simulation, engine) -> dict:
    who = sides(engine, sim.stats)
    best = sim.most_balanced(engine.TEAMS)
    out: dict[str, Any] = {"spec": sim.spec, "policy": sim.policy, "seed": sim.seed, "tables": []}
    for t in sim.stats:
        out["tables"].append(
            {
                "players": t.players,
                "setup": t.setup,
                "games": t.games,
                "finished": t.finished,
                "wins": {w: t.wins.get(w, 0) for w in who},
                "ci95": {w: [round(x, 6) for x in t.ci95(w)] for w in who},
                "mean_days": round(t.mean_days, 6),
                # extensions of the pinned schema
                "median_days": t.median_days,
                "draws": t.draws,
                "unfinished": t.unfinished,
                "survival": {r: round(x, 6) for r, x in t.survival().items()},
            }
        )
    out["most_balanced"] = None if best is None else {"players": best.players, "setup": best.setup}
    if sim.interrupted:
        out["interrupted"] = True
    return out


def to_csv(sim: Simulation, engine) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "players",
            "setup",
            "games",
            "finished",
            "who",
            "wins",
            "rate",
            "ci95_lo",
            "ci95_hi",
            "mean_days",
            "median_days",
        ]
    )
    for t in sim.stats:
        for who in sides(engine, sim.stats):
            lo, hi = t.ci95(who)
            w.writerow(
                [
                    t.players,
                    t.setup or "",
                    t.games,
                    t.finished,
                    who,
                    t.wins.get(who, 0),
                    f"{t.rate(who):.6f}",
                    f"{lo:.6f}",
                    f"{hi:.6f}",
                    f"{t.mean_days:.3f}",
                    t.median_days,
                ]
            )
    return buf.getvalue()


def to_text(sim: Simulation, engine) -> str:
    who = sides(engine, sim.stats)
    head = ["players", "setup", "games", "done"] + who + ["draws", "days (mean/median)"]
    rows = []
    for t in sim.stats:
        cells = [str(t.players), t.setup or "-", str(t.games), str(t.finished)]
        for w in who:
            lo, hi = t.ci95(w)
            cells.append(
                f"{100 * t.rate(w):5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]" if t.games else "-"
            )
        cells += [str(t.draws), f"{t.mean_days:.2f} / {t.median_days:g}"]
        rows.append(cells)
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    line = lambda cells: "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True))  # noqa: E731
    out = [
        f"{sim.spec}: {sim.policy} policy, seed {sim.seed}"
        + (" (INTERRUPTED: partial results)" if sim.interrupted else ""),
        line(head),
        line(["-" * w for w in widths]),
    ]
    out += [line(r) for r in rows]
    best = sim.most_balanced(engine.TEAMS)
    if best is not None:
        pair = sorted(engine.TEAMS, key=lambda x: -best.wins.get(x, 0))[:2]
        out.append(
            f"most balanced: {best.players} players"
            + (f" ({best.setup})" if best.setup else "")
            + ": "
            + " vs ".join(f"{p} {100 * best.rate(p):.1f}%" for p in pair)
        )
    out.append("role survival (share of seats alive at the end):")
    for t in sim.stats:
        surv = ", ".join(f"{r} {100 * x:.0f}%" for r, x in t.survival().items())
        out.append(f"  {t.players}{' ' + t.setup if t.setup else ''}: {surv}")
    return "\n".join(out) + "\n"


def plot(sim: Simulation, engine, path: str) -> None:
    """Win rate against table size, one line per team (and independent winner) and setup, with
    the 95% Wilson interval as a band. PNG or SVG by the file's extension."""
    import matplotlib  # optional, loaded only to plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    setups = sorted({t.setup or "" for t in sim.stats})
    for who in sides(engine, sim.stats):
        for label in setups:
            ts = sorted(
                (
                    t
                    for t in sim.stats
                    if (t.setup or "") == label and (who in engine.TEAMS or who in t.dealt)
                ),  # an independent: where dealt
                key=lambda t: t.players,
            )
            if not ts or not any(t.wins.get(who) for t in ts):
                continue
            xs = [t.players for t in ts]
            ys = [t.rate(who) for t in ts]
            lo = [t.ci95(who)[0] for t in ts]
            hi = [t.ci95(who)[1] for t in ts]
            name = who + (f" ({label})" if label else "")
            (line,) = ax.plot(xs, ys, marker="o", label=name)
            ax.fill_between(xs, lo, hi, alpha=0.2, color=line.get_color())
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(0, 1)
    ax.set_xlabel("players")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_title(
        f"{sim.spec}: win rate by table size ({sim.policy} policy, "
        f"{max((t.games for t in sim.stats), default=0)} games per table)"
    )
    # the default locator is an AutoLocator (a MaxNLocator), typed as the base Locator
    cast(MaxNLocator, ax.xaxis.get_major_locator()).set_params(integer=True)
    ax.legend(loc="best", fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None} if path.endswith(".svg") else None)
    plt.close(fig)
