"""Random tables for random players: the seat lists (role ids, seat 1 first) that the Monte Carlo
simulator, the differential fuzzer and the property tests deal to an engine.

A fixed setup (`setup 8: ...`) gives its roles in a shuffled order. A custom setup (`any where`)
has no list to shuffle: its tables are uniform over the seat lists (roles with repetition) the
engine accepts. Seat lists are first drawn at random until the engine accepts one (rejection
sampling); when that fails, the table sizes' accepted count vectors (one count per role) are
enumerated once per engine and size, pruned on the engine's own `CUSTOM_SETUPS` rules run over
count intervals, and a vector is drawn with probability proportional to its number of seat
orders (n! / prod(c!)), then shuffled: the very distribution rejection sampling gives, for
setups it almost never satisfies (e.g. werewolf: a fixed number of werewolves and at most one of
each other role).

Stdlib-only: the fuzz oracle runs it beside an engine module alone.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence

NODE_CAP = 50_000  # search nodes one enumeration may visit before it gives up (DealError)
VECTOR_CAP = 100_000  # accepted count vectors one table size may have
BRANCH_CAP = 64  # truth-value branches one pruning probe may explore (more: no pruning)


class DealError(Exception):
    """A custom setup whose tables the dealer can neither draw nor enumerate within its caps."""


def shuffled(engine, counts: Sequence[int], rng: random.Random) -> list[str]:
    """The roles of a fixed setup (`counts[r]` seats of role `r`), in a random seat order."""
    seats = [r for r, k in zip(engine.ROLES, counts, strict=True) for _ in range(k)]
    rng.shuffle(seats)
    return seats


def fixed_table(engine, rng: random.Random) -> tuple[list[str], str] | None:
    """A fixed setup drawn at random (a size, then one of its setups), shuffled, with its label;
    None for a spec without one."""
    if not engine.SETUPS:
        return None
    size = rng.choice(sorted(engine.SETUPS))
    label, counts = rng.choice(engine.SETUPS[size])
    return shuffled(engine, counts, rng), label


def custom_table(
    engine,
    rng: random.Random,
    players: int | None = None,
    setup: str | None = None,
    tries: int = 1000,
) -> list[str] | None:
    """A seat list drawn uniformly at random among those the engine accepts (roles with
    repetition; `players` seats, or a number drawn uniformly in the spec's range, weighed as
    rejection sampling weighs it), of the custom setup `setup` or of any; None if there is none.

    Up to `tries` uniformly random seat lists first, then a draw from the enumerated accepted
    count vectors; the enumeration straight away for a setup random lists rarely satisfy.
    DealError when rejection fails and the enumeration exceeds its caps."""
    if _by_enumeration(engine, players, setup):
        try:
            return table_deck(engine, players, setup).draw(rng)
        except DealError:
            pass  # too many to enumerate: rejection alone, as before
    for _ in range(tries):
        n = players or rng.randint(engine.MIN_PLAYERS, engine.MAX_PLAYERS)
        seats = [rng.choice(_dealt(engine)) for _ in range(n)]
        if _accepts(engine, seats, setup):
            return seats
    return table_deck(engine, players, setup).draw(rng)


def _dealt(engine) -> tuple[str, ...]:
    """The roles a seat may be dealt: every role but the roles of titles (`title`)."""
    titles = getattr(engine, "TITLE_ROLES", ())
    if not titles:
        return engine.ROLES
    return tuple(r for i, r in enumerate(engine.ROLES) if i not in titles)


PROBES = 200  # random seat lists a table size is probed with, with a fixed seed
PROBE_RATE = 0.05  # rarer accepted than this: drawn from the enumeration straight away

_RATES: dict[tuple, tuple[object, float]] = {}


def rare(engine, players: int | None = None, setup: str | None = None) -> bool:
    """Whether random seat lists rarely satisfy the custom setup (`custom_table` then deals from
    its enumeration straight away): a caller's own rejection loop had better ask it instead."""
    return _by_enumeration(engine, players, setup)


def _by_enumeration(engine, players: int | None, setup: str | None) -> bool:
    """Whether the custom setup is rare among random seat lists (below PROBE_RATE of PROBES,
    drawn with a fixed seed): then a draw goes to the enumeration first. The choice is the
    engine's, never the caller's random state or what was cached before, so a seeded caller deals
    the same tables in any process."""
    return _probe_rate(engine, players, setup) < PROBE_RATE


