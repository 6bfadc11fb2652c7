"""`maf check`: consistency checks over the IR (Z3). Each check is its own module.

Exit codes of run_checks: 0 no errors (warnings allowed), 1 errors found (a spec that does not
compile counts as errors found: its diagnostics are printed), 2 usage or input problems (no
spec given, unreadable file, unknown format).
"""

from __future__ import annotations

import sys
from pathlib import Path

from maf.dsl.codes import REGISTRY, Code

# each check's module; its code's title and severity live in the registry (maf.dsl.codes)
_MODULES = {
    Code.K001: "k001_cycle",
    Code.K002: "k002_ambiguous",
    Code.K003: "k003_conflict",
    Code.K004: "k004_reach",
    Code.K005: "k005_termination",
    Code.K006: "k006_exhaustive",
    Code.K007: "k007_dead",
    Code.K008: "k008_setup",
    Code.K009: "k009_branch_order",
    Code.K010: "k010_outcomes",
    Code.K011: "k011_division",
}
CHECKS = [(str(code), REGISTRY[code].title, mod) for code, mod in _MODULES.items()]


def check_program(program, source: str, python=None, only=None):
    """Run every check on a compiled program; returns the findings, sorted. `python`: the
    generated engine source, or a function emitting it (called only if a check replays)."""
    import importlib

    from maf.compiler.verify.check.model import Context, Finding
    from maf.compiler.verify.check.z3x import Unknown

    ctx = Context(program, source, python)
    out = []
    for code, title, mod in CHECKS:
        if only and code not in only:
            continue
        m = importlib.import_module(f"{__name__}.{mod}")
        try:
            out += m.run(ctx)
        except Unknown as e:
            out.append(
                Finding(
                    "K000",
                    "error",
                    f"{code} ({title}): Z3 returned unknown ({e.reason}); the "
                    "property is NOT proven",
                    program.span,
                    evidence=[
                        f"could not prove or refute: the {title} property "
                        f"({code}) of {program.id}, at the spec's table sizes"
                    ],
                    hint="simplify the spec or raise compiler.check.z3x.RLIMIT",
                    unknown=True,
                )
            )
    seen, uniq = set(), []
    for f in out:
        if f.key() not in seen:
            seen.add(f.key())
            uniq.append(f)
    uniq.sort(key=lambda f: (f.span.file, f.span.line, f.span.col, f.code))
    from maf.compiler.verify.check.rulings import settle

    return settle(uniq, ctx.lines)  # a `// RULING(Kxxx)` settles a warning at its line


def check_source(text: str, file: str, only=None):
    """Compile and check spec text (raises CompileError on compile errors)."""
    from maf.compiler.driver import compile_source

    c = compile_source(text, file, generate=False)
    return check_program(c.program, text, _emitter(c.program, c.source), only)


def _emitter(program, text: str):
    """Emit the engine of a checked spec on demand (most specs never replay a night)."""

    def emit_engine() -> str:
        from maf.compiler.backend.emit import emit

        return emit(program, text)

    return emit_engine


def run_checks(
    specs, fmt="text", *, root=None, quiet_clean=False, strict=False, warnings_as_errors=False
) -> int:
    from maf.compiler.driver import compile_source
    from maf.compiler.verify.check import output
    from maf.dsl.diagnostics import CompileError

    if fmt not in ("text", "json", "sarif"):
        print(f"maf check: unknown format {fmt!r}", file=sys.stderr)
        return 2
    if not specs:
        print("maf check: no spec given", file=sys.stderr)
        return 2
    results: list[tuple[str, list, list]] = []
    sources: dict[str, str] = {}
    code = 0
    for spec in specs:
        path = Path(spec)
        if not path.is_absolute() and root is not None and not path.exists():
            path = Path(root) / spec
        try:
            text = path.read_text(encoding="utf-8-sig")  # a BOM is accepted as `maf build` does
        except (OSError, UnicodeDecodeError) as e:
            print(f"maf check: cannot read {spec}: {e}", file=sys.stderr)
            code = 2
            continue
        sources[spec] = text
        try:
            c = compile_source(text, spec, generate=False)  # the engine only if K002 replays
        except CompileError as e:
            results.append((spec, [], e.diagnostics))
            code = max(code, 1)
            continue
        findings = check_program(c.program, text, _emitter(c.program, c.source))
        results.append((spec, findings, []))
        if any(f.severity == "error" for f in findings):
            code = max(code, 1)
        if strict and any(f.unknown for f in findings):
            code = max(code, 1)  # unknown is never a pass
        if warnings_as_errors and any(f.severity == "warning" for f in findings):
            code = max(code, 1)
    if fmt == "json":
        print(output.as_json(results))
    elif fmt == "sarif":
        print(output.as_sarif(results))
    else:
        body = output.text(results, sources)
        if body:
            print(output.coloured(body, sys.stdout))
        for file, findings, errs in results:
            ne = sum(f.severity == "error" for f in findings) + len(errs)
            nw = sum(f.severity == "warning" for f in findings)
            if ne or nw or not quiet_clean:
                print(f"{file}: {ne} error(s), {nw} warning(s)")
    return code
