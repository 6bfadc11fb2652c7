"""Issue 20 item 3: each checker gap's broken spec and near-miss, confirmed by replaying the
generated engine (the finding, or its absence, is what the engine does)."""

from __future__ import annotations

from pathlib import Path

import pytest

from maf.compiler.driver import compile_file, compile_source, load_engine
from maf.compiler.verify.check import check_program

SPECS = Path(__file__).parent / "specs"


def _engine(name):
    c = compile_file(SPECS / name)
    return c, load_engine(c.python, name.replace(".", "_"))


def _findings(name, code):
    c = compile_file(SPECS / name)
    fs = check_program(c.program, (SPECS / name).read_text(encoding="utf-8"), c.python)
    return [f for f in fs if f.code == code]


def test_swap_before_the_inspection_makes_the_branch_apply():
    """k007_swap_ok: the robber (tier 10) swaps with a citizen the inspector's filter accepted;
    the inspector's `robbed` branch then applies, so K007 must not call it dead."""
    _, m = _engine("k007_swap_ok.maf")
    g = m.Game.new(["boss", "robber", "inspector", "citizen", "citizen"])
    rep = g.resolve_night([[2, "robber.rob", 4], [3, "inspector.inspect", 4]])
    assert rep["private"][3] == ["robbed"]
    assert not _findings("k007_swap_ok.maf", "K007")


def test_swap_after_the_inspection_leaves_the_branch_dead():
    """k007_swap: the robber resolves after the inspector: `robbed` is never told."""
    _, m = _engine("k007_swap.maf")
    told = set()
    for target in (1, 4, 5):  # every seat the filter accepts (not self, not the robber)
        g = m.Game.new(["boss", "robber", "inspector", "citizen", "citizen"])
        rep = g.resolve_night([[2, "robber.rob", target], [3, "inspector.inspect", target]])
        told |= set(rep["private"].get(3, []))
    assert "robbed" not in told
    assert [f.span.line for f in _findings("k007_swap.maf", "K007")] == [36]


def test_copy_chain_is_not_the_authors():
    assert not _findings("k007_copy_ok.maf", "K007")


@pytest.mark.parametrize("tier,saved", [("k001_doomed.maf", False), ("k001_doomed_ok.maf", True)])
def test_heal_reading_doomed_works_only_after_the_kill(tier, saved):
    """The nurse's `if doomed(x)` sees the boss's shot only if she resolves after it: at tier 5
    the victim dies (K001), at tier 50 he is saved (clean)."""
    _, m = _engine(tier)
    g = m.Game.new(["boss", "nurse", "citizen", "citizen", "citizen"])
    rep = g.resolve_night([[1, "boss.shoot", 3], [2, "nurse.tend", 3]])
    assert (3 not in rep["deaths"]) is saved
    assert bool(_findings(tier, "K001")) is not saved


def test_doomed_filter_refuses_every_use():
    """k007_doomed: `target x: doomed(x)` is read at the nurse's wake (issue 21), before the
    shot (tier 5 < 10): nothing is doomed yet, every use is refused, and K007 says so."""
    _, m = _engine("k007_doomed.maf")
    for target in (1, 3, 4, 5):
        g = m.Game.new(["boss", "nurse", "citizen", "citizen", "citizen"])
        with pytest.raises(m.IllegalAction):
            g.resolve_night([[1, "boss.shoot", 3], [2, "nurse.tend", target]])
    assert [f.span.line for f in _findings("k007_doomed.maf", "K007")] == [26]


def test_doomed_filter_read_at_the_wake_after_the_shot():
    """The same nurse at tier 50, after the shot: her filter, read at her wake, holds for the
    shot's target only (the witch of issue 21: "every use is refused" no more), and K007 is
    silent."""
    src = (SPECS / "k007_doomed.maf").read_text(encoding="utf-8").replace("tier 5\n", "tier 50\n")
    src = src.replace("  // expect K007", "")
    c = compile_source(src, "k007_doomed_late.maf")
    m = load_engine(c.python, "k007_doomed_late")
    g = m.Game.new(["boss", "nurse", "citizen", "citizen", "citizen"])
    with pytest.raises(m.IllegalAction):
        g.resolve_night([[1, "boss.shoot", 3], [2, "nurse.tend", 4]])
    rep = g.resolve_night([[1, "boss.shoot", 3], [2, "nurse.tend", 3]])
    assert 3 not in rep["deaths"]
    assert not [f for f in check_program(c.program, src, c.python) if f.code == "K007"]


