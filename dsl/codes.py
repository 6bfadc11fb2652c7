"""Every diagnostic code maf reports, in one place: the compiler's E-codes and the checker's
K-codes, each with its title, severity, one-line summary and the docs section that explains it.

Derived from this registry (never written a second time):
- the code tables of docs/language.md and docs/checks.md (`python -m maf.dsl.codes --write-docs`
  rewrites them; tests/test_codes.py fails when they drift);
- the SARIF rules of `maf check --format sarif` and the codes the language server publishes;
- `maf explain CODE`, which prints the code's explanation with a broken and a fixed example,
  kept in ``dsl/explain/CODE.md`` (the examples there are compiled, or checked, by the tests).

A code is spelled through ``Code`` (``Code.E040``), never as a loose string: ``Code`` is a
``StrEnum``, so a diagnostic's code still prints, compares and serialises as ``"E040"``.
"""

from __future__ import annotations

import argparse
import importlib.resources
import re
import sys
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class Code(StrEnum):
    E000 = "E000"
    E001 = "E001"
    E002 = "E002"
    E003 = "E003"
    E004 = "E004"
    E005 = "E005"
    E010 = "E010"
    E011 = "E011"
    E020 = "E020"
    E021 = "E021"
    E022 = "E022"
    E023 = "E023"
    E030 = "E030"
    E031 = "E031"
    E032 = "E032"
    E040 = "E040"
    E041 = "E041"
    E045 = "E045"
    E046 = "E046"
    E047 = "E047"
    E050 = "E050"
    E051 = "E051"
    E052 = "E052"
    E053 = "E053"
    E060 = "E060"
    E061 = "E061"
    E062 = "E062"
    E070 = "E070"
    E080 = "E080"
    E081 = "E081"
    E082 = "E082"
    E083 = "E083"
    E090 = "E090"
    E091 = "E091"
    E095 = "E095"
    E096 = "E096"
    E092 = "E092"
    E093 = "E093"
    E094 = "E094"
    K000 = "K000"
    K001 = "K001"
    K002 = "K002"
    K003 = "K003"
    K004 = "K004"
    K005 = "K005"
    K006 = "K006"
    K007 = "K007"
    K008 = "K008"
    K009 = "K009"
    K010 = "K010"
    K011 = "K011"


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: Code
    title: str  # a few words, as in `maf check`'s list and SARIF's rule name
    severity: str  # "error", "warning", or "error or warning" (a check that reports both)
    summary: str  # one line (Markdown): what the code means; the docs tables print it
    anchor: str  # docs page and section, e.g. "docs/checks.md#k001-ordering-cycle-error"

    @property
    def is_check(self) -> bool:
        return self.code.startswith("K")