def _probe_rate(engine, players: int | None, setup: str | None) -> float:
    """The share of PROBES random seat lists (fixed seed) the engine accepts; cached."""
    key = _key(engine, players, setup)
    got = _RATES.get(key)
    if got is not None and got[0] is engine:
        return got[1]
    rng = random.Random(f"maf-deal-probe/{players}/{setup}")
    ok = 0
    for _ in range(PROBES):
        n = players or rng.randint(engine.MIN_PLAYERS, engine.MAX_PLAYERS)
        ok += _accepts(engine, [rng.choice(_dealt(engine)) for _ in range(n)], setup)
    _RATES[key] = (engine, ok / PROBES)
    return ok / PROBES


def dealable(engine, players: int, setup: str | None = None) -> bool:
    """Whether `custom_table` deals tables of `players` seats (of the custom setup `setup`)
    cheaply: random seat lists are not rare (PROBE_RATE), or the enumeration finds some."""
    if not _by_enumeration(engine, players, setup):
        return True
    try:
        return bool(table_deck(engine, players, setup).vectors)
    except DealError:
        return False


# ------------------------------------------------------------------ the enumerated tables
class Deck:
    """The count vectors (one count per role, in `engine.ROLES` order) of the tables a custom
    setup accepts, each weighed by the chance rejection sampling draws it."""

    def __init__(self, engine, vectors: list[tuple[int, ...]], weights: list[int]) -> None:
        self.engine = engine
        self.vectors = vectors
        self.weights = weights
        self.cumulative: list[int] = []
        total = 0
        for w in weights:
            total += w
            self.cumulative.append(total)

    def draw(self, rng: random.Random) -> list[str] | None:
        """One vector drawn in proportion to its weight, as a shuffled seat list."""
        if not self.vectors:
            return None
        i = bisect.bisect_right(self.cumulative, rng.randrange(self.cumulative[-1]))
        return shuffled(self.engine, self.vectors[i], rng)


_DECKS: dict[tuple, Deck] = {}


def _key(engine, players: int | None, setup: str | None) -> tuple:
    return (id(engine), players, setup)


def table_deck(engine, players: int | None = None, setup: str | None = None) -> Deck:
    """The accepted count vectors of `players` seats (of every size in the spec's range, for
    None), cached per engine, size and setup. Vector c of n seats weighs n!/prod(c!) seat orders,
    times R^(max - n) across sizes (R roles): a seat list of n seats is drawn with chance R^-n."""
    key = _key(engine, players, setup)
    deck = _DECKS.get(key)
    if deck is not None and deck.engine is engine:
        return deck
    failed = _FAILED.get(key)
    if failed is not None and failed[0] is engine:
        raise DealError(failed[1])
    try:
        deck = _build(engine, players, setup)
    except DealError as e:
        _FAILED[key] = (engine, str(e))
        raise
    _DECKS[key] = deck
    return deck


_FAILED: dict[tuple, tuple[object, str]] = {}  # enumerations past their caps, not tried again


def _build(engine, players: int | None, setup: str | None) -> Deck:
    sizes = [players] if players else list(range(engine.MIN_PLAYERS, engine.MAX_PLAYERS + 1))
    top = max(sizes)
    vectors: list[tuple[int, ...]] = []
    weights: list[int] = []
    for n in sizes:
        scale = len(engine.ROLES) ** (top - n)
        for c in accepted_vectors(engine, n, setup):
            vectors.append(c)
            weights.append(scale * orders(c))
    return Deck(engine, vectors, weights)


def orders(counts: Sequence[int]) -> int:
    """The number of seat lists with these role counts: n! / prod(c!)."""
    out = math.factorial(sum(counts))
    for k in counts:
        out //= math.factorial(k)
    return out


