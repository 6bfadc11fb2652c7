"""The scenarios indexed by rule (issue 25): for each spec, each role, ability and RULING id with
the scenario files that exercise it, and each scenario's `# Rule:` header.

    python -m tests.scenario_index             # print the index (Markdown)
    python -m tests.scenario_index -o FILE     # write it

What "exercises" means, read from the scenario itself (no game is played): a role is seated
(`seats`); an ability is named by an action (`night`, `wake`, a day's `actions`, `choices`), by
its full id or by its short name on the seat that holds it (or, for an ability held by another
role, granted or stolen, by its name alone); a last-move card by a day's `card`; a RULING id
(`RULING R4` in the spec) is cited as a word in the scenario's comments (`ruling R4`, `(R4)`). tests/test_scenarios.py writes the index to
build/artifacts/scenario-index.md on every run and fails on a scenario without its header.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "tests" / "scenarios"
RULING = re.compile(r"RULING\s+([A-Z]+\d+)")  # how a spec names its rulings


@dataclass
class SpecIndex:
    name: str
    roles: tuple[str, ...]
    abilities: tuple[str, ...]
    rulings: tuple[str, ...]
    by_id: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))


def rule_header(text: str) -> str | None:
    """The scenario's `# Rule:` header, its continuation lines joined, or None."""
    lines = text.split("\n")
    for i, ln in enumerate(lines):
        if ln.startswith("# Rule:"):
            out = [ln[len("# Rule:") :].strip()]
            for nxt in lines[i + 1 :]:
                if not nxt.startswith("#  ") or nxt.startswith("# Checks"):
                    break
                out.append(nxt[1:].strip())
            return " ".join(out)
    return None


def _spec_of(data: dict, path: Path) -> Path | None:
    spec = str(data.get("spec", ""))
    if spec.endswith(".maf"):
        p = (path.parent / spec).resolve()
        return p if p.is_file() else None
    p = ROOT / "specs" / f"{spec}.maf"
    return p if p.is_file() else None


def _spec_index(spec: Path) -> SpecIndex:
    from maf.compiler.driver import compile_file

    prog = compile_file(spec).program
    abilities = tuple(a.id for a in prog.abilities)
    text = spec.read_text(encoding="utf-8")
    rulings = tuple(dict.fromkeys(RULING.findall(text)))
    return SpecIndex(spec.stem, tuple(r.id for r in prog.roles), abilities, rulings)


def _actions(steps: list) -> list[list]:
    out: list[list] = []
    for step in steps if isinstance(steps, list) else []:
        if not isinstance(step, dict):
            continue
        for key in ("night", "wake", "choices"):
            if isinstance(step.get(key), list):
                out += [a for a in step[key] if isinstance(a, list) and len(a) >= 2]
        day = step.get("day")
        if isinstance(day, dict) and isinstance(day.get("actions"), list):
            out += [a for a in day["actions"] if isinstance(a, list) and len(a) >= 2]
        card = day.get("card") if isinstance(day, dict) else None
        card = card[0] if isinstance(card, list) and card else card
        if isinstance(card, str):
            out.append([None, f"card.{card}"])
    return out


def build(root: Path = SCENARIOS) -> tuple[dict[Path, SpecIndex], dict[Path, str | None]]:
    specs: dict[Path, SpecIndex] = {}
    headers: dict[Path, str | None] = {}
    for path in sorted(root.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        headers[path] = rule_header(text)
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError:
            continue
        if not isinstance(data, dict):
            continue
        spec = _spec_of(data, path)
        if spec is None:
            continue
        if spec not in specs:
            specs[spec] = _spec_index(spec)
        idx = specs[spec]
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()
        seats = [s for s in data.get("seats") or [] if isinstance(s, str)]
        for role in seats:
            if role in idx.roles:
                idx.by_id[role].add(rel)
        for action in _actions(data.get("steps")):
            actor, name = action[0], str(action[1])
            if "." in name:
                ids = [name]
            elif isinstance(actor, int) and 1 <= actor <= len(seats):
                ids = [f"{seats[actor - 1]}.{name}"]
            else:
                ids = []
            if not any(a in idx.abilities for a in ids):  # held by, granted, stolen: by name
                ids = [a for a in idx.abilities if a.endswith(f".{name}")]
            for a in ids:
                if a in idx.abilities:
                    idx.by_id[a].add(rel)
        comments = " ".join(ln for ln in text.split("\n") if ln.lstrip().startswith("#"))
        for ruling in idx.rulings:
            if re.search(rf"\b{ruling}\b", comments):
                idx.by_id[ruling].add(rel)
    return specs, headers


def render(specs: dict[Path, SpecIndex], headers: dict[Path, str | None]) -> str:
    out = [
        "# Scenarios by rule",
        "",
        "Generated by `python -m tests.scenario_index` (tests/scenario_index.py): for each spec, "
        "each role, ability and RULING id with the scenarios that exercise it; then each "
        "scenario's `# Rule:` header.",
        "",
    ]
    for spec, idx in sorted(specs.items(), key=lambda kv: kv[0].as_posix()):
        ids = [*idx.roles, *idx.abilities, *idx.rulings]
        covered = sum(1 for i in ids if idx.by_id.get(i))
        out += [f"## {spec.relative_to(ROOT).as_posix()}", ""]
        out += [f"{covered} of {len(ids)} ids exercised by a scenario.", ""]
        out += ["| id | scenarios |", "|---|---|"]
        for i in ids:
            files = sorted(idx.by_id.get(i, ()))
            cell = ", ".join(f"`{f.rsplit('/', 1)[1]}`" for f in files) or "**none**"
            out.append(f"| `{i}` | {cell} |")
        out.append("")
    out += ["## Rule headers", "", "| scenario | rule |", "|---|---|"]
    for path, rule in headers.items():
        cell = (rule or "**missing**").replace("|", "\\|")
        name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else path.as_posix()
        out.append(f"| `{name}` | {cell} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.scenario_index")
    ap.add_argument("-o", "--output", type=Path)
    ns = ap.parse_args(argv)
    text = render(*build())
    if ns.output:
        ns.output.parent.mkdir(parents=True, exist_ok=True)
        ns.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
