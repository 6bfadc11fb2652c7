"""The `maf` command: build, run, compile, check, new (one `add_*` and one `cmd_*` function per
subcommand; `build_parser` lists them in order).

Exit codes: 0 success; 1 errors found (spec errors, failed or illegal scenario, stale output);
2 usage or input problems.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from maf.compiler import version
from maf.compiler.tools import console
from maf.dsl.diagnostics import CompileError


class _Later:
    """A module imported when a command first uses it, so that `maf --version`, `maf COMMAND
    --help` and the commands that do not compile start without the compiler and YAML."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str):
        import importlib

        return getattr(importlib.import_module(self._name), attr)


if TYPE_CHECKING:
    from maf.compiler.tools import scenario
else:
    scenario = _Later("maf.compiler.tools.scenario")


def compile_file(*args, **kwargs):  # maf.compiler.driver.compile_file, imported when called
    from maf.compiler.driver import compile_file as compile_

    return compile_(*args, **kwargs)


def _root() -> Path:
    return scenario.find_root(Path.cwd().resolve()) or Path.cwd()


def _print_errors(e: CompileError) -> None:
    print(console.diagnostics(e.render(), sys.stderr), file=sys.stderr)


# ------------------------------------------------------------------ options every command takes
# One spelling per format; the other names people type are aliases (`markdown` is `md`).
FORMAT_ALIASES = {"markdown": "md", "txt": "text"}


def _format_name(value: str) -> str:
    return FORMAT_ALIASES.get(value, value)


def add_format(p, choices: tuple[str, ...], default: str, what: str = "output format") -> None:
    """`--format` with `choices` (aliases accepted), and `--json` for `--format json` when json
    is one of them (the historic spelling of `maf run`, kept as a contract)."""
    aliases = [a for a, v in FORMAT_ALIASES.items() if v in choices]
    p.add_argument(
        "--format",
        type=_format_name,
        choices=choices,
        default=default,
        help=f"{what}: {', '.join(choices)} (default: {default}"
        + (f"; {', '.join(f'{a} = {FORMAT_ALIASES[a]}' for a in aliases)}" if aliases else "")
        + ")",
    )
    if "json" in choices:
        p.add_argument(
            "--json",
            dest="format",
            action="store_const",
            const="json",
            help="the same as --format json",
        )


def _add_common(p, top: bool = False) -> None:
    """--color and --quiet, on `maf` itself and on every command (given either side of the
    command name: `maf -q run x`, `maf run -q x`)."""
    given = p._option_string_actions
    if "--color" not in given:
        p.add_argument(
            "--color",
            "--colour",
            choices=("auto", "always", "never"),
            default="auto" if top else argparse.SUPPRESS,
            help="colour the output: auto (on a terminal, unless NO_COLOR is set), always, never",
        )
    if "--quiet" not in given:
        p.add_argument(
            "-q",
            "--quiet",
            action="store_true",
            default=False if top else argparse.SUPPRESS,
            help="print only problems and the final counts",
        )
    if not top and "--json" not in given and "--format" in given:
        fmt = given["--format"]
        if fmt.choices and "json" in fmt.choices:  # a command's own --format: --json too
            p.add_argument(
                "--json",
                dest=fmt.dest,
                action="store_const",
                const="json",
                help="the same as --format json",
            )


def _fmt(args) -> str:
    return getattr(args, "format", None) or "text"


def _quiet(args) -> bool:
    return bool(getattr(args, "quiet", False))


# ------------------------------------------------------------------ maf build
def add_build(sub) -> None:
    b = sub.add_parser(
        "build",
        help="compile every spec in specs/ into generated/ and check it",
        description="Compile every spec in DIR/specs/ into DIR/generated/, then "
        "run the consistency checks on them.",
    )
    b.add_argument(
        "dir",
        nargs="?",
        metavar="DIR",
        help="the project folder holding specs/ and generated/ (default: the one "
        "around the current directory)",
    )
    b.add_argument(
        "--check",
        action="store_true",
        help="fail if generated/ differs from what the compiler produces",
    )
    b.add_argument("--no-check", action="store_true", help="skip the Z3 consistency checks")
    add_format(
        b,
        ("text", "json"),
        "text",
        'json prints {"specs": [{"file", "engine", "status"...}], "compiled", '
        '"failed", "stale", "checks_failed", "seconds"} (the text report goes to stderr)',
    )
    b.add_argument(
        "--native",
        nargs="*",
        metavar="SPEC",
        help="also compile the engines (of the SPECs given, else all) with Cython into "
        "generated/NAME_native.*.so beside the pure-Python ones (needs the `native` extra and "
        "a C compiler; without them says so and builds the rest)",
    )
    b.set_defaults(fn=cmd_build)


