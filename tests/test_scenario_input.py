"""Malformed scenario files are input errors (ScenarioError, exit 2), never tracebacks."""
import json
import subprocess
import sys

import pytest
import yaml

from maf.compiler.tools import scenario

SEATS = ["boss", "nato", "trickster", "doctor", "detective", "bulletproof", "interrogator",
         "researcher", "citizen", "citizen"]

MALFORMED = [
    {"spec": "bazpors", "seats": 5, "steps": []},
    {"spec": "bazpors", "seats": SEATS, "steps": 3},
    {"spec": "bazpors", "seats": SEATS, "steps": ["day"]},
    {"spec": "bazpors", "seats": SEATS, "steps": [{"day": {}, "night": []}]},
    {"spec": "bazpors", "seats": SEATS, "steps": [{"day": {}, "expect": [1]}]},
    {"spec": "bazpors", "seats": SEATS, "steps": [{"day": {}, "expect": {"private": [1]}}]},
    {"spec": "bazpors", "seats": SEATS, "steps": [{"day": {}, "expect": {"roles": {"x": "boss"}}}]},
    {"spec": "bazpors", "seats": SEATS, "steps": [{"day": {}, "expect": {"nonsense": 1}}]},
    {"spec": "../../etc/passwd", "seats": SEATS, "steps": []},
]


@pytest.mark.parametrize("data", MALFORMED, ids=range(len(MALFORMED)))
def test_malformed_scenario_is_an_input_error(tmp_path, data):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    try:
        res = scenario.run(path)
    except scenario.ScenarioError as e:
        assert str(e)
        return
    assert res.failures, "a malformed expectation must at least fail"


@pytest.mark.parametrize("steps", [
    [{"day": {}}, {"night": [[1.5, "shoot", 6]]}],
    [{"day": {}}, {"night": [["1", "shoot", 6]]}],
    [{"day": {}}, {"night": [[1, None, 6]]}],
    [{"day": {}}, {"night": [[10 ** 30, "shoot", 6]]}],
    [{"day": {}}, {"night": [{"a": 1}]}],
    [{"day": {}}, {"night": []}, {"day": {"eliminate": "9"}}],
    [{"day": {}}, {"night": []}, {"day": {"votes": {9: "abc"}}}],
    [{"day": {}}, {"night": []}, {"day": {"trial": [1, 2]}}],
    [{"day": {}}, {"night": []}, {"day": {"card": 5}}],
    [{"kill": "a"}],
])
def test_illegal_values_exit_1_with_a_json_error(tmp_path, steps):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"spec": "bazpors", "seats": SEATS, "steps": steps}),
                    encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", "run", str(path), "--json"],
                       capture_output=True, text=True)
    assert "Traceback" not in r.stderr + r.stdout
    assert r.returncode in (1, 2)
    assert '"error"' in r.stdout


# ------------------------------------------------------------------ errors like the compiler's
# (issue 24 item 5): `file:line:col: error[Sxxx]: message`, the line, a caret, a hint
CLASSIC = """\
spec: classic
setup: "b"
seats: [godfather, lecter, mafia, doctor, detective, diehard, sniper, mayor, citizen, citizen]
steps:
  - night: []
  - day: {}
"""


def _run(tmp_path, text, monkeypatch, name="s.yaml"):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text, encoding="utf-8")
    return scenario.run(tmp_path / name)


