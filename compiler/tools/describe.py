"""Plain-words descriptions of a compiled spec, shared by `maf doc` (the rulebook) and `maf lsp`
(hover): what an ability does, its limits, the night order, the rulings.

Everything is read from the IR (compiler/ir/nodes.py) and the spec text. Statements are described
by a small table of phrases keyed by IR class; a statement the table does not know (a construct
added later) is shown as its own spec text, so nothing is ever left out.

Two audiences: authors (the hover) read expressions as written and ids; players (the rulebook,
`plain=True`) read every expression phrased from its IR nodes (PLAIN: one phrase per node kind,
function, builtin and operator, in en, fa and ar), display names for roles, teams, causes, marks
and abilities, and branches that differ only in a role merged into one clause.
"""

# ruff: noqa: E501 - the phrasebooks below are sentences, one a line

from __future__ import annotations

import re
from dataclasses import dataclass

from maf.compiler.ir import nodes as ir
from maf.compiler.ir.visitor import ExprVisitor
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
        "kill_now": "kills {target} at once (by {cause}): later roles see the death",
        "instead": "instead of dying by {causes}{when}: {body} (the death does not happen)",
        "instead_when": ", while {cond}",
        "protect": "protects {target} from {causes}",
        "guard": "guards {target} from {causes} (taking the hit)",
        "unmark": "removes the mark {mark} from {target}",
        "mark": "marks {target} as {mark}",
        "convert": "turns {target} into {role}",
        "tell": "learns: {parts}",
        "moderator": "the moderator picks {name}, a {kind}{filter}: {body}",
        "moderator_where": " such that {cond}",
        "moderator_else": "; if he picks none: {body}",
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
        "kill_now": "{target} را همان دم می‌کشد (با {cause})؛ نقش‌های بعدی مرگ را می‌بینند",
        "instead": "به جای مرگ با {causes}{when}: {body} (نمی‌میرد)",
        "instead_when": "، تا وقتی {cond}",
        "protect": "از {target} در برابر {causes} محافظت می‌کند",
        "guard": "از {target} در برابر {causes} نگهبانی می‌کند (ضربه را به جان می‌خرد)",
        "unmark": "نشان {mark} را از {target} برمی‌دارد",
        "mark": "به {target} نشان {mark} می‌زند",
        "convert": "{target} را به {role} تبدیل می‌کند",
        "tell": "می‌فهمد: {parts}",
        "moderator": "گرداننده {name} را برمی‌گزیند، از نوع {kind}{filter}: {body}",
        "moderator_where": " چنان که {cond}",
        "moderator_else": "؛ اگر چیزی برنگزیند: {body}",
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
        "kill_now": "يقتل {target} في الحال (بـ{cause})؛ ترى الأدوار اللاحقة موته",
        "instead": "بدلًا من الموت بـ{causes}{when}: {body} (لا يموت)",
        "instead_when": "، ما دام {cond}",
        "protect": "يحمي {target} من {causes}",
        "guard": "يحرس {target} من {causes} (ويتلقى الضربة عنه)",
        "unmark": "يزيل العلامة {mark} عن {target}",
        "mark": "يضع العلامة {mark} على {target}",
        "convert": "يحوّل {target} إلى {role}",
        "tell": "يعرف: {parts}",
        "moderator": "يختار المدير {name}، من نوع {kind}{filter}: {body}",
        "moderator_where": " بحيث {cond}",
        "moderator_else": "؛ وإن لم يختر شيئًا: {body}",
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