_LANG = "docs/language.md#diagnostics"
_E: list[tuple[Code, str, str]] = [
    (Code.E000, "unreadable spec", "the spec file cannot be read"),
    (
        Code.E001,
        "unexpected character",
        "unexpected character (uppercase, non-ASCII identifier, `#` comment...)",
    ),
    (
        Code.E002,
        "unexpected end of file",
        "unexpected end of file, reported at the end of the file (a block missing its closing "
        "`}`...)",
    ),
    (Code.E003, "unexpected token", "unexpected token"),
    (
        Code.E004,
        "nested too deeply",
        "the spec nests too deeply to compile: blocks in blocks more than 16 deep, `each` in "
        "`each` more than 2 deep, an expression more than 32 deep (a chain of one operator, `a "
        "and b and c`, counts once), or any construct more than 200 deep counting every operator "
        "(see [security.md](security.md#limits))",
    ),
    (
        Code.E005,
        "too large",
        "the spec is too large: more than 1,000,000 bytes, a string longer than 10,000 "
        "characters, or a number of more than 18 digits",
    ),
    (
        Code.E010,
        "duplicate definition",
        "duplicate definition (a second `defense` in a role, team, role, cause, mark, card, "
        "ability, target / choice / `each` name in an ability or a card, built-in cause, second "
        "`day` block, a card `x` next to an ability `x` of a role named `card`: both would be "
        "`card.x`)",
    ),
    (Code.E011, "game block", "`game` block missing or repeated"),
    (
        Code.E020,
        "undefined name",
        'undefined name (with "did you mean"): team, role, cause, mark (in `mark`, `unless`, '
        "`granted by`, `exempt`, `forced`), ability; a team, role or card without a display "
        "name, or without one in the game's `language`; a language tag that is not two or three "
        "lowercase letters",
    ),
    (
        Code.E021,
        "type mismatch",
        "type mismatch (including a `choose` other than `role`/`team`, an ambiguous role/team "
        "name, `in {...}` on a non-role/team)",
    ),
    (Code.E022, "unknown function", "unknown function, or wrong number of arguments"),
    (
        Code.E023,
        "not available here",
        "name or function not available in this context (e.g. `self` in a win condition, "
        "`acted` in a card, `visitor` outside `on visited`), `trial` outside an ability, or a "
        "statement that needs `self` in a top-level hook",
    ),
    (
        Code.E030,
        "unknown ability in an ordering",
        "unknown ability in an ordering or a table-wide `exclusive`",
    ),
    (Code.E031, "ordered against itself", "ability ordered against itself"),
    (Code.E032, "ordering cycle", "the night orderings form a cycle"),
    (
        Code.E040,
        "limit that makes no sense",
        "a limit that makes no sense: missing or empty `players`, a table of more than 100 "
        "players (in `players` or a setup), `first vote`, phases numbered below 1 (`quiet`, "
        "`from`), `uses N per night\\|day` with `N` != 1, `uses 0`, a self limit or `no repeat` "
        "without a target, `from` of the wrong phase, a negative tier, a wrong first holder, "
        "`immune ... times N` with `N` < 1, an empty setup range, `rounds` other than 1 or 2, an "
        "inquiry with a non-positive day or count, `astral` without a target, "
        "`astral`/`unblockable` on an ability not used at night, `attack 0`, `in 0 nights`",
    ),
    (
        Code.E041,
        "bad exclusive group",
        "bad exclusive group: names an ability the role does not have, names one twice, or "
        "mixes day and night",
    ),
    (
        Code.E045,
        "vote kind that conflicts",
        "a vote option that conflicts with the kind of vote: `nominations` with a second round "
        "(`defense threshold`, `defenders vote`, `rounds 2`), `skips`, `forced`, `runoff` ties "
        "or `judgement`; `nominations`, `ghost votes` or `judgement` in a chaos vote; "
        "`ghost votes 0`",
    ),
    (
        Code.E046,
        "nomination reaction that never runs",
        "`on nominated` in a spec whose day vote has no `nominations` (nobody is ever nominated)",
    ),
    (
        Code.E047,
        "bad vote condition",
        "`votes only with` stated twice in a role, or naming something that is neither a seat "
        "nor a mark",
    ),
    (Code.E050, "unknown role in a setup", "setup names an unknown role"),
    (
        Code.E051,
        "setup does not add up",
        "setup does not add up (or two `rest`, or two unnamed setups for one size)",
    ),
    (Code.E052, "table size without a setup", "a table size in `players` without a setup"),
    (Code.E053, "setup outside the table sizes", "a setup size outside `players`"),
    (
        Code.E060,
        "unknown win subject",
        "unknown win subject (in `win` or `wins`), or no win condition",
    ),
    (Code.E061, "unknown win check event", "unknown `check wins at` event"),
    (
        Code.E062,
        "co-winner in a team",
        "`wins alongside` in a role of a team (a team's roles win with their team)",
    ),
    (
        Code.E070,
        "reaction or hook misplaced",
        "a reaction or hook in the wrong place: `on visited` / `on blocked` in an ability not "
        "used at night; a hook or death trigger inside an ability",
    ),
    (Code.E080, "trait cycle", "traits that include each other (a cycle)"),
    (
        Code.E081,
        "recursive definition",
        "a `define` or `procedure` that calls itself, directly or through others",
    ),
    (
        Code.E082,
        "trait with a name",
        "a trait with a `name` line (display names belong to the roles)",
    ),
    (
        Code.E083,
        "random in a condition",
        "`random(x: ...)` in a condition (target filter, `when`, win, vote rule, invariant)",
    ),
    (
        Code.E095,
        "moderator choice misused",
        "`moderator chooses` of a kind other than seat, role, team or number, or in an "
        "`on start` hook (no step is played there for the moderator to answer in)",
    ),
    (
        Code.E096,
        "registration misused",
        "`registers as` naming the role itself, its own team or kind, or the same item twice",
    ),
    (
        Code.E090,
        "status or replacement misused",
        "a mark both `powerless` and `malfunctions` (or `malfunctions` and `inverts`); in an "
        "`instead of death`, `revive self` or a kill of its own seat with no `when`",
    ),
    (
        Code.E091,
        "`at once` outside a night",
        "a kill `at once` outside a night ability (elsewhere kills settle when the step's "
        "statements have run)",
    ),
    (
        Code.E092,
        "side misused",
        "a `side` without `members`, a role `in` a side, or a side read as a seat's team "
        "(`team(x) == SIDE`, `count_team(SIDE)`, `departed(SIDE)`): a side is made by marks",
    ),
    (
        Code.E093,
        "title used as a role",
        "a `title` dealt in a setup or laid in the middle, named as a winner or converted "
        "to: a title is a mark its holder carries, not a role",
    ),
    (Code.E094, "unknown kind", "a role's `kind` names no `kind` declaration"),
]

