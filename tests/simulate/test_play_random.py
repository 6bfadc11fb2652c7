"""The simulator's loop for the random policy (play._play_random, issue 22): its calls unrolled,
it plays every game exactly as the generic loop plays a RandomPolicy (the same inputs from the
same random numbers, so the same results), on every shipped spec and on the test specs with
decisions (`call`) and without a compiled night, with every ability used and with `act` < 1."""

from pathlib import Path

import pytest

from maf.compiler.driver import compile_file, import_generated, load_engine
from maf.compiler.tools.simulate import play, tables
from maf.compiler.tools.simulate.policies import RandomPolicy

ROOT = Path(__file__).resolve().parents[2]
SPECS = sorted((ROOT / "generated").glob("*.py"))
HERE = sorted(Path(__file__).parent.glob("*.maf"))


class Generic(RandomPolicy):
    """RandomPolicy itself, by a name play_game does not unroll: the generic loop plays it."""


def _same(eng, games: int, act: float) -> None:
    for t in tables(eng):
        for i in range(games):
            fast = play.play_game(eng, t, 3, i, RandomPolicy, act)
            slow = play.play_game(eng, t, 3, i, Generic, act)
            assert fast == slow, (t, i)


@pytest.mark.parametrize("act", [1.0, 0.6])
@pytest.mark.parametrize("path", SPECS, ids=[p.stem for p in SPECS])
def test_the_unrolled_loop_plays_the_generic_loop(path, act):
    _same(import_generated(path), 6, act)


@pytest.mark.parametrize("path", HERE, ids=[p.stem for p in HERE])
def test_the_unrolled_loop_with_decisions(path):
    _same(load_engine(compile_file(path).python, f"unrolled_{path.stem}"), 15, 1.0)
