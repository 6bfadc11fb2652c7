"""Hostile input (issue 13): every reproducer of a silent miscompile, an engine that does not
import, or a traceback, kept as a regression test. The fuzz suite (tests/fuzz/) hunts for new ones.
"""
import keyword

import pytest

from compiler.driver import compile_source, load_engine
from compiler.emit import const, ident, unident
from dsl.diagnostics import CompileError

BASE = """\
game demo {
  name fa "نمونه" en "Demo"
  players 5..8
}
team mafia { name fa "مافیا" en "Mafia" }
team city  { name fa "شهر" en "City" }
cause shot
role godfather in mafia {
  name fa "پدرخوانده" en "Godfather"
  ability shoot at night {
    target x: alive(x) and team(x) != mafia
    kill x by shot
  }
}
role citizen in city { name fa "شهروند" en "Citizen" }
setup 5..8: godfather, citizen * rest
win city when living(mafia) == 0
win mafia when living(mafia) >= alive - living(mafia)
"""


def engine(src: str, name: str = "demo"):
    out = compile_source(src, f"{name}.maf")
    return out, load_engine(out.python, name)


def errors(src: str) -> list:
    with pytest.raises(CompileError) as info:
        compile_source(src, "demo.maf")
    return info.value.diagnostics


# ------------------------------------------------------------------ names are injective
NAMES = ["boss", "if", "if_", "a_b.c", "a.b_c", "", "_", "__", "None", "none", "9lives", "a.",
         "a_0", "a_x41_", "A", "x);import os;(", "رئیس", "__class__", "match", "_e", "e", "type"]


@pytest.mark.parametrize("name", NAMES)
def test_ident_round_trips(name):
    got = ident(name)
    assert got.isidentifier() and got.isascii()
    assert not keyword.iskeyword(got) and not keyword.issoftkeyword(got)
    assert unident(got) == name
    assert const("R", name).isidentifier()


def test_ident_is_injective_on_a_sample():
    seen = {}
    pool = NAMES + [a + sep + b for a in ("a", "a_", "_a", "if", "a.b") for sep in ("_", ".", "__")
                    for b in ("b", "_b", "b_", "0", "if")]
    for n in pool:
        for prefix in ("R", "A"):
            key = const(prefix, n)
            assert seen.setdefault(key, n) == n, (key, n, seen[key])


def test_ability_ids_a_b_dot_c_and_a_dot_b_c_run_their_own_bodies():
    # issue 13: `a_b.c` and `a.b_c` both became `_run_a_b_c`
    src = BASE.replace("""role citizen in city { name fa "شهروند" en "Citizen" }""", """\
role citizen in city { name fa "شهروند" en "Citizen" }
role a_b in city {
  name fa "ا" en "AB"
  ability c at night { target x: alive(x)
    tell "from a_b.c" }
}
role a in city {
  name fa "ب" en "A"
  ability b_c at night { target x: alive(x)
    tell "from a.b_c" }
}""").replace("setup 5..8: godfather, citizen * rest",
              "setup 5..8: godfather, a_b, a, citizen * rest")
    _, mod = engine(src)
    assert len({f.__name__ for f in mod.RUN}) == len(mod.ABILITIES)
    g = mod.Game.new(["godfather", "a_b", "a", "citizen", "citizen"])
    rep = g.resolve_night([[2, "c", 4], [3, "b_c", 4]])
    assert rep["private"] == {2: ["from a_b.c"], 3: ["from a.b_c"]}


def test_roles_if_and_if_underscore_are_distinct():
    # issue 13: roles `if` and `if_` both became R_IF_, so `living_role(if)` never fired
    src = BASE.replace("""role citizen in city { name fa "شهروند" en "Citizen" }""", """\
role citizen in city { name fa "شهروند" en "Citizen" }
role if alone { name fa "ا" en "If" }
role if_ alone { name fa "ب" en "If_" }""").replace(
        "setup 5..8: godfather, citizen * rest", "setup 5..8: godfather, if, if_, citizen * rest"
    ).replace("win city when living(mafia) == 0",
              "win if when living_role(if_) == 0\nwin city when living(mafia) == 0")
    _, mod = engine(src)
    assert mod.R_IF_ != mod.R_IF__
    g = mod.Game.new(["godfather", "if", "if_", "citizen", "citizen"])
    g.resolve_night([[1, "shoot", 3]])
    assert g.winner == "if"


def test_card_id_clash_is_a_diagnostic_naming_both_places():
    # issue 13: role `card` + ability `zap` next to a card `zap` gave two abilities `card.zap`
    src = BASE.replace("""role citizen in city { name fa "شهروند" en "Citizen" }""", """\
role citizen in city { name fa "شهروند" en "Citizen" }
role card in city {
  name fa "ک" en "Card"
  ability zap at night { target x: alive(x)
    tell "role" }
}
card zap {
  name fa "ز" en "Zap"
  tell "card"
}""").replace("setup 5..8: godfather, citizen * rest", "setup 5..8: godfather, card, citizen * rest")
    diags = errors(src)
    clash = [d for d in diags if "card.zap" in d.message]
    assert len(clash) == 1 and clash[0].code == "E010"
    lines = src.splitlines()
    assert lines[clash[0].span.line - 1].startswith("card zap")
    assert "ability zap" in lines[clash[0].notes[0][1].line - 1]


