"""Statistics for `maf simulate`: Wilson intervals, per-table aggregation, and the exact town win
probability of the vanilla game (the recurrence of Braverman, Etesami & Mossel 2008; Migdał 2010).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import compress

Z95 = 1.959963984540054  # the 97.5th percentile of the standard normal


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (0..1 bounds; (0, 1) for n = 0)."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class GameResult:
    """What one finished (or capped) game contributes to its table's statistics."""

    index: int
    winner: str | None  # the team or independent role whose win ended the game
    winners: tuple[str, ...]  # every team/role that won (co-winners included)
    finished: bool  # False: still running at the cap
    days: int  # days played
    survivors: tuple[tuple[str, bool], ...]  # (role as dealt, alive at the end) per seat


@dataclass
class TableStats:
    players: int
    setup: str | None
    games: int = 0
    finished: int = 0
    draws: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    days: dict[int, int] = field(default_factory=dict)  # days played -> games
    dealt: Counter[str] = field(default_factory=Counter)  # role -> seats dealt
    survived: Counter[str] = field(default_factory=Counter)  # role -> seats alive at the end

    def add(self, r: GameResult) -> None:
        roles = [role for role, _ in r.survivors]
        alive = [False, *(alive for _, alive in r.survivors)]
        self.add_game(r.winners, r.finished, r.days, roles, alive)

    def add_game(
        self,
        winners: tuple[str, ...],
        finished: bool,
        days: int,
        seats: list[str],
        alive: list[bool],
        dealt: bool = True,
    ) -> None:
        """A game's result (add's GameResult, without making one): its winners, whether it
        ended, the days played, the roles dealt (seat 1 first) and per seat whether it is alive
        at the end (`alive[s]` for seat s, as an engine keeps it). `dealt=False`: the roles
        dealt are left to the caller to count (`add_dealt`: a fixed setup deals the same
        roles to every game)."""
        self.games += 1
        if finished:
            self.finished += 1
            if not winners:
                self.draws += 1
        wins = self.wins
        for w in winners:
            wins[w] = wins.get(w, 0) + 1
        played = self.days
        played[days] = played.get(days, 0) + 1
        if dealt:
            self.dealt.update(seats)  # (Counter's counting loop, in C)
        self.survived.update(compress(seats, alive[1:]))

    def add_dealt(self, counts: dict[str, int], games: int) -> None:
        """`counts` seats per role dealt to each of `games` games (add_game's `dealt=False`)."""
        for role, k in counts.items():
            if k and games:  # (a role nobody is dealt is not counted, as add_game counts)
                self.dealt[role] += k * games

    def merge(self, other: TableStats) -> None:
        self.games += other.games
        self.finished += other.finished
        self.draws += other.draws
        for src, dst in (
            (other.wins, self.wins),
            (other.dealt, self.dealt),
            (other.survived, self.survived),
        ):
            for k, v in src.items():
                dst[k] = dst.get(k, 0) + v
        for d, v in other.days.items():
            self.days[d] = self.days.get(d, 0) + v

    @property
    def unfinished(self) -> int:
        return self.games - self.finished

    def rate(self, who: str) -> float:
        return self.wins.get(who, 0) / self.games if self.games else 0.0

    def ci95(self, who: str) -> tuple[float, float]:
        return wilson(self.wins.get(who, 0), self.games)

    @property
    def mean_days(self) -> float:
        return sum(d * c for d, c in self.days.items()) / self.games if self.games else 0.0

    @property
    def median_days(self) -> float:
        if not self.games:
            return 0.0
        ordered = sorted(self.days.items())
        lo_at, hi_at = (self.games - 1) // 2, self.games // 2
        seen, lo = 0, None
        for d, c in ordered:
            if lo is None and seen + c > lo_at:
                lo = d
            if seen + c > hi_at:
                return ((d if lo is None else lo) + d) / 2  # lo is set: lo_at <= hi_at
            seen += c
        return float(ordered[-1][0])  # pragma: no cover - unreachable with games > 0

    def survival(self) -> dict[str, float]:
        return {r: self.survived.get(r, 0) / n for r, n in sorted(self.dealt.items()) if n}


@lru_cache(maxsize=None)
def _vanilla(n: int, m: int, day: bool) -> Fraction:
    if m == 0:
        return Fraction(1)
    if m >= n - m:
        return Fraction(0)
    if day:  # a uniformly random living player leaves
        return Fraction(m, n) * _vanilla(n - 1, m - 1, False) + Fraction(n - m, n) * _vanilla(
            n - 1, m, False
        )
    return _vanilla(n - 1, m, True)  # the mafia kill one non-mafia


def vanilla_town_win(players: int, mafia: int, first: str = "day") -> Fraction:
    """The exact probability that the town wins the vanilla game: `players` seats of which `mafia`
    are mafia; by day a uniformly random living player is eliminated, by night the mafia kill a
    uniformly random non-mafia; the town wins when no mafia is left, the mafia when they are at
    least as many as the rest (checked after every phase)."""
    if not 0 <= mafia <= players:
        raise ValueError("need 0 <= mafia <= players")
    return _vanilla(players, mafia, first == "day")
