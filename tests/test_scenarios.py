"""Every scenario under tests/scenarios/ plays through `maf run` semantics and meets its expectations."""
from pathlib import Path

import pytest

from maf.compiler.tools import scenario

ROOT = Path(__file__).parent / "scenarios"
FILES = sorted(ROOT.rglob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(ROOT).as_posix() for p in FILES])
def test_scenario(path):
    res = scenario.run(path)
    assert res.error is None, f"illegal step: {res.error}"
    assert not res.failures, "\n".join(res.failures)
    assert res.transcript["steps"] or res.transcript.get("error"), "the scenario played nothing"
