"""No game can get stuck (issue 23; docs/security.md, "Liveness"): from every state reachable
through the documented API -- nights, days, nights in wake order, decisions, moderator kills and
revives, save and load -- at least one documented input moves the game on, and a refused step
changes nothing. Regressions first, then the property over random play on every shipped spec
(hypothesis draws the seeds of the games)."""
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from maf.compiler.driver import import_generated
from maf.compiler.tools import scenario
from tests.randplay import random_day, random_night, random_table

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p.stem for p in (ROOT / "generated").glob("*.py"))
ENGINES = {s: import_generated(ROOT / "generated" / f"{s}.py") for s in SPECS}
BAZPORS = ["boss", "nato", "trickster", "doctor", "detective", "bulletproof", "interrogator",
           "researcher", "citizen", "citizen"]
TAKAVAR = ["boss", "nato", "charmer", "commando", "detective", "doctor", "guard", "gunsmith",
           "citizen", "citizen"]


def _night2(eng, seats):
    g = eng.Game.new(seats)
    g.resolve_day(), g.resolve_night([]), g.resolve_day()
    return g


def _wake_until(g, ability):
    while g.next_wake()["ability"] != ability:
        g.wake([])


def _saved(eng, g):
    return eng.Game.from_json(json.loads(json.dumps(g.to_json())))


# ---------------------------------------------------------------- the moderator mid-night
def test_moderator_kill_of_a_woken_actor_drops_his_actions():
    eng = ENGINES["bazpors"]
    g = _night2(eng, BAZPORS)
    _wake_until(g, "doctor.save")
    g.wake([[4, "save", 9]])
    rep = g.moderator_kill(4)  # the doctor, who acted tonight
    assert rep["deaths"] == [4] and rep["causes"] == {4: "moderator"}
    assert g.to_json()["wake"]["actions"] == []  # his save is dropped
    assert g.waiting()["step"] in ("wake", "end_night")
    while g.next_wake() is not None:
        g.wake([])
    assert g.end_night()["phase"] == "night" and g.phase == "day"


def test_moderator_kill_of_a_target_drops_the_actions_aimed_at_him():
    eng = ENGINES["bazpors"]
    g = _night2(eng, BAZPORS)
    g.wake([[1, "shoot", 9]])
    g.moderator_kill(9)  # the boss's target: `alive(x)` refuses him now
    assert g.to_json()["wake"] == {"pos": 1, "actions": []}
    g2 = _saved(eng, g)
    assert g.end_night()["deaths"] == [] and g.phase == "day"
    assert g2.to_json()["wake"] == {"pos": 1, "actions": []}  # the state restores


def test_moderator_kill_keeps_what_the_night_still_accepts_and_revive_too():
    eng = ENGINES["bazpors"]
    g = _night2(eng, BAZPORS)
    g.wake([[1, "shoot", 9]])
    _wake_until(g, "doctor.save")
    g.wake([[4, "save", 10]])
    g.moderator_kill(7)  # nobody's actor nor target
    assert g.to_json()["wake"]["actions"] == [[1, "shoot", 9], [4, "save", 10]]
    g.moderator_revive(7)
    assert g.to_json()["wake"]["actions"] == [[1, "shoot", 9], [4, "save", 10]]
    while g.next_wake() is not None:
        g.wake([])
    assert g.end_night()["deaths"] == [9]


def test_a_moderator_kill_that_ends_the_game_ends_the_night_in_wake_order():
    eng = ENGINES["bazpors"]
    g = _night2(eng, BAZPORS)
    g.wake([])
    for s in (4, 5, 6, 7, 8, 9):
        if g.over:
            break
        g.moderator_kill(s)
    assert g.over and "wake" not in g.to_json() and g.waiting()["step"] is None


