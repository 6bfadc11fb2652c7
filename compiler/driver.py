"""The facade: one function per job, chaining the passes in order.

source --parse--> AST --analyze--> Analysis --lower--> IR --emit--> Python
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from pathlib import Path

# (loading an engine needs no compiler: compiler/engines.py; re-exported for the callers here)
from maf.compiler.engines import compile_engine as compile_engine
from maf.compiler.engines import import_generated as import_generated
from maf.compiler.engines import load_engine as load_engine
from maf.compiler.ir import nodes as ir
from maf.compiler.ir.lower import lower
from maf.dsl.analysis import analyze
from maf.dsl.diagnostics import CompileError, Diagnostics
from maf.dsl.limits import check_limits, check_size
from maf.dsl.parser import parse


@dataclass
class Compiled:
    program: ir.Program
    source: str
    python: str | None = None  # None when compiled with generate=False

    @property
    def code(self) -> str:
        """The generated engine source (the default, generate=True)."""
        if self.python is None:
            raise ValueError("compiled with generate=False: no engine source")
        return self.python


def compile_source(text: str, file: str, *, generate: bool = True) -> Compiled:
    """Compile spec text. Raises CompileError carrying every diagnostic on failure.

    The cyclic garbage collector pauses while it runs: the passes build trees that live until
    the end (syntax, IR, the engine's lines) and make next to no cycles, but each collection
    walks all of them (a spec at the size limit, 8,500 abilities: a quarter of its compile
    time, the same peak memory without). Whatever cycles it leaves are collected after."""
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        return _compile_source(text, file, generate=generate)
    finally:
        if paused:
            gc.enable()


def _compile_source(text: str, file: str, *, generate: bool = True) -> Compiled:
    diags = Diagnostics()
    if text.startswith("\ufeff"):  # a UTF-8 BOM read as text: accepted by every command alike
        text = text[1:]
    if "\r" in text:  # as a file is read (universal newlines): "\r\n" and a lone "\r" end a line
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        module = parse(text, file, diags) if check_size(text, file, diags) else None
        prog = None
        if module is not None and check_limits(module, diags):
            an = analyze(module, diags)
            if not diags.has_errors:
                prog = lower(an, diags, file)
    except RecursionError:
        from maf.dsl.diagnostics import Span

        diags.error(
            "E004",
            "the spec nests too deeply to compile",
            Span(file, 1, 1, 1, 1),
            "split deeply nested expressions or blocks",
        )
        prog = None
    if diags.has_errors or prog is None:
        raise CompileError(diags.sorted(), {file: text})
    out = Compiled(prog, text)
    if generate:
        from maf.compiler.backend.emit import emit  # jinja2 etc. only to emit

        out.python = emit(prog, text)
    return out


def compile_file(
    path: str | Path, *, generate: bool = True, display: str | None = None
) -> Compiled:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        from maf.dsl.diagnostics import Diagnostic, Span

        file = display or str(path)
        raise CompileError(
            [Diagnostic("E000", f"cannot read spec: {e}", Span(file, 0, 0, 0, 0))], {}
        ) from None
    return compile_source(text, display or path.as_posix(), generate=generate)
