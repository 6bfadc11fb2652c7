"""The simulator's per-game set-up (issue 22): the deal reuses each setup's seat list (the same
seats from the same generator as deal.shuffled), and a policy's `observe` is optional."""

import random
from pathlib import Path

from maf.compiler.driver import import_generated
from maf.compiler.tools.deal import shuffled
from maf.compiler.tools.simulate import play, simulate, tables
from maf.compiler.tools.simulate.cli import engine_source
from maf.compiler.tools.simulate.policies import RandomPolicy

ROOT = Path(__file__).resolve().parents[2]


def test_the_deal_is_deal_shuffled_from_the_same_generator():
    eng = import_generated(ROOT / "generated" / "bazpors.py")
    for t in tables(eng):
        for i in range(20):
            seats = play.deal(eng, t, random.Random(i))
            assert seats == shuffled(eng, t.counts, random.Random(i))
            seats[0] = "changed"  # a game's list is its own: the next deal is unchanged
            assert play.deal(eng, t, random.Random(i)) == shuffled(eng, t.counts, random.Random(i))


class NoObserve:
    """A policy with no `observe` (docs/simulate.md: it is optional), not a Policy subclass."""

    name = "no-observe"

    def __init__(self, engine, seats, rng, act=1.0):
        self.inner = RandomPolicy(engine, seats, rng, act)

    def night(self, game):
        return self.inner.night(game)

    def day(self, game):
        return self.inner.day(game)


def test_a_policy_without_observe_plays():
    src, name = engine_source("bazpors")
    eng = import_generated(ROOT / "generated" / "bazpors.py")
    tabs = tables(eng, (10, 10))
    mine = simulate(src, name, tabs, games=30, seed=3, workers=1, policy=NoObserve)
    ref = simulate(src, name, tabs, games=30, seed=3, workers=1, policy=RandomPolicy)
    assert sum(t.games for t in mine.stats) == 30
    # the same random player: the same games
    assert [t.wins for t in mine.stats] == [t.wins for t in ref.stats]
