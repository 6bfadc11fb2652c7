"""The drawn night played at once (PLAY_NIGHT: DRAW_ALL's play mode, nightgen.render_draw_night;
issue 22). At every night of random whole games, on the shipped specs and on every feature spec
and checker fixture that has it: the draw with `play` gives the very actions DRAW_ALL gives from
the same random numbers, and a night it plays leaves the game exactly as the compiled night's
validated path (FAST_NIGHT on the same actions) leaves a copy of it, which is also the proof
that the validation accepts every night it plays as it stands. Whole playouts with it and with
it switched off are the same games."""

import random
from pathlib import Path

import pytest

from maf.compiler.driver import compile_file, load_engine
from maf.compiler.tools.simulate import tables
from maf.compiler.tools.simulate.play import deal, game_rng

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted((ROOT / "specs").glob("*.maf"))
FIXTURES = sorted((ROOT / "tests" / "scenarios" / "features").glob("*.maf")) + sorted(
    (ROOT / "tests" / "check" / "specs").glob("*.maf")
)


def _engine(spec: Path):
    built = ROOT / "generated" / f"{spec.stem}.py"  # (a shipped spec's: `maf build --check`)
    try:
        src = built.read_text() if spec.parent.name == "specs" else compile_file(spec).python
        eng = load_engine(src, f"play_night_{spec.stem}")
        return eng, tables(eng)
    except Exception:  # (a fixture that does not compile or deal: another test's matter)
        return None, []


def _plays(eng, tabs, games: int, act: float) -> tuple[int, int]:
    """(nights played at once, nights left to the validation) over `games` random games, each
    night checked against DRAW_ALL and FAST_NIGHT on a copy."""
    played = left = 0
    for i in range(games):
        tab = tabs[i % len(tabs)]
        rng = game_rng(3, tab, i)
        g = eng.Game.new(deal(eng, tab, rng), setup=tab.setup, seed=rng.getrandbits(31))
        while not g.over and g.day <= 30 and not g.pending_choices():
            if g.phase == "night":
                acts = None
                plain = not (g.repeat or g._wake is not None or g.night in eng.QUIET_NIGHTS)
                if plain and not any(m & eng.STATUS_MASK for m in g.marks):
                    state = rng.getstate()
                    copy = eng.Game.from_json(g.to_json())
                    acts, done = eng.PLAY_NIGHT(g, rng, act, True)
                    again = random.Random()
                    again.setstate(state)
                    assert acts == eng.DRAW_ALL(copy, again, act), (g.night, acts)
                    assert again.getstate() == rng.getstate()  # the same random numbers
                    if done:
                        played += 1
                        assert eng.FAST_NIGHT(copy, acts, copy.night) is not None, acts
                        assert copy.to_json() == g.to_json(), acts
                        continue
                    left += 1
                if acts is None:
                    acts = g.draw_actions(rng, act)
                try:
                    g.resolve_night(acts)
                except eng.IllegalAction:
                    g.resolve_night([])
            else:
                kw = {}
                acts = g.draw_actions(rng, act)
                if acts:
                    kw["actions"] = acts
                if g.day not in eng.QUIET_DAYS and getattr(eng, "VOTE", True):
                    kw["eliminate"] = rng.choice(g.alive_seats())
                try:
                    g.resolve_day(**kw)
                except eng.IllegalAction:
                    break
    return played, left


@pytest.mark.parametrize("spec", SHIPPED, ids=[s.stem for s in SHIPPED])
def test_a_night_played_at_once_is_the_validated_night(spec):
    eng, tabs = _engine(spec)
    if eng.PLAY_NIGHT is None:  # (the reason is the engine's comment)
        return
    played, left = _plays(eng, tabs, 60, 1.0)
    more, fewer = _plays(eng, tabs, 30, 0.6)
    assert played + more > 4 * (left + fewer), (played, left, more, fewer)  # the common case


@pytest.mark.slow
def test_a_night_played_at_once_is_the_validated_night_on_every_fixture():
    nights = 0
    for spec in FIXTURES:
        eng, tabs = _engine(spec)
        if eng is None or eng.PLAY_NIGHT is None:
            continue
        for act in (1.0, 0.7):
            nights += sum(_plays(eng, tabs, 4, act))
    assert nights > 150, nights


def test_playouts_are_the_same_games_with_and_without_it():
    spec = ROOT / "specs" / "bazpors.maf"
    eng, tabs = _engine(spec)
    assert eng.PLAY_NIGHT is not None, "bazpors: its drawn nights are played at once"
    runs = []
    for on in (True, False):
        eng.PLAY_NIGHT = eng.DRAW_ALL if on else None
        out = []
        for i in range(40):
            tab = tabs[i % len(tabs)]
            rng = game_rng(9, tab, i)
            g = eng.Game.new(deal(eng, tab, rng), setup=tab.setup, seed=rng.getrandbits(31))
            log: list = []
            while (step := g.playout(rng, 1.0, 50, log)) is not None:
                phase, inputs = step
                log.append((phase, inputs))
                if phase == "night":
                    g.resolve_night(inputs)
                else:
                    g.resolve_day(**inputs)
            out.append((log, g.to_json(), rng.getstate()))
        runs.append(out)
    eng.PLAY_NIGHT = eng.DRAW_ALL
    assert runs[0] == runs[1]
