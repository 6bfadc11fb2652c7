"""The engine's playout API (docs/engine.md, "Playouts"): `draw_action` draws a uniformly random
action among those `legal_actions` lists, without listing them; `draw_actions` is the random
player's phase; `snapshot` / `rollback` put a game back as it was."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from maf.compiler.driver import compile_file, import_generated, load_engine
from maf.compiler.tools.simulate import play, tables
from tests.randplay import random_day, random_game, random_night

ROOT = Path(__file__).resolve().parents[1]
SPECS = ("bazpors", "classic", "online", "takavar", "tos")


def engine(spec):
    return import_generated(ROOT / "generated" / f"{spec}.py")


def chi2_critical(df: int, z: float = 3.29) -> float:
    """The chi-square value a uniform draw exceeds with probability about 0.0005
    (Wilson-Hilferty)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def chi2(counts: dict, cells: list) -> float:
    total = sum(counts.values())
    want = total / len(cells)
    assert set(counts) <= set(cells)  # nothing drawn outside the legal actions
    return sum((counts.get(c, 0) - want) ** 2 / want for c in cells)


@pytest.mark.parametrize("spec", SPECS)
def test_every_drawn_action_is_one_legal_actions_lists(spec):
    eng = engine(spec)
    rng = random.Random(7)
    drawn = 0
    for _ in range(120):
        g = random_game(eng, rng, 10)
        if g.winner is not None or g.waiting()["step"] == "resolve_choice":
            continue
        before = json.dumps(g.to_json(), sort_keys=True, default=str)
        for seat in range(1, g.n + 1):
            legal = [tuple(a) for a in g.legal_actions(seat, expand=True)]
            for full in set(g.held_abilities(seat)) | {a[1] for a in legal}:
                mine = [a for a in legal if a[1] == full]
                for _ in range(3):
                    got = g.draw_action(seat, full, rng)
                    assert (got is None) == (not mine), (seat, full, got)
                    assert got is None or tuple(got) in mine, (seat, full, got)
                    drawn += got is not None
        for action in g.draw_actions(rng):
            assert action in g.legal_actions(action[0], expand=True)
        assert json.dumps(g.to_json(), sort_keys=True, default=str) == before  # reads only
    assert drawn > 100


def test_the_draw_is_uniform_over_one_target():
    """Vanilla at 6 players, night: the mafia's kill over the four living citizens."""
    eng = load_engine(compile_file(ROOT / "tests" / "simulate" / "vanilla.maf").code, "vanilla")
    g = eng.Game.new(["mafia", "citizen", "citizen", "mafia", "citizen", "citizen"], seed=1)
    g.resolve_day(eliminate=2)
    assert g.phase == "night"
    holder = next(s for s in g.alive_seats() if g.legal_actions(s))
    cells = [tuple(a) for a in g.legal_actions(holder, expand=True)]
    assert len(cells) == 3
    rng = random.Random(11)
    counts: dict = {}
    for _ in range(6000):
        a = tuple(g.draw_action(holder, "mafia.kill", rng))
        counts[a] = counts.get(a, 0) + 1
    assert chi2(counts, cells) < chi2_critical(len(cells) - 1)


def test_the_draw_is_uniform_over_target_pairs_and_over_targets_and_choices():
    """Bazpors, 10 players, night 2, nine alive: the interrogator's ordered pairs (two targets,
    a != b, neither himself: 8 x 7) and NATO's guess (a living non-mafia and a role: 6 x 11)."""
    eng = engine("bazpors")
    seats = ["boss", "nato", "trickster", "doctor", "detective", "bulletproof", "interrogator",
             "researcher", "citizen", "citizen"]
    g = eng.Game.new(seats, seed=3)
    g.resolve_day()
    g.resolve_night([])
    g.resolve_day(eliminate=10)
    assert g.phase == "night" and g.night == 2
    rng = random.Random(5)
    for seat, full in ((7, "interrogator.interrogate"), (2, "nato.guess")):
        cells = [tuple(a) for a in g.legal_actions(seat, expand=True) if a[1] == full]
        assert len(cells) in (56, 66)
        counts: dict = {}
        for _ in range(150 * len(cells)):
            a = tuple(g.draw_action(seat, full, rng))
            counts[a] = counts.get(a, 0) + 1
        assert chi2(counts, cells) < chi2_critical(len(cells) - 1), full


