"""A hand-written resolver of the Bazpors night (specs/bazpors.maf), for bench/bench_bazpors.py.

What a careful programmer would write for this one game, without a compiler: the same action
lists as the generated engines (`[actor, ability, target..., choice...]`), the same validation
(an illegal action raises and changes nothing), the same resolution order, kills, protection,
immunity, conversion, the researcher's link, the trial, dawn, wins, and the same report dict.
Flat per-seat lists, no tables. bench_bazpors.py checks it gives the engine's reports and
state on every benchmarked night before timing it. Not part of the product.
"""
from __future__ import annotations

ROLES = ("boss", "nato", "trickster", "mafia", "interrogator", "doctor", "detective",
         "bulletproof", "researcher", "sniper", "citizen")
BOSS, NATO, TRICKSTER, MAFIA, INTERROGATOR, DOCTOR, DETECTIVE, BULLETPROOF, RESEARCHER, SNIPER, \
    CITIZEN = range(11)
MAFIA_ROLES = (BOSS, NATO, TRICKSTER, MAFIA)
SHOT_CHAIN = (BOSS, NATO, TRICKSTER, MAFIA)  # who holds the mafia's shot, in order
# ability kinds, in resolution order (the spec's tiers)
SHOOT, YAKUZA, GUESS, TRICK, INQUIRE, SAVE, LINK, INTERROGATE, SNIPE = range(9)
FULL = ("boss.shoot", "boss.yakuza", "nato.guess", "trickster.trick", "detective.inquire",
        "doctor.save", "researcher.link", "interrogator.interrogate", "sniper.shoot")
# (role, name) -> kind, for a seat's own abilities
OWN = {(BOSS, "shoot"): SHOOT, (BOSS, "boss.shoot"): SHOOT, (BOSS, "yakuza"): YAKUZA,
       (BOSS, "boss.yakuza"): YAKUZA, (NATO, "guess"): GUESS, (NATO, "nato.guess"): GUESS,
       (TRICKSTER, "trick"): TRICK, (TRICKSTER, "trickster.trick"): TRICK,
       (DETECTIVE, "inquire"): INQUIRE, (DETECTIVE, "detective.inquire"): INQUIRE,
       (DOCTOR, "save"): SAVE, (DOCTOR, "doctor.save"): SAVE, (RESEARCHER, "link"): LINK,
       (RESEARCHER, "researcher.link"): LINK, (INTERROGATOR, "interrogate"): INTERROGATE,
       (INTERROGATOR, "interrogator.interrogate"): INTERROGATE, (SNIPER, "shoot"): SNIPE,
       (SNIPER, "sniper.shoot"): SNIPE}
ARITY = (1, 2, 2, 1, 1, 1, 1, 2, 1)  # values after the name (targets and choices)
C_VOTE, C_SHOT, C_GUESS, C_BULLET, C_BACKFIRE, C_SACRIFICE, C_LINK = \
    "vote", "shot", "guess", "bullet", "backfire", "sacrifice", "link"


class Illegal(Exception):
    pass


