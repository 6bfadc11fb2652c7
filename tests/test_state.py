"""Lossless state (docs/engine.md, "Serialization"): `to_json` keeps everything that affects the
game, `from_json` rejects a broken state with one clear StateError, and randomly tampered real
states are either rejected that way or restore to a game that plays on without crashing."""

import copy
import json
import random
from pathlib import Path

import pytest

from maf.compiler.driver import compile_source, import_generated, load_engine
from tests.randplay import random_day, random_game, random_night

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted(p.stem for p in (ROOT / "generated").glob("*.py"))
ENGINES = {s: import_generated(ROOT / "generated" / f"{s}.py") for s in SPECS}

# the frame of the small specs below: two teams, a shot, the usual wins (game ID, then roles)
FRAME = """
game {id} {{
  name fa "T" en "T"
  players 5..6
  first night
}}
team mafia {{ name fa "M" en "M" }}
team city {{ name fa "C" en "C" }}
cause shot
win city when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
"""

WEIGHT_SPEC = FRAME.format(id="w") + """
role boss in mafia {
  name fa "B" en "B"
  ability shoot at night {
    target x: alive(x) and team(x) != mafia
    kill x by shot
  }
}
role judge in city {
  name fa "J" en "J"
  ability weigh at night {
    weight 3
  }
}
role citizen in city { name fa "C" en "C" }
setup 5..6: boss, judge, citizen * rest
day { vote { threshold 3 tie none rounds 1 } }
"""


def test_weight_set_at_night_survives_json_and_a_rejected_day():
    eng = load_engine(compile_source(WEIGHT_SPEC, "w.maf").python, "w_engine")
    g = eng.Game.new(["boss", "judge", "citizen", "citizen", "citizen"])
    g.resolve_night([[2, "weigh"]])
    state = g.to_json()
    assert state["weight"] == [[2, 3]]
    g2 = eng.Game.from_json(json.loads(json.dumps(state)))
    with pytest.raises(eng.IllegalAction):
        g2.resolve_day(votes={3: [2]}, eliminate=4)  # rejected: both forms
    assert g2.to_json() == state
    rep = g2.resolve_day(votes={3: [2]})  # seat 2's single hand weighs 3: the threshold
    assert rep["deaths"] == [3]
    assert g2.to_json()["weight"] == []  # weights end at dusk


def _saved_states(eng, rng, count):
    """Real states from random games: a few per game, at every kind of step."""
    return [random_game(eng, rng, 12).to_json() for _ in range(count)]


def _tamper(state, rng):
    """One random change somewhere in the state: a value replaced, removed or added."""
    d = copy.deepcopy(state)
    junk = [
        None,
        True,
        False,
        0,
        -1,
        1,
        2,
        7,
        99,
        "",
        "x",
        "boss",
        "mafia",
        "day",
        [],
        [1],
        {},
        {"1": 2},
        1.5,
    ]
    path, node = [], d
    while True:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            break
        k = rng.choice(keys)
        path.append(k)
        if not isinstance(node[k], (dict, list)) or rng.random() < 0.4:
            break
        node = node[k]
    if not path:
        return d, "nothing"
    parent = d
    for k in path[:-1]:
        parent = parent[k]
    k = path[-1]
    roll = rng.random()
    if roll < 0.75:
        v = rng.choice(junk + [parent[k]] * 2)
        if isinstance(parent[k], int) and not isinstance(parent[k], bool) and rng.random() < 0.5:
            v = parent[k] + rng.choice((-2, -1, 1, 2))
        parent[k] = copy.deepcopy(v)
    elif roll < 0.9:
        del parent[k]
    elif isinstance(parent, list):
        parent.append(copy.deepcopy(rng.choice(junk + parent)))
    else:
        parent["extra"] = 1
    return d, path


def _play_on(eng, g, rng, steps=6):
    """Play random steps: only IllegalAction may come out of the engine."""
    for _ in range(steps):
        if g.winner is not None:
            return
        for s in g.alive_seats():
            g.legal_actions(s)
        g.waiting()
        try:
            if g.phase == "night":
                g.resolve_night(random_night(eng, g, rng))
            else:
                g.resolve_day(**random_day(eng, g, rng))
        except eng.IllegalAction:
            pass
        json.dumps(g.to_json())