def test_a_rare_legal_action_is_still_drawn_uniformly():
    """When most random draws are refused (the yakuza late in a game: few targets), the draw
    lists the legal actions after a few refusals: still uniform, still only legal ones."""
    eng = engine("bazpors")
    g = eng.Game.new(["boss", "nato", "trickster", "doctor", "detective", "bulletproof",
                      "interrogator", "researcher", "citizen", "citizen"], seed=2)
    g.resolve_day()
    g.resolve_night([])
    for out in (10, 9):  # two days and two nights with no action, a third day: 7 left
        g.resolve_day(eliminate=out)
        g.resolve_night([])
    g.resolve_day(eliminate=8)
    assert g.phase == "night"
    cells = [tuple(a) for a in g.legal_actions(1, expand=True) if a[1] == "boss.yakuza"]
    assert cells
    rng = random.Random(9)
    counts: dict = {}
    for _ in range(200 * len(cells)):
        a = tuple(g.draw_action(1, "boss.yakuza", rng))
        counts[a] = counts.get(a, 0) + 1
    assert chi2(counts, cells) < chi2_critical(max(len(cells) - 1, 1))


@pytest.mark.parametrize("spec", SPECS)
def test_rollback_puts_the_game_back_as_it_was_any_number_of_times(spec):
    eng = engine(spec)
    rng = random.Random(3)
    checked = 0
    for _ in range(40):
        g = random_game(eng, rng, 10)
        if g.winner is not None:
            continue
        snap = g.snapshot()
        before = json.dumps(g.to_json(), sort_keys=True, default=str)
        for _ in range(2):
            for _ in range(3):  # play on (errors change nothing), then roll back
                if g.winner is not None or g.waiting()["step"] == "resolve_choice":
                    break
                try:
                    if g.phase == "night":
                        g.resolve_night(random_night(eng, g, rng, 0))
                    else:
                        g.resolve_day(**random_day(eng, g, rng, 0))
                except eng.IllegalAction:
                    pass
            g.rollback(snap)
            assert json.dumps(g.to_json(), sort_keys=True, default=str) == before
            checked += 1
    assert checked > 20



PLAYOUT_SPECS = (*SPECS, "werewolf")


def _step(g, eng, phase, inputs) -> bool:
    """Submit one step; False when it stops the comparison (a clash the simulator repairs, or a
    decision to take: tests/simulate/test_play_random.py covers those)."""
    try:
        report = g.resolve_night(inputs) if phase == "night" else g.resolve_day(**inputs)
    except eng.IllegalAction:
        return False
    return not report.get("awaiting")


@pytest.mark.parametrize("spec", PLAYOUT_SPECS)
@pytest.mark.parametrize("act", [1.0, 0.6])
def test_playout_is_the_random_player_step_by_step(spec, act):
    """`Game.playout` plays the steps the random policy draws (draw_actions by night and by
    day, then a random living seat eliminated on a day that votes) as resolve_night and
    resolve_day play them: the same log and the same state; a step it hands back is drawn,
    not played (the caller submits it)."""
    eng = engine(spec)
    played = 0
    tabs = tables(eng)
    for i in range(12):
        t = tabs[i % len(tabs)]
        seats = play.deal(eng, t, random.Random(i))
        fast = eng.Game.new(seats, setup=t.setup, seed=i)
        slow = eng.Game.new(seats, setup=t.setup, seed=i)
        rf, rs = random.Random(i), random.Random(i)
        log: list = []
        while True:
            step = fast.playout(rf, act, 12, log)
            if step is None:
                break
            log.append({step[0]: step[1]})
            if not _step(fast, eng, *step):
                break
        want: list = []
        while not slow.over and slow.day <= 12:
            acts = slow.draw_actions(rs, act)
            if slow.phase == "night":
                inputs: Any = acts
            else:
                inputs = {"actions": acts} if acts else {}
                if eng.VOTE and slow.day not in eng.QUIET_DAYS:
                    inputs["eliminate"] = rs.choice(slow.alive_seats())
            want.append({slow.phase: inputs})
            if not _step(slow, eng, slow.phase, inputs):
                break
        assert log == want, (spec, i)
        assert fast.to_json() == slow.to_json(), (spec, i)
        played += len(log)
    assert played > 50
