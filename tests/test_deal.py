"""compiler/tools/deal.py: the random tables every random player deals (simulator, fuzzers, tests)."""

import itertools
import math
import random
import re
from collections import Counter
from pathlib import Path

import pytest

from maf.compiler.driver import compile_file, compile_source, import_generated, load_engine
from maf.compiler.tools import deal

ROOT = Path(__file__).resolve().parent.parent
BAZPORS = import_generated(ROOT / "generated" / "bazpors.py")
CUSTOM_MAF = ROOT / "tests/check/specs/k002_custom_ok.maf"
CUSTOM = load_engine(compile_file(CUSTOM_MAF).python, "deal_custom")
# a strict custom setup (one boss, at most one of each other role but the citizen) that random
# seat lists still satisfy often enough (6% at 6 seats) for rejection sampling to be its yardstick
STRICT = load_engine(
    compile_source(
        re.sub(
            r'setup "any" .*',
            'setup "strict" 5..6: any where count_role(boss) == 1 and count_role(henchman) <= 1'
            " and count_role(detective) <= 1 and count_role(nurse) <= 1 and count_role(guard) <= 1",
            CUSTOM_MAF.read_text(),
        ).replace(
            "role citizen in city {",
            'role nurse in city { name fa "N" en "N" }\nrole guard in city { name fa "G" en "G" }\n'
            "role citizen in city {",
        ),
        "strict.maf",
    ).python,
    "deal_strict",
)


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


# ------------------------------------------------------------------ strict custom setups
WEREWOLF = import_generated(ROOT / "generated" / "werewolf.py")
CLASSIC = import_generated(ROOT / "generated" / "classic.py")


def _rejection(engine, rng, players):
    """Plain rejection sampling, the distribution the dealer promises."""
    while True:
        n = players or rng.randint(engine.MIN_PLAYERS, engine.MAX_PLAYERS)
        seats = [rng.choice(engine.ROLES) for _ in range(n)]
        try:
            engine.Game.new(seats)
        except engine.IllegalAction:
            continue
        return seats


def _vector(engine, seats):
    return tuple(seats.count(r) for r in engine.ROLES)


def test_the_enumerated_vectors_are_exactly_the_accepted_seat_lists_by_count():
    # every seat list of the small custom setup, asked of the engine one by one
    for players in (5, 6, None):
        sizes = [players] if players else [5, 6]
        want: Counter = Counter()
        for n in sizes:
            for seats in itertools.product(CUSTOM.ROLES, repeat=n):
                try:
                    CUSTOM.Game.new(list(seats))
                except CUSTOM.IllegalAction:
                    continue
                # a seat list of n seats is drawn with chance R^-n: scaled to the largest size
                want[_vector(CUSTOM, list(seats))] += len(CUSTOM.ROLES) ** (max(sizes) - n)
        deck = deal.table_deck(CUSTOM, players)
        assert dict(zip(deck.vectors, deck.weights, strict=True)) == dict(want)


def _chi_square(a: Counter, b: Counter) -> tuple[float, int]:
    """Two-sample chi-square statistic (homogeneity) and its degrees of freedom."""
    na, nb = sum(a.values()), sum(b.values())
    stat, cells = 0.0, 0
    for k in set(a) | set(b):
        tot = a[k] + b[k]
        ea, eb = tot * na / (na + nb), tot * nb / (na + nb)
        stat += (a[k] - ea) ** 2 / ea + (b[k] - eb) ** 2 / eb
        cells += 1
    return stat, cells - 1


def _chi_square_limit(df: int) -> float:
    """The 99.9% quantile of chi-square with df degrees of freedom (Wilson-Hilferty)."""
    z = 3.09
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_the_enumerated_draw_matches_rejection_sampling_chi_square():
    for players in (6, None):
        rng_a, rng_b = random.Random(11), random.Random(12)
        deck = deal.table_deck(STRICT, players)
        drawn = Counter(_vector(STRICT, deck.draw(rng_a)) for _ in range(6000))
        rejected = Counter(_vector(STRICT, _rejection(STRICT, rng_b, players)) for _ in range(6000))
        stat, df = _chi_square(drawn, rejected)
        assert df >= 15
        assert stat < _chi_square_limit(df), (players, stat, df)
        # and it is a real test: a draw uniform over the vectors (not weighed) fails it
        flat = Counter(_vector(STRICT, list(rng_a.choice(deck.vectors))) for _ in range(6000))
        stat, df = _chi_square(flat, rejected)
        assert stat > _chi_square_limit(df)


def test_seat_orders_within_a_vector_are_uniform():
    rng = random.Random(4)
    deck = deal.table_deck(STRICT, 5)
    seen = Counter(tuple(deck.draw(rng)) for _ in range(8000))
    # seat lists of one vector come out equally often: compare against the exact weights
    stat = 0.0
    total = sum(deck.weights)
    for v, w in zip(deck.vectors, deck.weights, strict=True):
        per = 8000 * w / total / deal.orders(v)
        lists = [s for s in seen if _vector(STRICT, list(s)) == v]
        stat += sum((seen[s] - per) ** 2 / per for s in lists) + per * (deal.orders(v) - len(lists))
    df = sum(deal.orders(v) for v in deck.vectors) - 1
    assert stat < _chi_square_limit(df)