# ------------------------------------------------------------------ what compiles also imports
from dsl import limits  # noqa: E402

ABILITY = """\
role citizen in city {
  name fa "شهروند" en "Citizen"
  ability look at night {
    target x: alive(x)
BODY
  }
}"""


def with_body(body: str) -> str:
    return BASE.replace("""role citizen in city { name fa "شهروند" en "Citizen" }""",
                        ABILITY.replace("BODY", body))


def with_win(cond: str) -> str:
    return BASE.replace("win city when living(mafia) == 0", f"win city when {cond}")


def nested_clamp(depth: int) -> str:
    """An int expression `depth` levels deep whose Python code nests two brackets per level."""
    e = "1"
    for _ in range(depth - 1):
        e = f"clamp({e}, 0, 5)"
    return e


def nested_not(depth: int) -> str:
    e = "alive(1)" if False else "true"
    for _ in range(depth - 1):
        e = f"not ({e})"
    return e


def nested_blocks(depth: int, kind: str) -> str:
    lines, var = [], 0
    for k in range(depth):
        if kind == "each":
            lines.append("  " * k + f"each y{k}: alive(y{k}) {{")
        else:
            lines.append("  " * k + "if alive(x) {")
    lines.append("  " * depth + 'tell "deep"')
    lines += ["  " * k + "}" for k in reversed(range(depth))]
    return "\n".join(lines)


def imports(src: str):
    out = compile_source(src, "deep.maf")
    return load_engine(out.python, "deep")


AT_LIMIT = {
    "clamp": lambda n: with_win(f"{nested_clamp(n - 1)} == 0"),
    "not": lambda n: with_win(nested_not(n)),
    "if": lambda n: with_body(nested_blocks(n, "if")),
    "each": lambda n: with_body(nested_blocks(n, "each")),
    "and-chain": lambda n: with_win(" and ".join(["living(mafia) == 0"] * n)),
    "plus-chain": lambda n: with_win(" + ".join(["living(mafia)"] * n) + " == 0"),
    "minus-chain": lambda n: with_win(" - ".join(["living(mafia)"] * n) + " == 0"),
    "div-chain": lambda n: with_win(" / ".join(["living(mafia)"] * n) + " == 0"),
}
LIMIT = {"clamp": limits.MAX_EXPR_DEPTH, "not": limits.MAX_EXPR_DEPTH,
         "if": limits.MAX_BLOCK_DEPTH, "each": limits.MAX_BLOCK_DEPTH,
         "and-chain": limits.MAX_TREE_DEPTH - 4, "plus-chain": limits.MAX_TREE_DEPTH - 4,
         "minus-chain": limits.MAX_TREE_DEPTH - 4, "div-chain": limits.MAX_EXPR_DEPTH - 2}


@pytest.mark.parametrize("kind", sorted(AT_LIMIT))
def test_nesting_at_the_limit_compiles_checks_and_imports(kind):
    from compiler.check import check_source  # noqa: PLC0415
    src = AT_LIMIT[kind](LIMIT[kind])
    mod = imports(src)
    g = mod.Game.new(["godfather"] + ["citizen"] * 4)
    g.resolve_night([[1, "shoot", 2]])
    check_source(src, "deep.maf")  # the checker walks the same trees: no RecursionError


@pytest.mark.parametrize("kind,over", [("clamp", 1), ("not", 1), ("if", 1), ("each", 1),
                                       ("and-chain", 8), ("plus-chain", 8), ("div-chain", 1),
                                       ("if", 200), ("and-chain", 3000), ("not", 600)])
def test_nesting_past_the_limit_is_e004_with_a_span(kind, over):
    src = AT_LIMIT[kind](LIMIT[kind] + over)
    diags = errors(src)
    assert [d.code for d in diags] == ["E004"]
    assert diags[0].span.line > 1 and diags[0].span.file == "demo.maf"


def test_issue_reproducers_200_deep_expression_and_99_nested_ifs():
    for src in (with_win(nested_not(200)), with_body(nested_blocks(99, "if"))):
        assert errors(src)[0].code == "E004"


def test_card_with_a_parameter_twice_is_e010():
    for params in ("target x: alive(x)\n  target x: alive(x)",
                   "target x: alive(x)\n  choose x: role",
                   "choose r: role\n  choose r: team",
                   "target self: alive(self)"):
        src = BASE + f'card zap {{\n  name fa "ز" en "Zap"\n  {params}\n  tell "z"\n}}\n'
        diags = errors(src)
        assert any(d.code == "E010" for d in diags), (params, diags)
