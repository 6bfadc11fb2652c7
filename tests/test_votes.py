"""The vote constructs of issue 21 through the engine API (the scenarios under
tests/scenarios/features/votes_*.yaml play each rule): a refused day changes nothing, ghost
votes survive a save, `waiting()` names the day's inputs, `votes only with` a remembered seat,
and the innocent votes of a trial without a judgement are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from maf.compiler.driver import compile_source, import_generated, load_engine

ROOT = Path(__file__).resolve().parent.parent
FEATURES = ROOT / "tests" / "scenarios" / "features"
SEATS = ["imp", "virgin", "butler", "villager", "villager", "villager"]


def _engine(name: str, text: str | None = None):
    path = FEATURES / f"{name}.maf"
    return load_engine(compile_source(text or path.read_text(), str(path)).python, f"v_{name}")


@pytest.fixture(scope="module")
def st():
    return _engine("storyteller")


@pytest.fixture(scope="module")
def jd():
    return _engine("judgement")


def test_a_refused_day_changes_nothing(st):
    g = st.Game.new(SEATS)
    g.resolve_night([[1, "kill", 6]])
    g.resolve_day(nominations=[{"by": 4, "nominee": 1, "voters": [6]}])  # 6 spends his vote
    g.resolve_night([])
    before = json.dumps(g.to_json(), sort_keys=True)
    bad = [
        {"nominations": [{"by": 4, "nominee": 1, "voters": [2, 4, 5]}, {"by": 4, "nominee": 5}]},
        {"nominations": [{"by": 2, "nominee": 1, "voters": [2, 4, 6]}]},  # 6's vote is spent
        {"nominations": [{"by": 5, "nominee": 2}, {"by": 3, "nominee": 1}]},  # an execution
        {"nominations": [[4, 1, [2]]]},
        {"nominations": 3},
        {"nominations": [{"by": 4, "nominee": 1, "voters": [3, 4]}]},  # the butler, no master
        {"votes": {1: [2, 4, 5]}},
        {"innocent": [2]},
    ]
    for kw in bad:
        with pytest.raises(st.IllegalAction):
            g.resolve_day(**kw)
        assert json.dumps(g.to_json(), sort_keys=True) == before, kw
    rep = g.resolve_day(nominations=[{"by": 2, "nominee": 1, "voters": [2, 4, 5]}])
    assert rep["deaths"] == [1] and rep["winner"] == "good"


def test_ghost_votes_survive_a_save(st):
    g = st.Game.new(SEATS)
    g.resolve_night([[1, "kill", 6]])
    assert "ghosts" in g.to_json() and g.to_json()["ghosts"] == []
    g.resolve_day(nominations=[{"by": 4, "nominee": 1, "voters": [6]}])
    saved = json.loads(json.dumps(g.to_json()))
    assert saved["ghosts"] == [[6, 1]]
    h = st.Game.from_json(saved)
    h.resolve_night([])
    with pytest.raises(st.IllegalAction, match="no ghost vote left"):
        h.resolve_day(nominations=[{"by": 4, "nominee": 1, "voters": [6]}])
    bad = dict(saved, ghosts=[[6, 2]])  # more than the one vote the dead keep
    with pytest.raises(ValueError, match="ghosts"):
        st.Game.from_json(bad)
    old = {k: v for k, v in saved.items() if k != "ghosts"}  # a state saved before: none spent
    assert st.Game.from_json(old).ghosts == {}


def test_a_spec_without_ghost_votes_saves_no_ghosts(jd):
    assert "ghosts" not in jd.Game.new(["mafioso", "judge"] + ["citizen"] * 4).to_json()


def test_waiting_names_the_days_inputs(st, jd):
    g = st.Game.new(SEATS)
    g.resolve_night([])
    w = g.waiting()
    assert w["step"] == "resolve_day" and "nominations" in w["inputs"]
    assert "votes" not in w["inputs"] and "defense" not in w["inputs"]
    h = jd.Game.new(["mafioso", "judge"] + ["citizen"] * 4)
    assert {"votes", "defense", "innocent"} <= set(h.waiting()["inputs"])
    assert h.resolve_day()["deaths"] == []  # nothing given: nobody leaves, the game moves on


@pytest.fixture(scope="module")
def variant():
    """The storyteller's butler remembering his master, and one hand a day (`ballot single`)."""
    text = (FEATURES / "storyteller.maf").read_text()
    text = text.replace("mark x as master", "remember master = x")
    text = text.replace("votes only with master", "votes only with recall(master)")
    return _engine(
        "storyteller", text.replace("    nominations\n", "    nominations\n    ballot single\n")
    )


