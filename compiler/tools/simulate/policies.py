"""Policies: who does what in a simulated game. A policy is a small class; write your own bot by
subclassing `Policy` (see docs/simulate.md) and passing it to `simulate(..., policy=YourPolicy)`.

A policy sees the game only through the engine's public API (`legal_actions`, `alive_seats`,
`phase`, the reports) and the module constants (`ROLES`, `TEAMS`, `ROLE_TEAM`, `ABILITY_INFO`).
"""

from __future__ import annotations

import random
import re

# Words in a private result that read "guilty" (a result preceded by "not" reads innocent).
GUILTY_WORDS = frozenset({"positive", "suspicious", "guilty", "evil"})


class Policy:
    """The interface. One instance plays one game; `rng` is that game's seeded generator."""

    name = "base"

    def __init__(self, engine, seats: list[str], rng: random.Random, act: float = 1.0):
        self.engine = engine
        self.seats = seats  # roles as dealt, seat 1 first (index 0 = seat 1)
        self.rng = rng
        self.act = act
        team_of = dict(zip(engine.ROLES, engine.ROLE_TEAM, strict=True))
        # a seat's team as dealt; -1 for an independent role
        self.team = [None] + [team_of[r] for r in seats]

    def night(self, game) -> list[list]:
        """The night's actions, each as `resolve_night` takes it."""
        raise NotImplementedError

    def day(self, game) -> dict:
        """The keyword arguments of `resolve_day`."""
        raise NotImplementedError

    def observe(self, game, report: dict) -> None:
        """Called with every report the game produced (optional)."""

    def decide(self, game, seat: int, entries: list) -> list:
        """A decision a trigger asks for (`call`): one of `legal_actions(seat)`'s entries, where
        `[seat, ability]` declines. By default the ability is used with probability `act` on a
        uniformly random option."""
        use = [e for e in entries if len(e) > 2]
        if use and (self.act >= 1.0 or self.rng.random() < self.act):
            return concrete(use, self.rng)
        decline = next((list(e) for e in entries if len(e) == 2), None)
        if decline is None:  # (a decision that cannot be declined)
            return concrete(use, self.rng)
        return decline  # (also a decision with no legal target: nothing to use it on)

    # -------------------------------------------------------------- shared helpers
    def _pick_actions(self, game, seats, prefer=None) -> list[list]:
        """For each seat, each of its abilities is used with probability `act` on a uniformly
        random legal action (or, if `prefer(seat, actions)` returns a non-empty list, on one
        of those). Of abilities that exclude each other, one drawn at random is kept: per seat
        (`exclusive`), then at the table (`table_exclusive`). By day, vote-time abilities are
        left out: the vote's outcome is given directly (`eliminate`), and they need a counted
        vote."""
        out = []
        rng, act = self.rng, self.act
        info = self.engine.ABILITY_INFO
        day = game.phase != "night"
        for seat in seats:
            legal = game.legal_actions(seat)
            if not legal:  # (most seats, by day)
                continue
            by_ability: dict[str, list] = {}
            for a in legal:
                if day and info[a[1]]["phase"] == "vote":
                    continue
                by_ability.setdefault(a[1], []).append(a)
            mine = []
            for name in sorted(by_ability):
                if act < 1.0 and rng.random() >= act:
                    continue
                options = by_ability[name]
                if prefer is not None:
                    options = prefer(seat, options) or options
                mine.append(concrete(options, rng, bool(info[name]["choices"])))
            out += self._one_per_group(mine, "exclusive_with")
        return self._one_per_group(out, "table_exclusive_with")

    def _one_per_group(self, actions: list[list], key: str) -> list[list]:
        """The actions with, of those whose abilities exclude each other (ABILITY_INFO[key]: a
        group's members exclude each other), one drawn uniformly at random; order kept."""
        if len(actions) < 2:
            return actions
        info = self.engine.ABILITY_INFO
        groups: dict[frozenset, list[int]] = {}
        for i, a in enumerate(actions):
            others = info[a[1]].get(key, ())  # (an engine built before the key: none)
            if others:
                groups.setdefault(frozenset(others + (a[1],)), []).append(i)
        drop: set[int] = set()
        for members in groups.values():
            if len(members) > 1:
                kept = self.rng.choice(members)
                drop.update(i for i in members if i != kept)
        return [a for i, a in enumerate(actions) if i not in drop] if drop else actions

    def _quiet_day(self, game) -> bool:
        return game.day in self.engine.QUIET_DAYS or not getattr(self.engine, "VOTE", True)


class RandomPolicy(Policy):
    """The textbook model: each day a uniformly random living player is eliminated; each ability
    is used with probability `act` on a uniformly random legal action (so a team's night kill
    picks a uniformly random legal target). Trials, cards, runoffs and skip tokens are never
    used: the day's outcome is given directly with `eliminate`."""

    name = "random"

    def night(self, game):
        # every seat: the dead too, for abilities of the dead (legal_actions lists nothing for a
        # dead seat in a spec without them)
        if hasattr(game, "draw_actions"):  # the engine's playout API: the same policy, drawn
            return game.draw_actions(self.rng, self.act)  # without listing every action
        return self._pick_actions(game, range(1, len(self.seats) + 1))

    def day(self, game):
        kw: dict = {}
        if hasattr(game, "draw_actions"):
            acts = game.draw_actions(self.rng, self.act)
        else:
            acts = self._pick_actions(game, game.alive_seats())
        if acts:
            kw["actions"] = acts
        if not self._quiet_day(game):
            kw["eliminate"] = self.rng.choice(game.alive_seats())
        return kw


