"""`maf check`: every check class has broken specs (code + line asserted) and a clean near-miss.

Fixtures live in tests/check/specs/. A line ending in `// expect KXXX` must carry a finding of
that code; `kXXX_ok.maf` files are near-misses that must stay free of errors and of their own
check's findings.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from maf.compiler.verify.check import check_program, run_checks
from maf.compiler.verify.check.k002_ambiguous import swapped_engine
from maf.compiler.driver import compile_file, load_engine

HERE = Path(__file__).parent
SPECS = HERE / "specs"
ROOT = HERE.parent.parent
BROKEN = sorted(p for p in SPECS.glob("k*.maf") if not p.stem.endswith("_ok"))
CLEAN = sorted(SPECS.glob("k*_ok.maf"))


def findings(path):
    c = compile_file(path)
    return check_program(c.program, path.read_text(encoding="utf-8"), c.python), c


def expected(path):
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for code in re.findall(r"expect (K\d{3})", line):
            out.append((code, i))
    return out


@pytest.mark.parametrize("path", BROKEN, ids=[p.stem for p in BROKEN])
def test_broken_spec_reports_code_and_line(path):
    fs, _ = findings(path)
    want = expected(path)
    assert want, f"{path.name} has no `// expect` marker"
    got = {(f.code, f.span.line) for f in fs}
    for code, line in want:
        assert (code, line) in got, f"{path.name}: expected {code} at line {line}, got {sorted(got)}"


@pytest.mark.parametrize("path", CLEAN, ids=[p.stem for p in CLEAN])
def test_near_miss_stays_clean(path):
    fs, _ = findings(path)
    code = "K" + path.stem[1:4]
    assert not [f for f in fs if f.severity == "error"], [f.message for f in fs]
    assert not [f for f in fs if f.code == code], [f.message for f in fs]


def test_every_check_class_has_two_broken_specs_and_a_near_miss():
    from maf.compiler.verify.check import CHECKS
    for code, _, _ in CHECKS:
        broken = [p for p in BROKEN if any(c == code for c, _ in expected(p))]
        assert len(broken) >= 2, code
        clean = [p for p in CLEAN if p.stem.startswith(code.lower())]
        assert clean, code


# Documented warnings of shipped specs (docs/checks.md, "Shipped specs"): none today.
def _line_of(spec: str, text: str) -> int:
    lines = (ROOT / "specs" / spec).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line)


# the warnings each shipped spec may carry, as documented in docs/checks.md: none, every
# outcome is stated (a construct, or a `// RULING(Kxxx)`; tests/check/test_settle.py)
DOCUMENTED: dict[str, set[tuple[str, int]]] = {
    "bazpors.maf": set(),
    "classic.maf": set(),
    "online.maf": set(),
    "takavar.maf": set(),
    "tos.maf": set(),
}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_shipped_specs_have_no_errors(name):
    for spec in [ROOT / "specs" / name]:
        fs, _ = findings(spec)
        assert not [f for f in fs if f.severity == "error"], [f.message for f in fs]
        allowed = DOCUMENTED.get(spec.name, set())
        assert {(f.code, f.span.line) for f in fs if f.severity == "warning"} <= allowed


@pytest.mark.parametrize("name", ["k002_marks.maf", "k002_convert.maf", "k002_steal.maf",
                                  "k002_choice.maf", "k002_custom.maf"])
def test_k002_witness_replays_differently(name):
    """Replay the reported witness night through the generated engine, both orders."""
    fs, c = findings(SPECS / name)
    f = next(f for f in fs if f.code == "K002")
    assert f.severity == "error" and f.witness
    w = f.witness
    prog = c.program
    a = next(x for x in prog.abilities if x.id == w["actions"][0][1])
    b = next(x for x in prog.abilities if x.id == w["actions"][1][1])
    reports = []
    for swap in (False, True):
        mod = swapped_engine(c.python, "t", a.idx, b.idx) if swap else load_engine(c.python, "t")
        g = mod.Game.new(w["seats"])
        g.phase, g.night = "night", w["night"]
        if w.get("gone_before"):
            g.moderator_kill(w["gone_before"])
            g.phase = "night"
        reports.append(g.resolve_night([list(x) for x in w["actions"]]))
    assert reports[0] != reports[1]


def test_k004_trace_replays_in_abstraction():
    """Reachable wins come with a shortest trace (checked on the clean spec)."""
    from maf.compiler.verify.check import k004_reach
    from maf.compiler.verify.check.model import Context
    c = compile_file(SPECS / "k004_ok.maf")
    ctx = Context(c.program, (SPECS / "k004_ok.maf").read_text(encoding="utf-8"), c.python)
    assert k004_reach.run(ctx) == []
    city = ctx.traces[(5, None, 0)]
    assert city == ["day: the vote eliminates a boss"]


def test_k008_setup_not_adding_up_on_ir():
    from dataclasses import replace
    c = compile_file(SPECS / "k008_ok.maf")
    p = c.program
    s0 = p.setups[0]
    bad = replace(s0, counts=s0.counts[:-1])
    prog = replace(p, setups=(bad,) + p.setups[1:])
    fs = check_program(prog, (SPECS / "k008_ok.maf").read_text(encoding="utf-8"), None,
                       only={"K008"})
    assert any(f.code == "K008" and f.span.line == s0.span.line and f.severity == "error"
               for f in fs)


def test_formats_and_exit_codes(capsys, tmp_path):
    broken = str(SPECS / "k006_role.maf")
    assert run_checks([broken], "json") == 1
    data = json.loads(capsys.readouterr().out)
    assert data["errors"] >= 1
    assert any(f["code"] == "K006" and f["line"] == 24 for f in data["specs"][0]["findings"])
    assert run_checks([broken], "sarif") == 1
    sarif = json.loads(capsys.readouterr().out)
    assert sarif["version"] == "2.1.0"
    res = sarif["runs"][0]["results"]
    assert any(r["ruleId"] == "K006" and
               r["locations"][0]["physicalLocation"]["region"]["startLine"] == 24 for r in res)
    assert run_checks([str(SPECS / "k006_ok.maf")], "text") == 0
    out = capsys.readouterr().out
    assert "0 error(s)" in out
    assert run_checks([broken], "text") == 1
    out = capsys.readouterr().out
    assert "error[K006]" in out and "evidence:" in out
    assert run_checks([str(tmp_path / "missing.maf")], "text") == 2
    bad = tmp_path / "bad.maf"
    bad.write_text("game {", encoding="utf-8")
    assert run_checks([str(bad)], "text") == 1
    assert run_checks([broken], "xml") == 2


def test_unknown_is_reported_not_passed(monkeypatch):
    from maf.compiler.verify.check import z3x
    monkeypatch.setattr(z3x, "RLIMIT", 1)
    fs, _ = findings(SPECS / "k006_role.maf")
    assert any(f.code == "K000" and f.severity == "error" for f in fs)


def test_classic_contradiction_is_flagged_without_its_ruling():
    """specs/classic.maf with RULING C6 taken out: the guardian «به هیچ صورتی» immune at night
    and the strongman's bullet that removes «حتی ... محافظ» contradict each other (K003)."""
    path = SPECS / "classic_without_c6.maf"
    fs, _ = findings(path)
    got = {(f.code, f.span.line) for f in fs if f.severity == "error"}
    assert set(expected(path)) <= got, sorted(got)
    shipped, _ = findings(ROOT / "specs" / "classic.maf")
    assert not [f for f in shipped if f.code == "K003"]


