"""Golden tests for diagnostics: the exact text `compile_source` reports for broken specs.

Format (docs/language.md, "Diagnostics"): `file:line:col: error[E0xx]: message`, the source line
with a gutter, a caret line under the span, notes, then `   = hint: ...`.
"""
import re
from pathlib import Path

import pytest

from maf.compiler.driver import compile_source
from maf.dsl.diagnostics import CompileError

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


def edit(old: str, new: str, base: str = BASE) -> str:
    assert old in base, old
    return base.replace(old, new, 1)


def render(src: str) -> str:
    with pytest.raises(CompileError) as info:
        compile_source(src, "demo.maf")
    return info.value.render()


def test_base_compiles():
    out = compile_source(BASE, "demo.maf")
    assert out.python and "class Game" in out.python


# ---------------------------------------------------------------- the golden cases, as data
# tests/diagnostics/*.test: each `[case NAME]` is a whole spec (compiled as demo.maf), and its
# `[out]` block is exactly what maf reports (compare mypy's test-data/*.test files)
DATA = Path(__file__).parent / "diagnostics"
_CASE = re.compile(r"^\[case (\w+)\]\n(.*?)^\[out\]\n(.*?)(?=^\[case |\Z)", re.S | re.M)


def golden_cases() -> dict[str, tuple[str, str]]:
    """`file::case` -> (spec, expected report), from every data file."""
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(DATA.glob("*.test")):
        for m in _CASE.finditer(path.read_text(encoding="utf-8")):
            key = f"{path.stem}::{m[1]}"
            assert key not in out, f"{key} twice"
            out[key] = (m[2], m[3].rstrip("\n"))
    return out


GOLDEN_CASES = golden_cases()


@pytest.mark.parametrize("case", sorted(GOLDEN_CASES))
def test_golden(case):
    src, want = GOLDEN_CASES[case]
    assert render(src) == want


def test_the_data_files_are_read_whole():
    """Every case of every file is found (a malformed case would be skipped silently)."""
    for path in sorted(DATA.glob("*.test")):
        text = path.read_text(encoding="utf-8")
        assert len(re.findall(r"^\[case ", text, re.M)) == sum(1 for k in GOLDEN_CASES if k.startswith(path.stem + "::"))
    assert len(GOLDEN_CASES) >= 55


def test_several_errors_collected_in_one_run():
    src = (BASE.replace("cause shot\n", "cause shot\ncause shot\n")
               .replace("team(x) != mafia", "team(x) != 3")
               .replace("living(mafia) == 0", "living(mafa) == 0"))
    with pytest.raises(CompileError) as info:
        compile_source(src, "demo.maf")
    err = info.value
    assert [d.code for d in err.diagnostics] == ["E010", "E021", "E020"]
    assert err.render() == """\
demo.maf:8:7: error[E010]: cause `shot` is defined twice
   8 | cause shot
             ^^^^
demo.maf:7:7: note: first defined here
   7 | cause shot
             ^^^^
demo.maf:12:39: error[E021]: expected a team, found a number
  12 |     target x: alive(x) and team(x) != 3
                                             ^
demo.maf:18:22: error[E020]: undefined team `mafa`
  18 | win city when living(mafa) == 0
                            ^^^^
   = hint: did you mean `mafia`?"""
    assert str(err) == "3 error(s)"


def test_setup_errors_for_each_size_are_all_reported():
    src = edit("citizen * rest", "citizen")
    with pytest.raises(CompileError) as info:
        compile_source(src, "demo.maf")
    msgs = [d.message for d in info.value.diagnostics]
    assert msgs == [f"setup lists 2 seats for a table of {n}" for n in (5, 6, 7, 8)]


# ------------------------------------------------------------------ robustness
HOSTILE_INPUTS = {
    "empty": "",
    "only_comment": "// nothing here\n",
    "garbage": "}}}{{{ ::: ,,, .. ## @@",
    "unicode_identifiers": "game بازی { players 5..8 }\nrole نقش in تیم { }\n",
    "unicode_everywhere": "رول ﷽ 𝔤𝔞𝔪𝔢 \u202e\u200d",
    "binary": "\x00\x01\x02\xff\xfe\x7f game \x1b[31m",
    "nul_in_block": "game demo {\x00}",
    "bom_then_error": "\ufeff" + edit("living(mafia) == 0", "living(mafai) == 0"),
    "lone_quote": 'game demo { name fa "abc',
    "unbalanced_parens": edit("living(mafia) == 0", "(" * 2000 + "living(mafia) == 0"),
    "deep_not": edit("living(mafia) == 0", "not " * 3000 + "living(mafia) == 0"),
    "deep_minus": edit("== 0", "== " + "-" * 5000 + "0"),
    "deep_blocks": edit("kill x by shot", "if alive(x) { " * 2000 + "}" * 2000),
    "long_line": "game " + "a" * 100000,
    "truncated": BASE[: len(BASE) // 2],
    "surrogates": 'game demo { name fa "\ud800" }',
}


@pytest.mark.parametrize("name", sorted(HOSTILE_INPUTS))
def test_bad_input_raises_only_compile_error(name):
    with pytest.raises(CompileError) as info:
        compile_source(HOSTILE_INPUTS[name], "bad.maf")
    err = info.value
    assert err.diagnostics, "a CompileError carries at least one diagnostic"
    text = err.render()
    assert text.startswith("bad.maf:")
    assert "error[E0" in text
    assert all(d.code.startswith("E0") for d in err.diagnostics)


def test_deeply_nested_parentheses_compile_or_report():
    """~2000 levels of parentheses: either compiles or reports E004; never a traceback."""
    src = edit("living(mafia) == 0", "(" * 2000 + "living(mafia) == 0" + ")" * 2000)
    try:
        out = compile_source(src, "deep.maf")
    except CompileError as e:
        assert [d.code for d in e.diagnostics] == ["E004"]
    else:
        assert "class Game" in out.python


def test_crlf_and_tabs_are_whitespace():
    out = compile_source(BASE.replace("\n", "\r\n").replace("  ", "\t"), "demo.maf")
    assert out.program.id == "demo"


# ---- issue 7, night interactions: misplaced reactions and hooks, reaction names out of place


# `doc LANG "..."` (rulebook text for `maf doc`): one per language, tags like `name`'s


# ---------------------------------------------------------------- game-level constructs (issue 7, B2)
CIT = 'role citizen in city { name fa "شهروند" en "Citizen" }'


# Parse errors (issue 24): the documented code for a negative number, the opener a missing
# closer leaves open, and no internal terminal name in "expected ..."


def test_no_internal_terminal_name_in_expected():
    from maf.dsl.parser import _token_text, lark_parser

    for t in lark_parser().terminals:
        text = _token_text(t.name)
        if t.pattern.type == "str":
            assert text == repr(t.pattern.value), t.name
        else:
            assert t.name not in text and repr(t.name.lower()) not in text, (t.name, text)
    # after `uses 1 per game` lark expects the regex terminals ON_SELF and IN_NIGHTS: they read as
    # what a user writes
    msg = render(edit("    target x:", "    uses 1 per game 5\n    target x:"))
    assert msg.splitlines()[0] == (
        "demo.maf:11:21: error[E003]: unexpected '5'; expected 'in N nights', 'on self', '}', "
        "a name"
    )


def test_a_typo_inside_a_block_gets_no_unclosed_note():
    msg = render(edit("    kill x by shot\n", "    kill x by\n"))
    assert "never closed" not in msg and "missing its" not in msg, msg


# a misspelt keyword gets a did-you-mean (issue 24 item 5)
