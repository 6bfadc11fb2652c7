"""Malformed scenario files are input errors (ScenarioError, exit 2), never tracebacks."""
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
