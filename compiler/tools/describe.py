"""Plain-words descriptions of a compiled spec, shared by `maf doc` (the rulebook) and `maf lsp`
(hover): what an ability does, its limits, the night order, the rulings.

Everything is read from the IR (compiler/ir/nodes.py) and the spec text. Statements are described
by a small table of phrases keyed by IR class; a statement the table does not know (a construct
added later) is shown as its own spec text, so nothing is ever left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from maf.compiler.ir import nodes as ir
from maf.dsl.diagnostics import Span, source_lines


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


# The words of the descriptions, per language: str.format templates keyed by what they say.
# A language without a phrase falls back to English; spec text (expressions, ids of marks and
# causes) is quoted as written.
PHRASES: dict[str, dict[str, str]] = {
    "en": {
        "sep": "; ",
        "comma": ", ",
        "nothing": "nothing happens",
        "any_cause": "any cause",
        "kill": "kills {target} (by {cause})",
        "kill_piercing": "kills {target} (by {cause}, through any protection)",
        "protect": "protects {target} from {causes}",
        "guard": "guards {target} from {causes} (taking the hit)",
        "unmark": "removes the mark {mark} from {target}",
        "mark": "marks {target} as {mark}",
        "convert": "turns {target} into a {role}",
        "tell": "learns: {parts}",
        "tell_to": "learns to {to}: {parts}",
        "announce": "announces to the table: {parts}",
        "remember": "remembers {slot} = {value}",
        "trial": "puts {a} and {b} on trial the next day",
        "steal": "takes the ability of {source} and uses it on {dest}",
        "revive": "brings {target} back to life",
        "weight": "votes with weight {value}",
        "win": "wins the game for {who}",
        "skip_night": "the coming night is skipped",
        "cancel_vote": "today's vote eliminates nobody",
        "each": "for each {var} with {filter}: {body}",
        "if": "if {cond}: {body}",
        "else": "otherwise: {body}",
        "phase_night": "at night",
        "phase_day": "by day",
        "phase_vote": "during the vote",
        "phase_any": "by day or by night",
        "phase_card": "as a last-move card",
        "phase_call": "when called",
        "once_per_game": "once per game",
        "n_per_game": "{n} times per game",
        "per_night": "at most {n} per night",
        "per_day": "at most {n} per day",
        "self_once": "on oneself once per game",
        "self_n": "on oneself {n} times per game",
        "from_night": "from night {n}",
        "from_day": "from day {n}",
        "norepeat_consecutive": "not on the same target twice running",
        "norepeat_ever": "never on the same target twice",
        "when": "only when {cond}",
        "granted": "held by whoever carries the mark {mark}",
        "holders": "passes down to {roles}",
        "target": "chooses {name}: {filter}",
        "choice": "names a {kind} ({name})",
        "immune": "cannot be killed by {causes}",
        "immune_unless": " unless marked {mark}",
        "immune_once": " (1 time, then it wears off)",
        "immune_times": " ({n} times, then it wears off)",
        "on_death": "on death by {causes}: {body}",
    },
    "fa": {
        "sep": "؛ ",
        "comma": "، ",
        "nothing": "هیچ اتفاقی نمی‌افتد",
        "any_cause": "هر علتی",
        "kill": "{target} را می‌کشد (با {cause})",
        "kill_piercing": "{target} را می‌کشد (با {cause}، از هر محافظتی می‌گذرد)",
        "protect": "از {target} در برابر {causes} محافظت می‌کند",
        "guard": "از {target} در برابر {causes} نگهبانی می‌کند (ضربه را به جان می‌خرد)",
        "unmark": "نشان {mark} را از {target} برمی‌دارد",
        "mark": "به {target} نشان {mark} می‌زند",
        "convert": "{target} را به {role} تبدیل می‌کند",
        "tell": "می‌فهمد: {parts}",
        "tell_to": "به {to} می‌گوید: {parts}",
        "announce": "به همه اعلام می‌کند: {parts}",
        "remember": "به خاطر می‌سپارد: {slot} = {value}",
        "trial": "{a} و {b} را برای روز بعد به دادگاه می‌فرستد",
        "steal": "توانایی {source} را می‌گیرد و روی {dest} به کار می‌برد",
        "revive": "{target} را زنده می‌کند",
        "weight": "با وزن {value} رأی می‌دهد",
        "win": "بازی را به سود {who} تمام می‌کند",
        "skip_night": "شب بعد برگزار نمی‌شود",
        "cancel_vote": "رأی‌گیری امروز کسی را بیرون نمی‌کند",
        "each": "برای هر {var} که {filter}: {body}",
        "if": "اگر {cond}: {body}",
        "else": "وگرنه: {body}",
        "phase_night": "در شب",
        "phase_day": "در روز",
        "phase_vote": "هنگام رأی‌گیری",
        "phase_any": "در روز یا شب",
        "phase_card": "به‌عنوان کارت حرکت آخر",
        "phase_call": "وقتی فراخوانده شود",
        "once_per_game": "یک بار در هر بازی",
        "n_per_game": "{n} بار در هر بازی",
        "per_night": "حداکثر {n} بار در هر شب",
        "per_day": "حداکثر {n} بار در هر روز",
        "self_once": "روی خود یک بار در هر بازی",
        "self_n": "روی خود {n} بار در هر بازی",
        "from_night": "از شب {n}",
        "from_day": "از روز {n}",
        "norepeat_consecutive": "نه دو بار پشت سر هم روی یک نفر",
        "norepeat_ever": "هرگز دو بار روی یک نفر",
        "when": "فقط وقتی {cond}",
        "granted": "در دست کسی که نشان {mark} دارد",
        "holders": "پس از او به {roles} می‌رسد",
        "target": "انتخاب {name}: {filter}",
        "choice": "نام بردن یک {kind} ({name})",
        "immune": "با {causes} کشته نمی‌شود",
        "immune_unless": " مگر نشان {mark} داشته باشد",
        "immune_once": " (یک بار، سپس از بین می‌رود)",
        "immune_times": " ({n} بار، سپس از بین می‌رود)",
        "on_death": "هنگام مرگ با {causes}: {body}",
    },
    "ar": {
        "sep": "؛ ",
        "comma": "، ",
        "nothing": "لا يحدث شيء",
        "any_cause": "أي سبب",
        "kill": "يقتل {target} (بـ{cause})",
        "kill_piercing": "يقتل {target} (بـ{cause}، متجاوزًا أي حماية)",
        "protect": "يحمي {target} من {causes}",
        "guard": "يحرس {target} من {causes} (ويتلقى الضربة عنه)",
        "unmark": "يزيل العلامة {mark} عن {target}",
        "mark": "يضع العلامة {mark} على {target}",
        "convert": "يحوّل {target} إلى {role}",
        "tell": "يعرف: {parts}",
        "tell_to": "يُخبر {to}: {parts}",
        "announce": "يعلن للجميع: {parts}",
        "remember": "يتذكر: {slot} = {value}",
        "trial": "يضع {a} و{b} في المحاكمة في اليوم التالي",
        "steal": "يأخذ قدرة {source} ويستخدمها على {dest}",
        "revive": "يعيد {target} إلى الحياة",
        "weight": "يصوّت بوزن {value}",
        "win": "تنتهي اللعبة بفوز {who}",
        "skip_night": "تُلغى الليلة القادمة",
        "cancel_vote": "لا يُقصي تصويت اليوم أحدًا",
        "each": "لكل {var} حيث {filter}: {body}",
        "if": "إذا {cond}: {body}",
        "else": "وإلا: {body}",
        "phase_night": "في الليل",
        "phase_day": "في النهار",
        "phase_vote": "أثناء التصويت",
        "phase_any": "في النهار أو الليل",
        "phase_card": "كبطاقة حركة أخيرة",
        "phase_call": "عند استدعائها",
        "once_per_game": "مرة واحدة في اللعبة",
        "n_per_game": "{n} مرات في اللعبة",
        "per_night": "{n} مرة على الأكثر في كل ليلة",
        "per_day": "{n} مرة على الأكثر في كل نهار",
        "self_once": "على نفسه مرة واحدة في اللعبة",
        "self_n": "على نفسه {n} مرات في اللعبة",
        "from_night": "ابتداءً من الليلة {n}",
        "from_day": "ابتداءً من النهار {n}",
        "norepeat_consecutive": "ليس على الشخص نفسه مرتين متتاليتين",
        "norepeat_ever": "أبدًا على الشخص نفسه مرتين",
        "when": "فقط عندما {cond}",
        "granted": "يملكها من يحمل العلامة {mark}",
        "holders": "تنتقل بعده إلى {roles}",
        "target": "يختار {name}: {filter}",
        "choice": "يسمّي {kind} ({name})",
        "immune": "لا يُقتل بـ{causes}",
        "immune_unless": " إلا إذا حمل العلامة {mark}",
        "immune_once": " (مرة واحدة، ثم تزول)",
        "immune_times": " ({n} مرات، ثم تزول)",
        "on_death": "عند الموت بـ{causes}: {body}",
    },
}


class Describer:
    """Descriptions of one program's parts, in plain words (in `lang`, English where the
    phrasebook has no such language), with the spec's own text for expressions."""

    def __init__(self, program: ir.Program, source: str, lang: str = "en"):
        self.p = program
        self.lines = source_lines(source)
        self.lang = lang
        self.words = {**PHRASES["en"], **PHRASES.get(lang, {})}

    def say(self, key: str, **fields: object) -> str:
        return self.words[key].format(**fields)

    # ---------------------------------------------------------------- names
    def display(self, names: tuple[tuple[str, str], ...], fallback: str) -> str:
        table = dict(names)
        return table.get(self.lang) or table.get("en") or next(iter(table.values()), fallback)

    def name(self, thing: ir.Role | ir.Team) -> str:
        """A role or team as the descriptions name it: its id in English (what an author
        writes), its display name in the page's language otherwise."""
        return thing.id if self.lang == "en" else self.display(thing.names, thing.id)

    def role_name(self, idx: int) -> str:
        return self.name(self.p.roles[idx])

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
        if not idxs:
            return self.words["any_cause"]
        return self.words["comma"].join(self.p.causes[i] for i in idxs)

    # ---------------------------------------------------------------- statements
    def stmt(self, s) -> str:
        kind = type(s).__name__
        f = getattr(self, f"_s_{kind}", None)
        if f is not None:
            return f(s)
        return self.text(s.span) if isinstance(getattr(s, "span", None), Span) else kind

    def stmts(self, body) -> str:
        if not body:
            return self.words["nothing"]
        return self.words["sep"].join(self.stmt(s) for s in body)

    def _s_Kill(self, s):
        key = "kill_piercing" if s.piercing else "kill"
        return self.say(key, target=self.expr(s.target), cause=self.p.causes[s.cause])

    def _s_Protect(self, s):
        return self.say("protect", target=self.expr(s.target), causes=self.causes(s.causes))

    def _s_Guard(self, s):
        return self.say("guard", target=self.expr(s.target), causes=self.causes(s.causes))

    def _s_SetMark(self, s):
        key = "unmark" if s.remove else "mark"
        return self.say(key, mark=self.p.marks[s.mark].id, target=self.expr(s.target))

    def _s_Convert(self, s):
        return self.say("convert", target=self.expr(s.target), role=self.role_name(s.role))

    def _s_Tell(self, s):
        parts = self.words["comma"].join(self.expr(x) for x in s.parts)
        if s.to is not None:
            return self.say("tell_to", to=self.expr(s.to), parts=parts)
        return self.say("tell", parts=parts)

    def _s_Announce(self, s):
        return self.say("announce", parts=self.words["comma"].join(self.expr(x) for x in s.parts))

    def _s_Remember(self, s):
        return self.say("remember", slot=self.p.memslots[s.slot], value=self.expr(s.value))

    def _s_Trial(self, s):
        return self.say("trial", a=self.expr(s.a), b=self.expr(s.b))

    def _s_Steal(self, s):
        return self.say("steal", source=self.expr(s.source), dest=self.expr(s.dest))

    def _s_Revive(self, s):
        return self.say("revive", target=self.expr(s.target))

    def _s_Weight(self, s):
        return self.say("weight", value=self.expr(s.value))

    def _s_WinNow(self, s):
        who = self.p.teams[s.idx] if s.kind == "team" else self.p.roles[s.idx]
        return self.say("win", who=self.name(who))

    def _s_SkipNight(self, s):
        return self.words["skip_night"]

    def _s_CancelVote(self, s):
        return self.words["cancel_vote"]

    def _s_Each(self, s):
        return self.say("each", var=s.var, filter=self.expr(s.filter), body=self.stmts(s.body))

    def _s_If(self, s):
        parts = [self.say("if", cond=self.expr(c), body=self.stmts(b)) for c, b in s.branches]
        if s.orelse:
            parts.append(self.say("else", body=self.stmts(s.orelse)))
        return self.words["sep"].join(parts)

    # ---------------------------------------------------------------- abilities
    def night_rank(self, ab: ir.Ability) -> int | None:
        """1-based place in the night order, or None for an ability not resolved at night."""
        try:
            return self.p.night_order.index(ab.idx) + 1
        except ValueError:
            return None

    def phase(self, ab: ir.Ability) -> str:
        return self.words.get(f"phase_{ab.phase}", ab.phase)

    def limits(self, ab: ir.Ability) -> list[str]:
        out = []
        when = "night" if ab.at_night else "day"
        if ab.per_game:
            out.append(
                self.words["once_per_game"]
                if ab.per_game == 1
                else self.say("n_per_game", n=ab.per_game)
            )
        if ab.per_phase:
            out.append(self.say(f"per_{when}", n=ab.per_phase))
        if ab.self_per_game:
            out.append(
                self.words["self_once"]
                if ab.self_per_game == 1
                else self.say("self_n", n=ab.self_per_game)
            )
        if ab.from_number > 1:
            out.append(self.say(f"from_{when}", n=ab.from_number))
        if ab.norepeat in ("consecutive", "ever"):
            out.append(self.words[f"norepeat_{ab.norepeat}"])
        if ab.when is not None:
            out.append(self.say("when", cond=self.expr(ab.when)))
        if ab.granted >= 0:
            out.append(self.say("granted", mark=self.p.marks[ab.granted].id))
        if ab.holders:
            roles = self.words["comma"].join(self.role_name(r) for r in ab.holders)
            out.append(self.say("holders", roles=roles))
        return out

    def targets(self, ab: ir.Ability) -> list[str]:
        out = [self.say("target", name=t.name, filter=self.expr(t.filter)) for t in ab.targets]
        out += [self.say("choice", kind=c.kind, name=c.name) for c in ab.choices]
        return out

    def effect(self, ab: ir.Ability) -> str:
        return self.stmts(ab.body)

    def immunities(self, role: ir.Role) -> list[str]:
        out = []
        for im in role.immune:
            s = self.say("immune", causes=self.causes(im.causes))
            if im.unless >= 0:
                s += self.say("immune_unless", mark=self.p.marks[im.unless].id)
            if im.times:
                s += (
                    self.words["immune_once"]
                    if im.times == 1
                    else self.say("immune_times", n=im.times)
                )
            out.append(s)
        return out

    def triggers(self, role: ir.Role) -> list[str]:
        return [
            self.say("on_death", causes=self.causes(t.causes), body=self.stmts(t.body))
            for t in role.triggers
        ]
