"""`maf check --matrix`: the interaction table of a spec (text, markdown, json)."""
from __future__ import annotations

import json
from pathlib import Path

from maf.compiler.tools.cli import main

SPECS = Path(__file__).parent / "specs"


def _json(capsys, spec):
    assert main(["check", "--matrix", "--format", "json", str(spec)]) == 0
    return json.loads(capsys.readouterr().out)["pairs"]


def test_guards_of_one_tier_order_matters_and_only_definition_order_decides(capsys):
    pairs = _json(capsys, SPECS / "k002_guards.maf")
    guards = next(p for p in pairs if {p["a"], p["b"]} == {"bodyguard.protect", "knight.shield"})
    assert guards["order_matters"] and "K002" in guards["decided_by"]
    assert guards["wins"] == "`knight.shield` (it resolves last)"
    shot = next(p for p in pairs if {p["a"], p["b"]} == {"bodyguard.protect", "boss.shoot"})
    assert not shot["order_matters"] and "guard dies instead" in shot["wins"]
    assert shot["witness"]["players"] == 5 and shot["witness"]["night"] == 1


def test_tiers_decide_and_the_earlier_writer_wins(capsys):
    pairs = _json(capsys, SPECS / "k002_guards_ok.maf")
    guards = next(p for p in pairs if {p["a"], p["b"]} == {"bodyguard.protect", "knight.shield"})
    assert guards["order_matters"] and guards["decided_by"] == "tiers"


def test_no_interaction_without_a_shared_target(capsys):
    # the boss shoots non-mafia, the steal/save race needs a kill: every pair is listed once
    pairs = _json(capsys, SPECS / "k002_steal.maf")
    keys = [frozenset((p["a"], p["b"])) for p in pairs]
    assert len(keys) == len(set(keys))
    assert frozenset(("thief.steal", "doctor.save")) in keys
    save = next(p for p in pairs if {p["a"], p["b"]} == {"boss.shoot", "doctor.save"})
    assert "saved" in save["wins"]


def test_markdown_and_text(capsys):
    assert main(["check", "--matrix", "--format", "markdown", str(SPECS / "k002_guards.maf")]) == 0
    md = capsys.readouterr().out
    assert md.splitlines()[2].startswith("| A | B | order matters")
    assert "`bodyguard.protect` | `knight.shield` | yes" in md
    assert main(["check", "--matrix", str(SPECS / "k002_guards.maf")]) == 0
    assert "bodyguard.protect x knight.shield: order matters" in capsys.readouterr().out
    assert main(["check", "--matrix", "--format", "sarif", str(SPECS / "k002_guards.maf")]) == 2


def test_strict_fails_on_what_is_not_proven(capsys, tmp_path):
    spec = SPECS / "k002_ok.maf"
    assert main(["check", str(spec)]) == 0
    capsys.readouterr()
    # a spec whose K002 finding cannot be confirmed by replay: a warning, but --strict fails
    src = (SPECS / "k002_convert.maf").read_text(encoding="utf-8").replace(
        "if role(x) == citizen {", "if role(x) == citizen and night > 99 {")
    p = tmp_path / "unconfirmed.maf"
    p.write_text(src, encoding="utf-8")
    assert main(["check", str(p)]) == 0
    out = capsys.readouterr().out
    assert "not confirmed" in out
    assert main(["check", "--strict", str(p)]) == 1


def test_out_of_budget_is_never_a_pass(monkeypatch, capsys):
    """A Z3 query out of its resource budget is a K000 error saying what was not proven."""
    from maf.compiler.verify.check import z3x
    monkeypatch.setattr(z3x, "RLIMIT", 50)
    assert main(["check", "--format", "json", str(SPECS / "k007_when.maf")]) == 1
    data = json.loads(capsys.readouterr().out)
    k000 = [f for f in data["specs"][0]["findings"] if f["code"] == "K000"]
    assert k000 and all("NOT proven" in f["message"] for f in k000)
    assert any("table sizes 5, 6" in f["message"] for f in k000)


def test_defence_levels_against_attacks(capsys, tmp_path):
    src = (SPECS / "k004_defense_ok.maf").read_text(encoding="utf-8").replace(
        'role citizen in city {', '''role doctor in city {
  name fa "Doctor" en "Doctor"
  ability heal at night {
    tier 30
    target x: alive(x)
    protect x at 1
  }
}
role citizen in city {''').replace("setup 5..6: boss, hunter,", "setup 5..6: boss, hunter, doctor,")
    spec = tmp_path / "levels.maf"
    spec.write_text(src, encoding="utf-8")
    pairs = _json(capsys, spec)
    shot = next(p for p in pairs if {p["a"], p["b"]} == {"boss.shoot", "doctor.heal"})
    assert shot["wins"] == "`doctor.heal` (saved: defence 1 >= attack 1)"
    hunt = next(p for p in pairs if {p["a"], p["b"]} == {"hunter.hunt", "doctor.heal"})
    assert hunt["wins"] == "`hunter.hunt` (attack 2 > defence 1)"
