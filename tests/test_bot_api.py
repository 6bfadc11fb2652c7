"""The API a bot drives (docs/engine.md, "Driving a game"), on every generated engine.

Property: every action `legal_actions` lists is accepted alone, and sampled actions it does not
list are rejected, at every step of random games.
"""
import random
from pathlib import Path

import pytest

from maf.compiler.driver import import_generated
from tests.randplay import random_day, random_night, random_raw_action, random_table

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p.stem for p in (ROOT / "generated").glob("*.py"))
ENGINES = {s: import_generated(ROOT / "generated" / f"{s}.py") for s in SPECS}


def _copy(eng, g):
    return eng.Game.from_json(g.to_json())


def _accepted(eng, g, action):
    c = _copy(eng, g)
    try:
        if g.phase == "night":
            c.resolve_night([action])
        else:
            c.resolve_day(actions=[action])
    except eng.IllegalAction as e:
        return e
    return None


def _full(eng, g, action):
    """The action with its ability as a full id (None if the seat holds no such ability)."""
    try:
        a = g.find_ability(action[0], action[1])
    except (eng.IllegalAction, IndexError, TypeError):
        return None
    return [action[0], eng.ABILITIES[a], *action[2:]]


def _check_decision(eng, g):
    """While a decision is awaited, the deciding seat's listed decisions are each accepted by
    resolve_choice, and nobody else has anything to do."""
    seat = g.pending_choices()[0]["seat"]
    assert g.waiting()["step"] == "resolve_choice" and g.waiting()["actors"] == [seat]
    checked = 0
    for s in range(0, g.n + 2):
        listed = g.legal_actions(s, expand=True)
        if s != seat:
            assert listed == []
        for act in listed:
            c = _copy(eng, g)
            c.resolve_choice(act[0], act[2:])
            checked += 1
    return checked


def _check_step(eng, g, rng):
    if g.pending_choices():
        return _check_decision(eng, g)
    checked = 0
    for seat in range(0, g.n + 2):
        legal = g.legal_actions(seat, expand=True)
        if not 1 <= seat <= g.n:
            assert legal == []
        # a dead seat may still list abilities of the dead (`dead`); each is checked below
        for act in legal:
            err = _accepted(eng, g, act)
            assert err is None, (g.phase, g.number, act, str(err))
            checked += 1
        compact = g.legal_actions(seat)
        assert sorted(map(repr, (x for c in compact for x in eng.expand_action(c)))) == \
            sorted(map(repr, legal))
    listed = {repr(a) for s in range(1, g.n + 1) for a in g.legal_actions(s, expand=True)}
    for _ in range(30):
        raw = random_raw_action(eng, g, rng)
        full = _full(eng, g, raw) if 1 <= raw[0] <= g.n else None
        if full is not None and repr(full) in listed:
            continue
        err = _accepted(eng, g, raw)
        assert err is not None, f"{g.phase} {g.number}: {raw} accepted but not listed"
    return checked


@pytest.mark.parametrize("spec", SPECS)
def test_legal_actions_match_validation(spec):
    eng = ENGINES[spec]
    rng = random.Random(f"bot-api-{spec}")
    steps = checked = 0
    for _game in range(4):
        g = eng.Game.new(random_table(eng, rng), seed=rng.randrange(100))
        while g.winner is None and steps < 60 * (_game + 1):
            checked += _check_step(eng, g, rng)
            steps += 1
            if g.pending_choices():  # a suspended step: give the awaited decision
                seat = g.pending_choices()[0]["seat"]
                act = rng.choice(g.legal_actions(seat, expand=True))
                g.resolve_choice(seat, act[2:])
                continue
            for _try in range(5):
                try:
                    if g.phase == "night":
                        g.resolve_night(random_night(eng, g, rng, illegal=0))
                    else:
                        g.resolve_day(**random_day(eng, g, rng, illegal=0))
                    break
                except eng.IllegalAction:
                    continue
            else:
                (g.resolve_night([]) if g.phase == "night" else g.resolve_day())
    assert steps > 20 and checked > 100, (steps, checked)


@pytest.mark.parametrize("spec", SPECS)
def test_static_api(spec):
    eng = ENGINES[spec]
    assert list(eng.ABILITY_INFO) == list(eng.ABILITIES)
    for full, info in eng.ABILITY_INFO.items():
        a = eng.ABILITIES.index(full)
        assert info["phase"] == eng.AB_PHASE[a]
        assert len(info["targets"]) == eng.AB_TARGETS[a]
        assert info["choices"] == eng.AB_CHOICES[a]
    g = eng.Game.new(random_table(eng, random.Random(1)))
    assert g.alive_seats() == list(range(1, g.n + 1))
    w = g.waiting()
    assert w["phase"] == g.phase == eng.FIRST_PHASE and w["number"] == g.number == 1
    assert w["step"] == ("resolve_night" if g.phase == "night" else "resolve_day")
    g.moderator_kill(2)
    assert 2 not in g.alive_seats() and g.legal_actions(2) == []
