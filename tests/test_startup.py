"""The start-up of a `maf` command imports only what the command needs (issue 22): printing the
version or a command's help loads neither the compiler (lark, the IR), nor YAML, nor an engine."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("maf.compiler.driver", "maf.dsl.parser", "lark", "yaml", "maf.compiler.ir.nodes")


@pytest.mark.parametrize("args", [["--version"], ["simulate", "--help"], ["run", "--help"]])
def test_a_command_that_compiles_nothing_imports_no_compiler(args):
    code = (
        "import sys\n"
        "from maf.compiler.tools.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "[]"