def _broken(tmp_path, text, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(scenario.ScenarioError) as info:
        scenario.run(tmp_path / "s.yaml")
    return info.value


def test_unknown_ability_has_a_line_a_caret_and_a_did_you_mean(tmp_path, monkeypatch):
    res = _run(tmp_path, CLASSIC + "  - night:\n      - [1, shot, 5]\n", monkeypatch)
    assert res.diagnostics() == ["""\
s.yaml:8:13: error[S004]: step 3 (night): seat 1 (godfather) has no ability 'shot'
   8 |       - [1, shot, 5]
                   ^^^^
   = hint: did you mean 'shoot'?"""]
    err = res.error_json()
    assert (err["line"], err["col"], err["hint"]) == (8, 13, "did you mean 'shoot'?")
    assert {"step", "phase", "seat", "ability", "rule", "reason"} <= set(err)


def test_unknown_ability_in_the_day_actions_is_located(tmp_path, monkeypatch):
    text = CLASSIC.replace("  - day: {}\n", "  - day:\n      actions: [[7, shoott, 1]]\n")
    (d,) = _run(tmp_path, text, monkeypatch).diagnostics()
    assert d.startswith("s.yaml:7:21: error[S004]: ") and d.endswith("did you mean 'shoot'?"), d


def test_unknown_role_points_at_the_seat_with_a_did_you_mean(tmp_path, monkeypatch):
    text = CLASSIC.replace("detective,", "detectiv,")
    (d,) = _run(tmp_path, text, monkeypatch).diagnostics()
    assert d.splitlines()[0] == "s.yaml:3:43: error[S004]: setup: unknown role id(s): detectiv"
    assert d.splitlines()[-1] == "   = hint: did you mean 'detective'?"


def test_failed_expectation_points_at_its_key(tmp_path, monkeypatch):
    text = CLASSIC + "  - night: [[1, shoot, 5]]\n    expect:\n      deaths: [4]\nexpect:\n  winner: city\n"
    assert _run(tmp_path, text, monkeypatch).diagnostics() == ["""\
s.yaml:9:15: error[S005]: step 3 (night 2): deaths: expected [4], got [5]
   9 |       deaths: [4]
                     ^^^""", """\
s.yaml:11:11: error[S005]: end: expected winner 'city', got None
  11 |   winner: city
                 ^^^^"""]


def test_yaml_error_is_a_diagnostic_with_its_context(tmp_path, monkeypatch):
    e = _broken(tmp_path, "spec: classic\nseats: [godfather, lecter\nsteps: []\n", monkeypatch)
    assert e.render() == """\
s.yaml:3:6: error[S001]: not valid YAML: expected ',' or ']', but got ':'
   3 | steps: []
            ^
s.yaml:2:8: note: while parsing a flow sequence
   2 | seats: [godfather, lecter
              ^
   = hint: a '[' may be missing its closing ']'"""
    assert str(e) == "s.yaml:3:6: not valid YAML: expected ',' or ']', but got ':'"


def test_tab_in_yaml_gets_a_hint(tmp_path, monkeypatch):
    e = _broken(tmp_path, "spec: classic\nseats:\n\t- x\n", monkeypatch)
    assert e.render().startswith("s.yaml:3:1: error[S001]: not valid YAML: ")
    assert e.hint == "YAML indents with spaces, not tabs"


def test_unknown_step_key_has_a_did_you_mean(tmp_path, monkeypatch):
    e = _broken(tmp_path, CLASSIC + "  - nigth: []\n", monkeypatch)
    assert e.render() == """\
s.yaml:7:5: error[S002]: step 3 needs exactly one of day, night, kill, revive, wake, end_night (unknown keys: nigth)
   7 |   - nigth: []
           ^^^^^
   = hint: did you mean 'night'?"""


def test_bad_shape_points_at_the_value(tmp_path, monkeypatch):
    e = _broken(tmp_path, "spec: classic\nseats: [godfather]\nseed: abc\nsteps: []\n", monkeypatch)
    assert e.render() == """\
s.yaml:3:7: error[S002]: `seed` is an integer, not 'abc'
   3 | seed: abc
             ^^^"""


def test_spec_paths_are_normalised(tmp_path, monkeypatch):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "x.maf").write_text("game x {\n", encoding="utf-8")
    (tmp_path / "tests" / "scenarios" / "x").mkdir(parents=True)
    text = "spec: ../../../specs/x.maf\nseats: [a]\nsteps: []\n"
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "tests" / "scenarios" / "x" / ".." / "x" / "s.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(scenario.ScenarioError) as info:
        scenario.run(path)
    out = info.value.render()
    assert out.startswith("tests/scenarios/x/s.yaml:1:7: error[S003]: spec '../../../specs/x.maf'")
    assert "\nspecs/x.maf:1:" in out and "x/../" not in out and "s/../" not in out, out


def test_a_very_long_line_is_shown_as_a_window(tmp_path, monkeypatch):
    e = _broken(tmp_path, "spec: classic\nseats: [godfather]\nseed: " + "x" * 5000 + "\n", monkeypatch)
    lines = e.render().splitlines()
    assert len(lines[1]) < 200 and lines[1].endswith("...") and lines[2].strip().startswith("^")


def _cli(args, cwd):
    return subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", *args], capture_output=True,
                          text=True, cwd=cwd, env={**__import__("os").environ, "NO_COLOR": "1"},
                          timeout=120)


def test_one_file_and_a_folder_report_the_same_way(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "s.yaml").write_text(CLASSIC + "  - night: [[1, shot, 5]]\n", encoding="utf-8")
    one = _cli(["run", "d/s.yaml"], tmp_path)
    many = _cli(["run", "d"], tmp_path)
    assert one.returncode == many.returncode == 1
    assert one.stderr == many.stderr and one.stderr.startswith("d/s.yaml:7:17: error[S004]: ")
    # the folder leaves out the transcript (-v prints it); the verdict and the counts are the same
    assert many.stdout.splitlines() == ["FAIL d/s.yaml", "1 scenario(s): 0 passed, 1 failed"]
    assert one.stdout.splitlines()[-2:] == many.stdout.splitlines()
    assert "winner: (none)" in one.stdout and "None" not in one.stdout
    js = json.loads(_cli(["run", "d/s.yaml", "--json"], tmp_path).stdout)
    assert js["error"]["line"] == 7 and js["error"]["hint"] == "did you mean 'shoot'?"


def test_unknown_spec_id_has_a_did_you_mean(tmp_path, monkeypatch):
    from pathlib import Path  # noqa: PLC0415
    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # the repo: generated/classic.py
    (tmp_path / "s.yaml").write_text("spec: clasic\nseats: [a]\nsteps: []\n", encoding="utf-8")
    with pytest.raises(scenario.ScenarioError) as info:
        scenario.run(tmp_path / "s.yaml")
    e = info.value
    assert (e.code, e.span.line, e.span.col, e.hint) == ("S003", 1, 7, "did you mean 'classic'?")
