"""The generated engine's public API (docs/engine.md), on generated/bazpors.py."""
import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from maf.compiler.driver import import_generated

ROOT = Path(__file__).resolve().parent.parent
ENG = import_generated(ROOT / "generated" / "bazpors.py")
SEATS10 = ["boss", "nato", "trickster", "doctor", "detective", "bulletproof", "interrogator",
           "researcher", "citizen", "citizen"]
# seats: 1 boss, 2 nato, 3 trickster, 4 doctor, 5 detective, 6 bulletproof, 7 interrogator,
#        8 researcher, 9-10 citizen


def night2(seats=SEATS10, seed=0):
    """A game at night 2 (after the intro day, the quiet night 1 and day 2)."""
    g = ENG.Game.new(seats, seed=seed)
    g.resolve_day()
    g.resolve_night([])
    g.resolve_day()
    assert (g.phase, g.night) == ("night", 2)
    return g


def snapshot(g):
    return copy.deepcopy(g.to_json())


# ------------------------------------------------------------------ setups
@pytest.mark.parametrize("seats,words", [
    (SEATS10[:-1], "not 9"),                                               # 9 seats
    (SEATS10 + ["citizen"] * 7, "not 17"),                                 # 17 seats
    (SEATS10[:-1] + ["sniper"], "match no setup"),                         # sniper at 10
    (["boss"] * 2 + SEATS10[2:], "match no setup"),                        # two bosses
    (SEATS10[:-1] + ["werewolf"], "unknown role id(s): werewolf"),         # unknown role
])
def test_illegal_setup(seats, words):
    with pytest.raises(ENG.IllegalSetup) as info:
        ENG.Game.new(seats)
    e = info.value
    assert isinstance(e, ENG.IllegalAction)
    assert (e.seat, e.ability, e.rule) == (None, None, "setup")
    assert words in e.reason and words in str(e)


def test_unknown_named_setup():
    with pytest.raises(ENG.IllegalSetup) as info:
        ENG.Game.new(SEATS10, setup="classic")
    assert "no setup named 'classic' for 10 players" in info.value.reason


def test_setup_in_any_order_and_every_size():
    g = ENG.Game.new(list(reversed(SEATS10)))
    assert g.to_json()["roles"] == list(reversed(SEATS10))
    for n in range(ENG.MIN_PLAYERS, ENG.MAX_PLAYERS + 1):
        counts = ENG.SETUPS[n][0][1]
        seats = [r for r, k in zip(ENG.ROLES, counts) for _ in range(k)]
        assert len(ENG.Game.new(seats).to_json()["alive"]) == n


# ------------------------------------------------------------------ illegal actions
def _reject(g, call, seat, ability, rule):
    before = snapshot(g)
    with pytest.raises(ENG.IllegalAction) as info:
        call(g)
    e = info.value
    assert (e.seat, e.ability, e.rule) == (seat, ability, rule), (e.seat, e.ability, e.rule, e.reason)
    assert e.reason and e.rule in str(e)
    assert g.to_json() == before, "a rejected step must leave the game unchanged"
    return e


def test_dead_actor():
    g = night2()
    g.moderator_kill(4)
    e = _reject(g, lambda g: g.resolve_night([[1, "shoot", 9], [4, "save", 9]]),
                4, "save", "dead-actor")
    assert "dead" in e.reason


def test_wrong_phase_for_the_whole_step():
    g = ENG.Game.new(SEATS10)
    _reject(g, lambda g: g.resolve_night([]), None, None, "wrong-phase")
    g.resolve_day()
    _reject(g, lambda g: g.resolve_day(), None, None, "wrong-phase")


def test_night_ability_used_in_the_day():
    g = night2()
    g.resolve_night([])
    _reject(g, lambda g: g.resolve_day(actions=[[4, "save", 9]]), 4, "doctor.save",
            "wrong-phase")


def test_quiet_night():
    g = ENG.Game.new(SEATS10)
    g.resolve_day()
    _reject(g, lambda g: g.resolve_night([[1, "shoot", 9]]), 1, "boss.shoot", "quiet-phase")


@pytest.mark.parametrize("action", [[1, "shoot", 2], [1, "shoot", 3], [1, "shoot", 99],
                                    [1, "shoot", 0], [5, "inquire", 5], [1, "shoot", "9"]])
def test_bad_target(action):
    _reject(night2(), lambda g: g.resolve_night([action]), 1 if action[0] == 1 else 5,
            {"shoot": "boss.shoot", "inquire": "detective.inquire"}[action[1]], "bad-target")


def test_bad_target_dead_seat():
    g = night2()
    g.moderator_kill(9)
    _reject(g, lambda g: g.resolve_night([[1, "shoot", 9]]), 1, "boss.shoot", "bad-target")


def test_used_up_ability():
    g = night2()
    g.resolve_night([[2, "guess", 9, "doctor"]])     # wrong guess: used, no effect
    g.resolve_day()
    _reject(g, lambda g: g.resolve_night([[2, "guess", 4, "doctor"]]), 2, "nato.guess",
            "used-up")


def test_exclusive_actions():
    _reject(night2(), lambda g: g.resolve_night([[1, "shoot", 9], [1, "yakuza", 3, 10]]),
            1, "boss.yakuza", "exclusive")


def test_unknown_ability():
    _reject(night2(), lambda g: g.resolve_night([[9, "fly", 1]]), 9, "fly", "unknown-ability")


