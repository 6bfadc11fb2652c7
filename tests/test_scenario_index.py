"""Tests as data (issue 25): every scenario carries its `# Rule:` header, and the index of
scenarios by rule id (tests/scenario_index.py) is built on every run, into
build/artifacts/scenario-index.md."""

from __future__ import annotations

from pathlib import Path

from tests import scenario_index as si

ROOT = Path(__file__).resolve().parents[1]


def test_every_scenario_has_its_rule_header() -> None:
    _, headers = si.build()
    missing = [p.relative_to(ROOT).as_posix() for p, rule in headers.items() if not rule]
    assert len(headers) > 500 and missing == []


def test_the_index_maps_ids_to_scenarios() -> None:
    specs, headers = si.build()
    out = ROOT / "build" / "artifacts" / "scenario-index.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(si.render(specs, headers), encoding="utf-8")
    assert "| `boss.yakuza` | " in out.read_text(encoding="utf-8")
    # every role of every shipped spec is seated by some scenario
    for spec in sorted((ROOT / "specs").glob("*.maf")):
        idx = specs[spec]
        assert [r for r in idx.roles if not idx.by_id.get(r)] == [], spec.name


def test_index_reads_a_scenario(tmp_path: Path) -> None:
    """The index can fail: a scenario seating a role and naming an ability by its short name is
    indexed under both; one with no header is reported missing."""
    (tmp_path / "a.yaml").write_text(
        "# Rule: «the boss shoots» (RULING R4)\n# Checks: ...\nspec: bazpors\n"
        "seats: [boss, nato, trickster, doctor, detective, bulletproof, interrogator, researcher,"
        " citizen, citizen]\nsteps:\n  - day: {}\n  - night: [[1, shoot, 6]]\n",
        encoding="utf-8",
    )
    (tmp_path / "b.yaml").write_text("spec: bazpors\nseats: [boss]\nsteps: []\n", "utf-8")
    specs, headers = si.build(tmp_path)
    idx = next(iter(specs.values()))
    assert headers[tmp_path / "a.yaml"] == "«the boss shoots» (RULING R4)"
    assert headers[tmp_path / "b.yaml"] is None
    assert len(idx.by_id["boss.shoot"]) == 1 and len(idx.by_id["R4"]) == 1
    assert "doctor.save" not in idx.by_id and "boss" in idx.by_id
