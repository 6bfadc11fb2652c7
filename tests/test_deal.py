"""compiler/tools/deal.py: the random tables every random player deals (simulator, fuzzers, tests)."""

import random
from collections import Counter
from pathlib import Path

from maf.compiler.tools import deal
from maf.compiler.driver import compile_file, import_generated, load_engine

ROOT = Path(__file__).resolve().parent.parent
BAZPORS = import_generated(ROOT / "generated" / "bazpors.py")
CUSTOM = load_engine(compile_file(ROOT / "tests/check/specs/k002_custom_ok.maf").python, "deal_custom")


def test_a_fixed_table_is_one_of_the_specs_setups_in_a_shuffled_order():
    rng = random.Random(3)
    orders = set()
    for _ in range(40):
        seats, label = deal.fixed_table(BAZPORS, rng)
        counts = Counter(seats)
        setup = dict(BAZPORS.SETUPS[len(seats)])[label]  # a setup of that size, by its label
        assert counts == Counter({BAZPORS.ROLES[r]: k for r, k in enumerate(setup) if k})
        orders.add(tuple(seats))
        BAZPORS.Game.new(seats)  # the engine accepts it
    assert len(orders) > 30  # shuffled, not the setup's order


def test_a_spec_without_fixed_setups_deals_a_custom_table_the_engine_accepts():
    rng = random.Random(5)
    assert deal.fixed_table(CUSTOM, rng) is None
    for players in (None, 5, 6):
        seats = deal.custom_table(CUSTOM, rng, players=players)
        assert seats is not None and (players is None or len(seats) == players)
        CUSTOM.Game.new(seats)
        assert seats.count("henchman") <= 1 and {"boss", "henchman"} & set(seats)  # the rule


def test_a_custom_table_no_draw_satisfies_is_none_after_its_tries():
    # seven players: outside the spec's 5..6, so every draw is refused
    assert deal.custom_table(CUSTOM, random.Random(1), players=7, tries=50) is None
