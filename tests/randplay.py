"""Random games for property and differential tests: tables, nights and days drawn from a seeded
`random.Random`, legal most of the time (through `legal_actions`) and illegal some of the time."""
from __future__ import annotations

import random

from maf.compiler.tools import deal


def random_table(eng, rng: random.Random) -> list[str]:
    """A seat list (role ids) of a fixed setup of the spec, shuffled; for a spec with custom
    setups only (`any where`), a random seat list the engine accepts."""
    fixed = deal.fixed_table(eng, rng)
    if fixed is not None:
        return fixed[0]
    seats = deal.custom_table(eng, rng, tries=10_000)
    assert seats is not None, "no random table is accepted by the custom setups"
    return seats


def random_raw_action(eng, g, rng: random.Random) -> list:
    """Any action, legal or not: a seat, an ability id or name, targets and choices."""
    a = rng.randrange(len(eng.ABILITIES))
    name = eng.ABILITIES[a] if rng.random() < 0.5 else eng.AB_NAME[a]
    args = [rng.randint(0, g.n + 1) for _ in range(eng.AB_TARGETS[a] + rng.choice((0, 0, 0, 1, -1)))]
    args = [x for x in args if x is not None]
    for kind in eng.AB_CHOICES[a]:
        args.append(rng.choice(eng.ROLES if kind == "role" else eng.TEAMS + ("nobody",)))
    return [rng.randint(0, g.n + 1), name, *args]


def random_night(eng, g, rng: random.Random, illegal: float = 0.1) -> list:
    """Actions for a night: each living seat uses one of its legal actions with some chance."""
    actions = []
    for s in g.alive_seats():
        legal = g.legal_actions(s, expand=True)
        if legal and rng.random() < 0.7:
            actions.append(rng.choice(legal))
            if rng.random() < 0.15 and len(legal) > 1:
                actions.append(rng.choice(legal))  # a second ability (may clash)
    if rng.random() < illegal:
        actions.insert(rng.randint(0, len(actions)), random_raw_action(eng, g, rng))
    rng.shuffle(actions)
    return actions


def random_day(eng, g, rng: random.Random, illegal: float = 0.1) -> dict:
    """Keyword arguments for `resolve_day`: votes, an elimination, day actions, sometimes junk."""
    alive = g.alive_seats()
    kw: dict = {}
    wait = g.waiting()["inputs"]
    roll = rng.random()
    if "votes" in wait and alive:
        if roll < 0.2:
            kw["eliminate"] = rng.choice(alive)
        elif roll < 0.8:
            votes: dict = {}
            for v in alive:
                if rng.random() < 0.8:
                    votes.setdefault(rng.choice(alive), []).append(v)
            kw["votes"] = votes
            if "defense" in wait and rng.random() < 0.7:
                accused = sorted(votes, key=lambda s: -len(votes[s]))[:2]
                defense: dict = {}
                for v in alive:
                    if rng.random() < 0.7 and accused:
                        defense.setdefault(rng.choice(accused), []).append(v)
                kw["defense"] = defense
    if "trial" in wait and rng.random() < 0.5:
        kw["trial"] = rng.choice(({"cancel": True}, {"eliminate": rng.choice(alive)}))
    if "inquiry" in wait and rng.random() < 0.2:
        kw["inquiry"] = [s for s in alive if rng.random() < 0.6]
    acts = []
    for s in alive:
        legal = g.legal_actions(s, expand=True)
        if legal and rng.random() < 0.2:
            acts.append(rng.choice(legal))
    if acts:
        kw["actions"] = acts
    if rng.random() < illegal:
        junk = rng.choice(("eliminate", "votes", "actions", "card", "breach"))
        kw[junk] = {"eliminate": rng.randint(-1, g.n + 2),
                    "votes": {rng.randint(0, g.n + 1): [rng.randint(0, g.n + 1)]},
                    "actions": [random_raw_action(eng, g, rng)],
                    "card": "nothing",
                    "breach": [rng.randint(0, g.n + 1)]}[junk]
    return kw


def random_game(eng, rng: random.Random, most: int):
    """A game on a random table, played up to `most` random steps (fewer, at random, and none
    after a win): legal and illegal nights and days, an illegal step leaving it as it was."""
    g = eng.Game.new(random_table(eng, rng), seed=rng.randrange(50))
    for _ in range(rng.randint(0, most)):
        if g.winner is not None:
            break
        try:
            if g.phase == "night":
                g.resolve_night(random_night(eng, g, rng))
            else:
                g.resolve_day(**random_day(eng, g, rng))
        except eng.IllegalAction:
            pass
    return g
