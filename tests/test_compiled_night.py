"""The compiled night (compiler/backend/nightgen.py) on the paths it plays itself: each test plays the same
steps on an engine with its compiled night and on the same engine with it switched off (the
generic resolver, the truth), compares reports, errors and `to_json`, and checks which nights the
compiled night played (a path that always fell back would pass the comparison alone)."""

import copy
from pathlib import Path

import pytest

from maf.compiler.driver import compile_file, compile_source, load_engine

ROOT = Path(__file__).resolve().parent.parent
GAMEWIDE = ROOT / "tests" / "scenarios" / "features" / "gamewide.maf"


class Pair:
    """One engine twice: `fast` with its compiled night, `generic` without; the compiled night
    counted (`played`: one bool per night it was asked for, True when it played it)."""

    def __init__(self, python: str, name: str) -> None:
        self.fast = load_engine(python, f"fast_{name}")
        self.generic = load_engine(python, f"generic_{name}")
        assert self.fast.FAST_NIGHT is not None, "no compiled night"
        self.generic.FAST_NIGHT = None
        night, self.played = self.fast.FAST_NIGHT, []

        def counted(g, actions, number):
            report = night(g, actions, number)
            self.played.append(report is not None)
            return report

        self.fast.FAST_NIGHT = counted

    def new(self, seats, **kw):
        self.g = self.fast.Game.new(seats, **kw)
        self.o = self.generic.Game.new(seats, **kw)

    def step(self, kind: str, *args, **kw):
        """One step on both games: the same report or the same error, the same state."""
        out = []
        for g, eng in ((self.g, self.fast), (self.o, self.generic)):
            try:
                out.append(getattr(g, kind)(*copy.deepcopy(args), **copy.deepcopy(kw)))
            except eng.IllegalAction as e:
                out.append(("error", e.rule, str(e)))
        assert out[0] == out[1]
        assert self.g.to_json() == self.o.to_json()
        return out[0]

    def night(self, actions, played: bool):
        """A night on both; `played`: the compiled night plays it (else it falls back)."""
        self.played.clear()
        rep = self.step("resolve_night", actions)
        assert self.played == [played], (actions, self.played)
        return rep


def test_a_dead_seat_acting_is_played_by_the_compiled_night():
    """`dead` (gamewide: the medium's seance, the jester's haunt): a night in which a dead seat
    acts is compiled, with the generic resolver's report; the rules of life are its refusals."""
    p = Pair(compile_file(GAMEWIDE).python, "gamewide")
    p.new(["killer", "seer", "mayor", "medium", "citizen", "jester", "survivor", "executioner"],
          seed=2)
    # a living medium: `seance` is for the dead (living-actor), the compiled night leaves it
    assert p.night([[4, "seance", 1]], played=False)[1] == "living-actor"
    # (the first step carries the `on start` report: the generic resolver plays it)
    assert p.night([[1, "shoot", 4]], played=False)["deaths"] == [4]
    assert p.step("resolve_day", votes={7: [1, 6], 8: [3]})["deaths"] == [7]
    # the dead medium speaks, beside a living killer
    rep = p.night([[1, "shoot", 2], [4, "seance", 3]], played=True)
    assert rep["deaths"] == [2] and rep["private"] == {3: ["seance"]}
    p.step("resolve_day")
    # a dead seat's ordinary ability (dead-actor) and a dead seat's bad target: refused
    assert p.night([[2, "look", 1]], played=False)[1] == "dead-actor"
    assert p.night([[4, "seance", 2]], played=False)[1] == "bad-target"  # dead
    assert p.night([[4, "seance", 3], [4, "seance", 5]], played=False)[1] == "duplicate"
    assert p.night([[4, "nothing", 3]], played=False)[1] == "unknown-ability"