class InformedPolicy(Policy):
    """Players use what they know (a baseline, not an AI):

    - a private result that reads guilty (a team id of another team, a role id of another team,
      or one of GUILTY_WORDS, not preceded by "not") makes its receiver claim it publicly: the
      target becomes a public suspect and the receiver a claimed investigator;
    - by day every living player votes: the town for a living public suspect if there is one,
      else for a random other player; the mafia (every seat of a team with two or more seats
      that is not the largest team) never vote for each other and vote for a claimed
      investigator first; the plurality leaves (ties drawn at random);
    - by night, abilities of the informed minority target claimed investigators first (known
      threats); abilities that protect (per ABILITY_INFO `effects`) target claimed
      investigators first; everything else is as in `random`.
    """

    name = "informed"

    def __init__(self, engine, seats, rng, act=1.0):
        super().__init__(engine, seats, rng, act)
        sizes: dict = {}
        for t in self.team[1:]:
            sizes[t] = sizes.get(t, 0) + 1
        largest = max(sizes, key=lambda t: (sizes[t], -t if t is not None else 0))
        # the informed minority: teams other than the largest that know each other
        self.minority = {t for t, k in sizes.items() if t != largest and t is not None and t >= 0}
        self.suspects: set[int] = set()
        self.claimed: set[int] = set()
        self.last_target: dict[int, int] = {}
        self.protects = {k for k, v in engine.ABILITY_INFO.items() if "protect" in v["effects"]}

    def _prefer(self, seat, options):
        if not self.claimed:
            return None
        minority = self.team[seat] in self.minority
        protects = options[0][1] in self.protects  # legal_actions names abilities by full id
        if minority or protects:
            return [a for a in options if len(a) > 2 and a[2] in self.claimed and a[2] != seat]
        return None

    def night(self, game):
        acts = self._pick_actions(game, game.alive_seats(), self._prefer)
        for a in acts:
            if len(a) > 2 and isinstance(a[2], int):
                self.last_target[a[0]] = a[2]
        return acts

    def day(self, game):
        kw: dict = {}
        acts = self._pick_actions(game, game.alive_seats())
        if acts:
            kw["actions"] = acts
        if self._quiet_day(game):
            return kw
        alive = game.alive_seats()
        living_suspects = [s for s in sorted(self.suspects) if s in alive]
        tally: dict[int, int] = {}
        for v in alive:
            if self.team[v] in self.minority:
                pool = [s for s in alive if self.team[s] != self.team[v]]
                first = [s for s in pool if s in self.claimed]
                choice = self.rng.choice(first or pool) if pool else v
            else:
                pool = [s for s in living_suspects if s != v] or [s for s in alive if s != v]
                choice = self.rng.choice(pool) if pool else v
            tally[choice] = tally.get(choice, 0) + 1
        top = max(tally.values())
        kw["eliminate"] = self.rng.choice(sorted(s for s, k in tally.items() if k == top))
        return kw

    def observe(self, game, report):
        for seat, results in report.get("private", {}).items():
            seat = int(seat)
            target = self.last_target.get(seat)
            if target is None or self.team[seat] in self.minority:
                continue
            if any(_reads_guilty(self.engine, text, self.team[seat]) for text in results):
                self.suspects.add(target)
                self.claimed.add(seat)


def concrete(entries: list, rng: random.Random, choices: bool = True) -> list:
    """A uniformly random concrete action among `legal_actions` entries in the compact form (a
    choice slot holding a tuple of every accepted id stands for one action per id). With
    `choices=False` (the ability has no `choose` line) every entry is already concrete."""
    if not choices:
        return list(rng.choice(entries))
    sizes = []
    for e in entries:
        k = 1
        for x in e:
            if isinstance(x, tuple):
                k *= len(x)
        sizes.append(k)
    entry = entries[0] if len(entries) == 1 else rng.choices(entries, weights=sizes)[0]
    return [rng.choice(x) if isinstance(x, tuple) else x for x in entry]


_WORD = re.compile(r"[a-z_]+")


def _reads_guilty(engine, text: str, own_team) -> bool:
    words = _WORD.findall(str(text).lower())
    if "not" in words:
        return False
    for w in words:
        if w in GUILTY_WORDS:
            return True
        if w in engine.TEAMS and engine.TEAMS.index(w) != own_team:
            return True
        if w in engine.ROLES and engine.ROLE_TEAM[engine.ROLES.index(w)] not in (own_team,):
            return engine.ROLE_TEAM[engine.ROLES.index(w)] >= 0
    return False


POLICIES = {p.name: p for p in (RandomPolicy, InformedPolicy)}
