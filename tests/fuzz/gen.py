"""Input generators for the fuzz suite. Plain functions of a ``random.Random`` (so the campaign
and hypothesis share them), plus a hypothesis strategy derived from the real grammar file.

Nothing here hard-codes the grammar: keywords, terminals and shipped specs are read at run time,
so constructs added later are fuzzed too.
"""
from __future__ import annotations

import functools
import importlib.resources
import random
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]

# names that collide under a careless mangler, shadow Python, or reach the runtime's namespace
NAME_POOL = ["a", "b", "x", "y", "a_b", "b_c", "a__b", "if", "if_", "if__", "card", "zap", "_",
             "__", "_a", "a_", "class", "def", "none", "true_", "match", "case", "type", "g",
             "self_", "actor", "ability", "seat", "v_x", "r_a", "run", "f", "m", "os", "eval",
             "exec", "import", "lambda", "print", "range", "len", "int", "str", "sum", "min_",
             "max_", "roles", "teams", "abilities", "mafia", "city", "shot", "vote_", "game_"]
# texts that try to leave a string or a comment of the generated code
INJECTIONS = ['"""', "'''", "\\", "\\\\", "{{ 7*7 }}", "{% raw %}", "{#", "#", "\n", "\r",
              "\u2028", "\x00", "__import__('os').system('echo pwned')", "'); import os; ('",
              "\\N{BULLET}", "\\u0041", "\udcff", "\ufeff", "\u202e", "ﷺ", "𝔤𝔞𝔪𝔢"]
LINE_BREAKS = ["\u2028", "\u2029", "\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\r", "\r\n"]


@functools.lru_cache(maxsize=1)
def grammar_text() -> str:
    return importlib.resources.files("maf.dsl").joinpath("grammar.lark").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def keywords() -> tuple[str, ...]:
    """Every keyword of the grammar (quoted words), read from the grammar file."""
    return tuple(sorted(set(re.findall(r'"([a-z_][a-z0-9_]*)"', grammar_text()))))


@functools.lru_cache(maxsize=1)
def shipped_specs() -> tuple[str, ...]:
    return tuple(p.read_text(encoding="utf-8") for p in sorted((ROOT / "specs").glob("*.maf")))


@functools.lru_cache(maxsize=1)
def shipped_scenarios() -> tuple[str, ...]:
    files = sorted((ROOT / "tests" / "scenarios").rglob("*.yaml"))
    return tuple(p.read_text(encoding="utf-8") for p in files[::7])  # a spread, not all


# ------------------------------------------------------------------ grammar-derived specs
def grammar_strategy():
    """Hypothesis strategy: token sequences the grammar derives, built by
    ``hypothesis.extra.lark.from_lark`` from dsl/grammar.lark itself. Keywords and names are
    drawn with spaces around them (else `game x` comes out as the name `gamex`) and names from
    a small pool (so references often resolve and analysis goes deep)."""
    from hypothesis import strategies as st  # noqa: PLC0415
    from hypothesis.extra.lark import from_lark  # noqa: PLC0415
    from lark import Lark  # noqa: PLC0415

    lk = Lark(grammar_text(), parser="lalr", lexer="basic", propagate_positions=False)
    explicit = {}
    for term in lk.terminals:
        pat = term.pattern
        if pat.type == "str" and re.fullmatch(r"[a-z_]+", pat.value):
            explicit[term.name] = st.just(f" {pat.value} ")
    explicit["NAME"] = st.one_of(st.sampled_from(NAME_POOL),
                                 st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)).map(
        lambda s: f" {s} ")
    explicit["INT"] = st.one_of(st.integers(0, 12), st.integers(0, 10 ** 6)).map(
        lambda i: f" {i} ")
    explicit["STRING"] = st.one_of(st.sampled_from(INJECTIONS), st.text(max_size=12)).map(
        lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"')
    return from_lark(lk, start="start", explicit={k: v for k, v in explicit.items()
                                                  if k in {t.name for t in lk.terminals}})


# ------------------------------------------------------------------ mutated specs
def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z_][a-z0-9_]*|\d+|\"(?:[^\"\\\n]|\\.)*\"|//[^\n]*|\s+|.", text)


