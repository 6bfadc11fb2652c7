"""A death at once is read at the later wakes (issue 21): in a spec with kills `at once`, a night
ability that may wake after one has its actor's life and its filters and `when` reading who is
alive read at its wake (semantics.read_at_wake with the program, Game._at_wake): an action on a
seat killed at once, or of one, is refused there with a reason, in a night given at once (the game
left as it was) and wake by wake alike; legal_actions lists only what the night so far accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from maf.compiler.driver import compile_source, load_engine
from maf.compiler.ir import semantics as sem
from maf.compiler.verify import interp

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "scenarios" / "features" / "status.maf"
SEATS = ["stabber", "sniper", "witch", "medic", "nurse", "seer", "avenger", "fool"]


@pytest.fixture(scope="module")
def built():
    c = compile_source(SPEC.read_text(), str(SPEC))
    return c, load_engine(c.python, "at_once_wake")


def test_the_abilities_waking_after_a_kill_at_once_read_their_filters_at_the_wake(built):
    c, m = built
    p = c.program
    wakes = sorted(a.id for a in p.abilities if sem.read_at_wake(a, p))
    # the witch and the medic wake before the sniper; the sniper's own second use may follow one
    assert wakes == ["nurse.tend", "seer.see", "sniper.snipe", "stabber.stab"]
    assert not any(sem.read_at_wake(a) for a in p.abilities)  # (no program: no kill at once)
    assert {m.ABILITIES[a] for a in m.AT_WAKE} == set(wakes)
    assert interp.load(p).AT_WAKE == m.AT_WAKE  # the interpreter's table: the same reads


@pytest.mark.parametrize("how", ["compiled", "interpreted"])
def test_a_night_given_at_once_is_refused_at_the_later_wake_and_changes_nothing(built, how):
    c, m = built
    m = m if how == "compiled" else interp.load(c.program)
    g = m.Game.new(SEATS)
    before = g.to_json()
    with pytest.raises(m.IllegalAction) as e:  # the seer wakes after 7 died at once
        g.resolve_night([[2, "snipe", 7], [6, "see", 7]])
    assert e.value.rule == "bad-target" and "when it wakes" in str(e.value)
    assert g.to_json() == before
    with pytest.raises(m.IllegalAction) as e:  # the nurse herself died at once
        g.resolve_night([[2, "snipe", 5], [5, "tend", 7]])
    assert e.value.rule == "dead-actor" and g.to_json() == before
    rep = g.resolve_night([[2, "snipe", 7], [6, "see", 1]])
    assert [d if isinstance(d, int) else d.get("seat") for d in rep["deaths"]] == [7]


def test_wake_by_wake_the_legal_actions_are_those_the_night_so_far_accepts(built):
    _, m = built
    g = m.Game.new(SEATS)
    while g.next_wake()["ability"] != "sniper.snipe":
        g.wake([])
    g.wake([[2, "snipe", 6]])
    assert g.next_wake()["ability"] == "nurse.tend"
    targets = {a[2] for a in g.legal_actions(5)}
    assert 6 not in targets and 7 in targets
    with pytest.raises(m.IllegalAction) as e:
        g.wake([[5, "tend", 6]])
    assert e.value.rule == "bad-target"
    g.wake([])
    g.wake([])  # the stab
    assert g.next_wake()["ability"] == "seer.see"
    assert g.legal_actions(6) == []  # the seer is dead: nothing she may do, she passes
    with pytest.raises(m.IllegalAction) as e:
        g.wake([[6, "see", 1]])
    assert e.value.rule == "dead-actor"
    g.wake([])
    rep = g.end_night()
    assert [d if isinstance(d, int) else d.get("seat") for d in rep["deaths"]] == [6]