def _seats(eng, size):
    """The role ids of the first setup for `size`, in ROLES order."""
    _, counts = eng.SETUPS[size][0]
    return [eng.ROLES[r] for r, k in enumerate(counts) for _ in range(k)]


def test_k004_shortest_trace_happens_in_the_engine():
    """The reported shortest trace to the city's win (a day vote on the boss) really ends the
    game with the city winning when played through the generated engine."""
    from maf.compiler.verify.check import k004_reach
    from maf.compiler.verify.check.model import Context
    c = compile_file(SPECS / "k004_ok.maf")
    ctx = Context(c.program, (SPECS / "k004_ok.maf").read_text(encoding="utf-8"), c.python)
    k004_reach.run(ctx)
    assert ctx.traces[(5, None, 0)] == ["day: the vote eliminates a boss"]
    eng = load_engine(c.python, "k004")
    g = eng.Game.new(_seats(eng, 5))
    if g.phase == "night":
        g.resolve_night([])
    g.resolve_day(eliminate=g.role.index(eng.ROLES.index("boss")))
    if g.winner is None:  # wins checked at dawn only
        g.resolve_night([])
    assert g.winner == "city"


def test_k005_looping_trace_repeats_in_the_engine():
    """bazpors' K005 warning (settled there by its `// RULING(K005)`; unsettled here): at the
    witness table, three living players split 1-1-1 on the chaos day and the engine plays the
    same day again, with nobody gone."""
    from maf.compiler.driver import compile_source

    text = (ROOT / "specs" / "bazpors.maf").read_text(encoding="utf-8")
    text = text.replace("RULING(K005)", "RULING")
    c = compile_source(text, "bazpors.maf")
    fs = check_program(c.program, text, c.python)
    w = next(f for f in fs if f.code == "K005").witness
    eng = load_engine(c.python, "bazpors")
    g = eng.Game.new(_seats(eng, w["players"]))
    g.resolve_day()
    g.resolve_night([])
    boss = g.role.index(eng.ROLES.index("boss"))
    keep = [boss] + [s for s in range(1, g.n + 1) if g.team[s] == eng.TEAMS.index("city")][:2]
    for s in range(1, g.n + 1):
        if s not in keep:
            g.moderator_kill(s)
    assert g.nalive == w["alive"] == 3
    a, b, c3 = keep
    for _ in range(3):
        rep = g.resolve_day(votes={a: [b], b: [c3], c3: [a]})
        assert rep["chaos"] and rep["repeat"] and rep["deaths"] == [] and g.phase == "day"


