"""The `maf simulate` subcommand: argument parsing, progress, output and bad input."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from maf.compiler.tools.simulate import (
    MAX_DAYS,
    POLICIES,
    PolicyError,
    SimulationError,
    cached_engine,
    simulate,
    tables,
)
from maf.compiler.tools.simulate.report import plot, to_csv, to_json, to_text
from maf.dsl.diagnostics import CompileError


def add_parser(sub) -> None:
    s = sub.add_parser(
        "simulate",
        help="balance by Monte Carlo: play many games, report win rates",
        description="Play whole games of a spec through its generated engine and "
        "report each side's win rate per table size and setup "
        "(docs/simulate.md).",
    )
    s.add_argument("spec", help="a spec id (generated/ID.py) or a path to a .maf file")
    s.add_argument(
        "--players",
        metavar="N|LO..HI",
        help="table sizes to play (default: every size the spec allows)",
    )
    s.add_argument("--setup", metavar="NAME", help="only this named setup")
    s.add_argument(
        "--seats",
        metavar="ROLE,ROLE,...",
        help="play this one table (role ids, seat 1 first) instead of the setups",
    )
    s.add_argument(
        "--games", type=int, default=1000, metavar="N", help="games per table (default 1000)"
    )
    s.add_argument(
        "--policy",
        choices=sorted(POLICIES),
        default="random",
        help="how players act (default random)",
    )
    s.add_argument(
        "--act",
        type=float,
        default=1.0,
        metavar="P",
        help="probability that a player uses each ability (random policy; default 1)",
    )
    s.add_argument("--seed", type=int, default=0, help="the simulation seed (default 0)")
    s.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="K",
        help="local worker processes (default: all cores)",
    )
    s.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="run the batches as Ray tasks on this cluster ('auto', 'ray://host:10001', "
        "or 'local' for a local instance); needs pip install 'maf[ray]'",
    )
    s.add_argument(
        "--max-days",
        type=int,
        default=MAX_DAYS,
        metavar="D",
        help=f"a game still running after D days counts as unfinished (default {MAX_DAYS})",
    )
    s.add_argument(
        "--plot",
        metavar="FILE.png|FILE.svg",
        help="draw win rate against table size with the 95%% interval as a band",
    )
    s.add_argument(
        "--format",
        choices=("text", "json", "csv"),
        default="text",
        help="output form (default text)",
    )
    s.set_defaults(fn=cmd_simulate)


def _players(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    m = re.fullmatch(r"\s*(\d{1,4})\s*(?:\.\.\s*(\d{1,4})\s*)?", text)
    if not m:
        raise SimulationError(f"--players takes N or LO..HI, not {text!r}")
    lo = int(m.group(1))
    return lo, int(m.group(2) or lo)


def spec_file(spec: str) -> Path | None:
    """The .maf file of a spec id or path, if there is one (the replay file names it)."""
    from maf.compiler.engines import find_root

    if spec.endswith(".maf"):
        return Path(spec) if Path(spec).is_file() else None
    here = Path(__file__).resolve().parents[3]
    for root in filter(None, (find_root(Path.cwd().resolve()), find_root(here))):
        if (root / "generated" / f"{spec}.py").is_file():
            src = root / "specs" / f"{spec}.maf"
            return src if src.is_file() else None
    return None


def replay_spec(spec: str, replay: Path) -> str:
    """The `spec:` of a replay file written at `replay`: the spec's .maf file as a path relative
    to the replay file's folder (as `maf run` reads it), else the id as given."""
    src = spec_file(spec)
    if src is None:
        return spec
    try:
        return Path(os.path.relpath(src.resolve(), replay.resolve().parent)).as_posix()
    except ValueError:  # pragma: no cover - another drive (Windows)
        return src.resolve().as_posix()


# the optional extras, checked before any work starts: (module, extra) per option
EXTRAS = {"plot": ("matplotlib", "plot"), "ray": ("ray", "ray")}


def missing_extra(option: str) -> str | None:
    """The error for `--OPTION` when its extra is not installed, else None."""
    import importlib.util

    module, extra = EXTRAS[option]
    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken install
        found = False
    if found:
        return None
    return f"--{option} needs {module}, which is not installed: pip install 'maf[{extra}]'"