@pytest.mark.parametrize("name,dies", [("k007_defense.maf", False), ("k007_defense_ok.maf", True)])
def test_defence_against_attack(name, dies):
    _, m = _engine(name)
    g = m.Game.new(["boss", "hunter", "citizen", "citizen", "citizen"])
    rep = g.resolve_night([[2, "hunter.hunt", 1]])
    assert (1 in rep["deaths"]) is dies
    assert bool(_findings(name, "K007")) is not dies


def test_reaction_kill_is_stopped_by_the_protection():
    """k003_reaction_ok: the veteran's `on visited` kill is a kill source: the doctor's
    protection from alert_shot saves the visitor."""
    _, m = _engine("k003_reaction_ok.maf")
    seats = ["boss", "veteran", "doctor", "citizen", "citizen"]
    g = m.Game.new(seats)
    rep = g.resolve_night([[2, "veteran.alert"], [1, "boss.shoot", 2]])
    assert 1 in rep["deaths"]  # the visitor dies of the reaction
    g = m.Game.new(seats)
    rep = g.resolve_night([[2, "veteran.alert"], [1, "boss.shoot", 2], [3, "doctor.heal", 1]])
    assert 1 not in rep["deaths"]  # and the protection matters
    assert not _findings("k003_reaction_ok.maf", "K003")


def test_from_night_two_with_when_night_one_is_refused():
    _, m = _engine("k007_from.maf")
    for night in (1, 2, 3):
        g = m.Game.new(["boss", "sniper", "ghost", "citizen", "citizen"])
        g.night = night
        with pytest.raises(m.IllegalAction):
            g.resolve_night([[2, "sniper.snipe", 4]])
    _, m = _engine("k007_from_ok.maf")
    g = m.Game.new(["boss", "sniper", "ghost", "citizen", "citizen"])
    g.night = 2
    assert 4 in g.resolve_night([[2, "sniper.snipe", 4]])["deaths"]


def test_dead_ability_needing_a_living_user_is_refused():
    _, m = _engine("k007_deadwhen.maf")
    g = m.Game.new(["boss", "sniper", "ghost", "citizen", "citizen"])
    with pytest.raises(m.IllegalAction):  # alive: not a dead player's ability
        g.resolve_night([[3, "ghost.haunt", 4]])
    g.moderator_kill(3)
    g.phase = "night"
    with pytest.raises(m.IllegalAction):  # dead: `when alive(self)` is false
        g.resolve_night([[3, "ghost.haunt", 4]])


def test_any_death_chain_order():
    """k009_anydeath: a dead boss gets the general announcement (the boss branch never runs);
    in the near-miss the special case comes first and is announced."""
    for name, said in (("k009_anydeath.maf", "a mafioso is dead"), ("k009_anydeath_ok.maf",
                                                                   "the boss is dead")):
        _, m = _engine(name)
        g = m.Game.new(["boss", "henchman", "citizen", "citizen", "citizen"])
        assert g.moderator_kill(1)["public"] == [said]
    assert [f.span.line for f in _findings("k009_anydeath.maf", "K009")] == [26]
    assert not _findings("k009_anydeath_ok.maf", "K009")


@pytest.mark.parametrize(
    "name,seen", [("k007_lifetime.maf", False), ("k007_lifetime_ok.maf", True)]
)
def test_marks_read_by_day_and_by_co_wins(name, seen):
    """A mark set at night and cleared at dawn is gone for the `on day start` hook and for a
    co-win checked at dawn (K007); one living until dusk is seen by both (clean)."""
    _, m = _engine(name)
    seats = ["boss", "watcher", "jester", "citizen", "citizen"]
    g = m.Game.new(seats)
    g.resolve_night([[2, "watcher.watch", 4]])
    assert bool(g.resolve_day()["public"]) is seen
    g = m.Game.new(seats)
    g.moderator_kill(1)  # the mafia is gone: the city wins at dawn
    g.phase = "night"
    assert ("jester" in g.resolve_night([[3, "jester.pose", 4]])["winners"]) is seen
    assert sorted(f.span.line for f in _findings(name, "K007")) == ([] if seen else [38, 42])