# ---------------------------------------------------------------- decisions in wake order
def test_a_decision_asked_at_a_wake_is_awaited_and_kept_by_the_night():
    eng = ENGINES["takavar"]
    g = _night2(eng, TAKAVAR)
    _wake_until(g, "boss.shoot")
    rep = g.wake([[1, "shoot", 4]])  # the commando, shot, answers at once
    assert rep["awaiting"][0]["seat"] == 4 and g.pending_choices() == rep["awaiting"]
    assert g.waiting()["step"] == "resolve_choice" and g.next_wake() is None
    with pytest.raises(eng.IllegalAction) as e:
        g.wake([])
    assert e.value.rule == "awaiting"
    restored = _saved(eng, g)
    assert restored.pending_choices() == rep["awaiting"]
    so_far = g.resolve_choice(4, [1])
    assert so_far["deaths"] == [1, 4] and g.phase == "night" and "awaiting" not in so_far
    assert g.to_json()["wake"]["answers"] == [
        {"seat": 4, "ability": "commando.shoot", "values": [1]}]
    assert restored.resolve_choice(4, [1]) == so_far and restored.to_json() == g.to_json()
    while g.next_wake() is not None:
        assert "awaiting" not in g.wake([])  # not asked twice
    assert g.end_night()["deaths"] == [1, 4]


def test_a_kept_decision_the_night_no_longer_takes_is_asked_again():
    eng = ENGINES["takavar"]
    g = _night2(eng, TAKAVAR)
    _wake_until(g, "boss.shoot")
    g.wake([[1, "shoot", 4]])
    g.resolve_choice(4, [5])  # the commando answers on seat 5
    g.moderator_kill(5)  # his target leaves: the answer no longer holds
    assert "answers" not in g.to_json()["wake"]
    rep = g.wake([])  # the night so far asks him again, at the next wake
    assert rep["awaiting"][0]["seat"] == 4 and 5 not in rep["awaiting"][0]["options"]
    assert g.resolve_choice(4, [1])["deaths"] == [1, 4]
    while g.next_wake() is not None:
        g.wake([])
    assert g.end_night()["deaths"] == [1, 4] and g.phase == "day"


def test_the_scenario_runner_gives_a_decision_on_the_wake_step():
    result = scenario.run(ROOT / "tests/scenarios/takavar/40_commando_answers_in_wake_order.yaml")
    assert result.ok, (result.failures, result.error)


# ---------------------------------------------------------------- the property
def _step_once(eng, g, rng):
    """One documented input, drawn at random among those the step the game waits for takes
    (and now and then a moderator step, a save and load, or junk); returns the game."""
    w = g.waiting()
    roll = rng.random()
    if roll < 0.08 and not g.over:
        seat = rng.randint(1, g.n)
        return ("moderator_revive" if not g.alive[seat] else "moderator_kill", (seat,))
    if roll < 0.14:
        return ("save", ())
    step = w["step"]
    if step == "resolve_choice":
        seat = w["actors"][0]
        legal = g.legal_actions(seat, expand=True)
        return ("resolve_choice", (seat, rng.choice(legal)[2:] if rng.random() < 0.9 else [0]))
    if step == "wake" or (step == "resolve_night" and rng.random() < 0.3 and g.next_wake()):
        nxt = g.next_wake()
        acts = []
        for s in nxt["seats"]:
            mine = [a for a in g.legal_actions(s, expand=True) if a[1] == nxt["ability"]]
            if mine and rng.random() < 0.7:
                acts.append(rng.choice(mine))
        return ("wake", (acts,))
    if step == "end_night":
        return ("end_night", ())
    if step == "resolve_night":
        return ("resolve_night", (random_night(eng, g, rng),))
    if step == "resolve_day":
        return ("resolve_day", (), random_day(eng, g, rng))
    return None


