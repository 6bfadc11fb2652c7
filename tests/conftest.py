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
    "tests/test_hostile.py::test_nesting_past_the_limit_is_e004_with_a_span": 7,
}


# Slow tests in files that were being edited by several people when the tiers were drawn (issue
# 24), marked here rather than in their files: a test id (every case) or a case's id. Each took
# seconds on its own: LSP servers, Z3 depth, subprocess `maf build` runs, fuzz campaigns, big
# simulations. A new slow test carries `@pytest.mark.slow` in its own file instead.
SLOW = {
    "tests/check/test_checks.py::test_classic_contradiction_is_flagged_without_its_ruling",
    "tests/check/test_settle.py::test_shipped_specs_have_no_warnings",
    "tests/fuzz/test_fuzz.py::test_campaign_command_runs",
    "tests/fuzz/test_fuzz.py::test_colliding_names_run_their_own_bodies",
    "tests/fuzz/test_fuzz.py::test_scenario_files",
    "tests/fuzz/test_fuzz.py::test_engine_api_sessions",
    "tests/simulate/test_simulate.py::test_simulation_agrees_with_the_recurrence[11]",
    "tests/simulate/test_simulate.py::test_simulation_agrees_with_the_recurrence[13]",
    "tests/simulate/test_simulate.py::test_an_illegal_policy_action_is_reported_with_seed_and_step",
    "tests/simulate/test_simulate.py::test_other_specs_play[classic]",
    "tests/simulate/test_simulate.py::test_same_seed_same_results_for_any_worker_count",
    "tests/test_cli.py::test_build_json_is_one_document_on_stdout",
    "tests/test_cli.py::test_build_quiet_prints_only_the_total",
    "tests/test_compiled_night.py::test_the_settle_and_the_hooks_are_compiled_and_agree[tos]",
    "tests/test_layout.py::test_a_wide_spec_grows_the_engine_linearly",
    "tests/test_liveness.py::test_some_documented_input_always_moves_the_game_on[bazpors]",
    "tests/test_liveness.py::test_some_documented_input_always_moves_the_game_on[classic]",
    "tests/test_lsp.py::test_transport_fuzz",
    "tests/test_lsp.py::test_only_the_newest_version_is_published",
    "tests/test_lsp.py::test_exit_without_shutdown_is_status_1_without_a_traceback",
    "tests/test_lsp.py::test_after_a_malformed_frame_the_next_request_is_answered",
    "tests/test_native.py::test_asking_for_a_spec_outside_the_project_fails",
    "tests/test_native.py::test_without_a_c_compiler_one_line_and_the_build_goes_on",
    "tests/test_native.py::test_the_compiled_night_declares_typed_integer_locals",
    "tests/test_runtime.py::test_engines_carry_no_compiler_import",
    "tests/test_scenario_index.py::test_every_scenario_has_its_rule_header",
    "tests/test_visitor.py::test_a_missing_kind_is_a_type_error",
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