# The players' words (`maf doc`): a phrasing of every IR expression node and of the statements,
# limits and rules around them, per language (`Describer(..., plain=True)`). A phrase is a
# str.format template: {0}, {1}... are the node's operands already phrased. Names inside a
# phrase are wrapped in BDI ... END (bidi isolation; doc.py turns them into <bdi>), literals the
# spec gives no words for (a quoted message, an id without a display name) in LIT ... END.
BDI, LIT, END = "\x02", "\x04", "\x03"
PLAIN: dict[str, dict[str, str]] = {
    "en": {
        # seats, values
        "cause_vote": "the vote",
        "cause_moderator": "the moderator",
        "var_target": "the target",
        "var_nth": "the {0} target",
        "nth": "first|second|third|fourth|fifth",
        "var_each": "that player",
        "var_role": "the chosen role",
        "var_team": "the chosen team",
        "var_cause": "the cause of death",
        "var_visitor": "the visitor",
        "var_blocker": "the blocker",
        "var_nominator": "the nominator",
        "var_attacker": "the attacker",
        "var_victim": "the player who died",
        "var_attacked": "the attacked player",
        "var_killer": "the killer",
        "self": "this player",
        "b_alive": "the number of living players",
        "b_players": "the number of players",
        "b_night": "the night's number",
        "b_day": "the day's number",
        "b_defenders": "the number of defenders",
        "b_skips": "the skip tokens left",
        "b_chaos": "today is a chaos day",
        "b_chaos_not": "today is not a chaos day",
        "true": "always",
        "false": "never",
        "yes": "yes",
        "no": "no",
        # functions
        "f_alive": "{0} is alive",
        "f_alive_not": "{0} is dead",
        "f_role": "the role of {0}",
        "f_team": "the team of {0}",
        "f_seen_role": "the role {0} shows (the moderator may show a role that registers as another)",
        "f_seen_team": "the team {0} shows (the moderator may show a role that registers as another)",
        "f_seen_kind": "the kind {0} shows (the moderator may show a role that registers as another)",
        "f_living": "the number of living {0} players",
        "f_living_role": "the number of living players who are {0}",
        "f_has": "{0} carries the mark {1}",
        "f_has_not": "{0} does not carry the mark {1}",
        "f_acted": "{0} was used tonight",
        "f_acted_not": "{0} was not used tonight",
        "f_acted2": "{0} was used tonight by a {1}",
        "f_acted2_not": "{0} was not used tonight by a {1}",
        "f_recall": "the player remembered as {0}",
        "f_count_team": "the number of {0} players dealt",
        "f_count_role": "the number of cards of {0} dealt",
        "f_kind": "the kind of {0}'s role",
        "f_count_kind": "the number of cards of the kind {0} dealt",
        "f_max_count": "the most cards dealt of any one role of the kind {0}",
        "f_used": "the number of times this player has used {0}",
        "f_doomed": "a kill is pending on {0} tonight",
        "f_doomed_not": "no kill is pending on {0} tonight",
        "f_in_middle": "the number of cards of {0} in the middle",
        "f_departed": "the number of {0} players who have left the game",
        "f_defending": "{0} is on the defense",
        "f_defending_not": "{0} is not on the defense",
        "f_left": "the player to the left of {0}",
        "f_right": "the player to the right of {0}",
        "f_pick": "{1} while {0}, otherwise {2}",
        "f_min": "the smaller of {0} and {1}",
        "f_max": "the larger of {0} and {1}",
        "f_clamp": "{0}, but at least {1} and at most {2}",
        "f_floor": "{0}, rounded down",
        "f_ceil": "{0}, rounded up",
        "f_round": "{0}, rounded",
        "f_visitors": "the players who visited {0}",
        "f_visits": "the players {0} visited",
        "f_count": "the number of {0}",
        "f_blocked": "{0} was blocked tonight",
        "f_blocked_not": "{0} was not blocked tonight",
        "f_voted": "{0} voted against {1} in the last vote",
        "f_voted_not": "{0} did not vote against {1} in the last vote",
        "f_cause_of": "how {0} died",
        # operators
        "==": "{0} is {1}",
        "eq_num": "{0} is {1}",
        "ne_num": "{0} is not {1}",
        "!=": "{0} is not {1}",
        "<": "{0} is less than {1}",
        "<=": "{0} is at most {1}",
        ">": "{0} is more than {1}",
        ">=": "{0} is at least {1}",
        "+": "{0} plus {1}",
        "-": "{0} minus {1}",
        "*": "{0} times {1}",
        "/": "{0} divided by {1}",
        "%": "the remainder of {0} divided by {1}",
        "neg": "minus {0}",
        "and": " and ",
        "or": " or ",
        "either": "either {0}",
        "not": "it is not so that {0}",
        "in": "{0} is {1}",
        "in_not": "{0} is neither {1}",
        "in_or": " or ",
        "in_nor": " nor ",
        "inset": "{0} is one of {1}",
        "inset_not": "{0} is not one of {1}",
        "q_count": "the number of living players for whom {0}",
        "q_some": "some living player is such that {0}",
        "q_every": "every living player is such that {0}",
        "q_random": "a living player drawn at random among those for whom {0}",
        "whether": "whether {0}",
        "quote": "“{0}”",
        "ability": "{1} (the {0}'s ability)",
        "nobody": "nobody",
        # statements and rules
        "target": "chooses {name}, such that {filter}",
        "target_any": "chooses {name}",
        "choice_role": "names a role ({name})",
        "choice_team": "names a team ({name})",
        "remember": "remembers {value} as {slot}",
        "protect_level": "gives {target} defence level {n} tonight",
        "kill_attack": "kills {target} (by {cause}, attack strength {n})",
        "guard_body": "{guard}; when the hit is taken: {body}",
        "block": "blocks {target} tonight",
        "visit": "visits {target}",
        "guard_takes": "{guard}, and his own protection can save him",
        "delayed": "{n} nights later: {body}",
        "next_night": "the next night: {body}",
        "call": "{seat} makes the decision of {ability} at once",
        "call_self": "makes the decision of {ability} at once",
        "mod_choose": "the moderator picks {name} such that {filter}: {body}",
        "mod_choose_any": "the moderator picks {name}: {body}",
        "mod_else": "if he picks none: {body}",
        "mod_seat": "a player",
        "mod_role": "a role",
        "mod_team": "a team",
        "mod_number": "a number from 0 to the number of players",
        "var_mod_seat": "that player",
        "var_mod_role": "that role",
        "var_mod_team": "that team",
        "var_mod_number": "that number",
        "registers": "information may show this role as {items}, as the moderator chooses each time",
        "middle_swap": "lays the card of {target} in the middle and gives {target} the card of {role} from there",
        "each_in": "for each of {source}: {body}",
        "each_plain": "for every living player for whom {filter}: {body}",
        "if_then": "if {cond}: {body}",
        "otherwise": "otherwise: {body}",
        "elif": "otherwise, if {cond}: {body}",
        "tell_whether": "learns {parts}",
        "trial_cancel": "called off if {cond}",
        "trial_refund": "the use is given back when it is called off",
        "trial_reveal": "the role of whoever leaves is revealed",
        "trial_judgement": "innocent votes count: the loser leaves only with more votes than they",
        "on_visited": "when visited: {body}",
        "killed_by": "by {causes}: {body}",
        "killed": "by any cause: {body}",
        "r_defenders_no_vote": "Defenders do not vote in round two.",
        "r_defenders_all_vote": "Defenders vote in round two too.",
        "on_blocked": "when blocked: {body}",
        "on_nominated": "when nominated: {body}",
        "votes_with": "votes only for a player {who} votes for too",
        "votes_with_mark": "votes only for a player whom another player marked {mark} votes for too",
        "on_any_death": "whenever a player dies (by {causes}): {body}",
        "on_any_save": "whenever a player survives an attack (by {causes}) a protection or a defence stopped: {body}",
        "on_start": "when the game starts: {body}",
        "alongside": "wins alongside whoever wins, if {cond}",
        "hook_night_start": "at the start of each night",
        "hook_night_end": "at the end of each night",
        "hook_dawn": "at each dawn",
        "hook_day_start": "at the start of each day",
        "hook_day_end": "at the end of each day",
        "hook": "{when}: {body}",
        "dead_only": "used by the dead only",
        "exclusive": "not in the same phase as {abilities}",
        "table_one": "the table uses one of {abilities} per phase",
        "dead_too": "used alive or dead",
        "astral": "does not visit its targets",
        "unblockable": "works even when its user is blocked",
        "defense": "defence level {n}",
        "inverted": "for a carrier of an inverting mark, instead: {body}",
        "stolen": "when stolen: {body}",
        "inverted_by": "for a player marked {marks}, instead: {body}",
        "r_vote2": "Round one: each accused player with at least {n} votes goes to the defense.",
        "r_vote2_any": "Round one: every accused player goes to the defense.",
        "r_defense": "Round two: the defender with the most votes, at least {n}, leaves the game.",
        "r_defense_any": "Round two: the defender with the most votes leaves the game.",
        "r_vote1": "One round: the player with the most votes, at least {n}, leaves the game.",
        "r_vote1_any": "One round: the player with the most votes leaves the game.",
        "r_defenders_vote": "Defenders may vote in round two when {cond}.",
        "r_ballot_single": "Each player votes for one player.",
        "r_ballot_multi": "Each player may raise a hand for every accused player.",
        "r_tie_none": "A tie eliminates nobody.",
        "r_tie_lottery": "A tie is settled by drawing lots among the tied players.",
        "r_tie_runoff": "On a tie the tied players face a runoff, voted by every living player; a tie in the runoff eliminates nobody.",
        "r_tie_repeat": "A tie replays the day.",
        "r_tie_role": "On a tie the living {role} leaves the game instead (with none alive, nobody leaves).",
        "r_skips": "The table has {n} skip tokens: while some are left, when the players who skip reach the threshold the day ends without an elimination and a token is spent.",
        "r_exempt": "Players marked {mark} cannot be accused.",
        "r_split": "When neither a player nor skip reaches the threshold, nobody leaves and no skip token is spent.",
        "r_forced": "Living players marked {mark} go to the defense anyway.",
        "r_nominations": "Players are put up by nomination: each living player nominates at most once a day and is nominated at most once a day; each nominee is voted on in turn, and the nominee with the most votes, if at least {n}, is executed.",
        "r_ghost": "The dead keep {n} vote(s) for the rest of the game, each spent when used.",
        "r_judgement": "In the deciding round each player votes guilty, innocent or abstains: the accused leaves only with more guilty votes than innocent ones.",
        "r_timer": "Time for {name}: {value} seconds.",
        "r_chaos": "A chaos day comes when {cond}; it has a single round of voting, no vote-time abilities, and a scheduled trial is called off.",
        "r_inquiry": "Status inquiry, from day {d}, at most {n} times: when at least {t} players ask, the moderator announces how many players of each team have left the game.",
        "r_inquiry_when": "The inquiry can be asked only when {cond}.",
        "r_chaos_vote": "On a chaos day: {rule}",
        "r_election": "A vote elects the holder of the title {title}, held {when}: a player with at least {n} votes is elected and keeps the title.",
        "r_election_when": "when {cond}",
        "r_election_vacant": "while no living player holds it",
        "r_election_tie_none": "A tied election elects nobody.",
        "r_election_tie_lottery": "A tied election is settled by drawing lots.",
        "r_election_tie_role": "On a tied election the living {role} is elected.",
        "r_speaking": "Seat {s} speaks first; from day {d} on, the first speaker moves {k} seats further each day.",
        "r_quiet_day": "No abilities and no vote on day {n}.",
        "r_quiet_night": "No abilities are used on night {n}.",
        "r_calm": "A dawn at which nobody died is announced as {text}.",
        "r_draw": "The game ends in a draw when {cond}.",
        "r_win": "{who} wins when {cond}.",
        "r_title": "{title}: the title the day's election gives.",
        "r_grants": "{mark}: its carrier holds {abilities}.",
        "r_middle": "left undealt in the middle of the table: {roles}",
        "r_where": "any roles such that {cond}",
        "r_check": "Wins are checked {events}.",
        "m_dawn": "lasts until the next dawn",
        "m_dusk": "lasts until dusk",
        "m_tomorrow": "lasts until the end of the next day",
        "m_forever": "lasts for the rest of the game",
        "m_inverts": "its carrier's abilities work the other way",
        "m_silences": "its carrier may not speak",
        "m_expels": "its carrier leaves the game when reported breaking it",
        "m_voteless": "its carrier has no vote",
        "m_powerless": "its carrier keeps his card but loses its powers",
        "m_malfunctions": "its carrier's powers misfire (abilities work the other way or not at all)",
        "m_weighs": "its carrier's vote counts {n}",
        "m_title": "a title, given by the day's election",
        "m_grants": "its carrier holds {abilities}",
        "check_dawn": "at dawn",
        "check_dusk": "at dusk",
        "check_vote": "after the vote",
        "check_moderator": "after the moderator's rulings",
        "check_death": "after every death",
    },
    "fa": {
        "cause_vote": "رأی‌گیری",
        "cause_moderator": "گرداننده",
        "var_target": "هدف",
        "var_nth": "هدف {0}",
        "nth": "اول|دوم|سوم|چهارم|پنجم",
        "var_each": "آن بازیکن",
        "var_role": "نقش انتخاب‌شده",
        "var_team": "تیم انتخاب‌شده",
        "var_cause": "علت مرگ",
        "var_visitor": "بازدیدکننده",
        "var_blocker": "مسدودکننده",
        "var_nominator": "نامزدکننده",
        "var_attacker": "مهاجم",
        "var_victim": "بازیکنِ کشته‌شده",
        "var_attacked": "بازیکنِ هدفِ حمله",
        "var_killer": "قاتل",
        "self": "خودِ بازیکن",
        "b_alive": "تعداد بازیکنان زنده",
        "b_players": "تعداد بازیکنان",
        "b_night": "شمارهٔ شب",
        "b_day": "شمارهٔ روز",
        "b_defenders": "تعداد مدافعان",
        "b_skips": "تعداد ژتون‌های رد باقی‌مانده",
        "b_chaos": "امروز روز آشوب است",
        "b_chaos_not": "امروز روز آشوب نیست",
        "true": "همیشه",
        "false": "هرگز",
        "yes": "بله",
        "no": "خیر",
        "f_alive": "{0} زنده است",
        "f_alive_not": "{0} زنده نیست",
        "f_role": "نقش {0}",
        "f_team": "تیم {0}",
        "f_seen_role": "نقشی که {0} نشان می‌دهد (گرداننده ممکن است نقشی را که چون دیگری دیده می‌شود، چنان نشان دهد)",
        "f_seen_team": "تیمی که {0} نشان می‌دهد (گرداننده ممکن است نقشی را که چون دیگری دیده می‌شود، چنان نشان دهد)",
        "f_seen_kind": "گونه‌ای که {0} نشان می‌دهد (گرداننده ممکن است نقشی را که چون دیگری دیده می‌شود، چنان نشان دهد)",
        "f_living": "تعداد بازیکنان زندهٔ {0}",
        "f_living_role": "تعداد بازیکنان زنده با نقش {0}",
        "f_has": "{0} نشان {1} دارد",
        "f_has_not": "{0} نشان {1} ندارد",
        "f_acted": "{0} امشب به کار رفته است",
        "f_acted_not": "{0} امشب به کار نرفته است",
        "f_acted2": "{0} امشب به دست {1} به کار رفته است",
        "f_acted2_not": "{0} امشب به دست {1} به کار نرفته است",
        "f_recall": "بازیکنی که با عنوان {0} به خاطر سپرده شده",
        "f_count_team": "تعداد بازیکنان {0} در چیدمان",
        "f_count_role": "تعداد کارت‌های {0} در چیدمان",
        "f_kind": "نوع نقش {0}",
        "f_count_kind": "تعداد کارت‌های از نوع {0} در چیدمان",
        "f_max_count": "بیشترین تعداد کارت یک نقش از نوع {0} در چیدمان",
        "f_used": "تعداد دفعاتی که این بازیکن {0} را به کار برده",
        "f_doomed": "امشب کشتنی برای {0} در راه است",
        "f_doomed_not": "امشب کشتنی برای {0} در راه نیست",
        "f_in_middle": "تعداد کارت‌های {0} در وسط میز",
        "f_departed": "تعداد بازیکنان {0} که از بازی بیرون رفته‌اند",
        "f_defending": "{0} در دفاع است",
        "f_defending_not": "{0} در دفاع نیست",
        "f_left": "بازیکن سمت چپ {0}",
        "f_right": "بازیکن سمت راست {0}",
        "f_pick": "{1} تا وقتی {0}، وگرنه {2}",
        "f_min": "کمترینِ {0} و {1}",
        "f_max": "بیشترینِ {0} و {1}",
        "f_clamp": "{0}، دست‌کم {1} و حداکثر {2}",
        "f_floor": "{0}، رو به پایین گرد شده",
        "f_ceil": "{0}، رو به بالا گرد شده",
        "f_round": "{0}، گرد شده",
        "f_visitors": "بازیکنانی که به {0} سر زده‌اند",
        "f_visits": "بازیکنانی که {0} به آن‌ها سر زده",
        "f_count": "تعداد {0}",
        "f_blocked": "{0} امشب مسدود شده است",
        "f_blocked_not": "{0} امشب مسدود نشده است",
        "f_voted": "{0} در آخرین رأی‌گیری به {1} رأی داده است",
        "f_voted_not": "{0} در آخرین رأی‌گیری به {1} رأی نداده است",
        "f_cause_of": "علت مرگ {0}",
        "==": "{0} {1} است",
        "eq_num": "{0} برابر {1} است",
        "ne_num": "{0} برابر {1} نیست",
        "!=": "{0} {1} نیست",
        "<": "{0} کمتر از {1} است",
        "<=": "{0} حداکثر {1} است",
        ">": "{0} بیشتر از {1} است",
        ">=": "{0} دست‌کم {1} است",
        "+": "{0} به‌علاوهٔ {1}",
        "-": "{0} منهای {1}",
        "*": "{0} ضرب در {1}",
        "/": "{0} تقسیم بر {1}",
        "%": "باقی‌ماندهٔ {0} بر {1}",
        "neg": "منفیِ {0}",
        "and": " و ",
        "or": " یا ",
        "either": "یا {0}",
        "not": "چنین نیست که {0}",
        "in": "{0} یکی از این‌هاست: {1}",
        "in_not": "{0} هیچ‌یک از این‌ها نیست: {1}",
        "in_or": "، ",
        "in_nor": "، ",
        "inset": "{0} یکی از {1} است",
        "inset_not": "{0} یکی از {1} نیست",
        "q_count": "تعداد بازیکنان زنده‌ای که {0}",
        "q_some": "دست‌کم یک بازیکن زنده هست که {0}",
        "q_every": "هر بازیکن زنده چنین است که {0}",
        "q_random": "بازیکن زنده‌ای که به قرعه از میان آنان که {0} انتخاب می‌شود",
        "whether": "آیا {0}",
        "quote": "«{0}»",
        "ability": "{1} (توانایی {0})",
        "nobody": "هیچ‌کس",
        "target": "{name} را انتخاب می‌کند، به شرطی که {filter}",
        "target_any": "{name} را انتخاب می‌کند",
        "choice_role": "یک نقش را نام می‌برد ({name})",
        "choice_team": "یک تیم را نام می‌برد ({name})",
        "remember": "{value} را با عنوان {slot} به خاطر می‌سپارد",
        "protect_level": "امشب به {target} سطح دفاع {n} می‌دهد",
        "kill_attack": "{target} را می‌کشد (با {cause}، قدرت حملهٔ {n})",
        "guard_body": "{guard}؛ وقتی ضربه را به جان بخرد: {body}",
        "block": "امشب {target} را مسدود می‌کند",
        "visit": "به سراغ {target} می‌رود",
        "guard_takes": "{guard}، و محافظت خودش می‌تواند او را نجات دهد",
        "delayed": "{n} شب بعد: {body}",
        "next_night": "شب بعد: {body}",
        "call": "{seat} همان دم دربارهٔ {ability} تصمیم می‌گیرد",
        "call_self": "همان دم دربارهٔ {ability} تصمیم می‌گیرد",
        "mod_choose": "گرداننده {name} را برمی‌گزیند، چنان که {filter}: {body}",
        "mod_choose_any": "گرداننده {name} را برمی‌گزیند: {body}",
        "mod_else": "اگر چیزی برنگزیند: {body}",
        "mod_seat": "بازیکنی",
        "mod_role": "نقشی",
        "mod_team": "تیمی",
        "mod_number": "عددی از ۰ تا شمار بازیکنان",
        "var_mod_seat": "آن بازیکن",
        "var_mod_role": "آن نقش",
        "var_mod_team": "آن تیم",
        "var_mod_number": "آن عدد",
        "registers": "استعلام‌ها ممکن است این نقش را {items} نشان دهند، هر بار به انتخاب گرداننده",
        "middle_swap": "کارت {target} را به وسط میز می‌گذارد و کارت {role} را از آنجا به {target} می‌دهد",
        "each_in": "برای هر یک از {source}: {body}",
        "each_plain": "برای هر بازیکن زنده‌ای که {filter}: {body}",
        "if_then": "اگر {cond}: {body}",
        "otherwise": "وگرنه: {body}",
        "elif": "وگرنه اگر {cond}: {body}",
        "tell_whether": "می‌فهمد {parts}",
        "trial_cancel": "اگر {cond}، لغو می‌شود",
        "trial_refund": "با لغو، توانایی پس داده می‌شود",
        "trial_reveal": "نقش کسی که بیرون می‌رود فاش می‌شود",
        "trial_judgement": "رأی بی‌گناه شمرده می‌شود: بازنده فقط با رأی بیشتر از آن بیرون می‌رود",
        "on_visited": "وقتی کسی به او سر بزند: {body}",
        "killed_by": "با {causes}: {body}",
        "killed": "با هر علتی: {body}",
        "r_defenders_no_vote": "مدافعان در دور دوم رأی نمی‌دهند.",
        "r_defenders_all_vote": "مدافعان هم در دور دوم رأی می‌دهند.",
        "on_blocked": "وقتی مسدود شود: {body}",
        "on_nominated": "وقتی نامزد شود: {body}",
        "votes_with": "فقط به بازیکنی رأی می‌دهد که {who} هم به او رأی دهد",
        "votes_with_mark": "فقط به بازیکنی رأی می‌دهد که بازیکن دیگری با نشان {mark} هم به او رأی دهد",
        "on_any_death": "هر بار که بازیکنی بمیرد (با {causes}): {body}",
        "on_any_save": "هر بار که محافظت یا دفاعی حمله‌ای (با {causes}) را دفع کند: {body}",
        "on_start": "در آغاز بازی: {body}",
        "alongside": "اگر {cond}، همراه برندگان می‌برد",
        "hook_night_start": "در آغاز هر شب",
        "hook_night_end": "در پایان هر شب",
        "hook_dawn": "در هر سحر",
        "hook_day_start": "در آغاز هر روز",
        "hook_day_end": "در پایان هر روز",
        "hook": "{when}: {body}",
        "dead_only": "فقط مردگان به کار می‌برند",
        "exclusive": "نه در همان نوبتی که {abilities}",
        "table_one": "در هر نوبت فقط یکی از {abilities} برای کل میز",
        "dead_too": "زنده یا مرده به کار می‌رود",
        "astral": "به هدف‌هایش سر نمی‌زند",
        "unblockable": "حتی اگر صاحبش مسدود باشد عمل می‌کند",
        "defense": "سطح دفاع {n}",
        "inverted": "برای دارندهٔ نشانِ وارونه‌کننده، به‌جایش: {body}",
        "stolen": "اگر دزدیده شود: {body}",
        "inverted_by": "برای بازیکنی که نشان {marks} دارد، به‌جایش: {body}",
        "r_vote2": "دور اول: هر متهمی که دست‌کم {n} رأی بیاورد به دفاع می‌رود.",
        "r_vote2_any": "دور اول: همهٔ متهمان به دفاع می‌روند.",
        "r_defense": "دور دوم: مدافعی که بیشترین رأی را بیاورد، دست‌کم {n} رأی، از بازی بیرون می‌رود.",
        "r_defense_any": "دور دوم: مدافعی که بیشترین رأی را بیاورد از بازی بیرون می‌رود.",
        "r_vote1": "یک دور: بازیکنی که بیشترین رأی را بیاورد، دست‌کم {n} رأی، از بازی بیرون می‌رود.",
        "r_vote1_any": "یک دور: بازیکنی که بیشترین رأی را بیاورد از بازی بیرون می‌رود.",
        "r_defenders_vote": "مدافعان در دور دوم رأی می‌دهند وقتی {cond}.",
        "r_ballot_single": "هر بازیکن به یک نفر رأی می‌دهد.",
        "r_ballot_multi": "هر بازیکن می‌تواند برای هر متهم دست بلند کند.",
        "r_tie_none": "تساوی کسی را بیرون نمی‌کند.",
        "r_tie_lottery": "تساوی با قرعه میان هم‌رأی‌ها حل می‌شود.",
        "r_tie_runoff": "در تساوی، هم‌رأی‌ها به رأی‌گیری دوباره با رأی همهٔ زنده‌ها می‌روند؛ تساوی دوباره کسی را بیرون نمی‌کند.",
        "r_tie_repeat": "تساوی روز را از نو برگزار می‌کند.",
        "r_tie_role": "در تساوی، {role}ِ زنده به‌جای آنان بیرون می‌رود (اگر زنده نباشد، کسی بیرون نمی‌رود).",
        "r_skips": "میز {n} ژتون رد دارد: تا ژتون هست، اگر ردکنندگان به حد نصاب برسند روز بدون خروج تمام می‌شود و یک ژتون مصرف می‌شود.",
        "r_exempt": "بازیکنان دارای نشان {mark} متهم نمی‌شوند.",
        "r_split": "اگر نه بازیکنی و نه رد به حد نصاب برسد، کسی بیرون نمی‌رود و ژتون ردی مصرف نمی‌شود.",
        "r_forced": "بازیکنان زندهٔ دارای نشان {mark} در هر حال به دفاع می‌روند.",
        "r_nominations": "بازیکنان با نامزدی به رأی گذاشته می‌شوند: هر بازیکن زنده روزی حداکثر یک بار نامزد می‌کند و روزی حداکثر یک بار نامزد می‌شود؛ به هر نامزد به نوبت رأی داده می‌شود و نامزدِ پررأی‌تر، اگر دست‌کم {n} رأی داشته باشد، اعدام می‌شود.",
        "r_ghost": "مردگان تا پایان بازی {n} رأی نگه می‌دارند که هر کدام با استفاده مصرف می‌شود.",
        "r_judgement": "در دور تعیین‌کننده هر بازیکن رأی گناهکار یا بی‌گناه می‌دهد یا رأی نمی‌دهد: متهم فقط با رأی گناهکارِ بیشتر از رأی بی‌گناه بیرون می‌رود.",
        "r_timer": "زمان {name}: {value} ثانیه.",
        "r_chaos": "روز آشوب وقتی است که {cond}؛ یک دور رأی‌گیری دارد، توانایی هنگام رأی‌گیری ندارد و دادگاه برنامه‌ریزی‌شده لغو می‌شود.",
        "r_inquiry": "استعلام وضعیت، از روز {d}، حداکثر {n} بار: وقتی دست‌کم {t} بازیکن بخواهند، گرداننده اعلام می‌کند از هر تیم چند نفر از بازی بیرون رفته‌اند.",
        "r_inquiry_when": "استعلام فقط وقتی ممکن است که {cond}.",
        "r_chaos_vote": "در روز آشوب: {rule}",
        "r_election": "رأی‌گیری‌ای دارندهٔ عنوان {title} را برمی‌گزیند، {when}: بازیکنی که دست‌کم {n} رأی بیاورد برگزیده می‌شود و عنوان را نگه می‌دارد.",
        "r_election_when": "وقتی {cond}",
        "r_election_vacant": "تا وقتی هیچ بازیکن زنده‌ای آن را ندارد",
        "r_election_tie_none": "تساوی در انتخاب کسی را برنمی‌گزیند.",
        "r_election_tie_lottery": "تساوی در انتخاب با قرعه حل می‌شود.",
        "r_election_tie_role": "در تساوی انتخاب، {role}ِ زنده برگزیده می‌شود.",
        "r_speaking": "صندلی {s} اول صحبت می‌کند؛ از روز {d}، نفر اول هر روز {k} صندلی جلوتر می‌رود.",
        "r_quiet_day": "در روز {n} نه توانایی به کار می‌رود و نه رأی‌گیری هست.",
        "r_quiet_night": "در شب {n} هیچ توانایی به کار نمی‌رود.",
        "r_calm": "سحری که کسی در آن نمرده با {text} اعلام می‌شود.",
        "r_draw": "بازی مساوی تمام می‌شود وقتی {cond}.",
        "r_win": "{who} برنده می‌شود وقتی {cond}.",
        "r_title": "{title}: عنوانی که انتخابات روز می‌دهد.",
        "r_grants": "{mark}: دارندهٔ آن {abilities} را در دست دارد.",
        "r_middle": "وسط میز، پخش‌نشده: {roles}",
        "r_where": "هر چیدمانی که {cond}",
        "r_check": "برد {events} بررسی می‌شود.",
        "m_dawn": "تا سحر بعد می‌ماند",
        "m_dusk": "تا غروب می‌ماند",
        "m_tomorrow": "تا پایان روز بعد می‌ماند",
        "m_forever": "تا پایان بازی می‌ماند",
        "m_inverts": "توانایی‌های دارنده‌اش وارونه عمل می‌کنند",
        "m_silences": "دارنده‌اش نمی‌تواند صحبت کند",
        "m_expels": "اگر گزارش شود که دارنده‌اش آن را شکسته، از بازی بیرون می‌رود",
        "m_voteless": "دارنده‌اش حق رأی ندارد",
        "m_powerless": "دارنده‌اش کارتش را نگه می‌دارد ولی توانایی‌هایش را از دست می‌دهد",
        "m_malfunctions": "توانایی‌های دارنده‌اش خراب عمل می‌کنند (وارونه یا اصلاً)",
        "m_weighs": "رأی دارنده‌اش {n} رأی حساب می‌شود",
        "m_title": "عنوانی که انتخابات روز می‌دهد",
        "m_grants": "دارنده‌اش {abilities} را در دست دارد",
        "check_dawn": "در سحر",
        "check_dusk": "در غروب",
        "check_vote": "پس از رأی‌گیری",
        "check_moderator": "پس از حکم گرداننده",
        "check_death": "پس از هر مرگ",
    },
    "ar": {
        "cause_vote": "التصويت",
        "cause_moderator": "المشرف",
        "var_target": "الهدف",
        "var_nth": "الهدف {0}",
        "nth": "الأول|الثاني|الثالث|الرابع|الخامس",
        "var_each": "ذلك اللاعب",
        "var_role": "الدور المختار",
        "var_team": "الفريق المختار",
        "var_cause": "سبب الموت",
        "var_visitor": "الزائر",
        "var_blocker": "الحاجب",
        "var_nominator": "المرشِّح",
        "var_attacker": "المهاجم",
        "var_victim": "اللاعب الذي مات",
        "var_attacked": "اللاعب المهاجَم",
        "var_killer": "القاتل",
        "self": "اللاعب نفسه",
        "b_alive": "عدد اللاعبين الأحياء",
        "b_players": "عدد اللاعبين",
        "b_night": "رقم الليلة",
        "b_day": "رقم النهار",
        "b_defenders": "عدد المدافعين",
        "b_skips": "رموز التخطي المتبقية",
        "b_chaos": "اليوم يوم فوضى",
        "b_chaos_not": "اليوم ليس يوم فوضى",
        "true": "دائمًا",
        "false": "أبدًا",
        "yes": "نعم",
        "no": "لا",
        "f_alive": "{0} حيّ",
        "f_alive_not": "{0} ميّت",
        "f_role": "دور {0}",
        "f_team": "فريق {0}",
        "f_seen_role": "الدور الذي يظهر به {0} (قد يُظهر المدير دورًا يُرى كدور آخر على ذلك النحو)",
        "f_seen_team": "الفريق الذي يظهر به {0} (قد يُظهر المدير دورًا يُرى كدور آخر على ذلك النحو)",
        "f_seen_kind": "النوع الذي يظهر به {0} (قد يُظهر المدير دورًا يُرى كدور آخر على ذلك النحو)",
        "f_living": "عدد الأحياء من {0}",
        "f_living_role": "عدد الأحياء في دور {0}",
        "f_has": "{0} يحمل العلامة {1}",
        "f_has_not": "{0} لا يحمل العلامة {1}",
        "f_acted": "استُخدمت {0} الليلة",
        "f_acted_not": "لم تُستخدم {0} الليلة",
        "f_acted2": "استخدم {1} {0} الليلة",
        "f_acted2_not": "لم يستخدم {1} {0} الليلة",
        "f_recall": "اللاعب المحفوظ باسم {0}",
        "f_count_team": "عدد لاعبي {0} في التوزيع",
        "f_count_role": "عدد بطاقات {0} في التوزيع",
        "f_kind": "نوع دور {0}",
        "f_count_kind": "عدد البطاقات من نوع {0} في التوزيع",
        "f_max_count": "أكبر عدد من بطاقات دور واحد من نوع {0} في التوزيع",
        "f_used": "عدد مرات استخدام هذا اللاعب لـ{0}",
        "f_doomed": "هناك قتل معلّق على {0} الليلة",
        "f_doomed_not": "لا قتل معلّق على {0} الليلة",
        "f_in_middle": "عدد بطاقات {0} في وسط الطاولة",
        "f_departed": "عدد لاعبي {0} الذين غادروا اللعبة",
        "f_defending": "{0} في الدفاع",
        "f_defending_not": "{0} ليس في الدفاع",
        "f_left": "اللاعب على يسار {0}",
        "f_right": "اللاعب على يمين {0}",
        "f_pick": "{1} ما دام {0}، وإلا {2}",
        "f_min": "الأصغر من {0} و{1}",
        "f_max": "الأكبر من {0} و{1}",
        "f_clamp": "{0}، على ألا يقل عن {1} ولا يزيد عن {2}",
        "f_floor": "{0}، مقرّبًا إلى الأسفل",
        "f_ceil": "{0}، مقرّبًا إلى الأعلى",
        "f_round": "{0}، مقرّبًا",
        "f_visitors": "اللاعبون الذين زاروا {0}",
        "f_visits": "اللاعبون الذين زارهم {0}",
        "f_count": "عدد {0}",
        "f_blocked": "حُجب {0} الليلة",
        "f_blocked_not": "لم يُحجب {0} الليلة",
        "f_voted": "صوّت {0} ضد {1} في آخر تصويت",
        "f_voted_not": "لم يصوّت {0} ضد {1} في آخر تصويت",
        "f_cause_of": "سبب موت {0}",
        "==": "{0} هو {1}",
        "eq_num": "{0} يساوي {1}",
        "ne_num": "{0} لا يساوي {1}",
        "!=": "{0} ليس {1}",
        "<": "{0} أقل من {1}",
        "<=": "{0} لا يزيد عن {1}",
        ">": "{0} أكثر من {1}",
        ">=": "{0} لا يقل عن {1}",
        "+": "{0} زائد {1}",
        "-": "{0} ناقص {1}",
        "*": "{0} ضرب {1}",
        "/": "{0} مقسومًا على {1}",
        "%": "باقي قسمة {0} على {1}",
        "neg": "سالب {0}",
        "and": " و",
        "or": " أو ",
        "either": "إما {0}",
        "not": "ليس صحيحًا أن {0}",
        "in": "{0} واحد من: {1}",
        "in_not": "{0} ليس أيًا من: {1}",
        "in_or": "، ",
        "in_nor": "، ",
        "inset": "{0} من بين {1}",
        "inset_not": "{0} ليس من بين {1}",
        "q_count": "عدد اللاعبين الأحياء الذين يتحقق فيهم أن {0}",
        "q_some": "يوجد لاعب حي يتحقق فيه أن {0}",
        "q_every": "كل لاعب حي يتحقق فيه أن {0}",
        "q_random": "لاعب حي يُختار بالقرعة ممن يتحقق فيهم أن {0}",
        "whether": "هل {0}",
        "quote": "«{0}»",
        "ability": "{1} (قدرة {0})",
        "nobody": "لا أحد",
        "target": "يختار {name}، بشرط: {filter}",
        "target_any": "يختار {name}",
        "choice_role": "يسمّي دورًا ({name})",
        "choice_team": "يسمّي فريقًا ({name})",
        "remember": "يحفظ {value} باسم {slot}",
        "protect_level": "يمنح {target} مستوى دفاع {n} الليلة",
        "kill_attack": "يقتل {target} (بـ{cause}، بقوة هجوم {n})",
        "guard_body": "{guard}؛ وعندما يتلقى الضربة: {body}",
        "block": "يحجب {target} الليلة",
        "visit": "يزور {target}",
        "guard_takes": "{guard}، وقد تنقذه حمايته هو",
        "delayed": "بعد {n} ليالٍ: {body}",
        "next_night": "في الليلة التالية: {body}",
        "call": "يتخذ {seat} قرار {ability} في الحال",
        "call_self": "يتخذ قرار {ability} في الحال",
        "mod_choose": "يختار المدير {name} بحيث {filter}: {body}",
        "mod_choose_any": "يختار المدير {name}: {body}",
        "mod_else": "وإن لم يختر شيئًا: {body}",
        "mod_seat": "لاعبًا",
        "mod_role": "دورًا",
        "mod_team": "فريقًا",
        "mod_number": "عددًا من ٠ إلى عدد اللاعبين",
        "var_mod_seat": "ذلك اللاعب",
        "var_mod_role": "ذلك الدور",
        "var_mod_team": "ذلك الفريق",
        "var_mod_number": "ذلك العدد",
        "registers": "قد تُظهر الاستعلامات هذا الدور على أنه {items}، كما يختار المدير في كل مرة",
        "middle_swap": "يضع بطاقة {target} في وسط الطاولة ويعطي {target} بطاقة {role} من هناك",
        "each_in": "لكل واحد من {source}: {body}",
        "each_plain": "لكل لاعب حي يتحقق فيه أن {filter}: {body}",
        "if_then": "إذا {cond}: {body}",
        "otherwise": "وإلا: {body}",
        "elif": "وإلا فإذا {cond}: {body}",
        "tell_whether": "يعرف {parts}",
        "trial_cancel": "تُلغى إذا {cond}",
        "trial_refund": "ويُعاد الاستخدام عند الإلغاء",
        "trial_reveal": "ويُكشف دور من يغادر",
        "trial_judgement": "وتُحسب أصوات البراءة: لا يغادر الخاسر إلا بأصوات أكثر منها",
        "on_visited": "عندما يزوره أحد: {body}",
        "killed_by": "بـ{causes}: {body}",
        "killed": "بأي سبب: {body}",
        "r_defenders_no_vote": "لا يصوّت المدافعون في الجولة الثانية.",
        "r_defenders_all_vote": "يصوّت المدافعون أيضًا في الجولة الثانية.",
        "on_blocked": "عندما يُحجب: {body}",
        "on_nominated": "عندما يُرشَّح: {body}",
        "votes_with": "لا يصوّت إلا للاعب يصوّت له {who} أيضًا",
        "votes_with_mark": "لا يصوّت إلا للاعب يصوّت له لاعب آخر يحمل العلامة {mark} أيضًا",
        "on_any_death": "كلما مات لاعب (بـ{causes}): {body}",
        "on_any_save": "كلما صدّت حماية أو دفاع هجومًا (بـ{causes}): {body}",
        "on_start": "عند بدء اللعبة: {body}",
        "alongside": "يفوز أيضًا مع الفائزين إذا {cond}",
        "hook_night_start": "في بداية كل ليلة",
        "hook_night_end": "في نهاية كل ليلة",
        "hook_dawn": "عند كل فجر",
        "hook_day_start": "في بداية كل نهار",
        "hook_day_end": "في نهاية كل نهار",
        "hook": "{when}: {body}",
        "dead_only": "يستخدمها الموتى فقط",
        "exclusive": "ليس في الدور نفسه مع {abilities}",
        "table_one": "تستخدم الطاولة واحدة فقط من {abilities} في كل دور",
        "dead_too": "تُستخدم حيًا أو ميتًا",
        "astral": "لا تزور أهدافها",
        "unblockable": "تعمل حتى لو حُجب صاحبها",
        "defense": "مستوى الدفاع {n}",
        "inverted": "لحامل علامة العكس، بدلًا من ذلك: {body}",
        "stolen": "إذا سُرقت: {body}",
        "inverted_by": "للاعب الذي يحمل العلامة {marks}، بدلًا من ذلك: {body}",
        "r_vote2": "الجولة الأولى: كل متهم ينال {n} أصوات على الأقل يذهب إلى الدفاع.",
        "r_vote2_any": "الجولة الأولى: يذهب كل المتهمين إلى الدفاع.",
        "r_defense": "الجولة الثانية: المدافع صاحب أكثر الأصوات، {n} على الأقل، يغادر اللعبة.",
        "r_defense_any": "الجولة الثانية: المدافع صاحب أكثر الأصوات يغادر اللعبة.",
        "r_vote1": "جولة واحدة: اللاعب صاحب أكثر الأصوات، {n} على الأقل، يغادر اللعبة.",
        "r_vote1_any": "جولة واحدة: اللاعب صاحب أكثر الأصوات يغادر اللعبة.",
        "r_defenders_vote": "يصوّت المدافعون في الجولة الثانية عندما {cond}.",
        "r_ballot_single": "يصوّت كل لاعب للاعب واحد.",
        "r_ballot_multi": "يرفع كل لاعب يده لكل متهم يشاء.",
        "r_tie_none": "التعادل لا يُقصي أحدًا.",
        "r_tie_lottery": "يُحسم التعادل بالقرعة بين المتعادلين.",
        "r_tie_runoff": "عند التعادل يخوض المتعادلون جولة إعادة يصوّت فيها كل الأحياء؛ والتعادل فيها لا يُقصي أحدًا.",
        "r_tie_repeat": "التعادل يعيد النهار من جديد.",
        "r_tie_role": "عند التعادل يغادر {role} الحي بدلًا منهم (وإن لم يكن حيًا فلا يغادر أحد).",
        "r_skips": "للطاولة {n} رموز تخطٍّ: ما دام بعضها باقيًا، إذا بلغ المتخطّون النصاب ينتهي النهار بلا إقصاء ويُستهلك رمز.",
        "r_exempt": "لا يُتهم اللاعبون الذين يحملون العلامة {mark}.",
        "r_split": "إذا لم يبلغ النصاب لاعب ولا تخطٍّ، لا يغادر أحد ولا يُستهلك رمز تخطٍّ.",
        "r_forced": "يذهب الأحياء الذين يحملون العلامة {mark} إلى الدفاع في كل حال.",
        "r_nominations": "يُطرح اللاعبون بالترشيح: يرشّح كل لاعب حي مرة واحدة على الأكثر في اليوم ويُرشَّح مرة واحدة على الأكثر في اليوم؛ يُصوَّت على كل مرشَّح بدوره، ويُعدم المرشَّح صاحب أكثر الأصوات إن نال {n} على الأقل.",
        "r_ghost": "يحتفظ الموتى بـ {n} صوت حتى نهاية اللعبة، يُستهلك كل منها عند استعماله.",
        "r_judgement": "في الجولة الحاسمة يصوّت كل لاعب مذنبًا أو بريئًا أو يمتنع: لا يغادر المتهم إلا إذا فاقت أصوات الإدانة أصوات البراءة.",
        "r_timer": "وقت {name}: {value} ثانية.",
        "r_chaos": "يكون يوم الفوضى عندما {cond}؛ فيه جولة تصويت واحدة، بلا قدرات وقت التصويت، وتُلغى المحاكمة المقررة.",
        "r_inquiry": "الاستعلام عن الحالة، من النهار {d}، {n} مرات على الأكثر: إذا طلبه {t} لاعبين على الأقل، يعلن المشرف عدد من غادر اللعبة من كل فريق.",
        "r_inquiry_when": "لا يُطلب الاستعلام إلا عندما {cond}.",
        "r_chaos_vote": "في يوم الفوضى: {rule}",
        "r_election": "تصويت ينتخب حامل اللقب {title}، {when}: يُنتخب من ينال {n} أصوات على الأقل ويحتفظ باللقب.",
        "r_election_when": "عندما {cond}",
        "r_election_vacant": "ما دام لا يحمله لاعب حي",
        "r_election_tie_none": "التعادل في الانتخاب لا ينتخب أحدًا.",
        "r_election_tie_lottery": "يُحسم التعادل في الانتخاب بالقرعة.",
        "r_election_tie_role": "عند التعادل في الانتخاب يُنتخب {role} الحي.",
        "r_speaking": "يتكلم المقعد {s} أولًا؛ ومن النهار {d} يتقدم المتكلم الأول {k} مقاعد كل نهار.",
        "r_quiet_day": "لا قدرات ولا تصويت في النهار {n}.",
        "r_quiet_night": "لا تُستخدم أي قدرة في الليلة {n}.",
        "r_calm": "يُعلن الفجر الذي لم يمت فيه أحد بـ{text}.",
        "r_draw": "تنتهي اللعبة بالتعادل عندما {cond}.",
        "r_win": "يفوز {who} عندما {cond}.",
        "r_title": "{title}: اللقب الذي يمنحه انتخاب النهار.",
        "r_grants": "{mark}: يملك حامله {abilities}.",
        "r_middle": "تبقى في وسط الطاولة دون توزيع: {roles}",
        "r_where": "أي أدوار بحيث {cond}",
        "r_check": "يُفحص الفوز {events}.",
        "m_dawn": "تبقى حتى الفجر التالي",
        "m_dusk": "تبقى حتى الغسق",
        "m_tomorrow": "تبقى حتى نهاية النهار التالي",
        "m_forever": "تبقى حتى نهاية اللعبة",
        "m_inverts": "تعمل قدرات حاملها بالعكس",
        "m_silences": "لا يحق لحاملها الكلام",
        "m_expels": "يغادر حاملها اللعبة إذا أُبلغ عن خرقه لها",
        "m_voteless": "لا صوت لحاملها",
        "m_powerless": "يحتفظ حاملها ببطاقته لكنه يفقد قدراتها",
        "m_malfunctions": "تتعطل قدرات حاملها (تعمل بالعكس أو لا تعمل)",
        "m_weighs": "يُحسب صوت حاملها {n}",
        "m_title": "لقب يمنحه انتخاب النهار",
        "m_grants": "يملك حاملها {abilities}",
        "check_dawn": "عند الفجر",
        "check_dusk": "عند الغسق",
        "check_vote": "بعد التصويت",
        "check_moderator": "بعد قرارات المشرف",
        "check_death": "بعد كل موت",
    },
}


