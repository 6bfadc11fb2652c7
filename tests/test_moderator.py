"""The moderator as an actor (`moderator chooses`, `registers as`; docs/engine.md, "The
moderator's choices"): the engine API, saved games, nights in wake order, the compiled night,
and the diagnostics of misuse."""

import json
from pathlib import Path

import pytest

from maf.compiler.driver import compile_file, compile_source, load_engine
from maf.compiler.verify import differential
from maf.dsl.diagnostics import CompileError

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "tests" / "scenarios" / "features" / "moderator.maf"
SEATS = ["demon", "spy", "recluse", "investigator", "villager"]
DRUNK = ["demon", "drunk", "washerwoman", "fortune_teller", "villager"]


@pytest.fixture(scope="module")
def eng():
    return load_engine(compile_file(SPEC).python, "moderator_api")


def test_a_registration_is_asked_and_given_like_a_decision(eng):
    g = eng.Game.new(SEATS)
    rep = g.resolve_night([[4, "look", 3]])
    want = {
        "seat": "moderator",
        "ability": "recluse:registers",
        "targets": 0,
        "choices": ["team"],
        "options": ["good", "evil"],
        "about": 3,
    }
    assert rep["awaiting"] == [want] and g.pending_choices() == [want]
    assert rep["deaths"] == [] and rep["private"] == {}
    w = g.waiting()
    assert w["step"] == "resolve_choice" and w["actors"] == ["moderator"]
    assert g.legal_actions("moderator") == [
        ["moderator", "recluse:registers"],
        ["moderator", "recluse:registers", "good"],
        ["moderator", "recluse:registers", "evil"],
    ]
    assert g.legal_actions(4) == []  # only the awaited actor acts
    before = g.to_json()
    with pytest.raises(eng.IllegalAction) as e:
        g.resolve_choice("moderator", ["werewolf"])
    assert e.value.rule == "bad-choice" and g.to_json() == before
    with pytest.raises(eng.IllegalAction) as e:
        g.resolve_choice(4, ["evil"])
    assert e.value.rule == "not-awaited" and g.to_json() == before
    with pytest.raises(eng.IllegalAction) as e:
        g.resolve_night([])
    assert e.value.rule == "awaiting"
    assert g.resolve_choice("moderator", ["evil"])["private"] == {4: ["evil"]}
    assert g.pending_choices() == [] and g.phase == "day"


def test_declining_shows_the_truth_and_a_read_without_registration_asks_nobody(eng):
    g = eng.Game.new(SEATS)
    g.resolve_night([[4, "look", 3]])
    assert g.resolve_choice("moderator", [])["private"] == {4: ["good"]}
    g.resolve_day()
    assert g.resolve_night([[4, "look", 1]])["private"] == {4: ["evil"]}  # the demon: no ask


def test_a_saved_game_replays_the_moderators_choices_exactly(eng):
    g = eng.Game.new(DRUNK, setup="drunk")
    g.resolve_night([[2, "count"], [4, "sense", 1]])
    g.resolve_choice("moderator", [2])
    saved = json.loads(json.dumps(g.to_json()))
    h = eng.Game.from_json(saved)
    assert h.to_json() == g.to_json() and h.pending_choices() == g.pending_choices()
    assert h.pending_choices()[0]["ability"] == "drunk.count:s"
    for x in (g, h):
        x.resolve_choice("moderator", [5])
        rep = x.resolve_choice("moderator", [3])
        assert rep["private"] == {2: ["2", "not the demon 5"], 4: ["yes"]}
    assert h.to_json() == g.to_json()


def test_a_tampered_awaited_choice_is_refused(eng):
    g = eng.Game.new(SEATS)
    g.resolve_night([[4, "look", 3]])
    for key, value in (("ability", "nobody:registers"), ("choices", ["mark"]), ("about", 99)):
        d = g.to_json()
        d["awaiting"][key] = value
        with pytest.raises(eng.StateError):
            eng.Game.from_json(d)


def test_a_night_in_wake_order_keeps_the_moderators_choice(eng):
    g = eng.Game.new(SEATS)
    while (w := g.next_wake()) is not None and w["ability"] != "investigator.look":
        g.wake([])
    so_far = g.wake([[4, "look", 3]])
    assert so_far["awaiting"][0]["seat"] == "moderator"
    assert g.resolve_choice("moderator", ["evil"])["private"] == {4: ["evil"]}
    assert g.to_json()["wake"]["answers"] == [
        {"seat": "moderator", "ability": "recluse:registers", "values": ["evil"]}
    ]
    assert g.end_night()["private"] == {4: ["evil"]}  # kept: not asked again


