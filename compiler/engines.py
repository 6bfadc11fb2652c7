"""Loading generated engines, with the standard library alone: what a command that plays an
engine (`maf simulate SPEC_ID`, a worker of its pool or Ray) needs, without importing the
compiler (the parser, Lark, the IR: a fifth of a second of `maf simulate`'s start-up).
compiler/driver.py re-exports these for the commands that compile too.
"""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path


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


def find_root(start: Path) -> Path | None:
    """The project directory holding `start` (one with specs/ and generated/), if any."""
    for p in [start, *start.parents]:
        if (p / "specs").is_dir() and (p / "generated").is_dir():
            return p
    return None
