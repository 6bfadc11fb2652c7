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
