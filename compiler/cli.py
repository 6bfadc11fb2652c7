"""The `maf` command: build, run, compile, check.

Exit codes: 0 success; 1 errors found (spec errors, failed or illegal scenario, stale output);
2 usage or input problems.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from dsl.diagnostics import CompileError

from . import scenario
from .driver import compile_file


def _root() -> Path:
    return scenario.find_root(Path.cwd().resolve()) or Path.cwd()


def cmd_build(args) -> int:
    root = _root()
    specs = sorted((root / "specs").glob("*.maf"))
    if not specs:
        print(f"maf build: no specs in {root / 'specs'}", file=sys.stderr)
        return 2
    failed = stale = 0
    for spec in specs:
        rel = spec.relative_to(root).as_posix()
        t0 = time.perf_counter()
        try:
            out = compile_file(spec, display=rel)
        except CompileError as e:
            print(e.render(), file=sys.stderr)
            print(f"{rel}: FAILED", file=sys.stderr)
            failed += 1
            continue
        ms = (time.perf_counter() - t0) * 1000
        target = root / "generated" / f"{out.program.id}.py"
        current = target.read_text(encoding="utf-8") if target.exists() else None
        p = out.program
        summary = (f"{len(p.roles)} roles, {len(p.abilities)} abilities, "
                   f"{p.min_players}..{p.max_players} players")
        if args.check:
            if current != out.python:
                print(f"{rel}: generated/{target.name} is stale (run `maf build`)", file=sys.stderr)
                stale += 1
            else:
                print(f"{rel}: ok ({summary}; {ms:.0f} ms)")
        else:
            target.parent.mkdir(exist_ok=True)
            if current != out.python:
                target.write_text(out.python, encoding="utf-8")
            print(f"{rel} -> generated/{target.name} ({summary}; {ms:.0f} ms)")
    if not args.no_check and not failed:
        from .check import run_checks  # noqa: PLC0415 - z3 loads only when checking
        code = run_checks([str(s.relative_to(root).as_posix()) for s in specs], "text",
                          root=root, quiet_clean=True)
        if code == 1:
            failed += 1
    return 1 if failed or stale else 0


def cmd_run(args) -> int:
    try:
        res = scenario.run(args.file)
    except scenario.ScenarioError as e:
        if args.json:
            print(json.dumps({"error": {"step": None, "reason": str(e)}}, ensure_ascii=False,
                             default=_json_default))
        else:
            print(f"maf run: {e}", file=sys.stderr)
        return 2
    t = res.transcript
    if res.failures:
        t["failures"] = res.failures
    if args.json:
        print(json.dumps(t, ensure_ascii=False, indent=1, default=_json_default))
    else:
        for rep in t["steps"]:
            print(scenario.text_line(rep))
        print(f"winner: {t['winner']}")
        if res.error:
            e = res.error
            print(f"error at step {e['step']} ({e['phase']}): {e['reason']}", file=sys.stderr)
        for f in res.failures:
            print(f"FAIL {f}", file=sys.stderr)
    return 0 if res.ok else 1


def _json_default(value) -> str:
    """A value from an untrusted scenario that JSON has no type for (a YAML date, `!!binary`
    bytes, a set): written as its bounded repr."""
    return scenario._short(value)


def cmd_compile(args) -> int:
    try:
        out = compile_file(args.spec)
    except CompileError as e:
        print(e.render(), file=sys.stderr)
        return 1
    sys.stdout.write(out.python)
    return 0


def cmd_check(args) -> int:
    from .check import run_checks  # noqa: PLC0415
    return run_checks(args.specs, args.format, root=_root())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="maf", description="Mafia rules compiler and checker")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="compile every spec in specs/ into generated/")
    b.add_argument("--check", action="store_true",
                   help="fail if generated/ differs from what the compiler produces")
    b.add_argument("--no-check", action="store_true", help="skip the Z3 consistency checks")
    b.set_defaults(fn=cmd_build)
    r = sub.add_parser("run", help="play a scenario file")
    r.add_argument("file")
    r.add_argument("--json", action="store_true", help="print the transcript as JSON")
    r.set_defaults(fn=cmd_run)
    c = sub.add_parser("compile", help="print the engine generated from one spec")
    c.add_argument("spec")
    c.set_defaults(fn=cmd_compile)
    k = sub.add_parser("check", help="prove specs consistent (Z3)")
    k.add_argument("specs", nargs="+")
    k.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    k.set_defaults(fn=cmd_check)
    args = ap.parse_args(argv)
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