def cmd_build(args) -> int:
    if _fmt(args) != "json":
        return _build(args, None)
    records: list[dict] = []
    real = sys.stdout
    sys.stdout = sys.stderr  # the text report, for a human watching; the JSON alone on stdout
    try:
        code = _build(args, records)
    finally:
        sys.stdout = real
    summary = records.pop() if records and "total" in records[-1] else {}
    doc = {"specs": records, **{k: v for k, v in summary.items() if k != "total"}}
    print(json.dumps(doc, ensure_ascii=False, indent=1))
    return code


def _build(args, records: list[dict] | None) -> int:
    """`maf build`; with `records`, each spec's outcome is appended to it as a dict, and the
    totals last (`{"total": True, ...}`)."""
    root = Path(args.dir).resolve() if args.dir else _root()
    specs = sorted((root / "specs").glob("*.maf"))
    if not specs:
        print(f"maf build: no specs in {root / 'specs'}", file=sys.stderr)
        return 2
    out_stream = sys.stdout
    t_start = time.perf_counter()
    failed = stale = 0
    compiled = []
    engines = {}  # spec -> its generated engine, for --native
    for spec in specs:
        rel = spec.relative_to(root).as_posix()
        t0 = time.perf_counter()
        try:
            out = compile_file(spec, display=rel)
        except CompileError as e:
            _print_errors(e)
            print(f"{rel}: {console.paint('FAILED', 'red', sys.stderr)}", file=sys.stderr)
            failed += 1
            if records is not None:
                records.append({"file": rel, "status": "failed", "errors": len(e.diagnostics)})
            continue
        compiled.append(rel)
        ms = (time.perf_counter() - t0) * 1000
        target = root / "generated" / f"{out.program.id}.py"
        engines[spec.resolve()] = target
        current = target.read_text(encoding="utf-8") if target.exists() else None
        p = out.program
        summary = (
            f"{len(p.roles)} roles, {len(p.abilities)} abilities, "
            f"{p.min_players}..{p.max_players} players"
        )
        if records is not None:
            status = (
                ("ok" if current == out.python else "stale")
                if args.check
                else ("unchanged" if current == out.python else "written")
            )
            records.append(
                {
                    "file": rel,
                    "engine": f"generated/{target.name}",
                    "status": status,
                    "roles": len(p.roles),
                    "abilities": len(p.abilities),
                    "players": [p.min_players, p.max_players],
                    "ms": round(ms),
                }
            )
        if args.check:
            if current != out.python:
                print(
                    f"{rel}: generated/{target.name} is "
                    f"{console.paint('stale', 'red', sys.stderr)} (run `maf build`)",
                    file=sys.stderr,
                )
                stale += 1
            elif not _quiet(args):
                print(f"{rel}: {console.paint('ok', 'green', out_stream)} ({summary}; {ms:.0f} ms)")
        else:
            target.parent.mkdir(exist_ok=True)
            if current != out.python:
                target.write_text(out.code, encoding="utf-8")
            if not _quiet(args):
                print(f"{rel} -> generated/{target.name} ({summary}; {ms:.0f} ms)")
    check_failed = 0
    if not args.no_check and not failed:
        check_failed = _check_with_progress(compiled, root)
    native_failed = 0
    if args.native is not None and not failed:
        native_failed = _build_native(root, args.native, engines)
    total = time.perf_counter() - t_start
    parts = [f"{len(specs)} spec(s)", f"{len(specs) - failed} compiled"]
    if failed:
        parts.append(console.paint(f"{failed} failed", "red", out_stream))
    if stale:
        parts.append(console.paint(f"{stale} stale", "red", out_stream))
    if native_failed:
        parts.append(console.paint(f"{native_failed} native failed", "red", out_stream))
    if not args.no_check and not failed:
        parts.append(
            console.paint(f"checks failed on {check_failed}", "red", out_stream)
            if check_failed
            else "checks passed"
        )
    sys.stdout.flush()
    print(f"{'; '.join(parts)} ({total:.1f} s)")
    if records is not None:
        records.append(
            {
                "total": True,
                "compiled": len(specs) - failed,
                "failed": failed,
                "stale": stale,
                "checks_failed": None if args.no_check or failed else check_failed,
                "native_failed": native_failed if args.native is not None else None,
                "seconds": round(total, 2),
            }
        )
    return 1 if failed or stale or check_failed or native_failed else 0


def _build_native(root: Path, asked: list[str], engines: dict[Path, Path]) -> int:
    """`--native`: the asked specs' engines (all when none asked) compiled with Cython; the
    number of failures."""
    from maf.compiler.backend import native  # only for native builds

    wanted = [Path(a).resolve() for a in asked]
    unknown = [p for p in wanted if p not in engines]
    for path in unknown:
        print(f"maf build --native: {path} is not a spec of {root / 'specs'}", file=sys.stderr)
    chosen = [e for s, e in engines.items() if not wanted or s in wanted]
    progress = console.Progress(sys.stderr)

    def say(line: str) -> None:
        progress.clear()
        print(line, flush=True)

    try:
        return native.build_all(root, chosen, say=say, show=progress.show) + len(unknown)
    finally:
        progress.clear()