def mutate_spec(rng: random.Random, text: str | None = None, rounds: int | None = None) -> str:
    """A shipped spec (or `text`) with a few random edits: tokens deleted, duplicated, swapped
    or replaced by names, keywords, numbers, hostile text and line breaks; lines and blocks
    moved; expressions nested; the file cut short."""
    text = text if text is not None else rng.choice(shipped_specs())
    toks = _tokens(text)
    names = [t for t in toks if re.fullmatch(r"[a-z_][a-z0-9_]*", t)] or ["x"]
    for _ in range(rounds or rng.choice((1, 1, 2, 3, 5, 8))):
        if not toks:
            break
        i = rng.randrange(len(toks))
        kind = rng.randrange(12)
        if kind == 0:
            del toks[i]
        elif kind == 1:
            toks.insert(i, toks[rng.randrange(len(toks))])
        elif kind == 2:
            toks[i] = rng.choice(names)
        elif kind == 3:
            toks[i] = " " + rng.choice(keywords()) + " "
        elif kind == 4:
            toks[i] = str(rng.choice((0, 1, 2, 99, 100, 101, 10 ** 4, 10 ** 30, 2 ** 64)))
        elif kind == 5:
            toks[i] = rng.choice(NAME_POOL)
        elif kind == 6:
            toks.insert(i, rng.choice(INJECTIONS) if rng.random() < 0.5 else
                        rng.choice(LINE_BREAKS))
        elif kind == 7:  # a string with hostile text
            s = rng.choice(INJECTIONS)
            toks.insert(i, '"' + s.replace("\\", "\\\\").replace('"', '\\"')
                        .replace("\n", "\\n") + '"')
        elif kind == 8:  # move a line
            lines = "".join(toks).split("\n")
            if len(lines) > 2:
                a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
                lines.insert(b, lines.pop(a))
            toks = _tokens("\n".join(lines))
        elif kind == 9:  # nest an expression
            depth = rng.choice((2, 10, 30, 40, 100, 300))
            op = rng.choice(("not (", "(", "-(", "clamp(", "pick(true, "))
            tail = {"not (": ")", "(": ")", "-(": ")", "clamp(": ", 0, 5)",
                    "pick(true, ": ", 0)"}[op]
            toks.insert(i, op * depth)
            toks.insert(i + 2, tail * depth)
        elif kind == 10:  # duplicate a block of lines
            lines = "".join(toks).split("\n")
            a = rng.randrange(len(lines))
            b = min(len(lines), a + rng.randint(1, 15))
            lines[b:b] = lines[a:b]
            toks = _tokens("\n".join(lines))
        else:  # cut the file
            toks = toks[:i]
    return "".join(toks)


# ------------------------------------------------------------------ names that collide
def names_spec(rng: random.Random) -> tuple[str, dict[str, str]]:
    """A valid spec whose roles, abilities, cards, marks, causes and teams take collision-prone
    names; every ability tells its own full id. Returns (spec, {role: ability id})."""
    pool = list(NAME_POOL)
    rng.shuffle(pool)
    reserved = set(keywords()) | {"self", "true", "false", "alive", "players", "night", "day",
                                  "chaos", "defenders", "skips", "vote", "moderator"}
    pool = [n for n in pool if n not in reserved]
    team_a, team_b = pool[0], pool[1]
    mark, cause = pool[2], pool[3]
    roles = []
    k = 4
    for _ in range(rng.randint(2, 4)):
        roles.append((pool[k], pool[k + 1]))
        k += 2
    # an ability named like another role's dotted id: `a_b.c` against `a.b_c`
    if rng.random() < 0.5 and "_" not in roles[0][0]:
        roles.append((roles[0][0] + "_" + roles[0][1][:1], roles[0][1][1:] or "z"))
    roles = [(r, a) for r, a in dict(roles).items()]
    out = [f'game fz {{\n  name fa "f" en "F"\n  players 7..12\n}}',
           f'team {team_a} {{ name fa "a" en "A" }}', f'team {team_b} {{ name fa "b" en "B" }}',
           f"cause {cause}", f"mark {mark} until dawn"]
    expected = {}
    for r, ab in roles:
        aid = f"{r}.{ab}"
        expected[r] = aid
        out.append(f'role {r} in {team_b} {{\n  name fa "r" en "R"\n  ability {ab} at night {{\n'
                   f'    target tq9: alive(tq9)\n    mark tq9 as {mark}\n    tell "{aid}"\n  }}\n}}')
    out.append(f'role {pool[k]} in {team_a} {{\n  name fa "k" en "K"\n  ability {pool[k + 1]} '
               f'at night {{\n    target tq9: alive(tq9) and team(tq9) != {team_a}\n'
               f'    kill tq9 by {cause}\n  }}\n}}')
    killer = pool[k]
    out.append(f'card {pool[k + 2]} {{\n  name fa "c" en "C"\n  tell "card.{pool[k + 2]}"\n}}')
    n = len(roles) + 3
    out.append(f"setup 7..12: {killer}, " + ", ".join(r for r, _ in roles) +
               f", {roles[0][0]} * rest")
    out.append(f"win {team_b} when living({team_a}) == 0")
    out.append(f"win {team_a} when living({team_a}) >= alive - living({team_a})")
    del n
    return "\n".join(out) + "\n", expected


