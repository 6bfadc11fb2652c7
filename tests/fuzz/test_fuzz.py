"""The fuzz suite (issue 13), CI budget: every surface gets a fixed number of generated inputs
(tests/fuzz/conftest.py holds the profiles). The oracles are in tests/fuzz/oracle.py: a
diagnostic or an engine that imports and plays, never anything else.
"""
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from maf.compiler.driver import import_generated

from . import gen, oracle

LONG = os.environ.get("HYPOTHESIS_PROFILE") == "long"


def _n(ci: int) -> int:
    return settings().max_examples if LONG else ci


def _seeded(seed: int) -> random.Random:
    return random.Random(seed)


@pytest.mark.slow
@settings(max_examples=_n(120))
@given(gen.grammar_strategy())
def test_grammar_derived_specs(text):
    oracle.check_spec(text)


@pytest.mark.slow
@settings(max_examples=_n(120))
@given(st.integers(0, 2 ** 32))
def test_mutated_shipped_specs(seed):
    rng = _seeded(seed)
    oracle.check_spec(gen.mutate_spec(rng), rng=rng)


@settings(max_examples=_n(25))
@given(st.integers(0, 2 ** 32))
def test_colliding_names_run_their_own_bodies(seed):
    text, expected = gen.names_spec(_seeded(seed))
    oracle.check_names_spec(text, expected)


@pytest.fixture(scope="module")
def engines():
    root = Path(__file__).resolve().parents[2]
    return [import_generated(p) for p in sorted((root / "generated").glob("*.py"))]


@settings(max_examples=_n(150))
@given(st.integers(0, 2 ** 32))
def test_engine_api_sessions(engines, seed):
    rng = _seeded(seed)
    oracle.check_session(rng.choice(engines), rng)


@settings(max_examples=_n(60))
@given(st.integers(0, 2 ** 32))
def test_scenario_files(tmp_path_factory, seed):
    oracle.check_scenario(gen.scenario_text(_seeded(seed)), tmp_path_factory.getbasetemp())


def test_campaign_command_runs(capsys):
    from .campaign import SURFACES, main  # noqa: PLC0415
    assert main(["--surface", "all", "--n", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("tracebacks 0, hangs 0, silent miscompiles 0") == len(SURFACES)