def humanise(ident: str) -> str:
    """An id as words, for a thing the spec gives no display name (`mafia_attack`: mafia attack)."""
    return ident.replace(".", " ").replace("_", " ")


_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "%": 2}
_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_COMPARE = frozenset(_NEGATED)
_BOOL_FUNCS = frozenset(
    {"alive", "has", "acted", "doomed", "defending", "blocked", "voted"}
)  # functions whose value is a truth (phrased as a clause, with a negative form)


class Describer(ExprVisitor[bool, str]):
    """Descriptions of one program's parts, in plain words (in `lang`, English where the
    phrasebook has no such language).

    With `plain=False` (the editor's hover, for authors) expressions are quoted as written in
    the spec and marks and causes by their ids; with `plain=True` (the rulebook, for players)
    every expression is phrased from its IR nodes in the page's language, names are display
    names wrapped in BDI ... END, and an id without a display name is humanised, wrapped in
    LIT ... END and recorded in `fallbacks`."""

    def __init__(self, program: ir.Program, source: str, lang: str = "en", plain: bool = False):
        self.p = program
        self.lines = source_lines(source)
        self.lang = lang
        self.plain = plain
        self.words = {**PHRASES["en"], **PHRASES.get(lang, {})}
        self.pw = {**PLAIN["en"], **PLAIN.get(lang, {})}
        self.scope: dict[str, str] = {}  # local name -> how the page calls it
        self.subst: dict[int, str] = {}  # role idx -> a phrase (merged per-role branches)
        self.fallbacks: list[str] = []  # what was shown without words of the page's language

    def say(self, key: str, **fields: object) -> str:
        return self.words[key].format(**fields)

    def w(self, key: str, *args: object) -> str:
        return self.pw[key].format(*args)

    # ---------------------------------------------------------------- names
    def display(self, names: tuple[tuple[str, str], ...], fallback: str) -> str:
        table = dict(names)
        return table.get(self.lang) or table.get("en") or next(iter(table.values()), fallback)

    def shown(self, names: tuple[tuple[str, str], ...], ident: str) -> str:
        """A name inside a sentence: its display name in the page's language; else (plain) the
        English one or the humanised id (never a third language's script), marked as a literal
        and recorded."""
        if not self.plain:
            return self.display(names, ident)
        table = dict(names)
        if table.get(self.lang):
            return BDI + table[self.lang] + END
        text = table.get("en") or humanise(ident)  # not another script: the id reads better
        self.fallbacks.append(f"{ident}: {text}")
        return LIT + text + END

    def name(self, thing: ir.Role | ir.Team | ir.Kind) -> str:
        """A role or team as the descriptions name it: for authors its id in English (what an
        author writes), else its display name in the page's language."""
        if self.lang == "en" and not self.plain:
            return thing.id
        return self.shown(thing.names, thing.id)

    def role_name(self, idx: int) -> str:
        if idx in self.subst:
            return self.subst[idx]
        return self.name(self.p.roles[idx])

    def cause_name(self, idx: int) -> str:
        cid = self.p.causes[idx]
        if not self.plain:
            return cid
        names = self.p.cause_names[idx] if idx < len(self.p.cause_names) else ()
        if not names and f"cause_{cid}" in self.pw:  # a built-in cause (vote, moderator)
            return BDI + self.w(f"cause_{cid}") + END
        return self.shown(names, cid)

    def mark_name(self, idx: int) -> str:
        m = self.p.marks[idx]
        return self.shown(m.names, m.id) if self.plain else m.id

    def ability_name(self, ab: ir.Ability) -> str:
        return self.shown(ab.names, ab.name) if self.plain else ab.name

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
        if self.plain:
            return self.phrase(e)
        span = getattr(e, "span", None)
        return self.text(span) if isinstance(span, Span) else str(e)

    def causes(self, idxs: tuple[int, ...]) -> str:
        if not idxs:
            return self.words["any_cause"]
        return self.words["comma"].join(self.cause_name(i) for i in idxs)

    # ---------------------------------------------------------------- expressions (plain)
    def phrase(self, e, neg: bool = False) -> str:
        """An expression in the page's words; `neg`: its negation (a truth value). One method
        per expression kind (a typed visitor: a kind added to the IR without its words here is
        a type error, not a spec fragment on a player's page)."""
        return self.visit_expr(e, neg)

    def _not(self, text: str, neg: bool) -> str:
        return self.w("not", text) if neg else text

    def const(self, e: ir.Const, neg: bool) -> str:
        v = e.value
        if isinstance(v, bool):
            return self.w("true" if v != neg else "false")
        if isinstance(v, int):
            return BDI + str(v) + END
        self.fallbacks.append(f"message: {v}")
        return LIT + self.w("quote", v) + END

    def var(self, e: ir.Var, neg: bool) -> str:
        if e.name in self.scope:
            text = self.scope[e.name]
        elif f"var_{e.name}" in self.pw:
            text = self.w(f"var_{e.name}")
        else:
            text = self.w(
                {"role": "var_role", "team": "var_team", "cause": "var_cause"}.get(
                    e.type, "var_each"
                )
            )
        return self._not(text, neg) if e.type == "bool" else text

    def builtin(self, e: ir.Builtin, neg: bool) -> str:
        if e.name == "self":
            return self.w("self")
        if e.name in ("true", "false"):
            return self.w("true" if (e.name == "true") != neg else "false")
        if e.name == "chaos":
            return self.w("b_chaos_not" if neg else "b_chaos")
        if f"b_{e.name}" in self.pw:
            return self.w(f"b_{e.name}")
        self.fallbacks.append(f"builtin: {e.name}")
        return LIT + humanise(e.name) + END

    def sym(self, e: ir.Sym, neg: bool) -> str:
        if e.kind == "role":
            return self.role_name(e.idx)
        if e.kind == "team":
            return self.name(self.p.teams[e.idx])
        if e.kind == "mark":
            return self.mark_name(e.idx)
        if e.kind == "cause":
            return self.cause_name(e.idx)
        if e.kind == "kind":
            k = self.p.kinds[e.idx]
            return self.name(k)
        if e.kind == "ability":
            ab = self.p.abilities[e.idx]
            return self.w("ability", self.role_name(ab.role), self.ability_name(ab))
        self.fallbacks.append(f"{'memory' if e.kind == 'memslot' else e.kind}: {e.name}")
        return LIT + humanise(e.name) + END

    def call(self, e: ir.Call, neg: bool) -> str:
        args = [self.phrase(a) for a in e.args]
        key = f"f_{e.func}"
        if e.func == "acted" and len(args) == 2:
            key = "f_acted2"
        if key not in self.pw:
            self.fallbacks.append(f"function: {e.func}")
            return LIT + humanise(e.func) + END + " (" + self.words["comma"].join(args) + ")"
        if e.func in _BOOL_FUNCS:
            return self.w(f"{key}_not" if neg else key, *args)
        return self.w(key, *args)

    def unary(self, e: ir.Unary, neg: bool) -> str:
        if e.op == "not":
            return self.phrase(e.operand, not neg)
        return self.w("neg", self.phrase(e.operand))

    def binary(self, e: ir.Binary, neg: bool) -> str:
        op = e.op
        if op in ("and", "or"):
            # not (a and b) is (not a) or (not b): the negation goes down to the clauses
            flip = {"and": "or", "or": "and"}
            joined = flip[op] if neg else op
            parts, nested = [], False
            for x in _chain(e, op):
                text = self.phrase(x, neg)
                inner = _connective(x)
                if inner is not None and inner != op:  # a chain of the other kind inside
                    nested = True
                    if (flip[inner] if neg else inner) == "or":
                        text = self.w("either", text)
                parts.append(text)
            if nested and joined == "or":  # `a and b, or c and d`
                return (self.words["comma"].rstrip() + self.pw["or"]).join(parts)
            return self.pw[joined].join(parts)
        if op in _COMPARE:
            op = _NEGATED[op] if neg else op
            if op in ("==", "!=") and (_is_number(e.left) or _is_number(e.right)):
                op = "eq_num" if op == "==" else "ne_num"
            return self.w(op, self.phrase(e.left), self.phrase(e.right))
        left = self.phrase(e.left)
        if _PRECEDENCE.get(getattr(e.left, "op", ""), 9) < _PRECEDENCE.get(op, 9):
            left += self.words["comma"].rstrip()  # `(a - 1) / 2`: a minus 1, divided by 2
        return self.w(op, left, self.phrase(e.right))

    def in_(self, e: ir.In, neg: bool) -> str:
        table = self.p.roles if e.kind == "role" else self.p.teams
        names = [self.role_name(i) if e.kind == "role" else self.name(table[i]) for i in e.members]
        sep = self.pw["in_nor" if neg else "in_or"]
        listed = (
            self.words["comma"].join(names[:-1]) + sep + names[-1] if len(names) > 1 else names[0]
        )
        return self.w("in_not" if neg else "in", self.phrase(e.value), listed)

    def in_set(self, e: ir.InSet, neg: bool) -> str:
        return self.w("inset_not" if neg else "inset", self.phrase(e.value), self.phrase(e.seats))

    def seen(self, e: ir.Seen, neg: bool) -> str:
        return self.w(f"f_seen_{e.kind}", self.phrase(e.seat))

    def quant(self, e: ir.Quant, neg: bool) -> str:
        saved = self.scope.get(e.var)
        self.scope[e.var] = self.w("var_each")
        try:
            text = self.w(f"q_{e.func}", self.phrase(e.cond))
        finally:
            if saved is None:
                self.scope.pop(e.var, None)
            else:
                self.scope[e.var] = saved
        return self._not(text, neg) if e.func in ("some", "every") else text

    def clause(self, e) -> str:
        """A truth as a sentence (a `when`, a win, a filter)."""
        return self.expr(e)

    # ---------------------------------------------------------------- statements
    def stmt(self, s) -> str:
        kind = type(s).__name__
        f = getattr(self, f"_p_{kind}", None) if self.plain else None
        if f is None:
            f = getattr(self, f"_s_{kind}", None)
        if f is not None:
            return f(s)
        if self.plain:
            self.fallbacks.append(f"statement: {kind}")
            return (
                LIT
                + (self.text(s.span) if isinstance(getattr(s, "span", None), Span) else kind)
                + END
            )
        return self.text(s.span) if isinstance(getattr(s, "span", None), Span) else kind

    def stmts(self, body) -> str:
        if not body:
            return self.words["nothing"]
        return self.words["sep"].join(self.stmt(s) for s in body)

    def _s_Kill(self, s):
        if s.at_once:
            return self.say("kill_now", target=self.expr(s.target), cause=self.cause_name(s.cause))
        key = "kill_piercing" if s.piercing else "kill"
        if self.plain and s.attack != 1 and not s.piercing:
            return self.pw["kill_attack"].format(
                target=self.expr(s.target), cause=self.cause_name(s.cause), n=s.attack
            )
        return self.say(key, target=self.expr(s.target), cause=self.cause_name(s.cause))

    def _s_Protect(self, s):
        if self.plain and s.level >= 0:
            return self.pw["protect_level"].format(target=self.expr(s.target), n=s.level)
        return self.say("protect", target=self.expr(s.target), causes=self.causes(s.causes))

    def _s_Guard(self, s):
        text = self.say("guard", target=self.expr(s.target), causes=self.causes(s.causes))
        if self.plain and s.takes:
            text = self.pw["guard_takes"].format(guard=text)
        if self.plain and s.body:
            return self.pw["guard_body"].format(guard=text, body=self.stmts(s.body))
        return text

    def _s_SetMark(self, s):
        key = "unmark" if s.remove else "mark"
        return self.say(key, mark=self.mark_name(s.mark), target=self.expr(s.target))

    def _s_Convert(self, s):
        return self.say("convert", target=self.expr(s.target), role=self.role_name(s.role))

    def _s_Tell(self, s):
        parts = self.words["comma"].join(self._part(x) for x in s.parts)
        if s.to is not None:
            return self.say("tell_to", to=self.expr(s.to), parts=parts)
        return self.say("tell", parts=parts)

    def _part(self, x) -> str:
        """A told or announced value: a truth is told as whether it holds."""
        if self.plain and _is_truth(x):
            return self.w("whether", self.phrase(x))
        return self.expr(x)

    def _s_Announce(self, s):
        return self.say("announce", parts=self.words["comma"].join(self._part(x) for x in s.parts))

    def _s_Remember(self, s):
        if self.plain:
            slot = self.p.memslots[s.slot]
            self.fallbacks.append(f"memory: {slot}")
            return self.pw["remember"].format(
                value=self.expr(s.value), slot=LIT + humanise(slot) + END
            )
        return self.say("remember", slot=self.p.memslots[s.slot], value=self.expr(s.value))

    def _s_Trial(self, s):
        text = self.say("trial", a=self.expr(s.a), b=self.expr(s.b))
        if not self.plain:
            return text
        notes = []
        if s.cancel_when is not None:
            notes.append(self.pw["trial_cancel"].format(cond=self.expr(s.cancel_when)))
        if s.refund:
            notes.append(self.pw["trial_refund"])
        if s.reveal:
            notes.append(self.pw["trial_reveal"])
        if s.judgement:
            notes.append(self.pw["trial_judgement"])
        if s.tie.startswith("role:"):
            role = next((r.idx for r in self.p.roles if r.id == s.tie[5:]), None)
            if role is not None:
                notes.append(self.pw["r_tie_role"].format(role=self.role_name(role)))
        elif f"r_tie_{s.tie}" in self.pw:
            notes.append(self.pw[f"r_tie_{s.tie}"])
        notes = [n.rstrip(".") for n in notes]
        if self.lang == "en":
            notes = [n[:1].lower() + n[1:] for n in notes]
        return f"{text} ({self.words['sep'].join(notes)})" if notes else text

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

    # the players' phrasing of statements whose authors' phrasing quotes the spec
    def _p_Each(self, s):
        saved = dict(self.scope)
        self.scope[s.var] = self.w("var_each")
        try:
            body = self.stmts(s.body)
            if s.source is not None:
                return self.pw["each_in"].format(source=self.phrase(s.source), body=body)
            return self.pw["each_plain"].format(filter=self.phrase(s.filter), body=body)
        finally:
            self.scope = saved

    def _p_If(self, s):
        merged = self._merged(s)
        if merged is not None:
            return merged
        parts = []
        for k, (c, b) in enumerate(s.branches):
            key = "if_then" if k == 0 else "elif"
            parts.append(self.pw[key].format(cond=self.phrase(c), body=self.stmts(b)))
        if s.orelse:
            parts.append(self.pw["otherwise"].format(body=self.stmts(s.orelse)))
        return self.words["sep"].join(parts)

    def _merged(self, s) -> str | None:
        """Branches that differ only in a role (`VALUE == ROLE [and REST]: ... ROLE ...`, one
        per role: a role known only at run time) as one clause with VALUE in the role's place."""
        if s.orelse or len(s.branches) < 2:
            return None
        value = None
        seen = set()
        for cond, body in s.branches:
            eq, rest = cond, None
            if isinstance(cond, ir.Binary) and cond.op == "and":
                eq, rest = cond.left, cond.right
            if not (
                isinstance(eq, ir.Binary)
                and eq.op == "=="
                and isinstance(eq.right, ir.Sym)
                and eq.right.kind == "role"
                and (value is None or eq.left == value)
            ):
                return None
            value = eq.left
            saved = self.subst
            self.subst = {eq.right.idx: self.phrase(value)}
            try:
                seen.add((self.phrase(rest) if rest is not None else None, self.stmts(body)))
            finally:
                self.subst = saved
            if len(seen) > 1:
                return None
        ((rest_text, body_text),) = seen
        if rest_text is None:
            return body_text
        return self.pw["if_then"].format(cond=rest_text, body=body_text)

    def _p_Block(self, s):
        return self.pw["block"].format(target=self.expr(s.target))

    def _p_Visit(self, s):
        return self.pw["visit"].format(target=self.expr(s.target))

    def _p_Delayed(self, s):
        body = self.stmts(s.body)
        if s.nights == 1:
            return self.pw["next_night"].format(body=body)
        return self.pw["delayed"].format(n=s.nights, body=body)

    def _p_CallAbility(self, s):
        ab = self.p.abilities[s.ability]
        name = self.w("ability", self.role_name(ab.role), self.ability_name(ab))
        if s.seat is None:
            return self.pw["call_self"].format(ability=name)
        return self.pw["call"].format(seat=self.expr(s.seat), ability=name)

    def _s_ModeratorChoice(self, s):
        cond = self.say("moderator_where", cond=self.expr(s.filter)) if s.filter else ""
        text = self.say("moderator", name=s.var, kind=s.kind, filter=cond, body=self.stmts(s.body))
        if s.orelse:
            text += self.say("moderator_else", body=self.stmts(s.orelse))
        return text

    def _p_ModeratorChoice(self, s):
        saved = dict(self.scope)
        name = self.w(f"mod_{s.kind}")
        self.scope[s.var] = self.w(f"var_mod_{s.kind}")
        try:
            body = self.stmts(s.body)
            if s.filter is None or _always(s.filter):
                text = self.pw["mod_choose_any"].format(name=name, body=body)
            else:
                text = self.pw["mod_choose"].format(
                    name=name, filter=self.phrase(s.filter), body=body
                )
        finally:
            self.scope = saved
        if s.orelse:
            text += self.words["sep"] + self.pw["mod_else"].format(body=self.stmts(s.orelse))
        return text

    def _p_MiddleSwap(self, s):
        return self.pw["middle_swap"].format(
            target=self.expr(s.target), role=self.role_name(s.role)
        )

    # ---------------------------------------------------------------- abilities
    def night_rank(self, ab: ir.Ability) -> int | None:
        """1-based place in the night order, or None for an ability not resolved at night."""
        try:
            return self.p.night_order.index(ab.idx) + 1
        except ValueError:
            return None

    def phase(self, ab: ir.Ability) -> str:
        return self.words.get(f"phase_{ab.phase}", ab.phase)

    def bind(self, ab: ir.Ability) -> None:
        """Name the ability's targets and choices as the page calls them (the target, the
        first target...)."""
        self.scope = {}
        if not self.plain:
            return
        nth = self.pw["nth"].split("|")
        for k, t in enumerate(ab.targets):
            if len(ab.targets) == 1:
                self.scope[t.name] = self.w("var_target")
            else:
                self.scope[t.name] = self.w("var_nth", nth[k] if k < len(nth) else k + 1)
        for c in ab.choices:
            self.scope[c.name] = self.w("var_role" if c.kind == "role" else "var_team")

    def limits(self, ab: ir.Ability) -> list[str]:
        self.bind(ab)
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
            out.append(self.say("granted", mark=self.mark_name(ab.granted)))
        if ab.holders:
            roles = self.words["comma"].join(self.role_name(r) for r in ab.holders)
            out.append(self.say("holders", roles=roles))
        if self.plain:
            for group, key in ((ab.exclusive_group, "exclusive"), (ab.table_group, "table_one")):
                if group < 0:
                    continue
                field = "exclusive_group" if key == "exclusive" else "table_group"
                others = [
                    self.w("ability", self.role_name(o.role), self.ability_name(o))
                    for o in self.p.abilities
                    if getattr(o, field) == group and (o.idx != ab.idx or key == "table_one")
                ]
                if others:
                    out.append(self.pw[key].format(abilities=self.words["comma"].join(others)))
            if ab.life == "dead":
                out.append(self.pw["dead_only"])
            elif ab.life == "both":
                out.append(self.pw["dead_too"])
            if ab.astral and ab.targets and ab.at_night:
                out.append(self.pw["astral"])
            if ab.unblockable:
                out.append(self.pw["unblockable"])
        return out

    def targets(self, ab: ir.Ability) -> list[str]:
        self.bind(ab)
        if not self.plain:
            out = [self.say("target", name=t.name, filter=self.expr(t.filter)) for t in ab.targets]
            out += [self.say("choice", kind=c.kind, name=c.name) for c in ab.choices]
            return out
        out = []
        for t in ab.targets:
            label = self.scope[t.name]
            if _always(t.filter):
                out.append(self.pw["target_any"].format(name=label))
            else:
                out.append(self.pw["target"].format(name=label, filter=self.phrase(t.filter)))
        for c in ab.choices:
            out.append(self.pw[f"choice_{c.kind}"].format(name=self.scope[c.name]))
        return out

    def effect(self, ab: ir.Ability) -> str:
        self.bind(ab)
        return self.stmts(ab.body)

    def extras(self, ab: ir.Ability) -> list[str]:
        """What else an ability does: its reactions, inverted and stolen forms (plain)."""
        self.bind(ab)
        out = [self.reaction(r) for r in ab.reactions]
        if ab.inverted is not None:
            marks = [self.mark_name(m.idx) for m in self.p.marks if m.inverts or m.malfunctions]
            body = self.stmts(ab.inverted)
            if marks:
                out.append(
                    self.pw["inverted_by"].format(marks=self.words["comma"].join(marks), body=body)
                )
            else:
                out.append(self.pw["inverted"].format(body=body))
        if ab.stolen is not None:
            out.append(self.pw["stolen"].format(body=self.stmts(ab.stolen)))
        return out

    def reaction(self, r: ir.Reaction) -> str:
        return self.pw[f"on_{r.kind}"].format(body=self.stmts(r.body))

    def hook(self, h: ir.Hook) -> str:
        return self.pw["hook"].format(when=self.w(f"hook_{h.when}"), body=self.stmts(h.body))

    def any_save(self, t: ir.Trigger) -> str:
        saved = self.scope
        self.scope = {**saved, "victim": self.w("var_attacked")}  # who survived, not who died
        try:
            body = self.stmts(t.body)
        finally:
            self.scope = saved
        return self.pw["on_any_save"].format(causes=self.causes(t.causes), body=body)

    def any_death(self, t: ir.Trigger) -> str:
        return self.pw["on_any_death"].format(causes=self.causes(t.causes), body=self.stmts(t.body))

    def start(self, body) -> str:
        return self.pw["on_start"].format(body=self.stmts(body))

    def immunities(self, role: ir.Role) -> list[str]:
        self.scope = {}
        out = []
        for im in role.immune:
            s = self.say("immune", causes=self.causes(im.causes))
            if im.unless >= 0:
                s += self.say("immune_unless", mark=self.mark_name(im.unless))
            if im.times:
                s += (
                    self.words["immune_once"]
                    if im.times == 1
                    else self.say("immune_times", n=im.times)
                )
            out.append(s)
        return out

    def triggers(self, role: ir.Role) -> list[str]:
        self.scope = {}
        instead = [
            self.say(
                "instead",
                causes=self.causes(rp.causes),
                when=self.say("instead_when", cond=self.expr(rp.when)) if rp.when else "",
                body=self.stmts(rp.body),
            )
            for rp in role.replacements
        ]
        return instead + self._triggers(role)

    def _triggers(self, role: ir.Role) -> list[str]:
        if self.plain:
            return [
                self.pw["killed_by"].format(causes=self.causes(t.causes), body=self.stmts(t.body))
                if t.causes
                else self.pw["killed"].format(body=self.stmts(t.body))
                for t in role.triggers
            ]
        return [
            self.say("on_death", causes=self.causes(t.causes), body=self.stmts(t.body))
            for t in role.triggers
        ]

    def role_rules(self, role: ir.Role) -> list[str]:
        """A role's other rules (plain): defence, reactions, hooks, deaths of others, start,
        co-winning."""
        self.scope = {}
        out = []
        if role.defense:
            out.append(self.pw["defense"].format(n=role.defense))
        out += [self.reaction(r) for r in role.reactions]
        vw = role.votes_with
        if vw is not None and vw.mark >= 0:
            out.append(self.pw["votes_with_mark"].format(mark=self.mark_name(vw.mark)))
        elif vw is not None and vw.seat is not None:
            out.append(self.pw["votes_with"].format(who=self.expr(vw.seat)))
        out += [self.hook(h) for h in role.hooks]
        out += [self.any_death(t) for t in role.any_deaths]
        out += [self.start(b) for b in role.start]
        out += [self.pw["alongside"].format(cond=self.phrase(c)) for c in role.alongside]
        if role.registers:
            items = [
                self.role_name(i)
                if kind == "role"
                else self.name((self.p.kinds if kind == "kind" else self.p.teams)[i])
                for kind, i in role.registers
            ]
            out.append(self.pw["registers"].format(items=self.pw["or"].join(items)))
        return out


