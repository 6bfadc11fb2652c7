"""The `maf` command as a new user meets it: help, version, colours, run over many files, new."""
import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from maf.compiler.tools import cli
from maf.compiler.tools import console
from maf.compiler.tools import scenario
from maf.compiler.driver import compile_file

ROOT = Path(__file__).resolve().parents[1]


def call(args, env=None):
    return subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, env={**os.environ, **(env or {})}, timeout=120)


def test_bare_maf_prints_help():
    r = call([])
    assert r.returncode == 0
    assert r.stdout.startswith("usage: maf") and "build" in r.stdout and "new" in r.stdout


def test_version():
    r = call(["--version"])
    assert r.returncode == 0 and r.stdout.startswith("maf ")


def test_every_argument_has_help():
    ap = cli.build_parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    missing = [f"{name} {a.dest}" for name, p in sub.choices.items()
               for a in p._actions if not isinstance(a, argparse._HelpAction) and not a.help]
    missing += [a.dest for a in ap._actions if not a.help]
    assert not missing, missing
    assert set(sub.choices) >= {"build", "run", "compile", "check", "new"}


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_colours_only_on_a_terminal(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    assert console.paint("x", "red", io.StringIO()) == "x"
    assert console.paint("x", "red", _Tty()) == "\x1b[31mx\x1b[0m"
    monkeypatch.setenv("NO_COLOR", "1")
    assert console.paint("x", "red", _Tty()) == "x"
    monkeypatch.delenv("NO_COLOR")
    text = "a.maf:1:2: error[E001]: bad\n   = hint: h"
    assert console.diagnostics(text, io.StringIO()) == text
    assert "\x1b[31merror[E001]\x1b[0m" in console.diagnostics(text, _Tty())


def test_progress_line_on_a_terminal_only():
    off = io.StringIO()
    p = console.Progress(off)
    p.show("[1/2] checking")
    p.clear()
    assert off.getvalue() == ""
    on = _Tty()
    p = console.Progress(on)
    p.show("[1/2] checking a")
    p.clear()
    assert "[1/2] checking a" in on.getvalue() and on.getvalue().endswith("\r\x1b[K")


def test_build_ends_with_a_total(tmp_path):
    (tmp_path / "specs").mkdir()
    (tmp_path / "generated").mkdir()
    (tmp_path / "specs" / "rounding.maf").write_text(
        (ROOT / "tests/scenarios/rounding/rounding.maf").read_text(encoding="utf-8"),
        encoding="utf-8")
    r = call(["build", str(tmp_path)], env={"NO_COLOR": "1"})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "generated" / "rounding.py").is_file()
    assert r.stdout.splitlines()[-1].startswith("1 spec(s); 1 compiled; checks passed (")
    assert "\x1b[" not in r.stdout + r.stderr


def test_build_of_a_folder_without_specs_is_a_usage_error(tmp_path):
    assert call(["build", str(tmp_path)]).returncode == 2


def test_compile_to_a_file(tmp_path):
    out = tmp_path / "engine.py"
    r = call(["compile", "tests/scenarios/rounding/rounding.maf", "-o", str(out)])
    assert r.returncode == 0 and r.stdout == ""
    assert out.read_text(encoding="utf-8") == compile_file(
        ROOT / "tests/scenarios/rounding/rounding.maf",
        display="tests/scenarios/rounding/rounding.maf").python


def test_run_folders_and_globs_end_with_a_summary():
    r = call(["run", "tests/scenarios/rounding", "tests/scenarios/features/0[12]_*.yaml"],
             env={"NO_COLOR": "1"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "4 scenario(s): 4 passed"
    assert "pass tests/scenarios/features/02_steal_unused_ability.yaml" in lines


def test_run_reports_each_failure_and_exits_1(tmp_path):
    good = tmp_path / "good.yaml"
    bad = tmp_path / "bad.yaml"
    text = (ROOT / "tests/scenarios/rounding/01_floor_threshold.yaml").read_text(encoding="utf-8")
    spec = ROOT / "tests/scenarios/rounding/rounding.maf"
    text = text.replace("spec: rounding.maf", f"spec: {spec}")
    good.write_text(text, encoding="utf-8")
    bad.write_text(text + "expect: {winner: nobody_at_all}\n", encoding="utf-8")
    r = call(["run", str(tmp_path)], env={"NO_COLOR": "1"})
    assert r.returncode == 1
    assert r.stdout.splitlines()[-1] == "2 scenario(s): 1 passed, 1 failed"
    assert f"FAIL {bad.as_posix()}" in r.stdout and "nobody_at_all" in r.stderr
    js = call(["run", str(tmp_path), "--json"])
    data = json.loads(js.stdout)
    assert [d["file"] for d in data] == [bad.as_posix(), good.as_posix()]
    assert data[0]["failures"] and "failures" not in data[1]


def test_run_of_nothing_matching_is_a_usage_error():
    r = call(["run", "tests/scenarios/no_such_*.yaml"])
    assert r.returncode == 2 and "no scenario matches" in r.stderr


def test_run_one_file_json_is_the_transcript_as_before():
    path = "tests/scenarios/rounding/01_floor_threshold.yaml"
    r = call(["run", path, "--json"])
    res = scenario.run(ROOT / path)
    assert json.loads(r.stdout) == json.loads(json.dumps(res.transcript, ensure_ascii=False))


@pytest.mark.parametrize("inside", [False, True])
def test_new_compiles_checks_and_runs_at_once(tmp_path, inside):
    from maf.compiler.verify.check import check_source  # noqa: PLC0415
    if inside:
        (tmp_path / "specs").mkdir()
        (tmp_path / "generated").mkdir()
    r = subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", "new", "duel"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    root = tmp_path if inside else tmp_path / "duel"
    spec = root / "specs" / "duel.maf"
    findings = check_source(spec.read_text(encoding="utf-8"), "duel.maf")
    assert not findings, findings
    scenarios = sorted((root / "tests" / "scenarios" / "duel").glob("*.yaml"))
    assert scenarios
    for s in scenarios:
        res = scenario.run(s)
        assert res.ok, (res.failures, res.error)
        assert res.transcript["winner"]
    again = subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", "new", "duel"],
                           cwd=root if inside else tmp_path, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert again.returncode == 2 and "exists already" in again.stderr


def test_new_refuses_a_bad_id(tmp_path):
    r = subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", "new", "Bad-Name"], cwd=tmp_path,
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                       timeout=60)
    assert r.returncode == 2 and "not a spec id" in r.stderr
    assert not any(tmp_path.iterdir())