def _check_with_progress(specs: list[str], root: Path) -> int:
    """Run the consistency checks spec by spec under a progress line; the number of specs with
    errors."""
    from maf.compiler.verify.check import run_checks  # z3 loads only when checking

    progress = console.Progress(sys.stderr)
    bad = 0
    try:
        for i, rel in enumerate(specs, 1):
            progress.show(f"[{i}/{len(specs)}] checking {rel} ...")
            sys.stdout.flush()
            # the checker prints only what it finds; the line goes before its output
            code = _quiet_progress(
                progress, lambda rel=rel: run_checks([rel], "text", root=root, quiet_clean=True)
            )
            bad += code == 1
    finally:
        progress.clear()
    return bad


def _quiet_progress(progress: console.Progress, fn):
    """Call `fn` with the progress line erased as soon as anything is written to stdout."""
    if not progress.live:
        return fn()
    real = sys.stdout

    class _Erase:
        def write(self, s):
            progress.clear()
            return real.write(s)

        def __getattr__(self, name):
            return getattr(real, name)

    sys.stdout = _Erase()
    try:
        return fn()
    finally:
        sys.stdout = real


# ------------------------------------------------------------------ maf run
def add_run(sub) -> None:
    r = sub.add_parser(
        "run",
        help="play scenario files and check their expectations",
        description="Play scenarios (docs/scenarios.md) through the generated "
        "engines. Each argument is a YAML file, a folder (every *.yaml under it) "
        "or a glob pattern (quote it: 'tests/scenarios/**/*.yaml').",
    )
    r.add_argument(
        "files", nargs="+", metavar="FILE", help="scenario files, folders or glob patterns"
    )
    add_format(
        r,
        ("text", "json"),
        "text",
        "json prints the transcript (for several files: a JSON list of transcripts, each "
        "with its `file`)",
    )
    r.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="with several files, print each transcript, not only its verdict",
    )
    r.set_defaults(fn=cmd_run)


def _expand(args: list[str]) -> tuple[list[Path], list[str]]:
    """Scenario paths from files, folders and globs (in the order given, each once), and the
    arguments that matched nothing."""
    found: list[Path] = []
    missing: list[str] = []
    for arg in args:
        p = Path(arg)
        if p.is_dir():
            hits = sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml") and q.is_file())
        elif p.exists() or not glob.has_magic(arg):
            hits = [p]
        else:
            hits = sorted(Path(h) for h in glob.glob(arg, recursive=True) if Path(h).is_file())
        if not hits:
            missing.append(arg)
        found += [h for h in hits if h not in found]
    return found, missing


def cmd_run(args) -> int:
    fmt = _fmt(args)
    paths, missing = _expand(args.files)
    for arg in missing:
        print(f"maf run: no scenario matches {arg!r}", file=sys.stderr)
    one_file = len(args.files) == 1 and not Path(args.files[0]).is_dir()
    if one_file and len(paths) == 1 and not missing and fmt == "json":
        return _run_one_json(paths[0])
    if not paths:
        return 2
    verbose = getattr(args, "verbose", False) or (one_file and len(paths) == 1)
    return _run_many(paths, fmt, verbose and not _quiet(args), _quiet(args)) or (
        2 if missing else 0
    )


def _run_one_json(path: Path) -> int:
    """One scenario under --json: the transcript object of docs/scenarios.md (a contract);
    `error` also carries `file`, `line`, `col` and `hint` when the runner knows them."""
    try:
        res = scenario.run(path)
    except scenario.ScenarioError as e:
        print(json.dumps({"error": _broken_json(e)}, ensure_ascii=False, default=_json_default))
        return 2
    print(json.dumps(_transcript_json(res), ensure_ascii=False, indent=1, default=_json_default))
    return 0 if res.ok else 1


def _transcript_json(res) -> dict:
    t = dict(res.transcript)
    if res.failures:
        t["failures"] = res.failures
    if res.error is not None:
        t["error"] = res.error_json()
    return t


def _broken_json(e: scenario.ScenarioError) -> dict:
    """A file that cannot run, as the transcript's `error`: step null, the reason, where."""
    err: dict = {"step": None, "reason": str(e)}
    if e.span is not None:
        err.update(file=e.span.file, line=e.span.line, col=e.span.col)
    if e.hint:
        err["hint"] = e.hint
    return err


def _print_transcript(res) -> None:
    t = res.transcript
    for rep in t["steps"]:
        print(scenario.text_line(rep))
    print(f"winner: {t['winner'] if t['winner'] is not None else '(none)'}")
    sys.stdout.flush()


def _print_problems(res) -> None:
    """The illegal step and the failed expectations, as diagnostics on stderr."""
    for d in res.diagnostics():
        print(console.diagnostics(d, sys.stderr), file=sys.stderr)