def test_the_dead_jester_haunts_on_a_compiled_night():
    """`dead`, `uses 1 per game` and a target filter reading the day's votes (`voted`): the
    limit counted by the compiled night is the generic resolver's."""
    p = Pair(compile_file(GAMEWIDE).python, "haunt")
    p.new(["killer", "seer", "mayor", "medium", "citizen", "jester", "survivor", "executioner"],
          seed=1)
    p.night([[1, "shoot", 2], [2, "look", 1]], played=False)  # (the `on start` report)
    assert p.step("resolve_day", votes={6: [1, 3, 4]})["deaths"] == [6]
    assert p.night([[6, "haunt", 7]], played=False)[1] == "bad-target"  # did not vote
    rep = p.night([[6, "haunt", 3], [1, "shoot", 8]], played=True)
    assert rep["deaths"] == [3, 8] and rep["causes"] == {3: "haunt", 8: "shot"}
    assert not rep["over"]
    p.step("resolve_day")
    assert p.night([[6, "haunt", 4]], played=False)[1] == "used-up"


BOTH = """\
game t { name en "T" players 5..5 }
team town { name en "Town" }
team mafia { name en "Mafia" }
cause shot
role killer in mafia {
  name en "Killer"
  ability shoot at night {
    target x: alive(x) and x != self
    kill x by shot
  }
}
role ghost in town {
  name en "Ghost"
  // a word at night, alive or dead, never twice on one seat
  ability whisper at night {
    alive or dead
    no repeat ever
    target x: alive(x) and x != self
    tell "boo" to x
  }
}
role citizen in town { name en "Citizen" }
setup 5: killer, ghost, ghost, citizen, citizen
check wins at dawn
win town when living(mafia) == 0
win mafia when living(mafia) >= living(town)
"""


def test_alive_or_dead_is_played_by_the_compiled_night_either_way():
    """`alive or dead`: the same ability by a living and by a dead seat in one compiled night,
    several seats using it (the second one as the generic resolver plays it)."""
    p = Pair(compile_source(BOTH, "both.maf").python, "both")
    p.new(["killer", "ghost", "ghost", "citizen", "citizen"])
    rep = p.night([[1, "shoot", 2], [2, "whisper", 4], [3, "whisper", 4]], played=True)
    assert rep["deaths"] == [2] and rep["private"] == {4: ["boo", "boo"]}
    p.step("resolve_day")
    rep = p.night([[2, "whisper", 5], [3, "whisper", 5]], played=True)  # seat 2 is dead
    assert rep["private"] == {5: ["boo", "boo"]}
    p.step("resolve_day")
    assert p.night([[2, "whisper", 4]], played=False)[1] == "repeat"  # ever, though dead
    assert p.night([[2, "whisper", 3]], played=True)["private"] == {3: ["boo"]}


@pytest.mark.parametrize("spec", ["tos"])
def test_a_dead_seat_acting_in_a_shipped_spec_is_compiled(spec):
    """A shipped spec with abilities of the dead (tos: the medium's seance, the jester's haunt)
    gets the dispatch table of the dead in its compiled night."""
    text = compile_file(ROOT / "specs" / f"{spec}.maf").python
    assert "_FN_DEAD: tuple[dict[str, int], ...] = (" in text
    assert "k = _FN_DEAD[role[actor]][name]" in text


SETTLE = ROOT / "tests" / "scenarios" / "features" / "settle.maf"


def _night_fast_source(python: str) -> str:
    """The compiled night's code: _night_fast, and _night_commit where it is cut there."""
    fns = ("def _night_fast(", "def _night_commit(")
    return "".join(python.split(f, 1)[1].split("\ndef ", 1)[0] for f in fns if f in python)


@pytest.mark.parametrize("spec", [SETTLE, ROOT / "specs" / "tos.maf"], ids=["settle", "tos"])
def test_the_settle_and_the_hooks_are_compiled_and_agree(spec):
    """The kills settle in the compiled night itself (levels, guards and their reactions,
    immunities, triggers, `on any death` unrolled) and the night's phase hooks are unrolled:
    random games (legal and illegal nights, days, round trips) give the generic resolver's
    reports, errors and states, most legal nights played by the compiled night."""
    from maf.compiler.verify import differential

    python = compile_file(spec).python
    body = _night_fast_source(python)
    # no generic settle for the night's own kills, no generic hook runner
    assert "g._hooks(" not in body and body.count("g._settle()") <= 1, body
    # (derived from the runtime's Game._settle and Game._die: compiler/backend/specialise.py)
    assert "# Game._settle, Game._die inlined: compiler/runtime/core.py" in body
    assert "_any_death_0(g, " in body  # `on any death` unrolled in spec order
    p = Pair(python, f"settle_{spec.stem}")
    div, stats = differential.run(spec, 4000, seed=9, engine=p.fast, oracle=p.generic)
    assert div is None, f"{div.what} at step {div.step}:\n{div.scenario}"
    played = sum(p.played)
    assert played > len(p.played) // 3 and stats.steps - stats.rejected > 1000, p.played


