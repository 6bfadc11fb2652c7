"""Plain-words descriptions of a compiled spec, shared by `maf doc` (the rulebook) and `maf lsp`
(hover): what an ability does, its limits, the night order, the rulings.

Everything is read from the IR (compiler/ir.py) and the spec text. Statements are described
by a small table of phrases keyed by IR class; a statement the table does not know (a construct
added later) is shown as its own spec text, so nothing is ever left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dsl.diagnostics import Span, source_lines

from . import ir


@dataclass(frozen=True)
class Ruling:
    id: str  # "C12"
    line: int  # 1-based line of the `RULING` comment
    text: str  # the comment's text, continuation lines joined


_RULING = re.compile(r"RULING\s+([A-Za-z]+\d+[a-z]?)\s*:?\s*(.*)")


def rulings(source: str) -> list[Ruling]:
    """Every `// RULING Xn: ...` comment of a spec, with the comment lines that continue it
    (the following `//` lines up to a blank, a code line or another RULING)."""
    lines = source_lines(source)
    out: list[Ruling] = []
    i = 0
    while i < len(lines):
        pos = lines[i].find("//")
        m = _RULING.search(lines[i][pos:]) if pos >= 0 else None
        if not m:
            i += 1
            continue
        parts = [m.group(2).strip()]
        j = i + 1
        while (
            j < len(lines)
            and lines[j].strip().startswith("//")
            and not _RULING.search(lines[j])
            and lines[j].strip() != "//"
        ):
            parts.append(lines[j].strip()[2:].strip())
            j += 1
        out.append(Ruling(m.group(1), i + 1, " ".join(p for p in parts if p)))
        i = j
    return out


def rulings_within(all_rulings: list[Ruling], span: Span, before: int = 3) -> list[Ruling]:
    """The rulings written inside `span` or in the few lines just above it."""
    return [r for r in all_rulings if span.line - before <= r.line <= span.end_line]


class Describer:
    """Descriptions of one program's parts, in plain words, with the spec's own text for
    expressions."""

    def __init__(self, program: ir.Program, source: str, lang: str = "en"):
        self.p = program
        self.lines = source_lines(source)
        self.lang = lang

    # ---------------------------------------------------------------- names
    def display(self, names: tuple[tuple[str, str], ...], fallback: str) -> str:
        table = dict(names)
        return table.get(self.lang) or table.get("en") or next(iter(table.values()), fallback)

    def team_of(self, role: ir.Role) -> str | None:
        return self.p.teams[role.team].id if role.team >= 0 else None

    def text(self, span: Span) -> str:
        """The spec text a span covers (one line joined to the next if it spans several)."""
        if span.line <= 0 or span.line > len(self.lines):
            return ""
        if span.end_line == span.line:
            return self.lines[span.line - 1][span.col - 1 : span.end_col - 1]
        first = self.lines[span.line - 1][span.col - 1 :]
        middle = self.lines[span.line : span.end_line - 1]
        last = (
            self.lines[span.end_line - 1][: span.end_col - 1]
            if span.end_line <= len(self.lines)
            else ""
        )
        return " ".join(s.strip() for s in (first, *middle, last) if s.strip())

    def expr(self, e) -> str:
        span = getattr(e, "span", None)
        return self.text(span) if isinstance(span, Span) else str(e)

    def causes(self, idxs: tuple[int, ...]) -> str:
        return ", ".join(self.p.causes[i] for i in idxs) if idxs else "any cause"

    # ---------------------------------------------------------------- statements
    def stmt(self, s) -> str:
        kind = type(s).__name__
        f = getattr(self, f"_s_{kind}", None)
        if f is not None:
            return f(s)
        return self.text(s.span) if isinstance(getattr(s, "span", None), Span) else kind

    def stmts(self, body) -> str:
        return "; ".join(self.stmt(s) for s in body) if body else "nothing happens"

    def _s_Kill(self, s):
        return f"kills {self.expr(s.target)} (by {self.p.causes[s.cause]}" + (
            ", through any protection)" if s.piercing else ")"
        )

    def _s_Protect(self, s):
        return f"protects {self.expr(s.target)} from {self.causes(s.causes)}"

    def _s_Guard(self, s):
        return f"guards {self.expr(s.target)} from {self.causes(s.causes)} (taking the hit)"

    def _s_SetMark(self, s):
        m = self.p.marks[s.mark].id
        return (
            f"removes the mark {m} from {self.expr(s.target)}"
            if s.remove
            else f"marks {self.expr(s.target)} as {m}"
        )

    def _s_Convert(self, s):
        return f"turns {self.expr(s.target)} into a {self.p.roles[s.role].id}"

    def _s_Tell(self, s):
        to = f" to {self.expr(s.to)}" if s.to is not None else ""
        return f"learns{to}: " + ", ".join(self.expr(x) for x in s.parts)

    def _s_Announce(self, s):
        return "announces to the table: " + ", ".join(self.expr(x) for x in s.parts)

    def _s_Remember(self, s):
        return f"remembers {self.p.memslots[s.slot]} = {self.expr(s.value)}"

    def _s_Trial(self, s):
        return f"puts {self.expr(s.a)} and {self.expr(s.b)} on trial the next day"

    def _s_Steal(self, s):
        return f"takes the ability of {self.expr(s.source)} and uses it on {self.expr(s.dest)}"

    def _s_Revive(self, s):
        return f"brings {self.expr(s.target)} back to life"

    def _s_Weight(self, s):
        return f"votes with weight {self.expr(s.value)}"

    def _s_WinNow(self, s):
        who = self.p.teams[s.idx].id if s.kind == "team" else self.p.roles[s.idx].id
        return f"wins the game for {who}"

    def _s_SkipNight(self, s):
        return "the coming night is skipped"

    def _s_CancelVote(self, s):
        return "today's vote eliminates nobody"

    def _s_Each(self, s):
        return f"for each {s.var} with {self.expr(s.filter)}: {self.stmts(s.body)}"

    def _s_If(self, s):
        parts = [f"if {self.expr(c)}: {self.stmts(b)}" for c, b in s.branches]
        if s.orelse:
            parts.append(f"otherwise: {self.stmts(s.orelse)}")
        return "; ".join(parts)

    # ---------------------------------------------------------------- abilities
    def night_rank(self, ab: ir.Ability) -> int | None:
        """1-based place in the night order, or None for an ability not resolved at night."""
        try:
            return self.p.night_order.index(ab.idx) + 1
        except ValueError:
            return None

    def phase(self, ab: ir.Ability) -> str:
        return {
            "night": "at night",
            "day": "by day",
            "vote": "during the vote",
            "any": "by day or by night",
            "card": "as a last-move card",
            "call": "when called",
        }.get(ab.phase, ab.phase)

    def limits(self, ab: ir.Ability) -> list[str]:
        out = []
        if ab.per_game:
            out.append("once per game" if ab.per_game == 1 else f"{ab.per_game} times per game")
        if ab.per_phase:
            out.append(f"at most {ab.per_phase} per {'night' if ab.at_night else 'day'}")
        if ab.self_per_game:
            out.append(
                "on oneself once per game"
                if ab.self_per_game == 1
                else f"on oneself {ab.self_per_game} times per game"
            )
        if ab.from_number > 1:
            out.append(f"from {'night' if ab.at_night else 'day'} {ab.from_number}")
        if ab.norepeat == "consecutive":
            out.append("not on the same target twice running")
        elif ab.norepeat == "ever":
            out.append("never on the same target twice")
        if ab.when is not None:
            out.append(f"only when {self.expr(ab.when)}")
        if ab.granted >= 0:
            out.append(f"held by whoever carries the mark {self.p.marks[ab.granted].id}")
        if ab.holders:
            out.append("passes down to " + ", ".join(self.p.roles[r].id for r in ab.holders))
        return out

    def targets(self, ab: ir.Ability) -> list[str]:
        out = [f"chooses {t.name}: {self.expr(t.filter)}" for t in ab.targets]
        out += [f"names a {c.kind} ({c.name})" for c in ab.choices]
        return out

    def effect(self, ab: ir.Ability) -> str:
        return self.stmts(ab.body)

    def immunities(self, role: ir.Role) -> list[str]:
        out = []
        for im in role.immune:
            s = f"cannot be killed by {self.causes(im.causes)}"
            if im.unless >= 0:
                s += f" unless marked {self.p.marks[im.unless].id}"
            if im.times:
                s += f" ({im.times} time{'s' if im.times > 1 else ''}, then it wears off)"
            out.append(s)
        return out

    def triggers(self, role: ir.Role) -> list[str]:
        return [f"on death by {self.causes(t.causes)}: {self.stmts(t.body)}" for t in role.triggers]
