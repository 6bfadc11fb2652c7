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
            mine, theirs = random.Random(i), random.Random(i)
            seats = play.deal(eng, t, mine)  # (Random.shuffle unrolled)
            assert seats == shuffled(eng, t.counts, theirs)
            assert mine.getstate() == theirs.getstate()  # the same random numbers consumed
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


class OtherRandom(random.Random):
    """A generator of another class: the deal calls its own shuffle."""

    def shuffle(self, x):
        x.reverse()


def test_the_deal_with_another_generator_calls_its_shuffle():
    eng = import_generated(ROOT / "generated" / "bazpors.py")
    t = tables(eng, (10, 10))[0]
    assert play.deal(eng, t, OtherRandom(1)) == shuffled(eng, t.counts, OtherRandom(1))


def test_a_result_reads_who_is_alive():
    eng = import_generated(ROOT / "generated" / "bazpors.py")
    t = tables(eng, (10, 10))[0]
    for i in range(30):  # (a block's games, in order, on its generator)
        r = play.play_game(eng, t, 5, i, RandomPolicy)
        if not i % play.BLOCK:
            rng = play.game_rng(5, t, i)
        seats = play.deal(eng, t, rng)
        g = eng.Game.new(seats, setup=t.setup, seed=rng.getrandbits(31))
        play._play_random(eng, g, t, i, seats, g.seed, rng, 1.0, play.MAX_DAYS)
        alive = set(g.alive_seats())
        assert r.survivors == tuple((role, s in alive) for s, role in enumerate(seats, 1))


def test_a_batch_generator_reseeded_is_a_new_games_generator():
    """run_batch reseeds one generator for each block of games (play._reseed): the state
    game_rng makes for the block's games."""
    t = play.Table(10, None, (1,))
    rng = random.Random(0)
    rng.gauss(0, 1)  # (a Gaussian kept: reseeding drops it, as seeding does)
    for b in range(50):
        state = play._reseed(rng, play._block_key(3, t, b)).getstate()
        assert state == play.game_rng(3, t, b * play.BLOCK).getstate()
        assert state == play.game_rng(3, t, b * play.BLOCK + play.BLOCK - 1).getstate()
        assert state != play.game_rng(3, t, (b + 1) * play.BLOCK).getstate()


def test_a_batch_counts_the_games_play_game_plays():
    """run_batch's statistics (TableStats.add_game, no GameResult) are those of play_game's
    results, added one by one."""
    from maf.compiler.tools.simulate.stats import TableStats

    eng = import_generated(ROOT / "generated" / "bazpors.py")
    for t in tables(eng)[:3]:
        one = TableStats(t.players, t.setup)
        for i in range(40):
            one.add(play.play_game(eng, t, 9, i, RandomPolicy))
        assert play.run_batch(eng, t, 9, 0, 40, RandomPolicy, 1.0, play.MAX_DAYS) == one
