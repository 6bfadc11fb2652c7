"""The fast tier (`-m "not slow"`, tests/README.md) keeps the coverage the issue asks of it
(issue 24 item 1): every scenario of every spec, every golden diagnostic, every checker class's
broken fixtures, every spec's checks and formatting. It collects the suite twice
(a few seconds each), so it runs in the full tier only."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COVERED = [
    "tests/test_scenarios.py::test_scenario",
    "tests/test_diagnostics.py::test_golden",
    "tests/check/test_checks.py::test_broken_spec_reports_code_and_line",
    "tests/check/test_checks.py::test_shipped_specs_have_no_errors",
    "tests/test_format.py::test_every_spec_in_the_repo_is_formatted",
    "tests/test_language_doc.py::test_snippet_compiles",
]


def _collect(*marks: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
         "-o", "addopts=", *marks],
        cwd=ROOT, capture_output=True, text=True, check=False,
    ).stdout
    return {line for line in out.splitlines() if "::" in line}


@pytest.mark.slow
def test_the_fast_tier_keeps_every_scenario_diagnostic_and_checker_fixture():
    every, fast = _collect(), _collect("-m", "not slow")
    assert every - fast  # there is a slow tier
    for test in COVERED:
        want = {t for t in every if t.split("[", 1)[0] == test}
        assert want, f"{test} is not collected"
        assert want <= fast, f"slow cases of {test}: {sorted(want - fast)[:5]}"
    codes = {t.split("[", 1)[1][:4].upper() for t in fast
             if t.startswith("tests/check/test_checks.py::test_broken_spec_reports_code_and_line[k")}
    assert codes >= {f"K{n:03d}" for n in range(1, 12)}, sorted(codes)
