"""The facade: one function per job, chaining the passes in order.

source --parse--> AST --analyze--> Analysis --lower--> IR --emit--> Python
"""

from __future__ import annotations

import importlib.util
import sys
import types
from dataclasses import dataclass
from pathlib import Path

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
    """Compile spec text. Raises CompileError carrying every diagnostic on failure."""
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


def load_engine(python: str | types.CodeType, name: str) -> types.ModuleType:
    """Execute generated engine source as a fresh module (not registered in sys.modules).
    `python` may be the source compiled once (compile_engine), for several fresh modules."""
    mod = types.ModuleType(f"maf_engine_{name}")
    if isinstance(python, str):
        python = compile_engine(python, name)
    exec(python, mod.__dict__)  # our output
    return mod


def compile_engine(python: str, name: str) -> types.CodeType:
    """Generated engine source compiled (CPython's compiler takes seconds on the compiled night
    of a spec with hundreds of abilities): load_engine executes it as a fresh module."""
    return compile(python, f"<generated {name}>", "exec")


def import_generated(path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"maf_generated_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path} as a module")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod
