"""`maf check` of several specs: each is checked in a child process forked for it, `jobs` at
once. Z3's answers (which witness it finds) depend on what the process solved before, so the
report must not depend on the number of jobs, the order of the specs or what else is checked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from maf.compiler.verify.check import run_checks

HERE = Path(__file__).parent
# witnesses Z3 picks differently after other queries (found in one process, one after another)
SPECS = [str(HERE / "specs" / f) for f in ("k005_weighs.maf", "k010_threshold.maf")]
SPECS.append(str(HERE.parent.parent / "specs" / "online.maf"))

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="checks in one process")


def _report(capsys, specs, jobs):
    capsys.readouterr()
    code = run_checks(specs, "json", jobs=jobs)
    return code, {s["file"]: s for s in json.loads(capsys.readouterr().out)["specs"]}


def test_the_report_is_the_same_for_any_jobs_and_order(capsys):
    code1, one = _report(capsys, SPECS, 1)
    code2, two = _report(capsys, SPECS, 2)
    code3, back = _report(capsys, SPECS[::-1], 2)
    assert code1 == code2 == code3
    assert one == two == back
    assert all(one[s]["findings"] for s in SPECS[:2])


def test_results_come_in_the_order_given(capsys):
    capsys.readouterr()
    run_checks(SPECS[::-1], "json", jobs=2)
    files = [s["file"] for s in json.loads(capsys.readouterr().out)["specs"]]
    assert files == SPECS[::-1]


def test_a_spec_that_does_not_compile_is_reported_in_its_place(tmp_path, capsys):
    bad = tmp_path / "bad.maf"
    bad.write_text("game {", encoding="utf-8")
    capsys.readouterr()
    code = run_checks([SPECS[2], str(bad)], "text", jobs=2)
    out = capsys.readouterr().out
    assert code == 1
    assert out.index("online.maf: 0 error(s)") < out.index("bad.maf: 1 error(s)")