@pytest.mark.parametrize("spec", SPECS)
def test_round_trip_is_exact(spec):
    eng = ENGINES[spec]
    rng = random.Random(f"rt-{spec}")
    for state in _saved_states(eng, rng, 20):
        again = eng.Game.from_json(json.loads(json.dumps(state))).to_json()
        assert again == state


@pytest.mark.parametrize("spec", SPECS)
def test_tampered_states_are_rejected_clearly_or_play_on(spec):
    eng = ENGINES[spec]
    rng = random.Random(f"tamper-{spec}")
    states = _saved_states(eng, rng, 15)
    rejected = accepted = 0
    for _ in range(400):
        state = rng.choice(states)
        bad, path = _tamper(state, rng)
        try:
            g = eng.Game.from_json(bad)
        except eng.StateError as e:
            assert str(e).startswith("invalid saved state: ") and "Traceback" not in str(e)
            rejected += 1
            continue
        accepted += 1
        _play_on(eng, g, random.Random(repr(path)))
    assert rejected > 100 and accepted > 20, (rejected, accepted)


@pytest.mark.parametrize(
    "bad,words",
    [
        ({"spec": "other"}, "spec: state is for spec 'other'"),
        ("nope", "state: expected a mapping"),
    ],
)
def test_other_and_malformed_states(bad, words):
    eng = ENGINES["bazpors"]
    with pytest.raises(eng.StateError) as info:
        eng.Game.from_json(bad)
    assert words in str(info.value)
    assert isinstance(info.value, ValueError)


