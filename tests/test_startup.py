"""The start-up of a `maf` command imports only what the command needs (issue 22): printing the
version or a command's help loads neither the compiler (lark, the IR), nor YAML, nor an engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

VANILLA = str(Path(__file__).resolve().parent / "simulate" / "vanilla.maf")
HEAVY = ("maf.compiler.driver", "maf.dsl.parser", "lark", "yaml", "maf.compiler.ir.nodes")


def heavy_imported(code: str) -> str:
    """The HEAVY modules imported once `code` has run in a fresh interpreter, as printed."""
    code += f"\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()[-1]


@pytest.mark.parametrize("args", [["--version"], ["simulate", "--help"], ["run", "--help"]])
def test_a_command_that_compiles_nothing_imports_no_compiler(args):
    code = (
        "import sys\n"
        "from maf.compiler.tools.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
    )
    assert heavy_imported(code) == "[]"


def test_simulating_a_shipped_engine_imports_no_compiler():
    """`maf simulate SPEC_ID` plays generated/SPEC_ID.py: loading it needs no compiler
    (compiler/engines.py), which a `.maf` file's simulation imports to compile it."""
    code = (
        "import sys, io, contextlib\n"
        "from maf.compiler.tools.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        "    try:\n"
        "        main(['simulate', 'bazpors', '--players', '10', '--games', '16',\n"
        "              '--workers', '1', '--format', 'json'])\n"
        "    except SystemExit as e:\n"
        "        assert not e.code, e.code\n"
        "assert '\"games\": 16' in out.getvalue(), out.getvalue()\n"
    )
    assert heavy_imported(code) == "[]"


def test_simulating_a_spec_file_imports_the_compiler_it_needs():
    """The near miss of the test above: a `.maf` file is compiled first, so the compiler is
    imported (the check sees an import when there is one)."""
    code = (
        "import sys, io, contextlib\n"
        "from maf.compiler.tools.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        f"        main(['simulate', {VANILLA!r}, '--players', '6',\n"
        "              '--games', '16', '--workers', '1', '--format', 'json'])\n"
        "    except SystemExit as e:\n"
        "        assert not e.code, e.code\n"
    )
    assert "maf.compiler.driver" in heavy_imported(code)
