"""`maf fuzz`: random testing surfaces. `--differential SPEC`: the spec's generated engine
against the reference interpreter (compiler/verify/differential.py); the first divergence is printed
as a scenario YAML that reproduces it (`maf run` on it fails on the engine)."""

from __future__ import annotations

import json
import sys
import time


def add_parser(sub) -> None:
    f = sub.add_parser("fuzz", help="random testing: an engine against the reference interpreter")
    f.add_argument(
        "--differential",
        metavar="SPEC",
        required=True,
        help="compare the engine of SPEC (a .maf file) with the IR interpreter",
    )
    f.add_argument("--steps", type=int, default=20000, help="random steps to play (default 20000)")
    f.add_argument("--seed", type=int, default=0, help="seed of the random games (default 0)")
    f.add_argument("--out", metavar="FILE", help="also write the divergence scenario to FILE")
    f.set_defaults(fn=cmd_fuzz)


def cmd_fuzz(args) -> int:
    from maf.compiler.verify import differential, interp
    from maf.dsl.diagnostics import CompileError

    t0 = time.perf_counter()
    try:
        div, stats = differential.run(args.differential, args.steps, seed=args.seed)
    except CompileError as e:
        print(e.render(), file=sys.stderr)
        return 2
    except differential.NoTable as e:
        print(f"maf fuzz: {args.differential}: cannot play: {e}", file=sys.stderr)
        return 2
    except interp.Unsupported as e:
        print(f"maf fuzz: {args.differential}: skipped: {e}", file=sys.stderr)
        return 2
    dt = time.perf_counter() - t0
    if getattr(args, "format", "text") == "json":
        report = {
            "spec": args.differential,
            "divergence": None
            if div is None
            else {"what": div.what, "step": div.step, "scenario": div.scenario},
            "steps": stats.steps,
            "games": stats.games,
            "rejected": stats.rejected,
            "round_trips": stats.round_trips,
            "legal_checks": stats.legal_checks,
            "seconds": round(dt, 3),
        }
        print(json.dumps(report, ensure_ascii=False, indent=1))
        if div is not None and args.out:
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(div.scenario)
        return 0 if div is None else 1
    summary = (
        f"{stats.steps} steps in {stats.games} games ({stats.rejected} rejected, "
        f"{stats.round_trips} JSON round trips, {stats.legal_checks} legal-action checks) "
        f"in {dt:.1f} s"
    )
    if div is None:
        print(f"maf fuzz: {args.differential}: no divergence: {summary}")
        return 0
    sys.stdout.write(div.scenario)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(div.scenario)
    print(
        f"maf fuzz: {args.differential}: {div.what} divergence at step {div.step} ({summary})",
        file=sys.stderr,
    )
    return 1