def _run_many(paths: list[Path], fmt: str, verbose: bool, quiet: bool) -> int:
    """Every scenario reports the same way, one file or a folder: (with `verbose`, its
    transcript), its problems as diagnostics on stderr, a `pass`/`FAIL`/`ERROR` line, then the
    counts. --quiet prints only the problems and the counts."""
    passed = failed = broken = 0
    transcripts = []
    for path in paths:
        name = scenario.display_path(path)
        try:
            res = scenario.run(path)
        except scenario.ScenarioError as e:
            broken += 1
            if fmt == "json":
                transcripts.append({"file": name, "error": _broken_json(e)})
            else:
                sys.stdout.flush()
                print(console.diagnostics(e.render(), sys.stderr), file=sys.stderr)
                if not quiet:
                    print(f"{console.paint('ERROR', 'red', sys.stdout)} {name}")
            continue
        passed += res.ok
        failed += not res.ok
        if fmt == "json":
            transcripts.append({"file": name, **_transcript_json(res)})
            continue
        if verbose:
            _print_transcript(res)
        if not res.ok:
            sys.stdout.flush()
            _print_problems(res)
        if not quiet:
            mark = (
                console.paint("pass", "green", sys.stdout)
                if res.ok
                else console.paint("FAIL", "red", sys.stdout)
            )
            print(f"{mark} {name}")
        sys.stdout.flush()
    if fmt == "json":
        print(json.dumps(transcripts, ensure_ascii=False, indent=1, default=_json_default))
    else:
        parts = [console.paint(f"{passed} passed", "green", sys.stdout) if passed else "0 passed"]
        if failed:
            parts.append(console.paint(f"{failed} failed", "red", sys.stdout))
        if broken:
            parts.append(console.paint(f"{broken} could not run", "red", sys.stdout))
        print(f"{len(paths)} scenario(s): " + ", ".join(parts))
    return 2 if broken else (1 if failed else 0)


def _json_default(value) -> str:
    """A value from an untrusted scenario that JSON has no type for (a YAML date, `!!binary`
    bytes, a set): written as its bounded repr."""
    return scenario._short(value)


# ------------------------------------------------------------------ maf compile
def add_compile(sub) -> None:
    c = sub.add_parser("compile", help="print (or write) the engine generated from one spec")
    c.add_argument(
        "spec",
        metavar="SPEC",
        help="the .maf spec to compile (a folder: every *.maf under it, with -o DIR)",
    )
    c.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the engine to FILE instead of printing it (for a folder: into the folder "
        "FILE, one ID.py per spec)",
    )
    c.set_defaults(fn=cmd_compile)


def cmd_compile(args) -> int:
    if Path(args.spec).is_dir():
        return _compile_folder(args)
    if not Path(args.spec).is_file():
        print(f"maf compile: {args.spec}: no such file", file=sys.stderr)
        return 2
    try:
        out = compile_file(args.spec)
    except CompileError as e:
        _print_errors(e)
        return 1
    if args.output:
        try:
            Path(args.output).write_text(out.code, encoding="utf-8")
        except OSError as e:
            print(f"maf compile: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
            return 2
        if not _quiet(args):
            print(f"{args.spec} -> {args.output}", file=sys.stderr)
        return 0
    sys.stdout.write(out.code)
    return 0


def _compile_folder(args) -> int:
    """`maf compile DIR -o OUT`: every spec under DIR into OUT/ID.py."""
    if not args.output:
        print(f"maf compile: {args.spec} is a folder: give -o DIR for its engines", file=sys.stderr)
        return 2
    specs, _ = _spec_files([args.spec], "maf compile")
    if not specs:
        print(f"maf compile: no .maf file under {args.spec}", file=sys.stderr)
        return 2
    out_dir = Path(args.output)
    code = 0
    for spec in specs:
        try:
            out = compile_file(spec)
        except CompileError as e:
            _print_errors(e)
            code = 1
            continue
        target = out_dir / f"{out.program.id}.py"
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
            target.write_text(out.code, encoding="utf-8")
        except OSError as e:
            print(f"maf compile: cannot write {target}: {e.strerror or e}", file=sys.stderr)
            return 2
        if not _quiet(args):
            print(f"{spec} -> {target.as_posix()}", file=sys.stderr)
    return code


# ------------------------------------------------------------------ maf check
def add_check(sub) -> None:
    k = sub.add_parser("check", help="prove specs consistent (Z3)")
    k.add_argument(
        "specs",
        nargs="+",
        metavar="SPEC",
        help="the .maf specs to check (a folder: every *.maf under it)",
    )
    add_format(k, ("text", "json", "sarif", "md"), "text", "output format (md only with --matrix)")
    k.add_argument(
        "--warnings-as-errors",
        "-W",
        action="store_true",
        help="exit 1 also when there are warnings",
    )
    k.add_argument(
        "--matrix",
        action="store_true",
        help="print the interaction table of one spec (text, markdown or json)",
    )
    k.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 also when something could not be proven either way "
        "(K000, a K002 finding not confirmed by replay)",
    )
    k.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="check N specs at once, each in its own process (default: the usable cores); "
        "the report is the same for any N",
    )
    k.set_defaults(fn=cmd_check)


