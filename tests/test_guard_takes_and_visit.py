"""`guard ... takes the attack` (the guard dies by the kill he takes, which his own protection
stops) and `visit SEAT` (an astral ability visits whom it decides to), on the snippets of
docs/language.md: the generated engine and the reference interpreter agree."""

import re
from pathlib import Path

import pytest

from maf.compiler.driver import compile_source, load_engine
from maf.compiler.verify import interp

DOC = (Path(__file__).resolve().parent.parent / "docs" / "language.md").read_text("utf-8")
SNIPPETS = re.findall(r"^```maf\n(.*?)^```", DOC, re.S | re.M)


def _snippet(word: str) -> str:
    (src,) = [s for s in SNIPPETS if word in s]
    return src


def _both(src: str, name: str):
    out = compile_source(src, name)
    return load_engine(out.python, name).Game, interp.load(out.program).Game


TAKES = _snippet("takes the attack")
SEATS = ["mafioso", "bodyguard", "doctor", "citizen", "citizen"]


@pytest.mark.parametrize("side", [0, 1], ids=["engine", "interp"])
def test_a_healed_guard_survives_and_still_counter_attacks(side):
    game = _both(TAKES, f"takes_{side}")[side]
    rep = game.new(SEATS).resolve_night([[1, "kill", 4], [2, "protect", 4], [3, "heal", 2]])
    assert rep["deaths"] == [1] and rep["causes"] == {1: "counter"}


@pytest.mark.parametrize("side", [0, 1], ids=["engine", "interp"])
def test_an_unhealed_guard_who_takes_the_attack_dies(side):
    game = _both(TAKES, f"takes_u{side}")[side]
    rep = game.new(SEATS).resolve_night([[1, "kill", 4], [2, "protect", 4], [3, "heal", 5]])
    assert rep["deaths"] == [1, 2] and rep["causes"] == {1: "counter", 2: "attack"}


@pytest.mark.parametrize("side", [0, 1], ids=["engine", "interp"])
def test_without_takes_the_healed_guard_still_dies(side):
    src = TAKES.replace(" takes the attack", "")
    game = _both(src, f"plain_{side}")[side]
    rep = game.new(SEATS).resolve_night([[1, "kill", 4], [2, "protect", 4], [3, "heal", 2]])
    assert rep["deaths"] == [1, 2]


def test_two_guards_of_each_other_end():
    """A guards B and B guards A: the kill passes once (the guard's kill is never guarded)."""
    src = TAKES.replace("5..8: mafioso, bodyguard,", "5..8: mafioso, bodyguard, bodyguard,")
    for side, game in enumerate(_both(src, "mutual")):
        seats = ["mafioso", "bodyguard", "bodyguard", "doctor", "citizen"]
        rep = game.new(seats).resolve_night([[1, "kill", 2], [2, "protect", 3], [3, "protect", 2]])
        assert rep["deaths"] == [1, 3], side


VISIT = _snippet("visit t")


@pytest.mark.parametrize("side", [0, 1], ids=["engine", "interp"])
def test_an_astral_ability_visits_whom_its_body_visits(side):
    game = _both(VISIT, f"visit_{side}")[side]
    g = game.new(["godfather", "mafioso", "lookout", "citizen", "citizen"])
    rep = g.resolve_night([[1, "order", 4], [2, "kill", 5], [3, "watch", 4]])
    assert rep["deaths"] == [4]
    assert rep["private"] == {3: ["1 2"]}  # the mafioso visited the ordered seat, not his pick
    assert g.vis_out[2] == [4]


def test_visit_statement_parses_and_checks():
    out = compile_source(VISIT, "visit_check")
    assert "g.visit(" in out.python


SAVE = _snippet("on any save")


@pytest.mark.parametrize("side", [0, 1], ids=["engine", "interp"])
def test_on_any_save_tells_the_saved_seat(side):
    game = _both(SAVE, f"save_{side}")[side]
    g = game.new(["mafioso", "doctor", "survivor", "citizen", "citizen"])
    rep = g.resolve_night([[1, "kill", 4], [2, "heal", 4]])
    assert rep["deaths"] == [] and rep["private"] == {4: ["attacked but healed"]}
    g.resolve_day()
    rep = g.resolve_night([[1, "kill", 3]])  # the survivor's innate defence holds
    assert rep["deaths"] == [] and rep["private"] == {3: ["attacked but defended"]}
    g.resolve_day()
    rep = g.resolve_night([[1, "kill", 5], [2, "heal", 4]])  # not saved: nobody is told
    assert rep["deaths"] == [5] and rep["private"] == {}


def test_a_spec_without_on_any_save_gets_an_empty_table():
    out = compile_source(TAKES, "nosave")
    (table,) = [ln for ln in out.python.splitlines() if ln.startswith("ANY_SAVE")]
    assert table.endswith("= ()") and "g._saved(" not in out.python


def _codes(src: str) -> list[str]:
    from maf.dsl.diagnostics import CompileError

    with pytest.raises(CompileError) as err:
        compile_source(src, "bad")
    return [str(d.code) for d in err.value.diagnostics]


def test_misuse_is_diagnosed():
    # `visit` acts for a seat: a top-level hook has none (E023)
    hook = VISIT.replace("role citizen", "on night start {\n  visit 1\n}\nrole citizen")
    assert "E023" in _codes(hook)
    # `takes the attack` is spelled whole (a syntax error otherwise)
    assert _codes(TAKES.replace("takes the attack", "takes attack")) == ["E003"]
    # `on any save` tells need `to`: the top level has no `self` (E023)
    assert "E023" in _codes(SAVE.replace('"attacked but defended" to victim', '"defended"'))


def test_a_pending_start_report_that_is_missing_is_refused():
    """(tests/test_state.py's tampering met it once tos told notices): a saved state whose
    start report is pending but gone is a StateError, not a TypeError on the next step."""
    from maf.compiler.driver import compile_file

    root = Path(__file__).resolve().parent.parent
    eng = load_engine(compile_file(root / "specs" / "tos.maf").python, "tos_start_report")
    g = eng.Game.new(["godfather", "mafioso", "sheriff", "doctor", "escort", "lookout", "jester"])
    state = g.to_json()
    assert state["start_pending"] is True
    state["start_report"] = None
    with pytest.raises(eng.StateError, match="start_report"):
        eng.Game.from_json(state)