def test_k006_uncovered_case_does_nothing_in_the_engine():
    """The uncovered case K006 reports (the detective inquiring the doctor) really falls
    through every branch: the engine gives the detective no answer at all."""
    path = SPECS / "k006_role.maf"
    fs, c = findings(path)
    w = next(f for f in fs if f.code == "K006").witness
    eng = load_engine(c.python, "k006")
    g = eng.Game.new(_seats(eng, 5))
    actor_role, ability = w["ability"].split(".")
    actor = g.role.index(eng.ROLES.index(actor_role))
    target = g.role.index(eng.ROLES.index(w["uncovered"][0]))
    g.phase, g.night = "night", 2
    rep = g.resolve_night([[actor, ability, target]])
    assert actor not in rep["private"]
    other = g.role.index(eng.ROLES.index("citizen"))
    g.phase = "night"
    assert g.resolve_night([[actor, ability, other]])["private"][actor] == ["citizen"]


# Issue 11: every gap it lists, with (broken specs flagged at an `// expect` line, near-misses
# that stay clean). The parametrized tests above check each file; this keeps the map complete.
GAPS = {
    "guards as effects": (["k003_guard_pierce", "k003_guard_pierce2", "k002_guards"],
                          ["k003_guard_ok", "k003_guard_ruling_ok", "k002_guards_ok"]),
    "visits as effects": (["k002_visits", "k002_guards"], ["k002_visits_ok", "k002_guards_ok"]),
    "K002 table-wide exclusive": (["k002_notable", "k002_convert"],
                                  ["k002_table_ok", "k002_table2_ok"]),
    "K002 replay submits enough of a night": (["k002_steal", "k002_guards"],
                                              ["k002_steal_ok", "k002_guards_ok"]),
    "K002 role choices as ids": (["k002_choice", "k002_choice2"],
                                 ["k002_choice_ok", "k002_ok"]),
    "K002 abilities that never share a night": (["k002_nights", "k002_marks"],
                                                ["k002_nights_ok", "k002_nights2_ok",
                                                 "k002_delayed_ok"]),
    "K004 death triggers": (["k004_trigger", "k004_trigger3"],
                            ["k004_trigger_ok", "k004_trigger2_ok"]),
    "K004 impossible wins by a cheaper abstraction": (["k004_bounds", "k004_bounds2",
                                                       "k004_defense"],
                                                      ["k004_defense_ok", "k004_delayed_ok"]),
    "K005 threshold above the voters": (["k005_unanimous", "k005_unanimous2"],
                                        ["k005_tienone_ok", "k005_ok"]),
    "K005 no repeat alarm the engine does not repeat": (["k005_vote", "k005_chaos"],
                                                        ["k005_single_ok", "k005_defense_ok"]),
    "K007 impossible when": (["k007_when", "k007_when2"], ["k007_when_ok", "k007_marks_ok"]),
    "K007 marks read but never set, granted by": (["k007_marks", "k007_marks2"],
                                                  ["k007_marks_ok", "k007_marks3_ok"]),
    "K008 custom setups vs invariant": (["k008_custom_inv", "k008_custom_inv2"],
                                        ["k008_custom_ok", "k008_custom2_ok"]),
    "K009 branch order": (["k009_framed", "k009_marks"], ["k009_ok", "k009_ruling_ok"]),
    "K010 vote outcomes": (["k010_skips", "k010_runoff", "k010_threshold"],
                           ["k010_ok", "k010_cap_ok"]),
    "K011 truncating division": (["k011_half", "k011_third"], ["k011_ok", "k011_round_ok"]),
    "filter that cannot hold when the night starts": (["k007_nightmark", "k007_nightmark2"],
                                                      ["k007_nightmark_ok", "k007_marks_ok"]),
    # issue 21: a filter or `when` that reads the night so far is read at the ability's wake
    "filters read at the wake": (["k007_wake", "k007_wake2"], ["k007_wake_ok", "k007_wake2_ok"]),
    "custom setups sampled": (["k002_custom", "k008_custom_unused"],
                              ["k002_custom_ok", "k008_custom_ok"]),
}


@pytest.mark.parametrize("gap", sorted(GAPS))
def test_issue11_gap_has_two_broken_and_two_near_misses(gap):
    broken, clean = GAPS[gap]
    assert len(broken) >= 2 and len(clean) >= 2, gap
    for name in broken:
        assert expected(SPECS / f"{name}.maf"), f"{name}: no `// expect` marker"
    for name in clean:
        assert (SPECS / f"{name}.maf") in CLEAN, f"{name} is not a near-miss (kXXX_..._ok.maf)"