def test_votes_only_with_a_remembered_seat(variant):
    eng = variant
    g = eng.Game.new(SEATS)
    g.resolve_night([[3, "serve", 4]])
    with pytest.raises(eng.IllegalAction, match=r"votes only with recall\(master\)"):
        g.resolve_day(nominations=[{"by": 5, "nominee": 1, "voters": [3, 5]}])
    g.resolve_day(nominations=[{"by": 5, "nominee": 1, "voters": [5, 6]}])
    g.resolve_night([])  # remembered, not a mark until dusk: the master still holds
    rep = g.resolve_day(nominations=[{"by": 5, "nominee": 1, "voters": [3, 4, 5]}])
    assert rep["deaths"] == [1]


def test_one_hand_a_day_across_the_nominations(variant):
    """`ballot single` on a day of nominations: one hand a day, across the nominations."""
    eng = variant
    g = eng.Game.new(SEATS)
    g.resolve_night([])
    with pytest.raises(eng.IllegalAction, match="voted twice"):
        g.resolve_day(
            nominations=[
                {"by": 4, "nominee": 1, "voters": [4, 5]},
                {"by": 5, "nominee": 3, "voters": [5]},
            ]
        )


def test_innocent_votes_need_a_judgement():
    eng = import_generated(ROOT / "generated" / "bazpors.py")
    seats = [
        "boss",
        "nato",
        "trickster",
        "doctor",
        "detective",
        "bulletproof",
        "interrogator",
        "researcher",
        "citizen",
        "citizen",
    ]
    g = eng.Game.new(seats)
    g.resolve_day()
    g.resolve_night([])
    g.resolve_day()
    g.resolve_night([[7, "interrogate", 9, 10]])
    with pytest.raises(eng.IllegalAction, match="no innocent votes"):
        g.resolve_day(trial={"votes": {9: [1, 2]}, "innocent": [3]})
    with pytest.raises(eng.IllegalAction, match="has none"):
        g.resolve_day(innocent=[3])


def test_the_compiled_day_hands_nominations_and_innocent_votes_to_the_generic_day(
    st, jd, monkeypatch
):
    """`_day_fast` (nightgen.render_day) plays only an elimination given directly: a day of
    nominations or innocent votes goes to the generic day, which plays and refuses exactly."""
    for eng in (st, jd):
        assert eng.FAST_DAY is not None
    calls: list = []

    def spy(g, eliminate, actions):
        calls.append(eliminate)
        return None  # then the generic day plays it

    monkeypatch.setattr(st, "FAST_DAY", spy)
    monkeypatch.setattr(jd, "FAST_DAY", spy)
    g = st.Game.new(SEATS)
    g.resolve_night([])
    g.resolve_day(nominations=[{"by": 4, "nominee": 1, "voters": [4]}])
    h = jd.Game.new(["mafioso", "judge"] + ["citizen"] * 4)
    h.resolve_day(votes={3: [1, 2, 4, 5]}, defense={3: [1, 2]}, innocent=[4, 5])
    assert calls == []
    h.resolve_night([])
    assert h.resolve_day(eliminate=1)["deaths"] == [1] and calls == [1]