def moves_on(eng, g):
    """Some documented input moves the game on (played on a copy); the inputs tried first are
    those that pass (decline a decision, nobody acts, no vote)."""
    w = g.waiting()
    if w["step"] is None:
        return True  # the game is over: nothing is left to move
    tries = {
        "resolve_choice": lambda c: c.resolve_choice(w["actors"][0], []),
        "wake": lambda c: c.wake([]),
        "end_night": lambda c: c.end_night(),
        "resolve_night": lambda c: c.resolve_night([]),
        "resolve_day": lambda c: c.resolve_day(),
    }[w["step"]]
    c = _saved(eng, g)
    before = c.to_json()
    try:
        tries(c)
    except eng.IllegalAction as e:
        raise AssertionError(f"{w['step']} refused from {before}: {e}") from None
    return c.to_json() != before


def _random_play(eng, seed, steps):
    rng = random.Random(seed)
    return play(eng, eng.Game.new(random_table(eng, rng), seed=rng.randrange(100)), rng, steps)


def play(eng, g, rng, steps):
    """Random documented inputs from game `g` on: from every state some input moves the game on,
    and a refused step changes nothing. Returns the counts of accepted and refused steps."""
    counts = {"accepted": 0, "refused": 0}
    for _ in range(steps):
        assert moves_on(eng, g), g.to_json()
        if g.over:
            break
        drawn = _step_once(eng, g, rng)
        if drawn is None:
            break
        name, args, *kw = drawn
        if name == "save":
            g = _saved(eng, g)
            continue
        before = g.to_json()
        try:
            getattr(g, name)(*json.loads(json.dumps(args)), **(kw[0] if kw else {}))
            counts["accepted"] += 1
        except eng.IllegalAction:
            assert g.to_json() == before, name  # a refused step changes nothing
            counts["refused"] += 1
    return counts


@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_some_documented_input_always_moves_the_game_on(spec, seed):
    counts = _random_play(ENGINES[spec], seed, 40)
    assert counts["accepted"] + counts["refused"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_some_documented_input_always_moves_the_game_on_long(spec, seed):
    counts = _random_play(ENGINES[spec], seed, 80)
    assert counts["accepted"] + counts["refused"] > 0


# ---------------------------------------------------------------- a decision by day
DAY_CALL = """
game dayc {
  name en "D"
  players 5..6
  first day
}
team town { name en "T" }
team mafia { name en "M" }
cause shot
win town when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
day { vote { threshold 2 rounds 1 tie none } }
role gunner in town {
  name en "G"
  ability shoot at day {
    target x: alive(x) and x != self
    kill x by shot
    if role(x) == hunter {
      call hunter.fire for x
    }
  }
}
role hunter in town {
  name en "H"
  ability fire on call {
    target x: alive(x) and x != self
    kill x by shot
  }
}
role mafia in mafia { name en "M" }
role citizen in town { name en "C" }
setup 5..6: gunner, hunter, mafia, citizen * rest
"""


def test_a_day_whose_later_input_is_illegal_is_refused_before_it_waits():
    """A call fired by a day ability, then an input checked later in the day (the vote): the
    day used to wait for the hunter, then refuse every decision, declining included (stuck)."""
    from maf.compiler.driver import compile_source, load_engine  # noqa: PLC0415

    eng = load_engine(compile_source(DAY_CALL, "dayc.maf").python, "dayc_engine")
    g = eng.Game.new(["gunner", "hunter", "mafia", "citizen", "citizen"])
    before = g.to_json()
    with pytest.raises(eng.IllegalAction):  # a vote for no seat: refused at once
        g.resolve_day(actions=[[1, "shoot", 2]], votes={9: [1, 3]})
    assert g.to_json() == before and g.pending_choices() == []
    rep = g.resolve_day(actions=[[1, "shoot", 2]], votes={3: [4, 5]})
    assert rep["awaiting"][0]["seat"] == 2
    with pytest.raises(eng.IllegalAction):  # the hunter shoots a voter: the vote is refused
        g.resolve_choice(2, [4])
    assert g.pending_choices() == rep["awaiting"]
    assert moves_on(eng, g)  # declining goes through
    assert g.resolve_choice(2, [])["deaths"] == [2, 3]