def cmd_check(args) -> int:
    specs, missing = _spec_files(args.specs, "maf check", _root())
    if missing and not specs:
        return 2
    if args.matrix:
        from maf.compiler.verify.check.matrix import run_matrix

        fmt = {"md": "markdown"}.get(args.format, args.format)
        if fmt not in ("text", "json", "markdown") or len(specs) != 1:
            print("maf check --matrix: one spec, --format text|md|json", file=sys.stderr)
            return 2
        return run_matrix(specs[0], fmt, root=_root())
    from maf.compiler.verify.check import run_checks

    if args.format == "md":
        print("maf check: --format md goes with --matrix", file=sys.stderr)
        return 2
    code = run_checks(
        specs,
        args.format,
        root=_root(),
        strict=args.strict,
        quiet_clean=_quiet(args),
        warnings_as_errors=args.warnings_as_errors,
        jobs=args.jobs,
    )
    return 2 if missing else code


def _spec_files(args: list[str], who: str, root: Path | None = None) -> tuple[list[str], list[str]]:
    """The .maf files of the arguments (a folder: every *.maf under it, sorted), and the
    arguments that name nothing (each reported as missing). With `root`, a relative path is
    also looked up under it (`maf check specs/x.maf` from a subfolder of the project)."""
    found: list[str] = []
    missing: list[str] = []
    for arg in args:
        p = Path(arg)
        if p.is_dir():
            found += sorted(q.as_posix() for q in p.rglob("*.maf") if q.is_file())
        elif p.exists() or (root is not None and not p.is_absolute() and (root / p).exists()):
            found.append(arg)
        else:
            print(f"{who}: {arg}: no such file", file=sys.stderr)
            missing.append(arg)
    return found, missing


# ------------------------------------------------------------------ maf new
NEW_ID = re.compile(r"[a-z_][a-z0-9_]{0,63}")


def add_new(sub) -> None:
    n = sub.add_parser(
        "new",
        help="start a new spec with a scenario that plays at once",
        description="Create specs/NAME.maf (a small complete game) and "
        "tests/scenarios/NAME/ (a scenario that plays it). Inside a maf project "
        "they are added to it; elsewhere a new project folder NAME/ is made.",
    )
    n.add_argument("name", metavar="NAME", help="the spec id: lowercase letters, digits and _")
    n.set_defaults(fn=cmd_new)


def cmd_new(args) -> int:
    name = args.name
    if not NEW_ID.fullmatch(name):
        print(
            f"maf new: {name!r} is not a spec id (lowercase letters, digits and `_`, "
            "not starting with a digit)",
            file=sys.stderr,
        )
        return 2
    root = scenario.find_root(Path.cwd().resolve())
    if root is None:
        root = Path.cwd() / name
        (root / "generated").mkdir(parents=True, exist_ok=True)
    spec = root / "specs" / f"{name}.maf"
    folder = root / "tests" / "scenarios" / name
    if spec.exists() or folder.exists():
        print(f"maf new: {spec if spec.exists() else folder} exists already", file=sys.stderr)
        return 2
    templates = Path(__file__).parent / "templates" / "new"
    spec.parent.mkdir(parents=True, exist_ok=True)
    folder.mkdir(parents=True)
    spec.write_text(
        (templates / "spec.maf").read_text(encoding="utf-8").replace("{{ID}}", name),
        encoding="utf-8",
    )
    for t in sorted(templates.glob("*.yaml")):
        (folder / t.name).write_text(
            t.read_text(encoding="utf-8").replace("{{ID}}", name), encoding="utf-8"
        )
    here = Path.cwd()
    rel = lambda p: os.path.relpath(p, here)  # noqa: E731
    print(f"created {rel(spec)} and {rel(folder)}/")
    print(f"next: maf check {rel(spec)} && maf run {rel(folder)}")
    return 0


# ------------------------------------------------------------------ maf fmt
def add_fmt(sub) -> None:
    f = sub.add_parser(
        "fmt",
        help="lay specs out canonically (in place, or --check)",
        description="Rewrite specs in their canonical layout (dsl/format.py): "
        "indentation, spacing, blank lines, aligned trailing comments. Only "
        "whitespace changes; comments are kept.",
    )
    f.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="the .maf specs to format (a folder: every *.maf under it; `-`: "
        "read standard input, write standard output)",
    )
    f.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list the files that are not formatted and exit 1 if any",
    )
    add_format(
        f,
        ("text", "json"),
        "text",
        'json prints {"files": [{"file", "status"}...], "changed", "missing"}; status is '
        "unchanged, reformatted, would-reformat, error or missing",
    )
    f.set_defaults(fn=cmd_fmt)