_K: list[tuple[Code, str, str, str, str]] = [
    (
        Code.K000,
        "unknown",
        "error",
        "Z3 returned `unknown` under its resource limit, or K004's search budgets ran out: the "
        "property is not proven",
        "k000-unknown-error",
    ),
    (
        Code.K001,
        "ordering cycle",
        "error",
        "an ordering the engine's semantics imply (a night mark read before it is set, a steal "
        "after the ability it steals...) contradicts the declared night order",
        "k001-ordering-cycle-error",
    ),
    (
        Code.K002,
        "ambiguous order",
        "error or warning",
        "two night abilities whose result depends on which resolves first, ordered by "
        "definition order only (a warning when no replay confirmed it)",
        "k002-ambiguous-order-error-warning-if-not-confirmed",
    ),
    (
        Code.K003,
        "conflicting effects",
        "error or warning",
        "effects that contradict each other: an immunity a piercing kill can hit, wins that can "
        "hold together, a piercing kill past a guard, a protection nothing needs",
        "k003-conflicting-effects",
    ),
    (
        Code.K004,
        "unreachable win state",
        "error",
        "a win condition no game at some table size and setup can reach",
        "k004-unreachable-win-state-error",
    ),
    (
        Code.K005,
        "termination",
        "error or warning",
        "a vote or day that can repeat forever (`tie repeat` on a vote that can tie or split)",
        "k005-termination",
    ),
    (
        Code.K006,
        "exhaustive outcomes",
        "error",
        "an `if`/`elif` chain on a target's role or team without `else` that misses a role the "
        "filter allows",
        "k006-exhaustive-outcomes-error",
    ),
    (
        Code.K007,
        "dead or shadowed ability",
        "warning",
        "an ability, branch, filter, `when` or mark that can never apply or be used",
        "k007-dead-or-shadowed-ability-warning",
    ),
    (
        Code.K008,
        "setup consistency",
        "error or warning",
        "setups that do not add up, break an invariant, or never seat a role",
        "k008-setup-consistency",
    ),
    (
        Code.K009,
        "branch order decides",
        "warning",
        "two conditions of one chain can hold together and do different things: the order of "
        "the branches is itself a ruling",
        "k009-branch-order-decides-warning",
    ),
    (
        Code.K010,
        "vote outcomes not covered",
        "warning",
        "a vote that can end in a state the spec states no outcome for",
        "k010-vote-outcomes-not-covered-warning",
    ),
    (
        Code.K011,
        "truncating division",
        "warning",
        "an integer division that is not the last step of its term rounds down early",
        "k011-truncating-division-warning",
    ),
]

REGISTRY: dict[Code, CodeInfo] = {
    **{c: CodeInfo(c, title, "error", summary, _LANG) for c, title, summary in _E},
    **{
        c: CodeInfo(c, title, sev, summary, f"docs/checks.md#{anchor}")
        for c, title, sev, summary, anchor in _K
    },
}


def info(code: str) -> CodeInfo | None:
    """The registry entry of `code` (any case; `e20` is E020), or None."""
    m = re.fullmatch(r"([EK])0*(\d{1,3})", code.strip().upper())
    if m is None:
        return None
    try:
        return REGISTRY[Code(f"{m[1]}{int(m[2]):03d}")]
    except ValueError:
        return None


def explanation(code: Code) -> str:
    """The long explanation of `code`, with its examples (``dsl/explain/CODE.md``)."""
    res = importlib.resources.files("maf.dsl").joinpath("explain", f"{code}.md")
    return res.read_text(encoding="utf-8")


# ``maf explain``'s examples: fenced ```maf broken``` and ```maf fixed``` blocks of an explanation
_FENCE = re.compile(r"^```maf (broken|fixed)\n(.*?)^```$", re.S | re.M)


def examples(code: Code) -> dict[str, str]:
    """The broken and fixed example specs of `code`'s explanation (absent for codes that no
    spec text shows, E000 and K000)."""
    return {kind: body for kind, body in _FENCE.findall(explanation(code))}


# -- the tables the docs print -------------------------------------------------------------

_BEGIN = "<!-- codes: generated by `python -m maf.dsl.codes --write-docs` -->"
_END = "<!-- /codes -->"


def table(kind: str) -> str:
    """The Markdown table of the E-codes (`kind` "E") or the K-codes ("K")."""
    rows = [i for i in REGISTRY.values() if i.code.startswith(kind)]
    if kind == "E":
        head = ["| code | meaning |", "|---|---|"]
        body = [f"| {i.code} | {i.summary} |" for i in rows]
    else:
        head = ["| code | check | severity | meaning |", "|---|---|---|---|"]
        body = [
            f"| [{i.code}](#{i.anchor.partition('#')[2]}) | {i.title} | {i.severity} "
            f"| {i.summary} |"
            for i in rows
        ]
    return "\n".join(head + body)


DOC_TABLES = {"docs/language.md": "E", "docs/checks.md": "K"}


def with_table(text: str, kind: str) -> str:
    """`text` (a docs page) with its generated table replaced by today's."""
    a, b = text.index(_BEGIN), text.index(_END)
    return text[: a + len(_BEGIN)] + "\n" + table(kind) + "\n" + text[b:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m maf.dsl.codes")
    ap.add_argument("--write-docs", metavar="ROOT", nargs="?", const=".", default=None)
    ns = ap.parse_args(argv)
    if ns.write_docs is None:
        for i in REGISTRY.values():
            print(f"{i.code}  {i.severity:<16}  {i.title}")
        return 0
    for page, kind in DOC_TABLES.items():
        path = Path(ns.write_docs) / page
        text = path.read_text(encoding="utf-8")
        new = with_table(text, kind)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
