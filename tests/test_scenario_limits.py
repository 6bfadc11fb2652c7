"""The scenario value limit is checked before the YAML is loaded (issue 23 item 5): a
150,000-step scenario was refused only after 17.5 s and 407 MB of PyYAML objects."""
import pytest
import yaml

from maf.compiler.tools import scenario

HEAD = "spec: classic\nsetup: \"b\"\nseats: [godfather, citizen]\nsteps:\n"
BIG = HEAD + "  - night: []\n" * 150_000  # 2.1 MB, inside the byte limit


class _NoLoad(scenario._Loader):
    def __init__(self, stream):
        raise AssertionError("the scenario was loaded before its limits were checked")


def test_a_150000_step_scenario_is_refused_before_it_is_loaded(monkeypatch):
    if getattr(yaml, "CSafeLoader", None) is None:
        pytest.skip("without libyaml the limit is counted while loading (the next test)")
    monkeypatch.setattr(scenario, "_Loader", _NoLoad)
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.parse_yaml(BIG, "big.yaml")
    assert "more than 200,000 values" in str(e.value)
    # a scenario within the limit is loaded as before
    monkeypatch.undo()
    assert len(scenario.parse_yaml(HEAD + "  - night: []\n" * 10, "s.yaml")["steps"]) == 10


def test_without_libyaml_the_loader_stops_at_the_limit(monkeypatch):
    """The fallback counts nodes as they are composed: it stops at the limit, before building
    the rest of the document (and before the expanded count, which needs all of it)."""
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    monkeypatch.setattr(scenario, "MAX_YAML_NODES", 2_000)  # the same rule, a smaller count
    composed = []
    real = scenario._Loader.compose_node

    def counting(self, parent, index):
        composed.append(1)
        return real(self, parent, index)

    monkeypatch.setattr(scenario._Loader, "compose_node", counting)
    with pytest.raises(scenario.ScenarioError) as e:
        scenario.parse_yaml(HEAD + "  - night: []\n" * 5_000, "big.yaml")
    assert "more than 2,000 values" in str(e.value)
    assert len(composed) <= 2_001