def cmd_fmt(args) -> int:
    from maf.dsl.format import format_source

    if args.files == ["-"]:
        text = sys.stdin.read()
        try:
            out = format_source(text, "<stdin>")
        except CompileError as e:
            _print_errors(e)
            return 1
        if args.check:
            return 0 if out == text else 1
        sys.stdout.write(out)
        return 0
    files, missing = _spec_files(args.files, "maf fmt")
    paths = [Path(f) for f in files]
    code = 2 if missing else 0
    changed = 0
    as_json = _fmt(args) == "json"
    report = [{"file": m, "status": "missing"} for m in missing]
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as e:
            print(f"maf fmt: cannot read {path}: {e}", file=sys.stderr)
            report.append({"file": path.as_posix(), "status": "error"})
            code = 2
            continue
        try:
            out = format_source(text, path.as_posix())
        except CompileError as e:
            _print_errors(e)
            report.append({"file": path.as_posix(), "status": "error"})
            code = max(code, 1)
            continue
        if out == text:
            report.append({"file": path.as_posix(), "status": "unchanged"})
            continue
        changed += 1
        if args.check:
            report.append({"file": path.as_posix(), "status": "would-reformat"})
            if not as_json:
                print(f"would reformat {path.as_posix()}")
            code = max(code, 1)
        else:
            path.write_text(out, encoding="utf-8")
            report.append({"file": path.as_posix(), "status": "reformatted"})
            if not as_json:
                print(f"reformatted {path.as_posix()}")
    if as_json:
        doc = {"files": report, "changed": changed, "missing": len(missing)}
        print(json.dumps(doc, ensure_ascii=False, indent=1))
        return code
    verb = "would be reformatted" if args.check else "reformatted"
    if not _quiet(args) or changed or missing:
        gone = f", {len(missing)} missing" if missing else ""
        print(f"{len(paths)} file(s), {changed} {verb}{gone}", file=sys.stderr)
    return code


# ------------------------------------------------------------------ maf doc
def add_doc(sub) -> None:
    d = sub.add_parser(
        "doc",
        help="generate the rulebook of a spec (HTML or Markdown)",
        description="Write the players' rulebook generated from a spec: a card "
        "per role, the night order as a diagram, the setups, the interaction "
        "table, the rulings and the spec's `doc` texts, in one language.",
    )
    d.add_argument(
        "spec", metavar="SPEC", help="the .maf spec (a folder: a rulebook for every *.maf under it)"
    )
    d.add_argument(
        "--lang",
        default="en",
        metavar="LANG",
        help="the language of the page: en, fa or ar (fa and ar are laid out right to "
        "left; another language is an error; default: en)",
    )
    d.add_argument(
        "-o",
        "--output",
        metavar="DIR",
        default="build/doc",
        help="the folder to write into (default: build/doc)",
    )
    add_format(
        d, ("html", "md"), "html", "html (one page, the diagram inline) or md (Markdown and an SVG)"
    )
    d.add_argument(
        "--no-matrix",
        action="store_true",
        help="leave out the interaction table (it runs the checker's solver)",
    )
    d.set_defaults(fn=cmd_doc)


def cmd_doc(args) -> int:
    from maf.compiler.tools import doc

    if args.lang not in doc.LANGUAGES:
        known = ", ".join(sorted(doc.LANGUAGES))
        print(f"maf doc: unknown language {args.lang!r} (known: {known})", file=sys.stderr)
        return 2
    specs, missing = _spec_files([args.spec], "maf doc")
    if not specs and not missing:
        print(f"maf doc: no .maf file under {args.spec}", file=sys.stderr)
    code = 2 if missing or not specs else 0
    for spec in specs:  # a folder: a rulebook per spec, side by side in DIR
        try:
            text = Path(spec).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as e:
            print(f"maf doc: cannot read {spec}: {e}", file=sys.stderr)
            code = 2
            continue
        try:
            book = doc.build(text, spec, args.lang, args.format, matrix=not args.no_matrix)
        except CompileError as e:
            _print_errors(e)
            code = max(code, 1)
            continue
        try:
            paths = doc.write(book, Path(args.output))
        except OSError as e:
            print(f"maf doc: cannot write into {args.output}: {e.strerror or e}", file=sys.stderr)
            return 2
        if not _quiet(args):
            for p in paths:
                print(p.as_posix())
    return code


# ------------------------------------------------------------------ maf lsp
def add_lsp(sub) -> None:
    s = sub.add_parser(
        "lsp",
        help="run the language server over stdio (for editors)",
        description="A Language Server Protocol server on standard input and "
        "output: diagnostics, hover, definitions, references, completion, "
        "symbols, formatting. Needs pygls: pip install 'maf[lsp]'. "
        "See docs/editor.md.",
    )
    s.set_defaults(fn=cmd_lsp)


