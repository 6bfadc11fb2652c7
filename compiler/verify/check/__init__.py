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
    specs,
    fmt="text",
    *,
    root=None,
    quiet_clean=False,
    strict=False,
    warnings_as_errors=False,
    jobs=None,
) -> int:
    """Check the specs and print the report. With several specs each is checked in a child
    process forked for it (`jobs` at once; default: the usable cores): Z3's answers (which
    witness it finds) depend on what the process solved before, so a spec checked alone, one
    of many, one at a time or in parallel gets the same findings. Results are printed in the
    order given. Where fork is not available the specs are checked one after another here."""
    from maf.compiler.verify.check import output

    if fmt not in ("text", "json", "sarif"):
        print(f"maf check: unknown format {fmt!r}", file=sys.stderr)
        return 2
    if not specs:
        print("maf check: no spec given", file=sys.stderr)
        return 2
    texts: list[tuple[str, str]] = []
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
        texts.append((spec, text))
    results: list[tuple[str, list, list]] = []
    for spec, findings, errs in _check_all(texts, jobs):
        results.append((spec, findings, errs))
        if errs:
            code = max(code, 1)
            continue
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


def _check_text(spec: str, text: str) -> tuple[str, list, list]:
    """(spec, findings, compile diagnostics) of one spec's text."""
    from maf.compiler.driver import compile_source
    from maf.dsl.diagnostics import CompileError

    try:
        c = compile_source(text, spec, generate=False)  # the engine only if K002 replays
    except CompileError as e:
        return spec, [], e.diagnostics
    return spec, check_program(c.program, text, _emitter(c.program, c.source)), []


def default_jobs() -> int:
    """The cores this process may run on."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _warm() -> None:
    """Import the compiler and the checks, build the parser with its lexers, and make Z3's
    context (no Z3 query: a child's solver starts as a fresh process's would)."""
    import importlib

    import z3

    from maf.compiler import driver  # noqa: F401 - imported for the children
    from maf.compiler.verify.check import model, rulings, samples  # noqa: F401
    from maf.dsl.parser import lark_parser

    parser = lark_parser()
    # the contextual lexer compiles each parser state's scanner when it first lexes in that
    # state: built once here (0.04 s) rather than again in every child (0.02 s each)
    lexers = getattr(getattr(parser.parser, "lexer", None), "lexers", {})
    for lexer in {id(x): x for x in lexers.values()}.values():
        getattr(lexer, "scanner", None)
    z3.main_ctx()  # what every child's first Z3 term creates (0.02 s); nothing is asserted
    for _, _, mod in CHECKS:
        importlib.import_module(f"{__name__}.{mod}")


def _check_all(texts: list[tuple[str, str]], jobs: int | None):
    """The results of _check_text for every (spec, text), in order: one spec here; several, each
    in a forked child, at most `jobs` at once (a child that fails is redone here)."""
    import os

    if len(texts) < 2 or not hasattr(os, "fork"):
        return [_check_text(spec, text) for spec, text in texts]
    import pickle
    import selectors

    jobs = max(1, min(jobs or default_jobs(), len(texts)))
    _warm()  # what every child needs, loaded once here
    sys.stdout.flush()
    sys.stderr.flush()
    done: dict[int, bytes | None] = {}
    running: dict[int, tuple[int, int, bytearray]] = {}  # read fd -> (index, pid, data)
    sel = selectors.DefaultSelector()
    # the longest specs first (the source's length stands for its cost): the last child to
    # finish is then a short one; the results keep the order given
    todo = sorted(enumerate(texts), key=lambda x: -len(x[1][1]))
    while todo or running:
        while todo and len(running) < jobs:
            i, (spec, text) = todo.pop(0)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: check, send the pickled result, leave without cleanup
                os.close(r)
                status = 1
                try:
                    payload = pickle.dumps(_check_text(spec, text), pickle.HIGHEST_PROTOCOL)
                    with os.fdopen(w, "wb") as sink:
                        sink.write(payload)
                    status = 0
                finally:
                    os._exit(status)
            os.close(w)
            running[r] = (i, pid, bytearray())
            sel.register(r, selectors.EVENT_READ)
        for key, _ in sel.select():
            fd = key.fd
            i, pid, buf = running[fd]
            chunk = os.read(fd, 1 << 16)
            if chunk:
                buf += chunk
                continue
            sel.unregister(fd)
            os.close(fd)
            del running[fd]
            _, status = os.waitpid(pid, 0)
            done[i] = bytes(buf) if status == 0 and buf else None
    sel.close()
    results = []
    for i, (spec, text) in enumerate(texts):
        got = done.get(i)
        results.append(pickle.loads(got) if got is not None else _check_text(spec, text))
    return results