def test_own_card_read_after_it_moved():
    """k007_cards_ok: the robber reads his own team after taking a werewolf's card, the
    insomniac his own card after the troublemaker gave him a werewolf's: both branches the old
    checker called dead apply on the engine."""
    _, m = _engine("k007_cards_ok.maf")
    g = m.Game.new(["werewolf", "seer", "robber", "troublemaker", "insomniac"])
    rep = g.resolve_night(
        [[3, "robber.rob", 1], [4, "troublemaker.trouble", 3, 5], [5, "insomniac.wake"]]
    )
    assert rep["private"][3] == ["you are a wolf now"]
    assert rep["private"][5] == ["wolf"]
    assert not _findings("k007_cards_ok.maf", "K007")


def _table(*roles):
    return ["boss", "henchman", *roles] + ["citizen"] * (7 - 2 - len(roles))


def test_independent_set_replayed():
    """The independent cases (k001_vigilante ... k001_guard_ok), each finding or its absence
    matching what the engine does."""
    _, m = _engine("k001_vigilante_ok.maf")  # the nurse at tier 40 does not see the poison at 60
    g = m.Game.new(_table("nurse", "vigilante"))
    assert 5 in g.resolve_night([[4, "vigilante.poison", 5], [3, "nurse.tend", 5]])["deaths"]
    _, m = _engine("k001_delayed_ok.maf")  # a delayed kill is pending before she looks
    for nurse in (True, False):
        g = m.Game.new(_table("nurse", "witch"))
        g.resolve_night([[4, "witch.brew", 5]])
        g.resolve_day()
        rep = g.resolve_night([[3, "nurse.tend", 5]] if nurse else [])
        assert (5 in rep["deaths"]) is not nurse
    _, m = _engine("k007_ownconvert_ok.maf")
    g = m.Game.new(_table("recruiter"))
    assert g.resolve_night([[3, "recruiter.recruit", 5]])["private"][3] == ["recruited"]
    _, m = _engine("k003_blocked_ok.maf")  # the bomber's reaction kills; the doctor saves
    g = m.Game.new(_table("bomber", "escort", "doctor"))
    assert g.resolve_night([[4, "escort.distract", 3]])["deaths"] == [4]
    g = m.Game.new(_table("bomber", "escort", "doctor"))
    assert g.resolve_night([[4, "escort.distract", 3], [5, "doctor.heal", 4]])["deaths"] == []
    _, m = _engine("k007_nightend_ok.maf")
    g = m.Game.new(_table("framer", "gossip"))
    assert g.resolve_night([[3, "framer.frame", 5]])["public"] == ["someone was framed"]
    _, m = _engine("k007_hookmark.maf")
    g = m.Game.new(_table("framer", "gossip"))
    g.resolve_night([[3, "framer.frame", 5]])
    assert g.resolve_day()["public"] == []


@pytest.mark.parametrize("name,seats,repeats", [
    ("k005_weighs.maf", ["boss", "mayor", "citizen", "citizen", "citizen"], True),
    ("k005_single_ok.maf", ["boss", "citizen", "citizen", "citizen", "citizen"], False),
])
def test_lasting_vote_weight_can_tie_a_single_ballot(name, seats, repeats):
    """`weighs 2`: five voters cast six votes, two seats reach the majority of 3 and tie, and
    `tie repeat` replays the day (K005); without the weight no tie reaches the majority."""
    _, m = _engine(name)
    g = m.Game.new(seats)
    g.resolve_night([])
    rep = g.resolve_day(votes={3: [2, 4], 1: [3, 5, 1]})
    assert rep["repeat"] is repeats and (rep["deaths"] == []) is repeats
    assert bool(_findings(name, "K005")) is repeats


def test_branch_order_after_a_card_moved():
    """k009_moved: the robber (mafia) swaps before the inspector looks: the seat is now a
    robber, `team(x) == mafia` wins and `robbed` is never told (K009; the shadowed branch is
    K007); the first branch, which the old checker called dead, applies."""
    _, m = _engine("k009_moved.maf")
    g = m.Game.new(["boss", "robber", "inspector", "citizen", "citizen"])
    rep = g.resolve_night([[2, "robber.rob", 4], [3, "inspector.inspect", 4]])
    assert rep["private"][3] == ["mafia"]
    assert [f.span.line for f in _findings("k009_moved.maf", "K009")] == [38]
    assert [f.span.line for f in _findings("k009_moved.maf", "K007")] == [38]