def cmd_lsp(args) -> int:
    try:
        import pygls  # noqa: F401
    except ImportError:
        print(
            "maf lsp: the language server needs pygls: pip install 'maf[lsp]' "
            "(or pip install pygls)",
            file=sys.stderr,
        )
        return 2
    from maf.compiler.tools import lsp

    return lsp.main()


# ------------------------------------------------------------------ maf completion
SHELLS = ("bash", "zsh", "fish")


def add_completion(sub) -> None:
    c = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description="Print the completion script for SHELL, derived from maf's own option "
        "parser (every command, option and choice). Install it with, for bash: "
        "`maf completion bash > ~/.local/share/bash-completion/completions/maf`; zsh: "
        "`maf completion zsh > ~/.zfunc/_maf` (with ~/.zfunc in fpath); fish: "
        "`maf completion fish > ~/.config/fish/completions/maf.fish`.",
    )
    c.add_argument("shell", choices=SHELLS, metavar="SHELL", help="bash, zsh or fish")
    c.set_defaults(fn=cmd_completion)


def cmd_completion(args) -> int:
    sys.stdout.write(completion_script(build_parser(), args.shell))
    return 0


def _commands(ap: argparse.ArgumentParser) -> dict[str, tuple[str, argparse.ArgumentParser]]:
    """Each command's name -> (its one-line help, its parser), in the order `maf -h` lists."""
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    return {name: (helps.get(name, ""), p) for name, p in sub.choices.items()}


def _options(p: argparse.ArgumentParser) -> list[tuple[list[str], str, list[str] | None, bool]]:
    """(option strings, help, choices, takes a value) of each option of `p`."""
    out = []
    for a in p._actions:
        if not a.option_strings:
            continue
        choices = [str(c) for c in a.choices] if a.choices else None
        out.append(
            (list(a.option_strings), (a.help or "").replace("%%", "%"), choices, a.nargs != 0)
        )
    return out


def _takes_files(p: argparse.ArgumentParser) -> bool:
    return any(not a.option_strings and not a.choices for a in p._actions)


def _words(p: argparse.ArgumentParser) -> list[str]:
    """The fixed words a positional argument of `p` takes (`maf completion SHELL`)."""
    return [
        str(c)
        for a in p._actions
        if not a.option_strings and a.choices and not isinstance(a, argparse._SubParsersAction)
        for c in a.choices
    ]