def test_duplicate_and_arity_and_choice():
    _reject(night2(), lambda g: g.resolve_night([[1, "shoot", 9], [1, "shoot", 10]]),
            1, "boss.shoot", "duplicate")
    _reject(night2(), lambda g: g.resolve_night([[1, "shoot", 9, 10]]), 1, "boss.shoot", "arity")
    _reject(night2(), lambda g: g.resolve_night([[2, "guess", 9, "wizard"]]), 2, "nato.guess",
            "bad-choice")


def test_one_illegal_action_rejects_the_whole_night():
    g = night2()
    before = snapshot(g)
    with pytest.raises(ENG.IllegalAction):
        g.resolve_night([[1, "shoot", 9], [4, "save", 10], [5, "inquire", 5]])
    assert g.to_json() == before
    rep = g.resolve_night([[1, "shoot", 9], [4, "save", 10]])
    assert rep["deaths"] == [9]


def test_game_over():
    g = night2()
    for s in (1, 2, 3):
        g.moderator_kill(s)
    assert g.winner == "city"
    _reject(g, lambda g: g.resolve_night([]), None, None, "game-over")


# ------------------------------------------------------------------ reports
def test_night_report_keys():
    g = night2()
    rep = g.resolve_night([[1, "shoot", 9], [5, "inquire", 2]])
    assert set(rep) >= {"phase", "number", "deaths", "public", "private", "changes", "silenced",
                        "winner"}
    assert (rep["phase"], rep["number"], rep["deaths"]) == ("night", 2, [9])
    assert rep["private"] == {5: ["positive"]}
    day = g.resolve_day()
    assert set(day) >= {"phase", "number", "deaths", "chaos", "speaker", "repeat"}
    assert (day["phase"], day["number"]) == ("day", 3)


# ------------------------------------------------------------------ JSON
def _play_on(g):
    """A few more steps; returns their reports."""
    return [g.resolve_night([[1, "shoot", 10], [5, "inquire", 3], [4, "save", 4],
                             [7, "interrogate", 2, 8], [8, "link", 2]]),
            g.resolve_day(trial={"votes": {2: [3, 4, 5, 6], 8: [1, 9]}}),
            g.resolve_night([[3, "trick", 5], [5, "inquire", 3], [1, "yakuza", 3, 9]]),
            g.to_json()]


def test_json_round_trip_mid_game_and_continuation():
    g = night2(seed=5)
    g.resolve_night([[1, "shoot", 6], [2, "guess", 9, "citizen"], [8, "link", 3]])
    g.resolve_day(votes={9: [1, 2, 3, 4, 5]})
    state = g.to_json()
    text = json.dumps(state)
    restored = ENG.Game.from_json(json.loads(text))
    assert restored.to_json() == state
    assert json.dumps(restored.to_json()) == text
    assert _play_on(restored) == _play_on(g)


def test_from_json_refuses_another_spec():
    state = ENG.Game.new(SEATS10).to_json()
    state["spec"] = "other"
    with pytest.raises(ValueError):
        ENG.Game.from_json(state)


def test_determinism_same_seed_same_game():
    a, b = night2(seed=3), night2(seed=3)
    assert _play_on(a) == _play_on(b)


# ------------------------------------------------------------------ maf run --json
def _maf_run(tmp_path, text):
    path = tmp_path / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "maf.compiler.tools.cli", "run", str(path), "--json"],
                          cwd=ROOT, capture_output=True, text=True)


def test_maf_run_json(tmp_path):
    r = _maf_run(tmp_path, """\
spec: bazpors
seats: [boss, nato, trickster, doctor, detective, bulletproof, interrogator, researcher, citizen, citizen]
steps:
  - day: {}
  - night: []
  - day: {eliminate: 10}
  - night:
      - [1, shoot, 9]
      - [5, inquire, 2]
""")
    assert r.returncode == 0, r.stderr
    t = json.loads(r.stdout)
    assert set(t) >= {"steps", "winner"} and t["winner"] is None
    assert len(t["steps"]) == 4
    for step in t["steps"]:
        assert set(step) >= {"phase", "number", "deaths", "private", "public", "changes", "winner"}
    assert [(s["phase"], s["number"]) for s in t["steps"]] == [
        ("day", 1), ("night", 1), ("day", 2), ("night", 2)]
    assert t["steps"][2]["deaths"] == [10]
    assert t["steps"][3]["deaths"] == [9]
    assert t["steps"][3]["private"] == {"5": ["positive"]}


def test_maf_run_json_illegal_step(tmp_path):
    r = _maf_run(tmp_path, """\
spec: bazpors
seats: [boss, nato, trickster, doctor, detective, bulletproof, interrogator, researcher, citizen, citizen]
steps:
  - day: {}
  - night: []
  - day: {}
  - night:
      - [1, shoot, 3]
""")
    assert r.returncode == 1
    t = json.loads(r.stdout)
    err = t["error"]
    assert err["step"] == 4 and err["seat"] == 1 and err["ability"] == "boss.shoot"
    assert err["rule"] == "bad-target" and "not a valid target" in err["reason"]
    assert len(t["steps"]) == 3


def test_maf_run_json_illegal_setup(tmp_path):
    r = _maf_run(tmp_path, "spec: bazpors\nseats: [boss, citizen]\nsteps: []\n")
    assert r.returncode == 1
    err = json.loads(r.stdout)["error"]
    assert err["step"] == 0 and err["rule"] == "setup" and "not 2" in err["reason"]
