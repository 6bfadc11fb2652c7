"""The compiled playout draws (compiler/backend/nightgen.py `render_draws`, issue 22): every
shipped spec's `draw_actions` by night with its compiled whole-night draw (DRAW_ALL,
`render_draw_night`) and with its compiled per-ability draws alone (DRAW_NIGHT) gives the very
actions the generic loop and draw (`Game._draw_ability`, both switched off) give from the same
random numbers, at every night of random whole games; tests/test_playout.py checks that draws
are legal and uniform on the engines as shipped (compiled draws included)."""

import random
from pathlib import Path

import pytest

from maf.compiler.driver import compile_file, load_engine
from maf.compiler.tools.simulate import play, tables
from maf.compiler.tools.simulate.policies import RandomPolicy

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.maf"))


@pytest.mark.parametrize("spec", SPECS, ids=[s.stem for s in SPECS])
def test_compiled_draws_are_the_generic_draws(spec):
    eng = load_engine(compile_file(spec).python, f"draws_{spec.stem}")
    compiled, whole = eng.DRAW_NIGHT, eng.DRAW_ALL
    assert any(d is not None for d in compiled), f"{spec.name}: no compiled draw"
    assert whole is not None, f"{spec.name}: no compiled whole-night draw"
    used = [0]

    def counted(d):
        def draw(g, seat, number, rnd):
            used[0] += 1
            return d(g, seat, number, rnd)

        return draw

    counting = tuple(None if d is None else counted(d) for d in compiled)

    class Checked(RandomPolicy):
        def night(self, game):
            for k in range(3):
                act = 0.7 if k == 2 else 1.0
                eng.DRAW_NIGHT, eng.DRAW_ALL = counting, None
                fast = game.draw_actions(random.Random(k), act)
                eng.DRAW_NIGHT = compiled
                eng.DRAW_ALL = whole
                fused = game.draw_actions(random.Random(k), act)
                eng.DRAW_NIGHT, eng.DRAW_ALL = (), None
                slow = game.draw_actions(random.Random(k), act)
                assert fast == slow == fused, (game.night, fast, slow, fused)
            eng.DRAW_NIGHT, eng.DRAW_ALL = compiled, whole
            return super().night(game)

    tabs = tables(eng)
    for i in range(40):
        play.play_game(eng, tabs[i % len(tabs)], 22, i, Checked)
    assert used[0] > 200, used  # the compiled draws played (not only the generic ones)
