"""Shared test setup (tiers: tests/README.md).

Bytecode for the engines. The scenario runner imports generated/NAME.py afresh for every
scenario (maf.compiler.driver.import_generated); where PYTHONDONTWRITEBYTECODE is set, each
import compiles the engine's source again, 85% of a scenario's time (classic: 0.2 s). The test
run then keeps bytecode in a folder of its own, build/pycache/ (ignored by git), and leaves the
tree and the user's setting alone: the same code runs, read from a cache
(tests/scenarios: 42 s -> 13 s of CPU).
"""

import sys
from pathlib import Path

if sys.dont_write_bytecode and sys.pycache_prefix is None:
    sys.pycache_prefix = str(Path(__file__).resolve().parent.parent / "build" / "pycache")
    sys.dont_write_bytecode = False

import pytest  # noqa: E402

# Parametrised tests whose cases are alike (one bad value each) and each pay for a subprocess or
# a compile: the first cases run in the fast tier, the others are marked slow here, so the
# full run (README, .ci/run) still runs them all. (A test that is slow as a whole carries
# `@pytest.mark.slow` in its own file.)
FAST_CASES = {
    "tests/test_scenario_input.py::test_illegal_values_exit_1_with_a_json_error": 2,
    "tests/simulate/test_simulate.py::test_bad_input_is_one_line_and_exit_2": 2,
    "tests/test_runtime.py::test_source_is_standalone_python": 1,
    "tests/test_bot_api.py::test_legal_actions_match_validation": 1,
    "tests/test_layout.py::test_engine_lines_fit_and_the_code_is_unchanged": 1,
    "tests/test_compiled_day.py::test_compiled_day_agrees_with_the_interpreter": 0,
    "tests/test_compiled_day.py::test_compiled_day_agrees_with_the_generic_day": 0,
    "tests/test_compiled_draws.py::test_compiled_draws_are_the_generic_draws": 1,
    "tests/test_differential.py::test_feature_specs_agree_with_the_interpreter": 1,
    "tests/test_differential.py::test_engine_agrees_with_the_interpreter_over_a_short_run": 1,
    "tests/test_doc.py::test_abilities_in_plain_words_of_the_page_language": 2,
    "tests/test_language_doc.py::test_snippet_checks_without_errors": 10,
    "tests/check/test_semantics.py::test_commutation_facts_replay_on_the_engine": 1,
    "tests/check/test_settle.py::test_every_warning_names_its_settlement_and_a_ruling_settles_it": 1,
    "tests/test_doc.py::test_no_expression_syntax_and_no_raw_id_in_running_text": 2,
    "tests/test_doc.py::test_every_role_has_a_card_and_every_night_ability_a_step": 2,
    "tests/test_format.py::test_formatting_is_idempotent_keeps_comments_and_the_ir": 2,
    "tests/test_hostile.py::test_hostile_scenario_file_is_one_line_and_exit_2": 10,
    "tests/fuzz/test_corpus.py::test_corpus_spec": 8,
    "tests/test_hostile.py::test_nesting_past_the_limit_is_e004_with_a_span": 7,
}


# Slow tests listed by id in tests/slow.txt (a test's id marks every case of it), drawn from a
# measured run; a new slow test carries `@pytest.mark.slow` in its own file instead.
SLOW = {
    line.strip()
    for line in (Path(__file__).parent / "slow.txt").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
}


def pytest_collection_modifyitems(config, items):
    seen: dict[str, int] = {}
    for item in items:
        base = item.nodeid.split("[", 1)[0]
        if item.nodeid in SLOW or base in SLOW:
            item.add_marker(pytest.mark.slow)
        if base in FAST_CASES and "[" in item.nodeid:
            seen[base] = seen.get(base, 0) + 1
            if seen[base] > FAST_CASES[base]:
                item.add_marker(pytest.mark.slow)