def test_werewolf_is_dealt_at_every_size():
    # 2 werewolves at 8..11, 3 at 12..17, 4 at 18; at most one of each other role
    rng = random.Random(8)
    for n in range(8, 19):
        wolves = 2 if n <= 11 else 3 if n <= 17 else 4
        for _ in range(30):
            seats = deal.custom_table(WEREWOLF, rng, players=n, setup="open")
            assert seats is not None and len(seats) == n
            WEREWOLF.Game.new(seats, setup="open")
            counts = Counter(seats)
            assert counts.pop("werewolf") == wolves
            assert all(k <= 1 for r, k in counts.items() if r != "villager")
        assert deal.dealable(WEREWOLF, n, "open") and deal.rare(WEREWOLF, n, "open")
    # a random size too, and no size outside the spec's range
    assert 8 <= len(deal.custom_table(WEREWOLF, rng, setup="open")) <= 18
    assert deal.custom_table(WEREWOLF, rng, players=19, tries=5) is None
    assert not deal.dealable(WEREWOLF, 19)


def test_an_enumeration_past_its_cap_is_a_clear_error_naming_the_setup(monkeypatch):
    monkeypatch.setattr(deal, "NODE_CAP", 500)
    monkeypatch.setattr(deal, "_DECKS", {})
    monkeypatch.setattr(deal, "_FAILED", {})
    with pytest.raises(deal.DealError, match=r"classic: the custom setup 'custom' of 12 players"):
        deal.custom_table(CLASSIC, random.Random(2), players=12, tries=0)


def test_a_seeded_deal_does_not_depend_on_what_was_cached_before(monkeypatch):
    warm = [deal.custom_table(WEREWOLF, random.Random(i), 12, "open") for i in range(5)]
    for name in ("_DECKS", "_RATES", "_FAILED"):
        monkeypatch.setattr(deal, name, {})
    cold = [deal.custom_table(WEREWOLF, random.Random(i), 12, "open") for i in range(5)]
    assert warm == cold and len(set(map(tuple, warm))) == 5


def test_maf_simulate_plays_werewolf_at_every_size():
    from maf.compiler.tools.simulate import simulate, tables

    notes: list[str] = []
    tabs = tables(WEREWOLF, setup="open", notes=notes)  # the custom setup beside the box's tables
    assert [t.players for t in tabs] == list(range(8, 19)) and notes == []
    assert all(t.counts is None and t.setup == "open" for t in tabs)
    source = (ROOT / "generated" / "werewolf.py").read_text()
    sim = simulate(source, "werewolf", tabs, games=6, workers=1)
    assert [t.games for t in sim.stats] == [6] * 11


def test_the_differential_random_player_deals_werewolf_at_every_size():
    from maf.compiler.verify import differential, interp

    ref = interp.load(compile_file(ROOT / "specs" / "werewolf.maf").program)
    rng = random.Random(6)
    sizes = Counter(len(differential._table(WEREWOLF, ref, rng)) for _ in range(150))
    assert set(sizes) == set(range(8, 19)), sizes  # 12..17 too (random lists: ~1e-4 accepted)


def test_the_fuzz_engine_surface_plays_werewolf():
    from tests.fuzz import oracle

    labels = Counter()
    for seed in range(12):
        seats, label = oracle._seats_of(WEREWOLF, random.Random(seed))
        assert seats is not None and 8 <= len(seats) <= 18
        WEREWOLF.Game.new(seats, setup=label)
        labels[label] += 1
        oracle.check_session(WEREWOLF, random.Random(seed))  # a Finding fails the test
    assert labels["open"] >= 3 and labels["open"] < 12  # its custom setup too, not only the box's


def test_the_pruning_probe_is_sound_over_and_or_not():
    # rules over two roles' counts; None: not dealt yet (0..the seats left)
    def possible(rule, counts, left, n=6):
        return deal._possible([(None, rule)], counts, n, left)

    both = lambda g: g.initial.count(0) == 4 and g.initial.count(1) <= 1  # noqa: E731
    # `a and b` hands an undecided falsy `a` on: it must not be read as a second branch
    assert not possible(both, [None, 2], 4)
    assert possible(both, [None, 1], 5)
    assert not possible(both, [None, None], 3)  # at most 3 seats left for the 4 of role 0
    neither = lambda g: not (g.initial.count(0) >= 2) or g.n > 100  # noqa: E731
    assert possible(neither, [None, None], 6)
    assert not possible(neither, [3, None], 3)
    summed = lambda g: g.initial.count(0) + g.initial.count(1) == 6  # noqa: E731
    assert not possible(summed, [1, None], 2) and possible(summed, [1, None], 5)
    # a rule reading the seats one by one (count_team) may hold: no pruning, never a wrong cut
    seats = lambda g: sum(1 for r in g.initial if r == 0) == 9  # noqa: E731
    assert possible(seats, [None, None], 6)