def _chain(e, op: str) -> list:
    """The operands of a chain of one connective (`a and b and c`), in order."""
    out, todo = [], [e]
    while todo:
        x = todo.pop()
        if isinstance(x, ir.Binary) and x.op == op:
            todo += [x.right, x.left]
        else:
            out.append(x)
    return out


def _connective(e) -> str | None:
    return e.op if isinstance(e, ir.Binary) and e.op in ("and", "or") else None


def _is_truth(e) -> bool:
    if isinstance(e, ir.Binary):
        return e.op in _COMPARE or e.op in ("and", "or")
    if isinstance(e, ir.Unary):
        return e.op == "not"
    if isinstance(e, ir.Call):
        return e.func in _BOOL_FUNCS
    return isinstance(e, (ir.In, ir.InSet)) or (isinstance(e, ir.Quant) and e.func != "count")


_NUMBER_FUNCS = frozenset(
    {"living", "living_role", "count_team", "count_role", "used", "in_middle", "departed"}
    | {"pick", "min", "max", "clamp", "floor", "ceil", "round", "count"}
)


def _is_number(e) -> bool:
    if isinstance(e, ir.Const):
        return isinstance(e.value, int) and not isinstance(e.value, bool)
    if isinstance(e, ir.Builtin):
        return e.name in ("alive", "players", "night", "day", "defenders", "skips")
    if isinstance(e, ir.Call):
        return e.func in _NUMBER_FUNCS
    if isinstance(e, ir.Binary):
        return e.op in ("+", "-", "*", "/", "%")
    return isinstance(e, ir.Quant) and e.func == "count"


def _always(e) -> bool:
    return isinstance(e, ir.Builtin) and e.name == "true"
