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


# ------------------------------------------------------------------ one CLI (issue 24 item 6)
WARN_SPEC = "tests/check/specs/k008_custom_unused.maf"  # a K008 warning and no error


@pytest.fixture
def maf(capsys, monkeypatch):
    """`maf ARGS...` in this process, from the repo root: (exit code, stdout, stderr)."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)

    def run(*args):
        code = cli.main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    yield run
    console.set_mode("auto")


def test_format_json_and_its_json_alias_are_one_option(maf):
    path = "tests/scenarios/rounding/01_floor_threshold.yaml"
    a = maf("run", path, "--json")
    b = maf("run", path, "--format", "json")
    assert a == b and a[0] == 0 and "winners" in json.loads(a[1])
    c = maf("check", WARN_SPEC, "--json")
    d = maf("check", WARN_SPEC, "--format", "json")
    assert c == d and json.loads(c[1])["warnings"] == 1


def test_every_reporting_command_takes_format_and_json():
    ap = cli.build_parser()
    cmds = {name: p for name, (_h, p) in cli._commands(ap).items()}
    for name in ("run", "check", "doc", "simulate"):
        opts = cmds[name]._option_string_actions
        assert "--format" in opts, name
        if "json" in opts["--format"].choices:
            assert "--json" in opts, name
    for name, p in cmds.items():  # --color and --quiet everywhere
        assert {"--color", "--quiet", "-q"} <= set(p._option_string_actions), name


def test_one_spelling_per_format_markdown_is_md():
    ap = cli.build_parser()
    args = ap.parse_args(["doc", "x.maf", "--format", "markdown"])
    assert args.format == "md"
    args = ap.parse_args(["check", "x.maf", "--matrix", "--format", "markdown"])
    assert args.format == "md"
    with pytest.raises(SystemExit):
        ap.parse_args(["doc", "x.maf", "--format", "pdf"])


def test_check_takes_a_folder(maf, tmp_path):
    (tmp_path / "sub").mkdir()
    for name in ("a.maf", "sub/b.maf"):
        (tmp_path / name).write_text((ROOT / WARN_SPEC).read_text(encoding="utf-8"), encoding="utf-8")
    code, out, err = maf("check", str(tmp_path), "--color", "never")
    assert code == 0, err
    assert f"{(tmp_path / 'a.maf').as_posix()}: 0 error(s), 1 warning(s)" in out
    assert f"{(tmp_path / 'sub/b.maf').as_posix()}: 0 error(s), 1 warning(s)" in out


def test_warnings_as_errors_fails_a_check_with_warnings(maf):
    assert maf("check", WARN_SPEC)[0] == 0
    assert maf("check", WARN_SPEC, "--warnings-as-errors")[0] == 1
    assert maf("check", "tests/scenarios/rounding/rounding.maf", "--warnings-as-errors")[0] == 0


def test_check_diagnostics_are_coloured_with_color_always(maf):
    code, out, _ = maf("check", WARN_SPEC, "--color", "always")
    assert "\x1b[33mwarning[K008]\x1b[0m" in out
    code, out, _ = maf("--color", "never", "check", WARN_SPEC)
    assert "\x1b[" not in out and "warning[K008]" in out


def test_color_never_beats_force_color_and_no_color_beats_auto(maf, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" not in maf("check", WARN_SPEC, "--color", "never")[1]
    assert "\x1b[" in maf("check", WARN_SPEC)[1]
    monkeypatch.delenv("FORCE_COLOR")
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in maf("check", WARN_SPEC)[1]
    assert "\x1b[" in maf("check", WARN_SPEC, "--color", "always")[1]


def test_sarif_names_the_driver_version(maf):
    code, out, _ = maf("check", WARN_SPEC, "--format", "sarif")
    driver = json.loads(out)["runs"][0]["tool"]["driver"]
    assert driver["version"] == cli.version() and driver["version"]


def test_quiet_prints_only_problems_and_counts(maf):
    code, out, err = maf("run", "tests/scenarios/rounding", "--quiet")
    assert code == 0 and out.splitlines() == ["2 scenario(s): 2 passed"], out
    code, out, err = maf("-q", "check", "tests/scenarios/rounding/rounding.maf")
    assert code == 0 and out == ""
    code, out, err = maf("fmt", "--check", "-q", "tests/scenarios/rounding/rounding.maf")
    assert err == "" or "would reformat" in out


@pytest.mark.parametrize("argv", [
    ["fmt", "missing.maf"],
    ["fmt", "--check", "missing.maf"],
    ["check", "missing.maf"],
    ["compile", "missing.maf"],
    ["doc", "missing.maf"],
    ["run", "missing.yaml"],
])
def test_a_missing_file_is_reported_missing_with_exit_2(maf, argv):
    code, out, err = maf(*argv)
    assert code == 2, (code, out, err)
    assert "missing." in err and ("no such file" in err or "no scenario matches" in err), err
    assert "0 reformatted" not in err or "1 missing" in err


def test_fmt_of_a_missing_file_beside_a_good_one_counts_it(maf):
    code, out, err = maf("fmt", "--check", "tests/scenarios/rounding/rounding.maf", "nope.maf")
    assert code == 2 and "nope.maf: no such file" in err and "1 missing" in err


@pytest.mark.parametrize("shell", cli.SHELLS)
def test_completion_scripts_are_derived_from_the_parser(maf, shell):
    code, out, _ = maf("completion", shell)
    assert code == 0
    ap = cli.build_parser()
    for name, (_h, p) in cli._commands(ap).items():
        assert name in out, name
        for opts, _help, choices, _v in cli._options(p):
            long = [o for o in opts if o.startswith("--")]
            assert any((o if shell != "fish" else f"-l {o[2:]}") in out for o in long), (name, opts)
            for c in choices or ():
                assert c in out, (name, opts, c)


@pytest.mark.parametrize("shell,check", [
    ("bash", ["bash", "-n"]), ("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"]),
])
def test_completion_script_is_valid_shell(tmp_path, shell, check):
    import shutil  # noqa: PLC0415
    if shutil.which(check[0]) is None:
        pytest.skip(f"{check[0]} is not installed")
    script = tmp_path / f"maf.{shell}"
    script.write_text(cli.completion_script(cli.build_parser(), shell), encoding="utf-8")
    r = subprocess.run([*check, str(script)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_bash_completion_completes_commands_and_choices(tmp_path):
    import shutil  # noqa: PLC0415
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = tmp_path / "maf.bash"
    script.write_text(cli.completion_script(cli.build_parser(), "bash"), encoding="utf-8")

    def complete(*words):
        line = " ".join(f"'{w}'" for w in words)
        prog = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _maf; "
                'printf "%s\\n" "${COMPREPLY[@]}"')
        return subprocess.run(["bash", "-c", prog], capture_output=True, text=True,
                              timeout=60).stdout.split()

    assert "check" in complete("maf", "ch") and "completion" in complete("maf", "co")
    assert complete("maf", "check", "--format", "") == ["text", "json", "sarif", "md"]
    assert "--warnings-as-errors" in complete("maf", "check", "--w")
    assert complete("maf", "completion", "") == list(cli.SHELLS)
    assert complete("maf", "--color", "always", "ru") == ["run"]


def test_build_quiet_prints_only_the_total(tmp_path):
    (tmp_path / "specs").mkdir()
    (tmp_path / "generated").mkdir()
    (tmp_path / "specs" / "rounding.maf").write_text(
        (ROOT / "tests/scenarios/rounding/rounding.maf").read_text(encoding="utf-8"),
        encoding="utf-8")
    r = call(["build", str(tmp_path), "--no-check", "--quiet"], env={"NO_COLOR": "1"})
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == 1 and r.stdout.startswith("1 spec(s); 1 compiled (")


def test_fmt_json_lists_each_file_with_its_status(maf, tmp_path):
    from maf.dsl.format import format_source  # noqa: PLC0415
    text = (ROOT / "tests/scenarios/rounding/rounding.maf").read_text(encoding="utf-8")
    (tmp_path / "ok.maf").write_text(format_source(text, "ok.maf"), encoding="utf-8")
    (tmp_path / "bad.maf").write_text("game x {\n", encoding="utf-8")
    code, out, err = maf("fmt", "--check", "--json", str(tmp_path), "gone.maf")
    assert code == 2
    doc = json.loads(out)
    status = {Path(f["file"]).name: f["status"] for f in doc["files"]}
    assert status == {"gone.maf": "missing", "ok.maf": "unchanged", "bad.maf": "error"}
    assert doc["missing"] == 1 and doc["changed"] == 0


def test_doc_of_a_folder_writes_a_rulebook_per_spec(maf, tmp_path):
    src = tmp_path / "specs"
    (src / "sub").mkdir(parents=True)
    text = (ROOT / "tests/scenarios/rounding/rounding.maf").read_text(encoding="utf-8")
    (src / "rounding.maf").write_text(text, encoding="utf-8")
    (src / "sub" / "other.maf").write_text(text.replace("game rounding", "game other"),
                                           encoding="utf-8")
    code, out, err = maf("doc", str(src), "-o", str(tmp_path / "out"), "--no-matrix",
                         "--format", "markdown")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").glob("*.md")) == ["other.en.md",
                                                                      "rounding.en.md"]
    assert maf("doc", str(tmp_path / "empty"), "--no-matrix")[0] == 2


def test_compile_of_a_folder_writes_an_engine_per_spec(maf, tmp_path):
    src = tmp_path / "specs"
    src.mkdir()
    text = (ROOT / "tests/scenarios/rounding/rounding.maf").read_text(encoding="utf-8")
    (src / "rounding.maf").write_text(text, encoding="utf-8")
    (src / "other.maf").write_text(text.replace("game rounding", "game other"), encoding="utf-8")
    assert maf("compile", str(src))[0] == 2  # a folder needs -o DIR
    code, out, err = maf("compile", str(src), "-o", str(tmp_path / "gen"))
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "gen").iterdir()) == ["other.py", "rounding.py"]


def test_build_json_is_one_document_on_stdout(tmp_path):
    (tmp_path / "specs").mkdir()
    (tmp_path / "generated").mkdir()
    (tmp_path / "specs" / "rounding.maf").write_text(
        (ROOT / "tests/scenarios/rounding/rounding.maf").read_text(encoding="utf-8"),
        encoding="utf-8")
    r = call(["build", str(tmp_path), "--no-check", "--json"], env={"NO_COLOR": "1"})
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [(s["file"], s["status"]) for s in doc["specs"]] == [("specs/rounding.maf", "written")]
    assert doc["compiled"] == 1 and doc["failed"] == 0 and doc["checks_failed"] is None
    assert "1 spec(s); 1 compiled" in r.stderr  # the text report, for a human, on stderr
    again = json.loads(call(["build", str(tmp_path), "--check", "--no-check", "--format", "json"]).stdout)
    assert again["specs"][0]["status"] == "ok" and again["stale"] == 0


def test_fuzz_reports_in_json_too():
    """`maf fuzz` takes --format text|json (and --json) like every command that reports."""
    import json  # noqa: PLC0415

    spec = "tests/scenarios/rounding/rounding.maf"
    r = call(["fuzz", "--differential", spec, "--steps", "200", "--json"])
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["spec"] == spec and data["divergence"] is None and data["steps"] == 200
    text = call(["fuzz", "--differential", spec, "--steps", "200", "--format", "text"])
    assert text.returncode == 0 and "no divergence" in text.stdout
    bad = call(["fuzz", "--differential", spec, "--format", "sarif"])
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