# ------------------------------------------------------------------ scenario files
def _junk_value(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([0, 1, 2, 5, 10, -1, 10 ** 30, None, True, "x", "", 1.5, "boss",
                           "shoot", "2020-01-01"])
    if roll < 0.7:
        return [_junk_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["eliminate", "votes", "defense", "trial", "card", "actions", "deaths",
                        "winner", 1, "x"]): _junk_value(rng, depth + 1)
            for _ in range(rng.randint(0, 3))}


SPEC_IDS = ["bazpors", "classic", "online", "takavar", "nope", "../specs/online.maf",
            "a" * 300, "bazpörs", "", "specs/x.maf"]


def scenario_text(rng: random.Random) -> str:
    """A scenario file: a shipped one mutated, or a structure of random legal-ish steps,
    written as YAML, then maybe damaged as text (aliases, tags, nesting, tabs, bytes)."""
    if rng.random() < 0.4:
        data = yaml.safe_load(rng.choice(shipped_scenarios()))
        if isinstance(data, dict) and isinstance(data.get("steps"), list) and data["steps"]:
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(len(data["steps"]))
                step = data["steps"][i]
                if isinstance(step, dict) and rng.random() < 0.6:
                    key = rng.choice(list(step))
                    step[key] = _junk_value(rng)
                else:
                    data["steps"].insert(i, {rng.choice(["day", "night", "kill", "revive"]):
                                             _junk_value(rng)})
    else:
        n = rng.choice((5, 10, 12, 16))
        data = {"spec": rng.choice(SPEC_IDS), "seats": [rng.choice(["boss", "citizen", "doctor",
                                                                    "godfather", 5])
                                                        for _ in range(n)]}
        if rng.random() < 0.5:
            data["seed"] = _junk_value(rng)
        data["steps"] = [{rng.choice(["day", "night", "kill", "revive", "x"]): _junk_value(rng)}
                         for _ in range(rng.randint(0, 6))]
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)
    roll = rng.random()
    if roll < 0.1:
        text += "bomb: &a [1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
            f"b{i}: &a{i} [{', '.join(['*' + ('a' if i == 0 else f'a{i - 1}')] * 9)}]\n"
            for i in range(rng.randint(1, 9)))
    elif roll < 0.15:
        text += "steps2: " + "[" * rng.choice((50, 100, 1000)) + "]" * 1000 + "\n"
    elif roll < 0.2:
        text = text.replace("seed:", "seed: !!binary") if "seed:" in text else text + "x: !!set {}\n"
    elif roll < 0.3:
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(["\t", "&", "*", "!", "%", "{", "[", ":", "---", "\x00",
                                      "\ufeff", "? ", "- "] + LINE_BREAKS) + text[i:]
    elif roll < 0.35:
        text = text[:rng.randrange(len(text) + 1)]
    return text
