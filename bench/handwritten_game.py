"""A hand-written, minimal game loop for Bazpors at 10 players (specs/bazpors.maf), playing the
random policy of `maf simulate --policy random`: the baseline of bench/bench_simulate.py.

What a programmer would write to play random legal Bazpors games fast, without a compiler and
without an engine API: flat per-seat lists, the 10-player setup hard-coded, actions drawn legal
by construction (nothing is validated), the night resolved in tier order. The policy is the
simulator's: the 10-player setup shuffled; day 1 (the introduction) and night 1 are quiet; each
later day a uniformly random living player is eliminated (a trial the interrogator scheduled is
announced and nobody leaves by it); each night every ability a living seat may use is used on a
uniformly random legal action, and the boss, who may shoot or recruit (yakuza), does one of the
two at random. Wins are checked at dawn. `python bench/handwritten_game.py [GAMES]` plays games
and prints the city's win rate (bench_simulate.py compares it with maf's). Not part of the
product.
"""

from __future__ import annotations

import random
import sys
import time

ROLES = ("boss", "nato", "trickster", "mafia", "interrogator", "doctor", "detective",
         "bulletproof", "researcher", "sniper", "citizen")
BOSS, NATO, TRICKSTER, MAFIA, INTERROGATOR, DOCTOR, DETECTIVE, BULLETPROOF, RESEARCHER, SNIPER, \
    CITIZEN = range(11)
SETUP_10 = (BOSS, NATO, TRICKSTER, DOCTOR, DETECTIVE, BULLETPROOF, INTERROGATOR, RESEARCHER,
            CITIZEN, CITIZEN)
IS_MAFIA = (True, True, True, True, False, False, False, False, False, False, False)
SHOT_CHAIN = (BOSS, NATO, TRICKSTER, MAFIA)  # who holds the mafia's shot, in order
NROLES = len(ROLES)
MAX_DAYS = 50


def play(rng: random.Random) -> str | None:
    """One game; the winning team ('city', 'mafia'), or None when unfinished."""
    role = [-1, *SETUP_10]
    seats = role[1:]
    rng.shuffle(seats)
    role[1:] = seats
    n = len(seats)
    alive = [False] + [True] * n
    yakuza_used = guess_used = interrogate_used = False
    self_saves = 0
    link = 0  # the researcher's linked seat
    trial = None  # the pair the interrogator put on trial for the next day
    day = 2  # day 1 and night 1 are quiet: nothing happens
    randrange, choice = rng.randrange, rng.choice
    while day <= MAX_DAYS:
        # ---------------------------------------------------------------- the day
        living = [s for s in range(1, n + 1) if alive[s]]
        chaos = len(living) == 3
        if trial is not None:
            a, b = trial
            if not alive[a] or not alive[b] or chaos:
                interrogate_used = False  # cancelled: the use is refunded
            trial = None  # announced; nobody leaves by it
        out = choice(living)
        alive[out] = False
        if role[out] == RESEARCHER and not chaos and alive[link] and role[link] in (NATO,
                                                                                      TRICKSTER,
                                                                                      MAFIA):
            alive[link] = False  # the researcher's link, on his death by the vote
        # ---------------------------------------------------------------- the night
        living = [s for s in range(1, n + 1) if alive[s]]
        town = [s for s in living if not IS_MAFIA[role[s]]]
        mafia = [s for s in living if IS_MAFIA[role[s]]]
        shooter = 0
        for r in SHOT_CHAIN:
            for s in mafia:
                if role[s] == r:
                    shooter = s
                    break
            if shooter:
                break
        shot = sacrifice = convert = guess = tricked = saved = 0
        guess_role = -1
        inquirer = linker = 0
        inquired = linked = 0
        pair = None
        boss_acted = False
        for s in living:
            r = role[s]
            if s == shooter or r == BOSS:
                can_shoot = s == shooter and town
                may = [m for m in mafia if m != s] or ([s] if len(mafia) == 1 else [])
                can_yakuza = r == BOSS and not yakuza_used and may and town
                if can_shoot and can_yakuza:
                    use_yakuza = randrange(2) == 1
                else:
                    use_yakuza = bool(can_yakuza)
                if use_yakuza:
                    sacrifice, convert = choice(may), choice(town)
                    yakuza_used = boss_acted = True
                elif can_shoot:
                    shot = choice(town)
                    boss_acted = r == BOSS
            if r == NATO and not guess_used and town:
                guess, guess_role = choice(town), randrange(NROLES)
                guess_used = True
            elif r == TRICKSTER:
                tricked = choice(living)
            elif r == DETECTIVE and len(living) > 1:
                inquirer = s
                inquired = choice([x for x in living if x != s])
            elif r == DOCTOR:
                options = living if self_saves < 2 else [x for x in living if x != s]
                saved = choice(options)
                self_saves += saved == s
            elif r == RESEARCHER and len(living) > 1:
                linker, linked = s, choice([x for x in living if x != s])
            elif r == INTERROGATOR and not interrogate_used and len(living) > 2:
                others = [x for x in living if x != s]
                a = choice(others)
                b = choice([x for x in others if x != a])
                pair = (a, b)
                interrogate_used = True
        # resolution, in tier order: shot and yakuza, guess, trick, inquiry, save, link, trial
        kills = []
        if shot:
            kills.append((shot, "shot"))
        if sacrifice:
            if role[convert] == CITIZEN:
                role[convert] = MAFIA
            kills.append((sacrifice, "sacrifice"))
        if guess and not boss_acted and role[guess] == guess_role:
            kills.append((guess, "guess"))
        if inquirer:  # the detective's answer: read, as the engine's report carries it
            _ = tricked in (inquired, inquirer) or role[inquired] == BOSS \
                or not IS_MAFIA[role[inquired]]
        if linker:
            link = linked
        if pair is not None:
            trial = pair
        for s, cause in kills:
            if not alive[s]:
                continue
            if cause == "shot" and (s == saved or role[s] == BULLETPROOF):
                continue
            alive[s] = False
            if role[s] == RESEARCHER and cause == "shot" and not chaos and alive[link] \
                    and role[link] in (NATO, TRICKSTER, MAFIA):
                kills.append((link, "link"))
        # dawn: the wins
        m = sum(1 for s in range(1, n + 1) if alive[s] and IS_MAFIA[role[s]])
        left = sum(alive)
        if m == 0:
            return "city"
        if m >= left - m:
            return "mafia"
        day += 1
    return None


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    rng = random.Random(1)
    t0 = time.process_time()
    city = sum(play(rng) == "city" for _ in range(games))
    dt = time.process_time() - t0
    print(f"{games} games: {games / dt:,.0f} games/s (CPU), city {city / games:.1%}")


if __name__ == "__main__":
    main()