def test_consistency_errors_name_the_problem():
    eng = ENGINES["bazpors"]
    g = eng.Game.new(
        [
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
    )
    g.moderator_kill(9)
    good = g.to_json()
    cases = [
        (("alive", 8), True, "departed: the departed seats [9] are not the dead seats []"),
        (("teams", 0), "city", "teams[0]: seat 1 (boss) is on mafia, not 'city'"),
        (("n",), 11, "roles: expected 11 entries, got 10"),
        (("roles", 3), "werewolf", "roles[3]: 'werewolf' is not a role id of bazpors"),
        (("day",), 5, "day: day 5 and night 0 cannot be the numbers of a day"),
        (("phase",), "dusk", "phase: expected 'day' or 'night', got 'dusk'"),
    ]
    for path, value, words in cases:
        bad = copy.deepcopy(good)
        node = bad
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        with pytest.raises(eng.StateError) as info:
            eng.Game.from_json(bad)
        assert words in str(info.value), str(info.value)


MARK_SPEC = """
game m {
  name en "M"
  players 5..6
  first night
}
team mafia { name en "M" }
team city { name en "C" }
cause shot
mark a until dawn
mark b until dusk
mark c until tomorrow
mark d until forever
win city when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
role boss in mafia {
  name en "B"
  ability shoot at night {
    target x: alive(x) and team(x) != mafia and not has(x, d)
    kill x by shot
  }
}
role tagger in city {
  name en "T"
  ability tag at night {
    target x: alive(x)
    mark x as a
    mark x as b
    mark x as c
    mark x as d
  }
  ability wipe at day {
    target x: has(x, d)
    unmark x as d
  }
}
role citizen in city { name en "C" }
setup 5..6: boss, tagger, citizen * rest
day { vote { threshold 3 tie none rounds 1 } }
"""


def test_marks_are_a_bit_mask_per_seat_and_json_lists_their_names():
    """docs/engine.md, "Marks: one int per seat": bit M_X of g.marks[seat]; each lifetime
    clears its bit; to_json lists names, from_json rebuilds the same ints."""
    eng = load_engine(compile_source(MARK_SPEC, "m.maf").python, "m_engine")
    bits = {m: 1 << eng.MARKS.index(m) for m in "abcd"}
    assert (eng.MB_A, eng.MB_D) == (bits["a"], bits["d"])
    g = eng.Game.new(["boss", "tagger", "citizen", "citizen", "citizen"])
    assert g.marks == [0] * 6
    g.resolve_night([[2, "tag", 3]])
    assert g.marks[3] == bits["b"] | bits["c"] | bits["d"]  # `until dawn` ended at dawn
    assert g.to_json()["marks"][2] == ["b", "c", "d"]
    with pytest.raises(eng.IllegalAction):
        g.resolve_night([[1, "shoot", 3]])  # (not its phase; and has(3, d) holds)
    g2 = eng.Game.from_json(json.loads(json.dumps(g.to_json())))
    assert g2.marks == g.marks and g2.to_json() == g.to_json()
    g2.resolve_day()
    assert g2.marks[3] == bits["c"] | bits["d"]  # `until dusk` ended; `until tomorrow` holds
    assert g2.to_json()["later"] == [[3, "c"]]
    with pytest.raises(eng.IllegalAction):
        g2.resolve_night([[1, "shoot", 3]])  # has(3, d): no target
    g2.resolve_night([])
    g2.resolve_day(actions=[[2, "wipe", 3]])
    assert g2.marks[3] == 0  # unmarked, and the dusk after the next ended `until tomorrow`
    assert g2.to_json()["marks"][2] == []
    with pytest.raises(eng.IllegalAction):
        g2.resolve_day(actions=[[2, "wipe", 3]])  # (not its phase)


MEMORY_SPEC = FRAME.format(id="m") + """
role boss in mafia {
  name fa "B" en "B"
  ability mark_out at night {
    target x: alive(x) and x != self
    remember later = x
  }
  ability shoot at night {
    target x: alive(x) and team(x) != mafia
    remember first = x
    kill recall(later) by shot
  }
}
role citizen in city { name fa "C" en "C" }
setup 5..6: boss, citizen * rest
day { vote { threshold 3 tie none rounds 1 } }
"""


def test_memory_is_a_flat_row_per_seat_and_round_trips():
    eng = load_engine(compile_source(MEMORY_SPEC, "m.maf").python, "m_engine")
    assert eng.MEMSLOTS == ("first", "later")  # two slots: seat s's row is memory[2s:2s + 2]
    g = eng.Game.new(["boss", "citizen", "citizen", "citizen", "citizen"])
    assert g.memory == [0] * 12 and g.to_json()["memory"] == [{}] * 5
    g.resolve_night([[1, "mark_out", 4]])
    assert g.memory[2:4] == [0, 4]
    state = g.to_json()
    assert state["memory"] == [{"1": 4}, {}, {}, {}, {}]  # an empty slot (0) is left out
    h = eng.Game.from_json(json.loads(json.dumps(state)))
    assert h.memory == g.memory and h.to_json() == state
    g.resolve_day(votes={})
    rep = g.resolve_night([[1, "shoot", 2]])
    assert rep["deaths"] == [4]  # recall(later), written the night before
    assert g.to_json()["memory"][0] == {"0": 2, "1": 4}
    # a remembered seat is a seat: out of the table's range, the state is refused by name
    state["memory"][0]["1"] = 9
    with pytest.raises(eng.StateError, match=r"memory\[0\]\[1\]: 9 is out of range 0..5"):
        eng.Game.from_json(state)
    state["memory"][0]["1"] = True
    with pytest.raises(eng.StateError, match=r"memory\[0\]\[1\]: expected an integer"):
        eng.Game.from_json(state)


# ---------------------------------------------------------------- suspended inputs (issue 23)
def _suspended_states(eng, rng, count):
    """Real states with a suspended input: a night under way in wake order (some actions given,
    now and then a moderator step between wakes), an awaited decision (at a wake, or of a whole
    night or day)."""
    out = []
    for _ in range(count * 30):
        if len(out) >= count:
            break
        g = random_game(eng, rng, 10)
        if g.over or g.phase != "night" or g.pending_choices():
            if g.pending_choices():
                out.append(g.to_json())
            continue
        if rng.random() < 0.2:
            try:
                g.resolve_night(random_night(eng, g, rng, illegal=0))
            except eng.IllegalAction:
                continue
            if g.pending_choices():
                out.append(g.to_json())
            continue
        for _ in range(rng.randint(1, 10)):
            nxt = g.next_wake()
            if nxt is None:
                break
            acts = []
            for s in nxt["seats"]:
                mine = [a for a in g.legal_actions(s, expand=True) if a[1] == nxt["ability"]]
                if mine and rng.random() < 0.8:
                    acts.append(rng.choice(mine))
            try:
                g.wake(acts)
            except eng.IllegalAction:
                break
            while g.pending_choices() and rng.random() < 0.6:  # given: the night keeps it
                seat = g.pending_choices()[0]["seat"]
                try:
                    g.resolve_choice(seat, rng.choice(g.legal_actions(seat, expand=True))[2:])
                except eng.IllegalAction:
                    break
            if g.pending_choices():
                break
            if rng.random() < 0.15:
                try:
                    g.moderator_kill(rng.choice(g.alive_seats()))
                except eng.IllegalAction:
                    pass
                if g.over:
                    break
        state = g.to_json()
        if "wake" in state or state.get("awaiting"):
            out.append(state)
    return out


@pytest.mark.parametrize("spec", SPECS)
def test_suspended_states_round_trip(spec):
    eng = ENGINES[spec]
    states = _suspended_states(eng, random.Random(f"rt-suspended-{spec}"), 60)
    for state in states:
        assert eng.Game.from_json(json.loads(json.dumps(state))).to_json() == state
    if "commando" in eng.ROLES:  # takavar: decisions awaited, and kept by wake-order nights
        assert sum(1 for s in states if s.get("awaiting")) >= 5
        assert sum(1 for s in states if s.get("wake", {}).get("answers")) >= 1


def _tamper_suspended(state, rng, n):
    """A change in the suspended inputs (most of the time) or anywhere: `_tamper`'s, or a seat
    or an ability replaced by another one."""
    keys = [k for k in ("wake", "awaiting") if state.get(k)]
    if not keys or rng.random() < 0.15:
        return _tamper(state, rng)
    d = copy.deepcopy(state)
    key = rng.choice(keys)
    if rng.random() < 0.5:
        d[key], path = _tamper(d[key], rng)
        return d, [key, *path] if isinstance(path, list) else path
    leaves = []  # (parent, key) of every int or string leaf under d[key]

    def walk(node):
        for k in list(node) if isinstance(node, dict) else range(len(node)):
            v = node[k]
            if isinstance(v, (dict, list)):
                walk(v)
            elif isinstance(v, (int, str)) and not isinstance(v, bool):
                leaves.append((node, k))

    walk(d[key])
    if not leaves:
        return _tamper(state, rng)
    node, k = rng.choice(leaves)
    eng_ids = _ids_of(state)
    node[k] = rng.randint(0, n + 1) if isinstance(node[k], int) else rng.choice(eng_ids)
    return d, [key, "leaf", k]


def _ids_of(state):
    return [state["roles"][0], "shoot", "save", "boss.shoot", "commando.shoot", "doctor.save",
            "detective.inquire", "x"]


def _acts_as_another(eng, g):
    """A seat acting with an ability it does not hold, in an accepted state's suspended inputs."""
    state = g.to_json()
    for raw in state.get("wake", {}).get("actions", []):
        full = eng.ABILITIES[g.find_ability(raw[0], raw[1])]
        if not g.alive[raw[0]] or full not in g.held_abilities(raw[0]):
            return f"wake action {raw}"
    kept = state.get("wake", {}).get("answers", [])
    aw = state.get("awaiting")
    for k in kept + [a for a in (aw or {}).get("answers", []) if isinstance(a, dict)]:
        if k["ability"] not in g.held_abilities(k["seat"]):
            return f"kept decision {k}"
    if aw and aw["ability"] not in g.held_abilities(aw["seat"]):
        return f"awaited {aw['seat']} {aw['ability']}"
    return None


def _tamper_suspended_run(spec, count):
    from tests.test_liveness import moves_on, play  # noqa: PLC0415 - the liveness property

    eng = ENGINES[spec]
    rng = random.Random(f"suspended-{spec}")
    states = _suspended_states(eng, rng, 40)
    assert len(states) >= 20, len(states)
    rejected = accepted = 0
    for _ in range(count):
        state = rng.choice(states)
        bad, path = _tamper_suspended(state, rng, state["n"])
        try:
            g = eng.Game.from_json(json.loads(json.dumps(bad)))
        except eng.StateError as e:
            assert str(e).startswith("invalid saved state: ") and "Traceback" not in str(e)
            rejected += 1
            continue
        accepted += 1
        assert _acts_as_another(eng, g) is None, (path, _acts_as_another(eng, g))
        assert moves_on(eng, g), path  # it can be played on
        play(eng, g, random.Random(repr(path)), 4)
    assert rejected > count // 4 and accepted > 0, (rejected, accepted)
    return rejected, accepted


@pytest.mark.parametrize("spec", SPECS)
def test_tampered_suspended_inputs_are_refused_or_play_on(spec):
    _tamper_suspended_run(spec, 150)


@pytest.mark.slow
@pytest.mark.parametrize("spec", SPECS)
def test_tampered_suspended_inputs_many(spec):
    _tamper_suspended_run(spec, 1000)


def test_suspended_inputs_are_checked_as_when_first_given():
    eng = ENGINES["takavar"]
    g = eng.Game.new(["boss", "nato", "charmer", "commando", "detective", "doctor", "guard",
                      "gunsmith", "citizen", "citizen"])
    g.resolve_day(), g.resolve_night([]), g.resolve_day()
    g.wake([])
    g.wake([[1, "shoot", 4]])  # the commando, shot, is asked
    good = g.to_json()
    cases = [
        (("awaiting", "seat"), 5, "awaiting: the suspended step awaits seat 4's commando.shoot"),
        (("awaiting", "args", 0, 0, 2), 2, "awaiting: the suspended step wake is refused"),
        (("awaiting", "args", 0, 0, 0), 6, "only seats [1] are awake"),
        (("wake", "actions"), [[7, "armor", 7]], "wake.actions[0]"),
        (("wake", "pos"), 0, "wake is refused: [1, 'shoot', 4]: only seats [7] are awake"),
    ]
    for path, value, words in cases:
        bad = copy.deepcopy(good)
        node = bad
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
        with pytest.raises(eng.StateError) as info:
            eng.Game.from_json(bad)
        assert words in str(info.value), (path, str(info.value))
    h = eng.Game.from_json(copy.deepcopy(good))
    assert h.to_json() == good and h.resolve_choice(4, [1])["deaths"] == [1, 4]


def test_the_stamp_names_the_engine_that_wrote_a_state():
    from maf.compiler import version as maf_version  # noqa: PLC0415
    from maf.compiler.backend.emit import spec_sha256  # noqa: PLC0415

    eng = ENGINES["bazpors"]
    text = (ROOT / "specs" / "bazpors.maf").read_text(encoding="utf-8")
    assert eng.SPEC_SHA256 == spec_sha256(text) == spec_sha256(text.replace("\n", "\r\n"))
    assert eng.MAF_VERSION == maf_version()
    g = random_game(eng, random.Random(1), 3)
    state = g.to_json()
    assert (state["maf_version"], state["spec_sha256"]) == (eng.MAF_VERSION, eng.SPEC_SHA256)
    for key, value, words in [
        ("spec_sha256", "0" * 64, "spec_sha256: state is for another text of spec 'bazpors'"),
        ("maf_version", "99.0.0", "maf_version: state written by maf '99.0.0'"),
        ("maf_version", None, "maf_version: state written by maf None"),
    ]:
        with pytest.raises(eng.StateError, match=words.replace("(", r"\(")):
            eng.Game.from_json({**state, key: value})
    for other in ("takavar", "classic"):
        with pytest.raises(ENGINES[other].StateError, match="spec: state is for spec 'bazpors'"):
            ENGINES[other].Game.from_json(state)
    old = {k: v for k, v in state.items() if k not in ("maf_version", "spec_sha256")}
    assert eng.Game.from_json(old).to_json() == state  # a state saved before the stamp