class HandGame:
    __slots__ = ("n", "role", "alive", "nmafia", "nalive", "night", "day", "phase", "chaos",
                 "winner", "uses_yakuza", "uses_guess", "uses_interrogate", "uses_snipe",
                 "self_saves", "link", "trial", "tricked")

    def __init__(self, roles):
        n = len(roles)
        self.n = n
        self.role = [-1] + list(roles)
        self.alive = [False] + [True] * n
        self.nalive = n
        self.nmafia = sum(1 for r in roles if r in MAFIA_ROLES)
        self.phase, self.day, self.night = "night", 2, 2
        self.chaos = False
        self.winner = None
        self.uses_yakuza = [0] * (n + 1)
        self.uses_guess = [0] * (n + 1)
        self.uses_interrogate = [0] * (n + 1)
        self.uses_snipe = [0] * (n + 1)
        self.self_saves = [0] * (n + 1)
        self.link = [0] * (n + 1)
        self.trial = None
        self.tricked = [False] * (n + 1)

    def _shooter(self):
        role, alive = self.role, self.alive
        for r in SHOT_CHAIN:
            for s in range(1, self.n + 1):
                if role[s] == r and alive[s]:
                    return s
        return 0

    def resolve_night(self, actions):
        if self.winner is not None or self.phase != "night":
            raise Illegal("wrong phase")
        n, role, alive = self.n, self.role, self.alive
        slots = [None] * 9  # one action per kind at most, but per actor for snipe/inquire...
        plan = []
        shooter = -1
        boss_acted = False
        for raw in actions:
            if raw.__class__ is not list and raw.__class__ is not tuple or len(raw) < 2:
                raise Illegal("malformed")
            actor = raw[0]
            if actor.__class__ is not int or not 0 < actor <= n or not alive[actor]:
                raise Illegal("actor")
            kind = OWN.get((role[actor], raw[1]))
            if kind is None:
                if raw[1] in ("shoot", "boss.shoot"):
                    kind = SHOOT
                else:
                    raise Illegal("unknown ability")
            if kind == SHOOT:
                if shooter < 0:
                    shooter = self._shooter()
                if actor != shooter:
                    raise Illegal("not the holder")
            if len(raw) != 2 + ARITY[kind]:
                raise Illegal("arity")
            x = raw[2]
            if x.__class__ is not int or not 0 < x <= n or not alive[x]:
                raise Illegal("target")
            y = 0
            if kind == SHOOT:
                if role[x] in MAFIA_ROLES:
                    raise Illegal("target")
                if role[actor] == BOSS:
                    boss_acted = True
            elif kind == YAKUZA:
                y = raw[3]
                if role[x] not in MAFIA_ROLES or x == actor and self.nmafia != 1 \
                        or self.uses_yakuza[actor] >= 1:
                    raise Illegal("target")
                if y.__class__ is not int or not 0 < y <= n or not alive[y] or role[y] in MAFIA_ROLES:
                    raise Illegal("target")
                boss_acted = True
            elif kind == GUESS:
                y = raw[3]
                if role[x] in MAFIA_ROLES or self.uses_guess[actor] >= 1:
                    raise Illegal("target")
                if y.__class__ is not str or y not in ROLES:
                    raise Illegal("choice")
                y = ROLES.index(y)
            elif kind == INTERROGATE:
                y = raw[3]
                if self.night < 2 or x == actor or self.uses_interrogate[actor] >= 1:
                    raise Illegal("target")
                if y.__class__ is not int or not 0 < y <= n or not alive[y] or y == actor or y == x:
                    raise Illegal("target")
            elif kind == SAVE:
                if x == actor and self.self_saves[actor] >= 2:
                    raise Illegal("self-limit")
            elif kind == SNIPE:
                if x == actor or self.uses_snipe[actor] >= 1:
                    raise Illegal("target")
            elif kind != TRICK and x == actor:  # inquire, link
                raise Illegal("target")
            if slots[kind] is not None and slots[kind][0] == actor:
                raise Illegal("duplicate")
            if kind <= YAKUZA and (slots[SHOOT] is not None and slots[SHOOT][0] == actor
                                   or slots[YAKUZA] is not None and slots[YAKUZA][0] == actor):
                raise Illegal("exclusive")
            slots[kind] = (actor, x, y)
            plan.append((kind, actor, x, y))
        plan.sort()
        # -- commit
        for kind, actor, x, _ in plan:
            if kind == YAKUZA:
                self.uses_yakuza[actor] += 1
            elif kind == GUESS:
                self.uses_guess[actor] += 1
            elif kind == INTERROGATE:
                self.uses_interrogate[actor] += 1
            elif kind == SNIPE:
                self.uses_snipe[actor] += 1
            elif kind == SAVE and x == actor:
                self.self_saves[actor] += 1
        kills = []
        saved = 0
        was_tricked = 0
        tricked = self.tricked
        public, private, changes = [], {}, []
        for kind, actor, x, y in plan:
            if kind == SHOOT:
                kills.append((x, C_SHOT, False))
            elif kind == YAKUZA:
                if role[y] == CITIZEN or role[y] == BULLETPROOF and n == 12:
                    role[y] = MAFIA
                    self.nmafia += 1
                    changes.append({"seat": y, "role": "mafia", "team": "mafia"})
                kills.append((x, C_SACRIFICE, True))
            elif kind == GUESS:
                public.append("nato")
                if not boss_acted and role[x] == y:
                    kills.append((x, C_GUESS, False))
            elif kind == TRICK:
                tricked[x] = True
                was_tricked = x
            elif kind == INQUIRE:
                if tricked[x] or tricked[actor] or role[x] == BOSS:
                    res = "negative"
                elif role[x] in MAFIA_ROLES:
                    res = "positive"
                else:
                    res = "negative"
                private.setdefault(actor, []).append(res)
            elif kind == SAVE:
                saved = x
            elif kind == LINK:
                self.link[actor] = x
            elif kind == INTERROGATE:
                self.trial = (actor, min(x, y), max(x, y))
            else:  # SNIPE
                if role[x] == BOSS:
                    pass
                elif role[x] in MAFIA_ROLES:
                    kills.append((x, C_BULLET, False))
                else:
                    kills.append((actor, C_BACKFIRE, False))
        deaths, causes = [], {}
        i = 0
        while i < len(kills):
            s, cause, piercing = kills[i]
            i += 1
            if not alive[s]:
                continue
            if not piercing and cause == C_SHOT and (s == saved or role[s] == BULLETPROOF):
                continue
            alive[s] = False
            self.nalive -= 1
            if role[s] in MAFIA_ROLES:
                self.nmafia -= 1
            deaths.append(s)
            causes[s] = cause
            if role[s] == RESEARCHER and cause in (C_SHOT, C_VOTE) and not self.chaos:
                t = self.link[s]
                if alive[t] and role[t] in (NATO, TRICKSTER, MAFIA):
                    kills.append((t, C_LINK, True))
        if was_tricked:  # `tricked` lasts until dawn
            tricked[was_tricked] = False
        self.phase = "day"
        self.day += 1
        self.chaos = self.nalive == 3
        m = self.nmafia
        if m == 0:
            self.winner = "city"
        elif m >= self.nalive - m:
            self.winner = "mafia"
        deaths.sort()
        return {"phase": "night", "number": self.night, "deaths": deaths, "causes": causes,
                "public": public, "private": private, "changes": changes, "silenced": [],
                "winner": self.winner, "winners": [self.winner] if self.winner else [],
                "over": self.winner is not None, "timers": {}}