def accepted_vectors(engine, n: int, setup: str | None = None) -> list[tuple[int, ...]]:
    """Every count vector of `n` seats that `engine.Game.new` accepts (with `setup`), in a fixed
    order: its fixed setups of that size, and a search over the custom setups' counts that the
    rules prune, each leaf asked of the engine itself."""
    if n < 1:
        return []
    found: set[tuple[int, ...]] = set()
    for label, c in engine.SETUPS.get(n, ()):
        if (setup is None or label == setup) and _accepts(engine, shuffled(engine, c, _RNG), setup):
            found.add(tuple(c))
    rules = [
        (label, rule)
        for label, lo, hi, rule in engine.CUSTOM_SETUPS
        if lo <= n <= hi and (setup is None or label == setup)
    ]
    if rules:
        found |= _search(engine, n, setup, rules)
    return sorted(found)


_RNG = random.Random(0)  # the order of a fixed setup's seats does not matter to Game.new


def _accepts(engine, seats: list[str], setup: str | None) -> bool:
    try:
        engine.Game.new(seats, setup=setup)
    except engine.IllegalAction:
        return False
    return True


def _search(engine, n: int, setup, rules) -> set[tuple[int, ...]]:
    """The count vectors of n seats the rules accept: roles one by one, each over the counts a
    probe with the other roles unknown does not rule out (tightest domains first, the widest
    role last taking the seats left), a branch cut as soon as every rule is false whatever the
    seats left hold."""
    roles = len(engine.ROLES)
    unknown: list[int | None] = [None] * roles
    domains = []
    titles = getattr(engine, "TITLE_ROLES", ())
    for r in range(roles):
        if r in titles:  # a title's role: dealt to no seat
            domains.append([0])
            continue
        dom = []
        for v in range(n + 1):
            part = list(unknown)
            part[r] = v
            if _possible(rules, part, n, n - v):
                dom.append(v)
        domains.append(dom)
    order = sorted(range(roles), key=lambda r: (len(domains[r]), r))
    last = order[-1]
    found: set[tuple[int, ...]] = set()
    nodes = 0
    counts: list[int | None] = [None] * roles
    label = next((lab for lab, _ in rules if lab), None)

    def cap() -> DealError:
        what = f"the custom setup {label!r}" if label else "the custom setups"
        return DealError(
            f"{engine.SPEC}: {what} of {n} players: random tables rarely accepted, and more than"
            f" {NODE_CAP:,} search steps or {VECTOR_CAP:,} tables to enumerate them"
        )

    # the count vectors within the domains: past the cap, the rules prune too little (a rule
    # reading the seats one by one, as count_team does): give up now, not after NODE_CAP steps
    ways = [1] + [0] * n
    for r in order:
        ways = [sum(ways[m - v] for v in domains[r] if v <= m) for m in range(n + 1)]
        if ways[n] > NODE_CAP:
            raise cap()

    def walk(depth: int, left: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > NODE_CAP:
            raise cap()
        r = order[depth]
        if r == last:
            if left not in domains[r]:
                return
            counts[r] = left
            c = tuple(k or 0 for k in counts)
            if _accepts(engine, shuffled(engine, c, _RNG), setup):
                found.add(c)
                if len(found) > VECTOR_CAP:
                    raise cap()
            counts[r] = None
            return
        for v in domains[r]:
            if v > left:
                break
            counts[r] = v
            if _possible(rules, counts, n, left - v):
                walk(depth + 1, left - v)
        counts[r] = None

    walk(0, n)
    return found


# ------------------------------------------------------------------ pruning probes
class _Unsure(Exception):
    """A rule read the table in a way the probe cannot bound: assume it may hold."""


class _Probe:
    """One run of a rule: the truth values it could not decide, as a script of branches."""

    def __init__(self, script: list[bool]) -> None:
        self.script = script
        self.pos = 0

    def decide(self) -> bool:
        if self.pos == len(self.script):
            self.script.append(True)
        v = self.script[self.pos]
        self.pos += 1
        return v


class _Maybe:
    """A truth value the intervals cannot decide: each reading of it is a branch."""

    __slots__ = ("probe", "value")

    def __init__(self, probe: _Probe) -> None:
        self.probe = probe
        self.value: bool | None = None

    def __bool__(self) -> bool:  # decided once: `a and b` hands a falsy `a` on to be read again
        if self.value is None:
            self.value = self.probe.decide()
        return self.value


class _Span:
    """An integer known to lie in lo..hi (a role count with seats left to deal, and sums)."""

    __slots__ = ("hi", "lo", "probe")

    def __init__(self, lo: int, hi: int, probe: _Probe) -> None:
        self.lo, self.hi, self.probe = lo, hi, probe

    def _other(self, x) -> tuple[int, int]:
        if isinstance(x, _Span):
            return x.lo, x.hi
        if isinstance(x, bool) or not isinstance(x, int):
            raise _Unsure
        return x, x

    def _truth(self, yes: bool, no: bool):
        return True if yes else False if no else _Maybe(self.probe)

    def __add__(self, x):
        lo, hi = self._other(x)
        return _Span(self.lo + lo, self.hi + hi, self.probe)

    __radd__ = __add__

    def __sub__(self, x):
        lo, hi = self._other(x)
        return _Span(self.lo - hi, self.hi - lo, self.probe)

    def __rsub__(self, x):
        lo, hi = self._other(x)
        return _Span(lo - self.hi, hi - self.lo, self.probe)

    def __neg__(self):
        return _Span(-self.hi, -self.lo, self.probe)

    def __mul__(self, x):
        lo, hi = self._other(x)
        ends = (self.lo * lo, self.lo * hi, self.hi * lo, self.hi * hi)
        return _Span(min(ends), max(ends), self.probe)

    __rmul__ = __mul__

    def __eq__(self, x):  # type: ignore[override]
        lo, hi = self._other(x)
        return self._truth(self.lo == self.hi == lo == hi, self.hi < lo or hi < self.lo)

    def __ne__(self, x):  # type: ignore[override]
        lo, hi = self._other(x)
        return self._truth(self.hi < lo or hi < self.lo, self.lo == self.hi == lo == hi)

    def __lt__(self, x):
        lo, hi = self._other(x)
        return self._truth(self.hi < lo, self.lo >= hi)

    def __le__(self, x):
        lo, hi = self._other(x)
        return self._truth(self.hi <= lo, self.lo > hi)

    def __gt__(self, x):
        lo, hi = self._other(x)
        return self._truth(self.lo > hi, self.hi <= lo)

    def __ge__(self, x):
        lo, hi = self._other(x)
        return self._truth(self.lo >= hi, self.hi < lo)

    def __bool__(self) -> bool:
        return bool(self != 0)

    __hash__ = None  # type: ignore[assignment]

    def __index__(self) -> int:
        raise _Unsure

    def __int__(self) -> int:
        raise _Unsure


class _Initial:
    """The dealt roles as a rule reads them (`g.initial.count(r)`): a count per role, known or
    unknown (0..the seats left); anything else (iterating the seats) is unsure."""

    def __init__(self, counts: Sequence[int | None], left: int, probe: _Probe) -> None:
        self.counts, self.left, self.probe = counts, left, probe

    def count(self, r) -> int | _Span:
        if not isinstance(r, int) or not 0 <= r < len(self.counts):
            raise _Unsure
        k = self.counts[r]
        return _Span(0, self.left, self.probe) if k is None else k

    def __iter__(self):
        raise _Unsure

    def __len__(self) -> int:
        raise _Unsure


class _View:
    """The game a custom setup's rule is shown: its table size and the dealt roles."""

    def __init__(self, counts: Sequence[int | None], n: int, left: int, probe: _Probe) -> None:
        self.n = n
        self.initial = _Initial(counts, left, probe)

    def __getattr__(self, name: str):
        raise _Unsure


def _possible(rules, counts: Sequence[int | None], n: int, left: int) -> bool:
    """Whether some rule may hold for a table with these counts (None: unknown) and `left` seats
    not yet dealt: False only when every branch of every rule's undecided truth values is false
    (sound over the rule's own code: anything it does the intervals cannot follow counts as
    possible)."""
    for _, rule in rules:
        script: list[bool] = []
        for _ in range(BRANCH_CAP):
            probe = _Probe(script)
            try:
                if bool(rule(_View(counts, n, left, probe))):
                    return True
            except (_Unsure, ArithmeticError, LookupError, TypeError, ValueError, AttributeError):
                return True  # read in a way the intervals cannot follow: may hold
            del script[probe.pos :]  # branches not taken this run
            while script and not script[-1]:
                script.pop()
            if not script:
                break
            script[-1] = False
        else:
            return True
    return False
