"""A night played in wake order (`next_wake` / `wake` / `end_night`, docs/engine.md, "A night in
wake order") gives the same night as `resolve_night` with the same actions, on random nights of
every shipped spec (none of whose abilities reads the night so far)."""
import json
import random
from pathlib import Path

import pytest

from maf.compiler.driver import import_generated
from tests.randplay import random_day, random_night, random_table

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p.stem for p in (ROOT / "generated").glob("*.py"))
NIGHTS_PER_SPEC = 40


def _copy(eng, g):
    return eng.Game.from_json(json.loads(json.dumps(g.to_json())))


def _in_wake_order(eng, g, actions, rng=None):
    """Play `actions` wake by wake, each decision a wake asks for given at once (by `rng`, as
    `_decide` gives them); the report of end_night, or the IllegalAction raised."""
    slot_of = {}
    for raw in actions:
        slot_of.setdefault(eng.NIGHT_ORDER.index(g.find_ability(raw[0], raw[1])), []).append(raw)
    woken = 0
    try:
        while (w := g.next_wake()) is not None:
            assert w["seats"], w
            acts = slot_of.pop(w["slot"], [])
            assert all(raw[0] in w["seats"] for raw in acts)
            rep = g.wake(acts)
            if rep.get("awaiting"):  # asked at this wake, told at once (docs/engine.md)
                assert rng is not None and g.pending_choices() == rep["awaiting"]
                _decide(eng, g, rng, rep)
            woken += 1
        assert not slot_of, f"actions never woken: {slot_of}"
        rep = g.end_night()
        return (_decide(eng, g, rng, rep) if rng is not None else rep), woken
    except eng.IllegalAction as e:
        return e, woken


def _decide(eng, g, rng, rep):
    while rep.get("awaiting"):
        seat = rep["awaiting"][0]["seat"]
        rep = g.resolve_choice(seat, rng.choice(g.legal_actions(seat, expand=True))[2:])
    return rep


@pytest.mark.parametrize("spec", SPECS)
def test_wake_order_agrees_with_resolve_night(spec):
    eng = import_generated(ROOT / "generated" / f"{spec}.py")
    rng = random.Random(f"wake-{spec}")
    nights = wakes = 0
    for _game in range(30):
        g = eng.Game.new(random_table(eng, rng), seed=rng.randrange(100))
        for _step in range(30):
            if g.winner is not None or nights >= NIGHTS_PER_SPEC:
                break
            if g.phase == "day":
                try:
                    _decide(eng, g, rng, g.resolve_day(**random_day(eng, g, rng, illegal=0)))
                except eng.IllegalAction:
                    _decide(eng, g, rng, g.resolve_day())
                continue
            actions = random_night(eng, g, rng, illegal=0)
            a, b = _copy(eng, g), _copy(eng, g)
            seed = rng.random()
            try:
                ra = _decide(eng, a, random.Random(seed), a.resolve_night(json.loads(json.dumps(actions))))
            except eng.IllegalAction as e:
                ra = e
            rb, woken = _in_wake_order(eng, b, json.loads(json.dumps(actions)), random.Random(seed))
            wakes += woken
            if isinstance(ra, Exception) or isinstance(rb, Exception):
                assert isinstance(ra, Exception) and isinstance(rb, Exception), (actions, ra, rb)
                g.resolve_night([]) if not g.pending_choices() else None
                _decide(eng, g, rng, {"awaiting": g.pending_choices()})
                continue
            nights += 1
            assert ra == rb and a.to_json() == b.to_json(), actions
            g = a
        if nights >= NIGHTS_PER_SPEC:
            break
    assert nights >= 20 and wakes > nights, (nights, wakes)


def test_wake_tells_the_night_so_far_and_checks_who_is_awake():
    eng = import_generated(ROOT / "generated" / "bazpors.py")
    g = eng.Game.new(["boss", "nato", "trickster", "doctor", "detective", "bulletproof",
                      "interrogator", "researcher", "citizen", "citizen"])
    g.resolve_day(), g.resolve_night([]), g.resolve_day()
    assert g.next_wake() == {"ability": "boss.shoot", "seats": [1], "slot": 0}
    for bad, rule in (([[4, "save", 9]], "not-awake"), ([[1, "shoot", 2]], "bad-target"),
                      (7, "malformed")):
        before = g.to_json()
        with pytest.raises(eng.IllegalAction) as e:
            g.wake(bad)
        assert e.value.rule == rule and g.to_json() == before
    so_far = g.wake([[1, "shoot", 9]])
    assert so_far["deaths"] == [9] and (g.phase, g.night) == ("night", 2)  # only told, not done
    with pytest.raises(eng.IllegalAction) as e:
        g.resolve_night([])
    assert e.value.rule == "wake-order"
    g2 = eng.Game.from_json(json.loads(json.dumps(g.to_json())))
    while (w := g.next_wake()) is not None:
        so_far = g.wake([[4, "save", 9]] if w["ability"] == "doctor.save" else [])
        if w["ability"] == "doctor.save":
            assert so_far["deaths"] == []  # the doctor's save shows in the night so far
    rep = g.end_night()
    assert rep["deaths"] == [] and g.phase == "day"
    assert g2.end_night()["deaths"] == [9]  # restored mid-night, the rest pass
    with pytest.raises(eng.IllegalAction) as e:
        g.wake([])
    assert e.value.rule == "no-wake"


def test_a_filter_read_at_the_wake_sees_the_night_so_far():
    """issue 21: a target filter that reads the night so far (`doomed(x)`) is read at the
    ability's wake, in both forms of the night: given at once it sees the earlier shot, and a
    seat it refuses there rejects the night whole; wake by wake, legal_actions lists the seats
    the night so far dooms, and a refused wake changes nothing."""
    from maf.compiler.driver import compile_file, load_engine

    spec = ROOT / "tests" / "scenarios" / "features" / "wake.maf"
    eng = load_engine(compile_file(spec).code, "wake_filters")
    assert eng.FAST_NIGHT is None and eng.AT_WAKE == {eng.A_WITCH_0HEAL, eng.A_WITCH_0WATCH}
    seats = ["godfather", "witch", "citizen", "citizen", "citizen"]
    g = eng.Game.new(seats)
    before = g.to_json()
    with pytest.raises(eng.IllegalAction) as e:
        g.resolve_night([[1, "shoot", 4], [2, "heal", 3]])
    assert e.value.rule == "bad-target" and "when it wakes" in e.value.reason
    assert g.to_json() == before
    assert [a for a in g.legal_actions(2) if a[1] == "witch.heal"] == []  # nothing doomed yet
    g.wake([[1, "shoot", 4]])
    assert [a for a in g.legal_actions(2) if a[1] == "witch.heal"] == [[2, "witch.heal", 4]]
    so_far = g.to_json()
    with pytest.raises(eng.IllegalAction):
        g.wake([[2, "heal", 5]])
    assert g.to_json() == so_far
    assert g.wake([[2, "heal", 4]])["deaths"] == []
    assert g.end_night()["deaths"] == []
