"""Findings an author can answer (issue 20, item 4): every warning names what to write to settle
it, a `// RULING(Kxxx)` comment at the finding's line settles it, a stated outcome (`runoff tie
none`, `split none`) silences K010, and the shipped specs check with 0 warnings.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from maf.compiler.driver import compile_source
from maf.compiler.verify.check import check_program, check_source
from maf.compiler.verify.check.rulings import cited, ruled
from maf.dsl.diagnostics import CompileError

HERE = Path(__file__).parent
SPECS = HERE / "specs"
ROOT = HERE.parent.parent


def _check(text: str, name: str = "t.maf"):
    return check_source(text, name)


def _warnings(path: Path):
    text = path.read_text(encoding="utf-8")
    return text, [f for f in _check(text, path.name) if f.severity == "warning"]


# one broken fixture per check class that warns
WARNING_SPECS = [
    "k003_guard_pierce",
    "k003_wins",
    "k005_chaos",
    "k005_vote",
    "k007_marks",
    "k008_role",
    "k009_framed",
    "k010_runoff",
    "k010_skips",
    "k010_threshold",
    "k011_half",
]


@pytest.mark.parametrize("name", WARNING_SPECS)
def test_every_warning_names_its_settlement_and_a_ruling_settles_it(name):
    text, ws = _warnings(SPECS / f"{name}.maf")
    assert ws, f"{name}: expected warnings"
    for f in ws:
        assert f.hint and f"RULING({f.code})" in f.hint and f"line {f.span.line}" in f.hint, f.hint
    lines = text.split("\n")
    for f in ws:
        # the ruling as a trailing comment on the finding's line (or inside its `//` comment)
        ln = lines[f.span.line - 1]
        sep = " " if "//" in ln else "  // "
        ruled_text = "\n".join(
            lines[: f.span.line - 1]
            + [ln + sep + f"RULING({f.code}): the rule as intended"]
            + lines[f.span.line :]
        )
        after = _check(ruled_text)
        left = [
            g for g in after if (g.code, g.span.line, g.message) == (f.code, f.span.line, f.message)
        ]
        assert not left, f"{name}: RULING({f.code}) at line {f.span.line} did not settle it"
        # a ruling that cites another code settles nothing
        other = "K001" if f.code != "K001" else "K002"
        wrong = ruled_text.replace(f"RULING({f.code})", f"RULING({other})")
        still = [
            g
            for g in _check(wrong)
            if (g.code, g.span.line, g.message) == (f.code, f.span.line, f.message)
        ]
        assert still, f"{name}: RULING({other}) settled a {f.code}"


def test_ruling_in_the_comment_block_above_settles_and_a_gap_does_not():
    text = (SPECS / "k005_chaos.maf").read_text(encoding="utf-8")
    line = next(ln for ln in text.split("\n") if "chaos when alive == 3" in ln)
    above = text.replace(
        line, "  // RULING(K005, K010): the day repeats\n  // (as written)\n" + line
    )
    assert not [f for f in _check(above) if f.code == "K005"]
    gap = text.replace(line, "  // RULING(K005): the day repeats\n\n" + line)
    assert [f for f in _check(gap) if f.code == "K005"]


def test_errors_are_never_settled_by_a_ruling():
    path = SPECS / "k005_unanimous.maf"
    text = path.read_text(encoding="utf-8")
    errs = [f for f in _check(text) if f.severity == "error"]
    assert errs
    lines = text.split("\n")
    for f in errs:
        lines[f.span.line - 1] += f" // RULING({f.code}): no"
    again = [f for f in _check("\n".join(lines)) if f.severity == "error"]
    assert {(f.code, f.span.line) for f in again} == {(f.code, f.span.line) for f in errs}


def test_cited_codes():
    assert cited("  // RULING(K005): x") == {"K005"}
    assert cited("x // RULING( K005 , K010 ) R9") == {"K005", "K010"}
    assert cited("  // RULING R9: x") == set()  # a ruling id, not a check code
    assert cited('  name en "RULING(K005)"') == set()  # not a comment
    assert ruled(["// RULING(K003)", "kill x by shot piercing"], "K003", 2)
    assert not ruled(["// RULING(K003)", "", "kill x"], "K003", 3)


@pytest.mark.parametrize(
    "name, code", [("k010_runoff", "K010"), ("k010_skips", "K010")], ids=["runoff", "split"]
)
def test_stated_outcome_silences_k010(name, code):
    text = (SPECS / f"{name}.maf").read_text(encoding="utf-8")
    assert [f for f in _check(text) if f.code == code]
    stated = text.replace("    tie runoff\n", "    tie runoff\n    runoff tie none\n").replace(
        "    skips 2\n", "    skips 2\n    split none\n"
    )
    assert stated != text
    assert not [f for f in _check(stated) if f.code == code]


def test_stated_outcomes_are_compile_errors_where_they_mean_nothing():
    base = (SPECS / "k010_runoff.maf").read_text(encoding="utf-8")
    no_runoff = base.replace("    tie runoff\n", "    tie none\n    runoff tie none\n")
    with pytest.raises(CompileError) as e:
        compile_source(no_runoff, "t.maf", generate=False)
    assert "E040" in str(e.value.render()) and "tie runoff" in str(e.value.render())
    chaos = base.replace(
        "day {\n", "day {\n  chaos when alive == 3 { threshold 2 split none tie none }\n"
    )
    with pytest.raises(CompileError) as e:
        compile_source(chaos, "t.maf", generate=False)
    assert "E040" in str(e.value.render()) and "split" in str(e.value.render())


def test_stated_outcomes_do_not_change_the_engine():
    base = (SPECS / "k010_skips.maf").read_text(encoding="utf-8")
    stated = base.replace("    skips 2\n", "    skips 2\n    split none\n")
    a = compile_source(base, "t.maf").python
    b = compile_source(stated, "t.maf").python
    assert a is not None and b is not None

    def code(src: str) -> list[str]:  # the engine without its comments and the spec's hash
        return [
            x.split("  #")[0]
            for x in src.splitlines()
            if not x.lstrip().startswith("#") and "SPEC_SHA256" not in x
        ]

    assert code(a) == code(b)


def test_shipped_specs_have_no_warnings():
    for path in sorted((ROOT / "specs").glob("*.maf")):
        text = path.read_text(encoding="utf-8")
        c = compile_source(text, path.name)
        fs = check_program(c.program, text, c.python)
        assert not fs, (path.name, [(f.code, f.span.line, f.message) for f in fs])