def engine_source(spec: str) -> tuple[str, str]:
    """(python source, name) of a spec id's generated engine or of a .maf file compiled now."""
    from maf.compiler.engines import find_root

    if spec.endswith(".maf"):
        from maf.compiler.driver import compile_file  # (a spec id's engine needs no compiler)

        path = Path(spec)
        if not path.is_file():
            raise SimulationError(f"no spec file {spec}")
        return compile_file(path).code, path.stem
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,63}", spec):
        raise SimulationError(f"bad spec id {spec!r}")
    here = Path(__file__).resolve().parents[3]
    for root in filter(None, (find_root(Path.cwd().resolve()), find_root(here))):
        gen = root / "generated" / f"{spec}.py"
        if gen.is_file():
            return gen.read_text(encoding="utf-8"), spec
    raise SimulationError(f"unknown spec {spec!r}: no generated/{spec}.py")


class _Progress:
    """A rich progress bar (games/s and ETA) on a terminal; nothing when stderr is redirected."""

    def __init__(self, total: int):
        self.bar = None
        if sys.stderr.isatty():
            try:
                from rich.progress import (
                    BarColumn,
                    MofNCompleteColumn,
                    Progress,
                    TextColumn,
                    TimeRemainingColumn,
                )
            except ImportError:  # pragma: no cover - rich is a dependency
                return
            self.bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} games/s"),
                TimeRemainingColumn(),
                transient=True,
                console=None,
            )
            self.task = self.bar.add_task("games", total=total, rate="-")
            self.bar.start()

    def __call__(self, done: int, total: int) -> None:
        if self.bar is not None:
            t = self.bar.tasks[0]
            rate = f"{done / t.elapsed:,.0f}" if t.elapsed else "-"
            self.bar.update(self.task, completed=done, rate=rate)

    def stop(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def cmd_simulate(args: argparse.Namespace) -> int:
    try:
        if args.games < 1:
            raise SimulationError("--games must be at least 1")
        if not 0.0 <= args.act <= 1.0:
            raise SimulationError("--act must be between 0 and 1")
        if args.workers is not None and args.workers < 1:
            raise SimulationError("--workers must be at least 1")
        if args.plot and not args.plot.endswith((".png", ".svg")):
            raise SimulationError("--plot takes a .png or .svg file name")
        for option in ("plot", "ray"):
            if getattr(args, option):
                missing = missing_extra(option)
                if missing:
                    raise SimulationError(missing)
        source, name = engine_source(args.spec)
        # (the one the simulation plays: one process loads it once, and a pool's workers inherit it)
        engine = cached_engine(source, name)
        if not hasattr(engine.Game, "legal_actions"):
            raise SimulationError(
                f"the engine of {name} predates the bot API (legal_actions): run `maf build`"
            )
        seats = args.seats.split(",") if args.seats else None
        notes: list[str] = []
        tabs = tables(
            engine,
            _players(args.players),
            args.setup,
            [s.strip() for s in seats] if seats else None,
            notes,
        )
        for note in notes:
            print(f"maf simulate: {note}", file=sys.stderr)
    except SimulationError as e:
        print(f"maf simulate: {e}", file=sys.stderr)
        return 2
    except CompileError as e:
        print(e.render(), file=sys.stderr)
        return 2
    bar = _Progress(args.games * len(tabs))
    try:
        sim = simulate(
            source,
            name,
            tabs,
            games=args.games,
            seed=args.seed,
            policy=args.policy,
            act=args.act,
            workers=args.workers,
            ray_address=args.ray,
            max_days=args.max_days,
            progress=bar,
        )
    except PolicyError as e:
        bar.stop()
        path = Path(f"simulate-failure-{name}-{e.scenario['seed']}.yaml")
        import yaml

        e.scenario["spec"] = replay_spec(args.spec, path)
        path.write_text(
            yaml.safe_dump(e.scenario, sort_keys=False, allow_unicode=True), encoding="utf-8"
        )
        print(
            f"maf simulate: the {args.policy} policy submitted an illegal action: {e}\n"
            f"  replay it with: maf run {path}",
            file=sys.stderr,
        )
        return 1
    except SimulationError as e:
        bar.stop()
        print(f"maf simulate: {e}", file=sys.stderr)
        return 2
    finally:
        bar.stop()
    if args.format == "json":
        sys.stdout.write(json.dumps(to_json(sim, engine), indent=1) + "\n")
    elif args.format == "csv":
        sys.stdout.write(to_csv(sim, engine))
    else:
        sys.stdout.write(to_text(sim, engine))
    if args.plot:
        plot(sim, engine, args.plot)
        print(f"plot: {os.path.abspath(args.plot)}", file=sys.stderr)
    if sim.interrupted:
        print("maf simulate: interrupted; the results above are partial", file=sys.stderr)
        return 130
    return 0