def _short_help(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 70 else text[:67] + "..."


def completion_script(ap: argparse.ArgumentParser, shell: str) -> str:
    cmds = _commands(ap)
    return {"bash": _bash, "zsh": _zsh, "fish": _fish}[shell](ap, cmds)


def _bash(ap, cmds) -> str:
    def words(p):
        return " ".join(o for opts, *_ in _options(p) for o in opts)

    lines = [
        "# bash completion for maf (generated by `maf completion bash`)",
        "_maf() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local cmd="" i opts="" files=0 args=""',
        "    for ((i = 1; i < COMP_CWORD; i++)); do",
        '        case "${COMP_WORDS[i]}" in',
        f'            {"|".join(cmds)}) cmd="${{COMP_WORDS[i]}}"; break ;;',
        "        esac",
        "    done",
        '    case "$cmd" in',
        f'        "") opts="{words(ap)}" ;;',
    ]
    for name, (_h, p) in cmds.items():
        lines.append(
            f'        {name}) opts="{words(p)}"; files={int(_takes_files(p))}; '
            f'args="{" ".join(_words(p))}" ;;'
        )
    lines += ["    esac", '    case "$cmd:$prev" in']
    for name, p in [("", ap), *((n, p) for n, (_h, p) in cmds.items())]:
        for opts, _h, choices, _v in _options(p):
            if choices:
                pats = "|".join(f"{name}:{o}" for o in opts)
                lines.append(
                    f'        {pats}) COMPREPLY=($(compgen -W "{" ".join(choices)}" -- "$cur"));'
                    " return ;;"
                )
    lines += [
        "    esac",
        '    if [[ "$cur" == -* ]]; then',
        '        COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
        '    elif [[ -z "$cmd" ]]; then',
        f'        COMPREPLY=($(compgen -W "{" ".join(cmds)}" -- "$cur"))',
        '    elif [[ -n "$args" ]]; then',
        '        COMPREPLY=($(compgen -W "$args" -- "$cur"))',
        "    elif ((files)); then",
        '        COMPREPLY=($(compgen -f -- "$cur"))',
        "    fi",
        "}",
        "complete -o filenames -o bashdefault -F _maf maf",
        "",
    ]
    return "\n".join(lines)


def _zq(text: str) -> str:
    """Text inside a single-quoted zsh _arguments spec."""
    return (
        _short_help(text)
        .replace("'", "'\\''")
        .replace("[", "(")
        .replace("]", ")")
        .replace(":", " -")
    )


def _zsh_specs(p) -> list[str]:
    specs = []
    for opts, h, choices, value in _options(p):
        names = opts[0] if len(opts) == 1 else "{" + ",".join(opts) + "}"
        excl = f"({' '.join(opts)})" if len(opts) > 1 else ""
        arg = ""
        if value:
            arg = f":value:({' '.join(choices)})" if choices else ":value:_files"
        specs.append(f"'{excl}'{names}'[{_zq(h)}]{arg}'")
    if _takes_files(p):
        specs.append("'*:file:_files'")
    elif _words(p):
        specs.append(f"'1:value:({' '.join(_words(p))})'")
    return specs


def _zsh(ap, cmds) -> str:
    lines = [
        "#compdef maf",
        "# zsh completion for maf (generated by `maf completion zsh`)",
        "_maf() {",
        '    local curcontext="$curcontext" state line',
        "    local -a commands",
        "    commands=(",
    ]
    lines += [f"        '{n}:{_zq(h)}'" for n, (h, _p) in cmds.items()]
    lines += ["    )", "    _arguments -C \\"]
    lines += [f"        {s} \\" for s in _zsh_specs(ap)]
    lines += [
        "        '1: :->cmd' '*:: :->args'",
        "    case $state in",
        "        cmd) _describe -t commands 'maf command' commands ;;",
        "        args)",
        "            case $line[1] in",
    ]
    for name, (_h, p) in cmds.items():
        specs = " ".join(_zsh_specs(p)) or "'*:file:_files'"
        lines.append(f"                {name}) _arguments {specs} ;;")
    lines += [
        "            esac ;;",
        "    esac",
        "}",
        'compdef _maf maf 2>/dev/null || _maf "$@"',
        "",
    ]
    return "\n".join(lines)


def _fq(text: str) -> str:
    return "'" + _short_help(text).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish(ap, cmds) -> str:
    names = " ".join(cmds)
    lines = ["# fish completion for maf (generated by `maf completion fish`)", "complete -c maf -f"]

    def opt_lines(p, cond):
        for opts, h, choices, value in _options(p):
            bits = []
            for o in opts:
                bits.append(f"-l {o[2:]}" if o.startswith("--") else f"-s {o[1:]}")
            if value:
                bits.append(f"-x -a {_fq(' '.join(choices))}" if choices else "-r -F")
            lines.append(f"complete -c maf -n {cond} {' '.join(bits)} -d {_fq(h)}")

    opt_lines(ap, "'__fish_use_subcommand'")
    for name, (h, _p) in cmds.items():
        lines.append(f"complete -c maf -n '__fish_use_subcommand' -a {name} -d {_fq(h)}")
    for name, (_h, p) in cmds.items():
        cond = f"'__fish_seen_subcommand_from {name}'"
        opt_lines(p, cond)
        if _takes_files(p):
            lines.append(f"complete -c maf -n {cond} -F")
        elif _words(p):
            lines.append(f"complete -c maf -n {cond} -a {_fq(' '.join(_words(p)))}")
    lines.append(f"# commands: {names}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ the parser
def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="maf",
        description="maf: a rules language, compiler and verifier for Mafia-family "
        "games. Run `maf COMMAND --help` for a command's options.",
    )
    ap.add_argument(
        "--version",
        action="version",
        version=f"maf {version()}",
        help="print maf's version and exit",
    )
    _add_common(ap, top=True)
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND", help="the command to run")
    from maf.compiler.tools import explain
    from maf.compiler.tools.simulate.cli import add_parser as add_simulate
    from maf.compiler.verify import fuzz  # its own module (issue 9)

    for add in (
        add_build,
        add_run,
        add_compile,
        add_check,
        add_new,
        add_fmt,
        add_doc,
        add_lsp,
        fuzz.add_parser,
        add_simulate,
        explain.add_parser,
    ):
        add(sub)
    # `maf fuzz` reports too: its format option is the CLI's (verify/ does not import tools/)
    add_format(sub.choices["fuzz"], ("text", "json"), "text")
    add_completion(sub)
    for p in sub.choices.values():
        _add_common(p)
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    console.set_mode(getattr(args, "color", "auto"))
    if getattr(args, "fn", None) is None:  # bare `maf`
        ap.print_help()
        return 0
    try:
        code = args.fn(args)
        sys.stdout.flush()
        return code
    except KeyboardInterrupt:  # pragma: no cover
        return 130
    except BrokenPipeError:
        # the reader went away (`maf run --json | head`): stop quietly, like any Unix filter;
        # stdout is pointed at /dev/null so the interpreter's final flush does not fail again
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):  # pragma: no cover - no real stdout (tests)
            pass
        return 141  # 128 + SIGPIPE, what a shell reports for a filter cut off this way


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
