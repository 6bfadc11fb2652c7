"""Issue 7 night interactions: state that outlives a step (delayed effects, blocks, last night's
visits) survives to_json/from_json, and specs that do not use the machinery do not get it."""
import json
from pathlib import Path

from maf.compiler.driver import compile_file, load_engine

ROOT = Path(__file__).resolve().parent
NIGHT = ROOT / "scenarios" / "features" / "night.maf"


def _engine(path, name):
    return load_engine(compile_file(path).python, name)


def test_delayed_effect_and_visits_survive_json():
    eng = _engine(NIGHT, "night_json")
    g = eng.Game.new(["stabber", "boss", "tracker", "warden", "planter", "medic", "diarist",
                      "citizen"], setup="b")
    g.resolve_night([[5, "plant", 8], [1, "stab", 6]])
    data = json.loads(json.dumps(g.to_json()))
    assert data["delayed"] and data["delayed"][0][0] == 3
    assert data["visits"] == [[1, [6]], [5, [8]]]
    h = eng.Game.from_json(data)
    assert h.to_json() == data
    assert h.vis_in == {6: [1], 8: [5]}
    h.resolve_day()
    rep = h.resolve_night([])
    assert rep["deaths"] == []
    h.resolve_day()
    rep = h.resolve_night([])
    assert rep["deaths"] == [8] and rep["causes"] == {8: "blast"}
    assert h.to_json()["delayed"] == []


def test_a_block_by_day_lasts_into_the_night_and_survives_json():
    eng = _engine(NIGHT, "night_block")
    g = eng.Game.new(["stabber", "boss", "jammer", "watcher", "sentry", "guardian", "medic",
                      "avenger"], setup="a")
    g.resolve_night([])
    g.resolve_day()
    g.block(1, 3)  # what a day ability's `block x` does
    h = eng.Game.from_json(json.loads(json.dumps(g.to_json())))
    assert h.blocked == {1: 3}
    rep = h.resolve_night([[1, "stab", 4]])
    assert rep["deaths"] == [] and h.blocked == {}


def test_specs_without_night_interactions_get_no_machinery():
    text = compile_file(ROOT.parent / "specs" / "bazpors.maf").python
    for flag in ("VISITS", "BLOCKS", "LEVELS", "DELAYS"):
        assert f"\n{flag} = False" in text
    assert "self._visit(" not in text.split("def resolve_night", 1)[1].split("def ", 1)[0]
    assert "blocked = self.blocked" not in text


MUTUAL = """\
game t { name en "T" players 4..4 }
team a { name en "A" }
team b { name en "B" }
cause stab
role x in a {
  name en "X"
  on blocked { block blocker }
  ability jam at night { target y: alive(y) and y != self  block y }
  ability stab at night { tier 200  target y: alive(y) and team(y) != a  kill y by stab }
}
role c in b { name en "C" }
setup 4: x * 2, c * 2
win a when living(b) == 0
win b when living(a) == 0
"""


def test_reactions_to_blocks_that_block_back_terminate():
    """`on blocked { block blocker }` on both sides: each pair reacts once, both are blocked."""
    from maf.compiler.driver import compile_source
    eng = load_engine(compile_source(MUTUAL, "mutual.maf").python, "mutual")
    g = eng.Game.new(["x", "x", "c", "c"])
    rep = g.resolve_night([[1, "jam", 2], [2, "jam", 1], [1, "stab", 3], [2, "stab", 4]])
    assert rep["deaths"] == []  # both stabs blocked (the first jam resolved, the reaction did the rest)