HOOK_PROTECTS = """\
game hp { name en "HP" players 5..5 }
team town { name en "Town" }
team mafia { name en "Mafia" }
cause shot
mark safe until forever
on night start {
  each x: has(x, safe) {
    protect x from shot
  }
}
role killer in mafia {
  name en "Killer"
  ability shoot at night {
    target x: alive(x) and x != self
    kill x by shot
  }
}
role keeper in town {
  name en "Keeper"
  ability keep at day {
    target x: alive(x)
    mark x as safe
  }
}
role citizen in town { name en "Citizen" }
setup 5: killer, keeper, citizen, citizen, citizen
check wins at dawn
win town when living(mafia) == 0
win mafia when living(mafia) >= living(town)
"""


def test_a_protection_a_hook_sets_holds_on_a_compiled_night():
    """A protection set by a hook (no ability of the night protects): the compiled settle
    tests it as the generic one does (it was skipped once: the seat died)."""
    p = Pair(compile_source(HOOK_PROTECTS, "hp.maf").python, "hp")
    p.new(["killer", "keeper", "citizen", "citizen", "citizen"])
    p.step("resolve_night", [])
    p.step("resolve_day", actions=[[2, "keep", 3]])
    assert p.night([[1, "shoot", 3]], played=True)["deaths"] == []
    p.step("resolve_day")
    assert p.night([[1, "shoot", 4]], played=True)["deaths"] == [4]


def test_an_empty_quiet_night_is_compiled_and_a_quiet_nights_action_falls_back():
    """Bazpors's first night is quiet: with no actions it is any empty night (compiled); an
    action on it is refused by the generic resolver, which names the rule."""
    pair = Pair(compile_file(ROOT / "specs" / "bazpors.maf").python, "quiet")
    seats = ["boss", "nato", "trickster", "doctor", "detective", "researcher", "interrogator",
             "bulletproof", "citizen", "citizen"]
    pair.new(seats)
    pair.step("resolve_day")  # the introduction day
    assert pair.g.phase == "night" and pair.g.night in pair.fast.QUIET_NIGHTS
    assert pair.night([[4, "save", 1]], played=False) == (
        "error", "quiet-phase", "seat 4: doctor.save: no abilities are used on night 1 [quiet-phase]"
    )
    rep = pair.night([], played=True)
    assert rep["deaths"] == [] and pair.g.phase == "day"


POISONER = """
game poisoner { players 4..4 first night }
team town { name en "Town" }
team mafia { name en "Mafia" }
mark poisoned until forever malfunctions
role poisoner in mafia {
  name en "Poisoner"
  ability poison at night {
    tier 1
    target x: alive(x) and x != self
    mark x as poisoned
  }
}
role seer in town {
  name en "Seer"
  ability see at night {
    tier 5
    target x: alive(x) and x != self
    tell role(x)
    inverted { tell "villager" }
  }
}
role citizen in town { name en "Citizen" }
setup 4: poisoner, seer, citizen, citizen
win town when living(mafia) == 0
win mafia when living(mafia) >= living(town)
"""


def test_a_status_set_by_an_earlier_waker_is_seen_by_a_later_one():
    """A `malfunctions` mark the poisoner sets at tier 1 makes the seer (tier 5) misfire that
    same night: the compiled night reads statuses at its start, so such a spec's nights are
    the generic resolver's (nightgen._status_set_at_night), and both engines agree."""
    python = compile_source(POISONER, "poisoner.maf").python
    eng = load_engine(python, "poisoner")
    assert eng.FAST_NIGHT is None  # the documented fallback
    g = eng.Game.new(["poisoner", "seer", "citizen", "citizen"])
    rep = g.resolve_night([[1, "poison", 2], [2, "see", 1]])
    assert rep["private"][2] == ["villager"]
