"""Witnesses come from states the game can reach (issue 20, item 4): K003's overlapping wins
are reported with a trace from a setup (K004's search), replayed here through the generated
engine; an overlap only a state no game reaches allows is not reported."""

from __future__ import annotations

from pathlib import Path

from maf.compiler.driver import compile_file, load_engine
from maf.compiler.verify.check import check_program

SPECS = Path(__file__).parent / "specs"


def _findings(name: str):
    c = compile_file(SPECS / name)
    return check_program(c.program, (SPECS / name).read_text(encoding="utf-8"), c.python), c


def test_k003_overlap_witness_is_a_trace_the_engine_plays():
    fs, c = _findings("k003_wins.maf")
    f = next(f for f in fs if f.code == "K003")
    w = f.witness
    assert w and w["trace"], f.evidence
    eng = load_engine(c.python, "k003w")
    _, counts = eng.SETUPS[w["players"]][0]
    g = eng.Game.new([eng.ROLES[r] for r, k in enumerate(counts) for _ in range(k)])
    for step in w["trace"]:
        assert step.startswith("day: the vote eliminates a "), step
        role = step.rsplit(" ", 1)[1]
        if g.phase == "night":
            g.resolve_night([])
        seat = next(s for s in range(1, g.n + 1) if g.alive[s] and eng.ROLES[g.role[s]] == role)
        g.resolve_day(eliminate=seat)
    if g.winner is None and g.phase == "night":
        g.resolve_night([])
    # the earlier win ends the game in a state where the later one holds too
    assert g.winner == "mafia"
    mafia, city = eng.TEAMS.index("mafia"), eng.TEAMS.index("city")
    assert g.nalive == 2 and g.living(mafia) == 1 and g.living(city) == 1  # city's `alive <= 2`


def test_k003_overlap_no_game_reaches_is_not_reported():
    fs, _ = _findings("k003_wins_ok.maf")
    assert not [f for f in fs if f.code == "K003"], [f.message for f in fs]


def test_evidence_names_its_lines_each_once_never_empty():
    import re

    for name in ("k007_filter.maf", "k008_role.maf", "k008_custom_unused.maf"):
        fs, _ = _findings(name)
        assert fs
        for f in fs:
            for ev in f.evidence:
                assert "(lines )" not in ev and "(line )" not in ev, (name, ev)
                for group in re.findall(r"\(lines? ([\d, ]+)\)", ev):
                    ns = [int(x) for x in group.split(",")]
                    assert len(ns) == len(set(ns)), (name, ev)  # each line once