def test_the_compiled_night_agrees_with_the_generic_resolver():
    compiled = compile_file(SPEC)
    fast = load_engine(compiled.python, "moderator_fast")
    generic = load_engine(compiled.python, "moderator_generic")
    assert fast.FAST_NIGHT is not None
    generic.FAST_NIGHT = None
    div, stats = differential.run(SPEC, 800, seed=3, engine=fast, oracle=generic)
    assert div is None, f"{div.what} at step {div.step}:\n{div.scenario}"
    assert stats.rules.get("bad-choice", 0) > 0  # the moderator's wrong picks were met too


BASE = """game t {
  name en "T"
  players 5..6
  first night
}
team town { name en "Town" }
team mafia { name en "Mafia" }
cause shot
win town when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
role killer in mafia {
  name en "Killer"
  ability shoot at night {
    target x: alive(x) and team(x) != mafia
    kill x by shot
  }
}
role seer in town {
  name en "Seer"
  ability see at night {
    target x: alive(x)
    BODY
  }
}
role citizen in town {
  name en "Citizen"
  ROLE
}
setup 5..6: killer, seer, citizen * rest
day { vote { threshold alive / 2 + 1  tie none } }
"""


def _codes(body: str = "tell role(x)", role: str = "", start: str = "") -> list[str]:
    src = BASE.replace("BODY", body).replace("ROLE", role) + start
    try:
        compile_source(src, "t.maf")
    except CompileError as e:
        return [d.code for d in e.diagnostics]
    return []


def test_misuse_is_diagnosed():
    assert _codes() == []
    assert _codes("moderator chooses n: number where n <= 2 { tell n }") == []
    assert _codes(role="registers as mafia or role killer") == []
    assert _codes("moderator chooses n: mark { tell n }") == ["E095"]
    assert _codes(start="on start { moderator chooses s: seat { mark s as x } }") != []
    assert "E095" in _codes(
        start="mark x until forever\non start { moderator chooses s: seat { mark s as x } }"
    )
    assert _codes(role="registers as town") == ["E096"]
    assert _codes(role="registers as role citizen") == ["E096"]
    assert _codes(role="registers as mafia or mafia") == ["E096"]
    assert _codes(role="registers as nobody") == ["E020"]
    assert _codes("moderator chooses x: seat { tell x }") == ["E010"]


def test_information_reads_see_registrations_and_other_reads_the_truth():
    prog = compile_file(SPEC).program
    from maf.compiler.ir import nodes as ir

    seen = [n for n in ir.nodes(prog) if isinstance(n, ir.Seen)]
    lines = SPEC.read_text(encoding="utf-8").split("\n")

    def line(text: str) -> int:
        return next(k for k, t in enumerate(lines, 1) if text in t)

    # the investigator's if, the washerwoman's and the librarian's tells, the fortune teller's
    # if: information
    assert sorted((n.span.line, n.kind) for n in seen) == sorted(
        [
            (line("if team(x) == evil"), "team"),
            (line("tell role(x)"), "role"),
            (line("tell kind(x)"), "kind"),
            (line("if role(x) == demon"), "role"),
        ]
    )
    # the red herring's `where` reads the true team (its body marks: not information)
    herring = next(n for n in ir.nodes(prog) if isinstance(n, ir.ModeratorChoice) and n.var == "h")
    assert not any(isinstance(x, ir.Seen) for x in ir.nodes(herring.filter))


def test_the_checker_reads_information_as_the_moderator_may_show_it():
    """An if/elif chain of information reads is checked like any other: a read is the seat's
    true value or one of its role's registrations, one answer per seat and kind in the chain
    (compiler/verify/check/z3x.py, semantics.registrations). Every seat reads as mafia or town,
    so the killer branch after them never applies (K007), as the engine shows."""
    from maf.compiler.verify.check import check_source

    body = (
        'if team(x) == mafia { tell "m" } elif team(x) == town { tell "t" } '
        'elif role(x) == killer { tell "k" }'
    )
    src = (
        BASE.replace("BODY", body)
        .replace("ROLE", "")
        .replace(
            "role killer in mafia {", "role killer in mafia {\n  registers as town or role citizen"
        )
    )
    diags = check_source(src, "t.maf")
    assert {d.code for d in diags} <= {"K007", "K009"}
    dead = [d for d in diags if d.code == "K007"]
    assert [d.span.col for d in dead] == [
        src.splitlines()[dead[0].span.line - 1].index("role(x)") + 1
    ]
    m = load_engine(compile_source(src, "t.maf").python, "moderator_chain")
    told = set()
    for target in (1, 3):  # the killer, a citizen
        g = m.Game.new(["killer", "seer", "citizen", "citizen", "citizen"])
        rep = g.resolve_night([[2, "seer.see", target]])
        for value in rep["awaiting"][0]["options"] if rep.get("awaiting") else [None]:
            g = m.Game.new(["killer", "seer", "citizen", "citizen", "citizen"])
            rep = g.resolve_night([[2, "seer.see", target]])
            if rep.get("awaiting"):
                rep = g.resolve_choice("moderator", [value])
            told |= set(rep["private"].get(2, []))
    assert told and "k" not in told
    assert check_source(SPEC.read_text(encoding="utf-8"), str(SPEC)) == []


