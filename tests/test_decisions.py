"""Decisions taken when a trigger fires (`ability ... on call`, `call`; docs/engine.md,
"Decisions"), on generated/takavar.py: the commando's return shot."""
import copy
import json
from pathlib import Path

import pytest

from maf.compiler.driver import import_generated

ROOT = Path(__file__).resolve().parent.parent
ENG = import_generated(ROOT / "generated" / "takavar.py")
SEATS = ["boss", "nato", "charmer", "commando", "detective", "doctor", "guard", "gunsmith",
         "citizen", "citizen"]


def night2():
    g = ENG.Game.new(SEATS)
    g.resolve_day()
    g.resolve_night([])
    g.resolve_day()
    return g


def test_a_step_waits_for_the_decision_and_changes_nothing_meanwhile():
    g = night2()
    before = copy.deepcopy(g.to_json())
    rep = g.resolve_night([[1, "shoot", 4], [5, "inquire", 2]])
    assert rep["awaiting"] == [{"seat": 4, "ability": "commando.shoot", "targets": 1,
                                "choices": [], "options": [1, 2, 3, 5, 6, 7, 8, 9, 10]}]
    assert rep["deaths"] == [] and rep["private"] == {}
    assert g.pending_choices() == rep["awaiting"]
    state = g.to_json()
    assert {k: v for k, v in state.items() if k != "awaiting"} == \
        {k: v for k, v in before.items() if k != "awaiting"}
    assert state["awaiting"]["answers"] == []


@pytest.mark.parametrize("call,rule", [
    (lambda g: g.resolve_day(), "awaiting"),
    (lambda g: g.resolve_night([]), "awaiting"),
    (lambda g: g.moderator_kill(9), "awaiting"),
    (lambda g: g.resolve_choice(5, [1]), "not-awaited"),
    (lambda g: g.resolve_choice(4, [4]), "bad-target"),
    (lambda g: g.resolve_choice(4, [1, 2]), "arity"),
    (lambda g: g.resolve_choice(4, 3), "malformed"),
])
def test_illegal_while_awaiting(call, rule):
    g = night2()
    g.resolve_night([[1, "shoot", 4]])
    before = copy.deepcopy(g.to_json())
    with pytest.raises(ENG.IllegalAction) as e:
        call(g)
    assert e.value.rule == rule
    assert g.to_json() == before


def test_no_decision_awaited():
    g = night2()
    with pytest.raises(ENG.IllegalAction) as e:
        g.resolve_choice(4, [1])
    assert e.value.rule == "no-choice"
    assert g.pending_choices() == []


def test_decision_completes_the_step_like_one_night():
    g = night2()
    g.resolve_night([[1, "shoot", 4], [5, "inquire", 2]])
    rep = g.resolve_choice(4, [1])
    assert rep["deaths"] == [1, 4] and rep["causes"] == {1: "reply", 4: "shot"}
    assert rep["private"] == {5: ["positive"]} and "awaiting" not in rep
    assert (g.phase, g.day) == ("day", 3) and g.pending_choices() == []


def test_json_round_trip_while_awaiting():
    g = night2()
    g.resolve_night([[1, "shoot", 4], [6, "save", 4]])
    data = json.loads(json.dumps(g.to_json()))
    g2 = ENG.Game.from_json(data)
    assert g2.to_json() == data
    assert g2.pending_choices() == g.pending_choices()
    assert g2.resolve_choice(4, [2]) == g.resolve_choice(4, [2])
    assert g2.to_json() == g.to_json()


def test_day_inputs_survive_the_round_trip():
    """A day suspended by a decision keeps its inputs (seat keys too) through JSON."""
    src = (ROOT / "tests" / "scenarios" / "features" / "decisions.maf").read_text()
    from maf.compiler.driver import compile_source, load_engine
    eng = load_engine(compile_source(src, "decisions.maf").python, "decisions_rt")
    g = eng.Game.new(["godfather", "mafia", "hunter", "commando", "citizen", "citizen"])
    g.resolve_night([])
    rep = g.resolve_day(votes={3: [1, 2, 4, 5]}, defense={3: [1, 2, 4, 5]})
    assert rep["awaiting"][0]["seat"] == 3
    g2 = eng.Game.from_json(json.loads(json.dumps(g.to_json())))
    r1, r2 = g.resolve_choice(3, [1]), g2.resolve_choice(3, [1])
    # the hunter shoots the godfather, whose own trigger asks him for a successor: a second
    # decision of the same step
    assert r1 == r2 and r1["awaiting"][0]["seat"] == 1 and r1["deaths"] == []
    r1, r2 = g.resolve_choice(1, [2]), eng.Game.from_json(
        json.loads(json.dumps(g2.to_json()))).resolve_choice(1, [2])
    assert r1 == r2 and r1["deaths"] == [1, 3] and r1["changes"][0]["role"] == "godfather"


def test_bot_api_lists_the_awaited_decision():
    """Random games (seeded): whenever a decision is awaited, `waiting()` names it,
    `legal_actions` lists it for the deciding seat only, and every listed decision (declining
    included) is accepted by resolve_choice."""
    import random

    from tests.randplay import random_day, random_night, random_table
    from tests.test_bot_api import _check_decision

    rng = random.Random("decisions")
    decisions = 0
    for _game in range(40):
        g = ENG.Game.new(random_table(ENG, rng), seed=rng.randrange(100))
        for _step in range(40):
            if g.winner is not None:
                break
            if g.pending_choices():
                decisions += _check_decision(ENG, g) > 0
                seat = g.pending_choices()[0]["seat"]
                act = rng.choice(g.legal_actions(seat, expand=True))
                assert act[:2] == [seat, "commando.shoot"]
                g.resolve_choice(seat, act[2:])
                continue
            try:
                if g.phase == "night":
                    g.resolve_night(random_night(ENG, g, rng, illegal=0))
                else:
                    g.resolve_day(**random_day(ENG, g, rng, illegal=0))
            except ENG.IllegalAction:
                (g.resolve_night([]) if g.phase == "night" else g.resolve_day())
        if decisions >= 5:
            break
    assert decisions >= 5