HOOKS = """game h {
  name en "H"
  players 5..6
  first night
}
team town { name en "Town" }
team mafia { name en "Mafia" }
cause shot
mark omen until forever
win town when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
role killer in mafia {
  name en "Killer"
  ability shoot at night {
    target x: alive(x) and team(x) != mafia
    kill x by shot
  }
}
// voted out, the martyr's last word goes to a living player the moderator picks
role martyr in town {
  name en "Martyr"
  on death by vote {
    moderator chooses s: seat where alive(s) { tell "the martyr trusted you" to s }
  }
}
role citizen in town { name en "Citizen" }
// each night the moderator may lay an omen on a living player
on night start {
  moderator chooses o: seat where alive(o) and not has(o, omen) { mark o as omen }
}
setup 5..6: killer, martyr, citizen * rest
day { vote { threshold 1  tie none } }
"""


def test_choices_in_triggers_and_top_level_hooks_suspend_their_step():
    eng = load_engine(compile_source(HOOKS, "h.maf").python, "moderator_hooks")
    g = eng.Game.new(["killer", "martyr", "citizen", "citizen", "citizen"])
    rep = g.resolve_night([[1, "shoot", 5]])
    assert rep["awaiting"][0]["ability"] == "game:o"  # the night start hook asks first
    assert rep["awaiting"][0]["options"] == [1, 2, 3, 4, 5]
    rep = g.resolve_choice("moderator", [3])
    assert rep["deaths"] == [5] and g.to_json()["marks"][2] == ["omen"]  # seat 3
    rep = g.resolve_day(eliminate=2)
    assert rep["awaiting"][0]["ability"] == "martyr:s" and rep["deaths"] == []
    assert g.phase == "day"  # the day is suspended, not played
    rep = g.resolve_choice("moderator", [4])
    assert rep["deaths"] == [2] and rep["private"] == {4: ["the martyr trusted you"]}
    assert g.phase == "night"


def test_one_answer_per_seat_and_kind_in_a_statement():
    """An if/elif chain reading a registering seat twice, and a choice whose `where` reads it
    for every candidate, ask the moderator once for that seat; the next statement asks again."""
    body = (
        'if team(x) == mafia { tell "m" } elif team(x) == town { tell "t" }\n'
        "    moderator chooses r: role where r != role(x) { tell r }\n"
        'if team(x) == mafia { tell "again" }'
    )
    src = BASE.replace("BODY", body).replace("ROLE", "")
    src = src.replace(
        "role killer in mafia {", "role killer in mafia {\n  registers as town or role citizen"
    )
    eng = load_engine(compile_source(src, "once.maf").python, "moderator_once")
    g = eng.Game.new(["killer", "seer", "citizen", "citizen", "citizen"])
    rep = g.resolve_night([[2, "see", 1]])
    asked = []
    for answer in ("town", "citizen", "killer", "mafia"):
        aw = rep["awaiting"][0]
        asked.append((aw["ability"], aw["choices"][0]))
        rep = g.resolve_choice("moderator", [answer])
    assert asked == [
        ("killer:registers", "team"),  # the chain: one answer for both conditions
        ("killer:registers", "role"),  # the `where`: one answer for every candidate role
        ("seer.see:r", "role"),  # (every role but the citizen shown)
        ("killer:registers", "team"),  # the next statement asks again
    ]
    assert rep["private"] == {2: ["t", "killer", "again"]}


def test_registering_as_a_kind():
    assert _codes(
        role="kind common\n  registers as kind common", start='kind common { name en "C" }'
    ) == ["E096"]
    assert (
        _codes(
            role="kind common\n  registers as kind other",
            start='kind common { name en "C" }\nkind other { name en "O" }',
        )
        == []
    )
    assert _codes(role="registers as kind nothing") == ["E020"]
