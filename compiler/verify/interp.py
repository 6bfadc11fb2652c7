"""A reference interpreter of the IR: the oracle the generated engines are tested against.

It plays a `compiler.ir.Program` on the real runtime (compiler/runtime/: the engine's semantics
of days, votes, ties, trials, elections, nights, settlement, saved states, what a bot reads),
fed with tables it builds itself by walking the IR. Every piece of code those tables hold (an
ability's body, its target filters and `when`, triggers, reactions, hooks, win conditions,
vote thresholds, timers, custom setups...) is a closure that interprets its IR node as a tree:
expressions and statements are walked by the typed visitors below, one method per node kind,
and act on the game through the runtime's primitives (`g.kill`, `g.protect`, `g.convert`...),
reading its state (`g.alive`, `g.role`, `g.marks`...) directly. Nothing is rendered as Python,
nothing is compiled: no compiled night, day or draws, no fast validation, no folded feature it
does not need.

So the differential test (`tests/test_differential.py`, `maf fuzz --differential`) checks what
the compiler makes of the IR: the emitter's functions (compiler/backend/emit.py, pycode.py),
the compiled night, day and draws (nightgen.py) and `--native`, against this walk of the same
IR over the same runtime. The runtime itself is checked against the rulebooks by the scenario
suites.

API (the same as a generated engine's, docs/engine.md): ``eng = load(program)``, then
``eng.Game.new(seats, setup=None, seed=0, cards=True)``, ``g.resolve_night(actions)``,
``g.resolve_day(...)``, ``g.moderator_kill(seat)``, ``g.moderator_revive(seat)``, ``g.winner``,
``g.to_json()``, ``eng.Game.from_json(data)``, and everything else a `Game` offers (it is the
runtime's). Rejections raise ``eng.IllegalAction`` (``IllegalAction`` here). Delayed effects
are numbered by the spec line of their `in N nights` block (a saved state names them so).

It knows every IR class and field of today. A program using one it does not know (a construct
added since) is refused at load with ``Unsupported`` naming it, never interpreted wrongly by
omission.
"""

from __future__ import annotations
import __future__

import math
import random
import reprlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import compress
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NoReturn

from maf.compiler import runtime
from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.ir.visitor import STMT_NODES, ExprVisitor, StmtVisitor

Env = dict[str, Any]  # an expression's variables: `self`, targets, choices, locals


class Unsupported(Exception):
    """The program uses an IR feature this interpreter does not implement (yet)."""

    def __init__(self, feature: str) -> None:
        super().__init__(f"the reference interpreter does not implement {feature}")
        self.feature = feature


class IllegalAction(Exception):
    """An action or step the rules do not allow (raised by the runtime). The game is left
    unchanged."""

    def __init__(self, seat: Any, ability: Any, rule: str, reason: str = "") -> None:
        super().__init__(
            f"seat {seat}: {ability}: {reason} [{rule}]" if seat else f"{reason} [{rule}]"
        )
        self.seat, self.ability, self.rule, self.reason = seat, ability, rule, reason


class IllegalSetup(IllegalAction):
    """A seat list that no setup of the spec allows."""


# ------------------------------------------------------------------ what the interpreter knows
# the fields of each IR class this interpreter implements; a field added since must hold its
# default value (the construct unused), or the program is refused
_KNOWN_FIELDS_TEXT = {
    "Program": "id source names min_players max_players first quiet_days quiet_nights invariants "
    "teams roles causes marks memslots abilities night_order wins check_at setups "
    "custom_setups day card_names night_timers calm span hooks any_deaths draws start "
    "custom_middle any_saves "
    "cause_names",  # display names (cause_names, and `names` below) are the rulebook's only
    "Ability": "idx id role name phase tier rank per_game per_phase self_per_game from_number "
    "holders targets choices norepeat body inverted stolen when granted "
    "exclusive_group table_group before span astral unblockable reactions life names",
    "Role": "idx id team names abilities immune triggers span defense reactions hooks any_deaths "
    "alongside start",
    "Day": "vote chaos_when chaos inquiry speaking timers span election",
    "Election": "title when threshold tie span",
    # runoff_tie, split: stated outcomes, what every engine does anyway (they settle K010)
    "Vote": "threshold defense defenders_vote tie ballot timers rounds skips exempt forced span "
    "runoff_tie split",
    "Mark": "idx id lifetime inverts silences expels span weighs voteless names",
    "Team": "idx id names span",
    "Target": "name filter span",
    "Choice": "name kind span",
    "Immunity": "causes unless times span",
    "Trigger": "causes body span any",
    "Reaction": "kind body span",
    "Hook": "when body span",
    "Win": "kind idx cond span",
    "Setup": "label size counts span middle",
    "Inquiry": "from_day max threshold when span",
    "Kill": "span target cause piercing attack",
    "Protect": "span target causes level",
    "Guard": "span target causes body takes",
    "Block": "span target",
    "Visit": "span target",
    "Delayed": "span nights body",
    "CallAbility": "span ability seat",
    "MiddleSwap": "span target role",
    "SetMark": "span target mark remove",
    "Convert": "span target role",
    "Tell": "span parts to",
    "Announce": "span parts",
    "Remember": "span slot value",
    "Trial": "span a b cancel_when refund reveal tie",
    "Revive": "span target",
    "Weight": "span value",
    "WinNow": "span kind idx",
    "SkipNight": "span",
    "CancelVote": "span",
    "Each": "span var filter body source",
    "If": "span branches orelse",
    "Steal": "span source dest",
    "Const": "span value",
    "Var": "span name type",
    "Builtin": "span name",
    "Sym": "span kind idx name",
    "Call": "span func args",
    "Unary": "span op operand",
    "Binary": "span op left right",
    "In": "span value kind members",
    "InSet": "span value seats",
    "Quant": "span func var cond",
}
# the vote kinds of issue 21 (nominations, ghost votes, judgements, `votes only with`): the
# runtime's day plays them from the tables built below
_KNOWN_FIELDS_TEXT["Vote"] += " nominations ghost judgement"
_KNOWN_FIELDS_TEXT["Role"] += " votes_with"
_KNOWN_FIELDS_TEXT["Trial"] += " judgement"
_KNOWN_FIELDS_TEXT["VotesWith"] = "seat mark span"
# sides made by marks, titles' roles, kinds of role (SIDE_MEMBERS, TITLE_ROLES, ROLE_KIND)
_KNOWN_FIELDS_TEXT["Team"] += " members var"
_KNOWN_FIELDS_TEXT["Role"] += " kind title"
_KNOWN_FIELDS_TEXT["Program"] += " kinds"
_KNOWN_FIELDS_TEXT["Kind"] = "idx id names span"
# statuses, replacements, deaths at once (the runtime's: Game._die, Game.kill_now, STATUS_MASK)
_KNOWN_FIELDS_TEXT["Mark"] += " powerless malfunctions"
_KNOWN_FIELDS_TEXT["Role"] += " replacements"
_KNOWN_FIELDS_TEXT["Replacement"] = "causes when body span"
_KNOWN_FIELDS_TEXT["Kill"] += " at_once"
# the moderator's choices (`moderator chooses`, `registers as`: Game.moderate, Game.seen)
_KNOWN_FIELDS_TEXT["Program"] += " moderator_sites"
_KNOWN_FIELDS_TEXT["Role"] += " registers"
_KNOWN_FIELDS_TEXT["ModeratorChoice"] = "span site var kind filter body orelse"
_KNOWN_FIELDS_TEXT["Seen"] = "span kind seat"
_KNOWN_FIELDS = {k: frozenset(v.split()) for k, v in _KNOWN_FIELDS_TEXT.items()}
_CALL_FUNCS = {
    "alive",
    "role",
    "team",
    "living",
    "living_role",
    "has",
    "acted",
    "recall",
    "used",
    "departed",
    "defending",
    "left",
    "right",
    "pick",
    "count_role",
    "count_team",
    "kind",
    "count_kind",
    "max_count",
    "min",
    "max",
    "clamp",
    "floor",
    "ceil",
    "round",
    "cause_of",
    "voted",
    "visitors",
    "visits",
    "count",
    "blocked",
    "doomed",
    "in_middle",
}
_PHASES = {"night", "day", "vote", "any", "card", "call"}
_HOOKS = {"night_start", "night_end", "dawn", "day_start", "day_end"}


def unsupported(prog: ir.Program) -> str | None:
    """The first IR feature of `prog` this interpreter does not implement, or None."""
    for node in ir.nodes(prog):
        t = type(node)
        if t.__module__ != ir.__name__:
            continue  # spans
        unknown = ir.unknown_field(node, _KNOWN_FIELDS)
        if unknown is not None:
            return f"the IR construct {unknown}" if "." not in unknown else unknown
        if t is ir.Call and node.func not in _CALL_FUNCS:
            return f"the function {node.func}()"
        if t is ir.Hook and node.when not in _HOOKS:
            return f"hooks `on {node.when.replace('_', ' ')}`"
    for ab in prog.abilities:
        if ab.phase not in _PHASES:
            return f"abilities used `{ab.phase}`"
    return None


def load(prog: ir.Program) -> _Engine:
    """An engine-like namespace playing `prog` by interpretation; Unsupported if it cannot."""
    why = unsupported(prog)
    if why is not None:
        raise Unsupported(why)
    return _Engine(prog)


# ------------------------------------------------------------------ the walk of the IR
# among a walk's names: what the moderator showed of each seat so far (see _Walk._stmt)
_SHOWN = "\0shown"


@dataclass(slots=True)
class _Ctx:
    """What a walk reads: the game, the names in scope, whether `/` is exact (inside floor,
    ceil and round), and the ability whose body runs (-1: none)."""

    g: Any
    env: Env
    exact: bool = False
    ability: int = -1


class _Walk(ExprVisitor[_Ctx, Any], StmtVisitor[_Ctx, None]):
    """Expressions and statements of one program, interpreted as trees over a runtime `Game`:
    expressions read its state (recomputing counts from the seats, not from its counters),
    statements act through its primitives."""

    def __init__(self, p: ir.Program, closure_of: dict[int, tuple[int, tuple[str, ...]]]):
        self.p = p
        self.memw = len(p.memslots)
        self.levels = _uses_levels(p)
        self.closure_of = closure_of  # id(Guard or Delayed) -> (closure number, captured names)
        self.roles = tuple(r.id for r in p.roles)
        self.teams = tuple(t.id for t in p.teams)
        # information reads (`registers as`): the statements holding one, by id
        self.reads_seen = {
            id(s)
            for s in (ir.nodes(p) if any(r.registers for r in p.roles) else ())
            if isinstance(s, STMT_NODES) and any(isinstance(n, ir.Seen) for n in ir.nodes(s))
        }

    # -- entry points
    def ev(self, e: ir.Expr, g: Any, env: Env) -> Any:
        return self.visit_expr(e, _Ctx(g, env))

    def run(self, body: Iterable[ir.Stmt], g: Any, env: Env, ability: int = -1) -> None:
        c = _Ctx(g, env, False, ability)
        for s in body:
            self._stmt(s, c)

    def _stmt(self, s: ir.Stmt, c: _Ctx) -> None:
        # the outermost statement holding an information read keeps what the moderator shows
        # of each seat for the whole statement (one answer per seat and kind)
        if id(s) in self.reads_seen and _SHOWN not in c.env:
            c = _Ctx(c.g, {**c.env, _SHOWN: {}}, c.exact, c.ability)
        self.visit_stmt(s, c)

    def _x(self, e: ir.Expr, c: _Ctx) -> Any:
        return self.visit_expr(e, c)

    def _body(self, body: Iterable[ir.Stmt], c: _Ctx) -> None:
        for s in body:
            self._stmt(s, c)

    # -- expressions: one method per node kind
    def const(self, e: ir.Const, c: _Ctx) -> Any:
        return e.value

    def var(self, e: ir.Var, c: _Ctx) -> Any:
        return c.env[e.name]

    def builtin(self, e: ir.Builtin, c: _Ctx) -> Any:
        b, g = e.name, c.g
        if b == "self":
            return c.env.get("self", 0)
        if b == "defenders":
            return c.env["defenders"] if "defenders" in c.env else len(g.defenders)
        if b == "alive":
            return sum(g.alive[1:])
        if b in ("true", "false"):
            return b == "true"
        return {"players": g.n, "night": g.night, "day": g.day, "chaos": g.chaos, "skips": g.skips}[
            b
        ]

    def sym(self, e: ir.Sym, c: _Ctx) -> Any:
        return e.idx

    def unary(self, e: ir.Unary, c: _Ctx) -> Any:
        v = self._x(e.operand, c)
        return (not v) if e.op == "not" else -v

    def binary(self, e: ir.Binary, c: _Ctx) -> Any:
        if e.op == "and":
            return self._x(e.left, c) and self._x(e.right, c)
        if e.op == "or":
            return self._x(e.left, c) or self._x(e.right, c)
        a, b = self._x(e.left, c), self._x(e.right, c)
        if e.op == "/" and c.exact:  # inside floor/ceil/round: the exact quotient
            return Fraction(a) / b if b else 0
        f = sem.OPERATORS.get(e.op)  # the table's meaning, which the emitted engine must match
        if f is None:
            raise Unsupported(f"the operator {e.op}")
        return f(a, b)

    def in_(self, e: ir.In, c: _Ctx) -> Any:
        return self._x(e.value, c) in e.members

    def in_set(self, e: ir.InSet, c: _Ctx) -> Any:
        return self._x(e.value, c) in self._x(e.seats, c)

    def quant(self, e: ir.Quant, c: _Ctx) -> Any:
        g = c.g

        def accepts(s: int) -> bool:
            return bool(self._x(e.cond, _Ctx(g, dict(c.env, **{e.var: s}), c.exact, c.ability)))

        if e.func == "random":  # drawn by the runtime's lottery (its seed and draw counter)
            return g.random_seat(accepts)
        seats = [s for s in range(1, g.n + 1) if g.alive[s] and accepts(s)]
        if e.func == "count":
            return len(seats)
        if e.func == "some":
            return bool(seats)
        return len(seats) == sum(g.alive[1:])  # every

    def call(self, e: ir.Call, c: _Ctx) -> Any:
        f, g = e.func, c.g
        if f in ("floor", "ceil", "round"):
            x = self._x(e.args[0], _Ctx(g, c.env, True, c.ability))
            if f == "floor":
                return math.floor(x)
            if f == "ceil":
                return math.ceil(x)
            return math.floor(x + Fraction(1, 2))  # half up
        a = [self._x(x, c) for x in e.args]
        me = c.env.get("self", 0)
        n = g.n
        if f == "alive":
            return 1 <= a[0] <= n and g.alive[a[0]]
        if f == "role":
            return g.role[a[0]] if 1 <= a[0] <= n else -1
        if f == "team":
            return g.team[a[0]] if 1 <= a[0] <= n else -1
        if f == "living":
            return sum(1 for s in range(1, n + 1) if g.alive[s] and g.team[s] == a[0])
        if f == "living_role":
            return sum(1 for s in range(1, n + 1) if g.alive[s] and g.role[s] == a[0])
        if f == "has":
            return bool(g.marks[a[0]] >> a[1] & 1)
        if f == "acted":  # what was submitted this phase: the runtime's (its plan)
            return g.acted(a[0], a[1] if len(a) > 1 else -1)
        if f == "recall":
            return g.memory[me * self.memw + a[0]]
        if f == "used":
            return g.uses.get((me, a[0]), 0)
        if f == "departed":
            return sum(1 for _, t in g.departed if t == a[0])
        if f == "defending":
            return a[0] in g.defenders
        if f == "left":  # the nearest living seat before (wrapping): the runtime's
            return g.left(a[0])
        if f == "right":
            return g.right(a[0])
        if f == "pick":
            return a[1] if a[0] else a[2]
        if f == "count_role":
            return sum(1 for r in g.initial if r == a[0])
        if f == "count_team":
            return sum(1 for r in g.initial if self.p.roles[r].team == a[0])
        if f == "kind":
            return self.p.roles[g.role[a[0]]].kind
        if f == "count_kind":
            return sum(1 for r in g.initial if self.p.roles[r].kind == a[0])
        if f == "max_count":
            of = [r.idx for r in self.p.roles if r.kind == a[0]]
            return max([g.initial.count(r) for r in of] or [0])
        if f == "min":
            return min(a)
        if f == "max":
            return max(a)
        if f == "clamp":
            return min(max(a[0], a[1]), a[2])
        if f == "cause_of":
            return g.death_cause.get(a[0], -1)
        if f == "voted":
            return (a[0], a[1]) in g.votes
        if f == "visitors":
            return frozenset(g.vis_in.get(a[0], ()))
        if f == "visits":
            return frozenset(g.vis_out.get(a[0], ()))
        if f == "count":
            return len(a[0])
        if f == "blocked":
            return a[0] in g.blocked
        if f == "doomed":  # a kill pending on the seat, as the night has resolved so far
            return g.doomed(a[0])
        if f == "in_middle":
            return sum(1 for r in g.middle if r == a[0])
        raise Unsupported(f"the function {f}()")

    def text(self, parts: Iterable[ir.Expr], c: _Ctx) -> str:
        """Told as docs/language.md says: roles, teams and causes by id, seats as digits."""
        out = []
        for x in parts:
            v = self._x(x, c)
            if isinstance(x, ir.Const) and isinstance(x.value, str):
                out.append(v)
                continue
            kind = "int"
            if isinstance(x, ir.Var):
                kind = x.type
            elif isinstance(x, ir.Sym):
                kind = x.kind
            elif isinstance(x, ir.Seen):  # an information read: a team or a role
                kind = x.kind
            elif isinstance(x, ir.Call):
                kind = {
                    "role": "role",
                    "team": "team",
                    "cause_of": "cause",
                    "visitors": "seats",
                    "visits": "seats",
                    "kind": "kind",
                }.get(x.func, "int")
            if kind == "kind":
                out.append(self.p.kinds[v].id if 0 <= v < len(self.p.kinds) else "none")
            elif kind == "role":
                out.append(self.roles[v])
            elif kind == "team":
                out.append(self.teams[v])
            elif kind == "cause":
                out.append(self.p.causes[v] if v >= 0 else "none")
            elif kind == "seats":
                out.append(" ".join(str(t) for t in sorted(v)))
            else:
                out.append(str(v))
        return " ".join(out)

    # -- statements: one method per node kind, each through the runtime's primitive
    def kill(self, s: ir.Kill, c: _Ctx) -> None:
        me = c.env.get("self", 0)
        if s.at_once:  # settles now (Game.kill_now)
            c.g.kill_now(self._x(s.target, c), s.cause, s.piercing, me, s.attack)
        elif self.levels:
            c.g.kill(self._x(s.target, c), s.cause, s.piercing, me, s.attack)
        else:
            c.g.kill(self._x(s.target, c), s.cause, s.piercing, me)

    def protect(self, s: ir.Protect, c: _Ctx) -> None:
        if s.level >= 0:
            c.g.shield(self._x(s.target, c), s.level)
        else:
            c.g.protect(self._x(s.target, c), s.causes)

    def guard(self, s: ir.Guard, c: _Ctx) -> None:
        react = None
        if s.body:
            k, names = self.closure_of[id(s)]
            react = (k, tuple(c.env[n] for n in names))
        c.g.guard(self._x(s.target, c), s.causes, c.env.get("self", 0), react, s.takes)

    def block(self, s: ir.Block, c: _Ctx) -> None:
        c.g.block(self._x(s.target, c), c.env.get("self", 0))

    def visit(self, s: ir.Visit, c: _Ctx) -> None:
        c.g.visit(c.env.get("self", 0), self._x(s.target, c))

    def delayed(self, s: ir.Delayed, c: _Ctx) -> None:
        k, names = self.closure_of[id(s)]
        c.g.delay(s.nights, k, c.env.get("self", 0), [c.env[n] for n in names])

    def middle_swap(self, s: ir.MiddleSwap, c: _Ctx) -> None:
        c.g.middle_swap(self._x(s.target, c), s.role)

    def call_ability(self, s: ir.CallAbility, c: _Ctx) -> None:
        seat = self._x(s.seat, c) if s.seat is not None else c.env.get("self", 0)
        c.g.call_ability(seat, s.ability)

    def set_mark(self, s: ir.SetMark, c: _Ctx) -> None:
        t = self._x(s.target, c)
        if s.remove:
            c.g.marks[t] &= ~(1 << s.mark)
        else:
            c.g.marks[t] |= 1 << s.mark

    def convert(self, s: ir.Convert, c: _Ctx) -> None:
        c.g.convert(self._x(s.target, c), s.role)

    def tell(self, s: ir.Tell, c: _Ctx) -> None:
        to = self._x(s.to, c) if s.to is not None else c.env.get("self", 0)
        c.g.tell(to, self.text(s.parts, c))

    def announce(self, s: ir.Announce, c: _Ctx) -> None:
        c.g.announce(self.text(s.parts, c))

    def remember(self, s: ir.Remember, c: _Ctx) -> None:
        c.g.memory[c.env.get("self", 0) * self.memw + s.slot] = self._x(s.value, c)

    def trial(self, s: ir.Trial, c: _Ctx) -> None:
        a, b = self._x(s.a, c), self._x(s.b, c)
        c.g.schedule_trial(c.env.get("self", 0), c.ability, a, b, s.refund, s.reveal, s.tie)

    def steal(self, s: ir.Steal, c: _Ctx) -> None:
        c.g.steal(c.env.get("self", 0), self._x(s.source, c), self._x(s.dest, c))

    def revive(self, s: ir.Revive, c: _Ctx) -> None:
        c.g.revive(self._x(s.target, c))

    def weight(self, s: ir.Weight, c: _Ctx) -> None:
        c.g.weigh(c.env.get("self", 0), self._x(s.value, c))

    def win_now(self, s: ir.WinNow, c: _Ctx) -> None:
        c.g.win_now((self.p.teams if s.kind == "team" else self.p.roles)[s.idx].id)

    def skip_night(self, s: ir.SkipNight, c: _Ctx) -> None:
        c.g.skip_night()

    def cancel_vote(self, s: ir.CancelVote, c: _Ctx) -> None:
        c.g.cancel_vote()

    def each(self, s: ir.Each, c: _Ctx) -> None:
        g = c.g
        seats = sorted(self._x(s.source, c)) if s.source is not None else range(1, g.n + 1)
        for v in seats:
            inner = _Ctx(g, dict(c.env, **{s.var: v}), False, c.ability)
            if (s.source is not None or g.alive[v]) and self._x(s.filter, inner):
                self._body(s.body, inner)

    def if_(self, s: ir.If, c: _Ctx) -> None:
        for cond, branch in s.branches:
            if self._x(cond, c):
                self._body(branch, c)
                return
        self._body(s.orelse, c)

    def moderator_choice(self, s: ir.ModeratorChoice, c: _Ctx) -> None:
        # the moderator picks among every value of the kind the filter accepts (the runtime's
        # Game.moderate asks, as it asks a decision); None: declined, or nothing to pick
        g = c.g

        cond = s.filter

        def accepts(v: Any) -> bool:
            assert cond is not None
            return bool(self._x(cond, _Ctx(g, dict(c.env, **{s.var: v}), False, c.ability)))

        v = g.moderate(s.site, s.kind, accepts if cond is not None else None)
        if v is None:
            self._body(s.orelse, c)
        else:
            self._body(s.body, _Ctx(g, dict(c.env, **{s.var: v}), False, c.ability))

    def seen(self, e: ir.Seen, c: _Ctx) -> Any:
        # an information read: Game.seen asks the moderator when the seat's role registers,
        # once per seat and kind in the outermost statement holding the read (_SHOWN)
        return c.g.seen(e.kind, self._x(e.seat, c), c.env[_SHOWN])


def _uses_levels(p: ir.Program) -> bool:
    """Does the spec use attack or defence levels (so a queued kill carries its attack)?"""
    return any(r.defense for r in p.roles) or any(
        type(n) is ir.Kill and n.attack != 1 or type(n) is ir.Protect and n.level >= 0
        for n in ir.nodes(p)
    )


# ------------------------------------------------------------------ the tables, from the IR
def _features(p: ir.Program) -> set[str]:
    """The runtime machinery the program uses (compiler.runtime.FEATURES), read off the IR."""
    found = [
        n
        for n in ir.nodes(
            (
                p.abilities,
                p.roles,
                p.hooks,
                p.any_deaths,
                p.any_saves,
                p.start,
                p.wins,
                p.draws,
                p.day,
                p.custom_setups,
                p.night_timers,
            )
        )
    ]
    out = set()
    if _uses_levels(p):
        out.add("levels")
    for n in found:
        t = type(n)
        if t is ir.Call and n.func in ("visitors", "visits") or t is ir.Visit:
            out.add("visits")
        elif t is ir.Reaction and n.kind == "visited":
            out.add("visits")
        elif t is ir.Call and n.func == "blocked" or t is ir.Block:
            out.add("blocks")
        elif t is ir.Delayed:
            out.add("delays")
        elif t is ir.ModeratorChoice or t is ir.Seen:
            out.add("moderator")
        elif t is ir.Hook:
            out.add(f"hook_{n.when}")
    if p.any_deaths or any(r.any_deaths for r in p.roles):
        out.add("any_deaths")
    if any(m.powerless or m.malfunctions for m in p.marks):
        out.add("statuses")
    if any(r.replacements for r in p.roles):
        out.add("replacements")
    if any(type(n) is ir.Kill and n.at_once for n in found):
        out.add("at_once")
    if any(sem.read_at_wake(a, p) for a in p.abilities):
        out.add("at_wake")  # filters read at the wake (Game._at_wake)
    return out


def _in_order(items: Iterable[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """(role or -1, hook or trigger) pairs in spec order (line, column)."""
    return sorted(items, key=lambda rx: (rx[1].span.line, rx[1].span.col))


class _Closures:
    """The blocks that run later, numbered as saved states name them: an `in N nights` block
    by its spec line, a guard's reaction after the last of those. Each captures, as values,
    the names in scope that it reads (not `self`: the seat it runs for)."""

    def __init__(self, p: ir.Program) -> None:
        self.of: dict[int, tuple[int, tuple[str, ...]]] = {}
        # (number, the block, its extra parameters, its captured names)
        self.entries: list[tuple[int, ir.Delayed | ir.Guard, tuple[str, ...], tuple[str, ...]]] = []
        self._guards: list[tuple[ir.Guard, tuple[str, ...]]] = []
        death = ("self", "victim", "killer", "cause")
        for a in p.abilities:
            scope = ("self", *(t.name for t in a.targets), *(c.name for c in a.choices))
            for body in (a.body, a.inverted or (), a.stolen or ()):
                self.scan(body, scope)
            for x in a.reactions:
                self.scan(x.body, ("self", "visitor" if x.kind == "visited" else "blocker"))
        for r in p.roles:
            for t in r.triggers:
                self.scan(t.body, death)
            for x in r.reactions:
                self.scan(x.body, ("self", "visitor" if x.kind == "visited" else "blocker"))
            for h in r.hooks:
                self.scan(h.body, ("self",))
            for t in r.any_deaths:
                self.scan(t.body, death)
            for body in r.start:
                self.scan(body, ("self",))
        for h in p.hooks:
            self.scan(h.body, ())
        for t in p.any_deaths:
            self.scan(t.body, death[1:])
        for t in p.any_saves:
            self.scan(t.body, death[1:])
        for body in p.start:
            self.scan(body, ())
        last = max((k for k, *_ in self.entries), default=0)
        for i, (s, names) in enumerate(self._guards):
            self.of[id(s)] = (last + 1 + i, names)
            self.entries.append((last + 1 + i, s, ("attacker",), names))

    def scan(self, body: Iterable[ir.Stmt], scope: tuple[str, ...]) -> None:
        for s in body:
            if isinstance(s, ir.If):
                for _, b in s.branches:
                    self.scan(b, scope)
                self.scan(s.orelse, scope)
            elif isinstance(s, ir.Each):
                self.scan(s.body, (*scope, s.var))
            elif isinstance(s, (ir.Delayed, ir.Guard)) and s.body:
                extra = ("attacker",) if isinstance(s, ir.Guard) else ()
                used = {n.name for n in ir.nodes(s.body) if type(n) is ir.Var}
                names = tuple(
                    n for n in scope if n in used and n not in ("self", "defenders", *extra)
                )
                if isinstance(s, ir.Guard):
                    self._guards.append((s, names))
                elif id(s) not in self.of:
                    k = s.span.line
                    if any(e[0] == k and e[1] is not s for e in self.entries):
                        raise Unsupported("two `in N nights` blocks on one line")
                    self.of[id(s)] = (k, names)
                    self.entries.append((k, s, extra, names))
                self.scan(s.body, ("self", *names, *extra))


def _types(body: Iterable[ir.Stmt], names: tuple[str, ...]) -> tuple[str, ...]:
    """The types of the captured names, as the block reads them."""
    typed = {n.name: n.type for n in ir.nodes(tuple(body)) if type(n) is ir.Var}
    return tuple(typed[n] for n in names)


def _tables(p: ir.Program, w: _Walk, closures: _Closures) -> dict[str, Any]:
    """Every table the runtime reads (compiler/runtime/spec.py lists them), from the IR: the
    data as the IR holds it, and each piece of code as a closure that walks its IR node."""
    ev, run = w.ev, w.run
    abilities, roles = p.abilities, p.roles
    day = p.day
    t: dict[str, Any] = {}
    # -- the spec
    t["SPEC"] = p.id
    t["SOURCE"] = p.source
    t["MAF_VERSION"] = _maf_version()
    t["SPEC_SHA256"] = "0" * 64  # the interpreter reads no spec text: its states say so
    t["DISPLAY_NAMES"] = p.names
    t["MIN_PLAYERS"], t["MAX_PLAYERS"] = p.min_players, p.max_players
    t["FIRST_PHASE"] = p.first
    t["QUIET_DAYS"], t["QUIET_NIGHTS"] = frozenset(p.quiet_days), frozenset(p.quiet_nights)
    # -- teams, roles, causes, marks
    t["TEAMS"] = tuple(x.id for x in p.teams)
    t["ROLES"] = tuple(r.id for r in roles)
    t["ROLE_TEAM"] = tuple(r.team for r in roles)
    t["ROLE_ABILITIES"] = tuple(tuple(r.abilities) for r in roles)
    t["KINDS"] = tuple(k.id for k in p.kinds)
    t["ROLE_KIND"] = tuple(r.kind for r in roles)
    t["TITLE_ROLES"] = frozenset(r.idx for r in roles if r.title)
    t["SIDE_MEMBERS"] = {
        x.idx: (lambda g, s, x=x: bool(ev(x.members, g, {x.var: s})))
        for x in p.teams
        if x.members is not None
    }
    t["CAUSES"] = tuple(p.causes)
    t["C_VOTE"] = p.causes.index("vote") if "vote" in p.causes else -1
    t["C_MODERATOR"] = p.causes.index("moderator") if "moderator" in p.causes else -1
    t["MEMSLOTS"] = tuple(p.memslots)
    t["MARKS"] = tuple(m.id for m in p.marks)
    t["MARK_LIFETIME"] = tuple(m.lifetime for m in p.marks)
    t["EXPELLING"] = tuple(m.id for m in p.marks if m.expels)
    t["INVERTING_MARKS"] = frozenset(m.idx for m in p.marks if m.inverts)
    t["VOTELESS_MARKS"] = frozenset(m.idx for m in p.marks if m.voteless)
    t["SILENCING_MARKS"] = frozenset(m.idx for m in p.marks if m.silences)
    t["POWERLESS_MARKS"] = frozenset(m.idx for m in p.marks if m.powerless)
    t["MALFUNCTION_MARKS"] = frozenset(m.idx for m in p.marks if m.malfunctions)
    t["WEIGHING_MARKS"] = {m.idx: m.weighs for m in p.marks if m.weighs}
    t["IMMUNE"] = tuple(
        tuple((frozenset(im.causes), im.unless, im.times) for im in r.immune) for r in roles
    )
    # -- abilities
    t["ABILITIES"] = tuple(a.id for a in abilities)
    t["AB_NAME"] = tuple(a.name for a in abilities)
    t["AB_ROLE"] = tuple(a.role for a in abilities)
    t["AB_PHASE"] = tuple(a.phase for a in abilities)
    t["AB_RANK"] = tuple(a.rank for a in abilities)
    t["AB_TARGETS"] = tuple(len(a.targets) for a in abilities)
    t["AB_CHOICES"] = tuple(tuple(c.kind for c in a.choices) for a in abilities)
    t["AB_PER_GAME"] = tuple(a.per_game for a in abilities)
    t["AB_SELF_PER_GAME"] = tuple(a.self_per_game for a in abilities)
    t["AB_FROM"] = tuple(a.from_number for a in abilities)
    t["AB_NOREPEAT"] = tuple(a.norepeat for a in abilities)
    t["AB_EXCLUSIVE"] = tuple(a.exclusive_group for a in abilities)
    t["AB_TABLE_GROUP"] = tuple(a.table_group for a in abilities)
    t["AB_GRANTED"] = tuple(a.granted for a in abilities)
    t["AB_EFFECTS"] = tuple(a.effects for a in abilities)
    t["AB_LIFE"] = tuple(a.life for a in abilities)
    t["DEAD_ACTS"] = any(a.life != "alive" for a in abilities)
    t["AB_HOLDERS"] = tuple(tuple(a.holders) for a in abilities)
    t["HELD"] = tuple(a.idx for a in abilities if a.holders)
    t["AT_WAKE"] = frozenset(a.idx for a in abilities if sem.read_at_wake(a, p))
    t["NIGHT_ORDER"] = tuple(p.night_order)
    t["CALM"] = p.calm
    t["STEALS"] = any(type(n) is ir.Steal for a in abilities for n in ir.nodes(a.body))
    t["CHECK_WINS_AT"] = frozenset(p.check_at)
    t["AB_VISITS"] = tuple(a.visits for a in abilities)
    t["AB_UNBLOCKABLE"] = tuple(a.unblockable for a in abilities)
    t["ROLE_DEFENSE"] = tuple(r.defense for r in roles)
    # -- setups
    setups: dict[int, list[tuple[str | None, tuple[int, ...]]]] = {}
    for s in p.setups:
        counts = [0] * len(roles)
        for ri, k in s.counts:
            counts[ri] = k
        setups.setdefault(s.size, []).append((s.label, tuple(counts)))
    t["SETUPS"] = {size: tuple(v) for size, v in sorted(setups.items())}
    middle = {(s.size, s.label): tuple(s.middle) for s in p.setups if s.middle}
    for k, (label, lo, hi, _w, _sp) in enumerate(p.custom_setups):
        cards = p.custom_middle[k] if k < len(p.custom_middle) else ()
        for size in range(lo, hi + 1) if cards else ():
            middle.setdefault((size, label), tuple(cards))  # a fixed setup's, or the first's
    t["SETUP_MIDDLE"] = middle
    t["CUSTOM_SETUPS"] = tuple(
        (label, lo, hi, (lambda g, x=where: bool(ev(x, g, {}))))
        for label, lo, hi, where, _sp in p.custom_setups
    )

    # -- each ability's code: body, inverted and stolen bodies, target filters, `when`
    def body_fn(a: ir.Ability, body: tuple[ir.Stmt, ...]) -> Callable[..., None]:
        names = [*(x.name for x in a.targets), *(c.name for c in a.choices)]

        def fn(g: Any, actor: int, ability: int, *args: Any) -> None:
            run(body, g, {"self": actor, **dict(zip(names, args, strict=True))}, ability)

        return fn

    def filter_fn(a: ir.Ability, k: int) -> Callable[..., bool]:
        names = [x.name for x in a.targets[: k + 1]]
        cond = a.targets[k].filter

        def fn(g: Any, actor: int, *args: Any) -> bool:
            return bool(ev(cond, g, {"self": actor, **dict(zip(names, args, strict=True))}))

        return fn

    def when_fn(a: ir.Ability, cond: ir.Expr) -> Callable[..., bool]:
        names = [*(x.name for x in a.targets), *(c.name for c in a.choices)]

        def fn(g: Any, actor: int, *args: Any) -> bool:
            return bool(ev(cond, g, {"self": actor, **dict(zip(names, args, strict=True))}))

        return fn

    t["RUN"] = tuple(body_fn(a, a.body) for a in abilities)
    t["INVERTED"] = tuple(
        body_fn(a, a.inverted) if a.inverted is not None else None for a in abilities
    )
    t["STOLEN"] = tuple(body_fn(a, a.stolen) if a.stolen is not None else None for a in abilities)
    t["FILTERS"] = tuple(tuple(filter_fn(a, k) for k in range(len(a.targets))) for a in abilities)
    t["FAST"] = (None,) * len(abilities)  # no fast validation: the runtime's full check
    t["WHEN"] = tuple(when_fn(a, a.when) if a.when is not None else None for a in abilities)
    t["FILTER_TEXT"] = tuple(tuple(f"target {x.name}" for x in a.targets) for a in abilities)

    # -- deaths, reactions, hooks
    def death_fn(body: tuple[ir.Stmt, ...]) -> Callable[..., None]:
        def fn(g: Any, seat: int, killer: int, cause: int) -> None:
            run(body, g, {"self": seat, "victim": seat, "killer": killer, "cause": cause})

        return fn

    def causes(x: ir.Trigger) -> frozenset[int] | None:
        return frozenset(x.causes) if x.causes else None

    t["TRIGGERS"] = tuple(tuple((causes(x), death_fn(x.body)) for x in r.triggers) for r in roles)

    def instead_when(cond: ir.Expr) -> Callable[..., bool]:
        def fn(g: Any, seat: int, killer: int, cause: int) -> bool:
            env = {"self": seat, "victim": seat, "killer": killer, "cause": cause}
            return bool(ev(cond, g, env))

        return fn

    t["REPLACE"] = tuple(
        tuple(
            (
                frozenset(x.causes) if x.causes else None,
                instead_when(x.when) if x.when is not None else None,
                death_fn(x.body),
            )
            for x in r.replacements
        )
        for r in roles
    )

    def react_fn(bodies: list[tuple[ir.Stmt, ...]], who: str) -> Callable[..., None]:
        def fn(g: Any, seat: int, other: int) -> None:
            for body in bodies:
                run(body, g, {"self": seat, who: other})

        return fn

    t["NOMINATED_ROLE"] = tuple(
        react_fn([x.body for x in r.reactions if x.kind == "nominated"], "nominator")
        if any(x.kind == "nominated" for x in r.reactions)
        else None
        for r in roles
    )

    def follows(vw: ir.VotesWith) -> Callable[..., bool]:
        who = vw.seat
        if who is None:
            return lambda g, seat, hands: any(g.marks[h] >> vw.mark & 1 for h in hands if h != seat)
        return lambda g, seat, hands: ev(who, g, {"self": seat}) in hands

    t["VOTES_WITH"] = tuple(
        (follows(r.votes_with), "another seat") if r.votes_with is not None else None for r in roles
    )
    for kind, who in (("visited", "visitor"), ("blocked", "blocker")):
        per_role = []
        for r in roles:
            rs = [x.body for x in r.reactions if x.kind == kind]
            per_role.append(react_fn(rs, who) if rs else None)
        t[f"{kind.upper()}_ROLE"] = tuple(per_role)
        t[f"{kind.upper()}_AB"] = tuple(
            (a.idx, react_fn([x.body for x in a.reactions if x.kind == kind], who))
            for a in abilities
            if any(x.kind == kind for x in a.reactions)
        )

    def hook_fn(body: tuple[ir.Stmt, ...], role: int) -> Callable[..., None]:
        def fn(g: Any, seat: int) -> None:
            run(body, g, {"self": seat} if role >= 0 else {})

        return fn

    hooks = _in_order([(-1, h) for h in p.hooks] + [(r.idx, h) for r in roles for h in r.hooks])
    for when in ("night_start", "night_end", "dawn", "day_start", "day_end"):
        t[f"HOOKS_{when.upper()}"] = tuple(
            (role, hook_fn(h.body, role)) for role, h in hooks if h.when == when
        )

    def any_death_fn(body: tuple[ir.Stmt, ...], role: int) -> Callable[..., None]:
        def fn(g: Any, seat: int, victim: int, killer: int, cause: int) -> None:
            env = {"victim": victim, "killer": killer, "cause": cause}
            run(body, g, {"self": seat, **env} if role >= 0 else env)

        return fn

    t["ANY_DEATH"] = tuple(
        (role, causes(x), any_death_fn(x.body, role))
        for role, x in _in_order(
            [(-1, x) for x in p.any_deaths] + [(r.idx, x) for r in roles for x in r.any_deaths]
        )
    )
    t["ANY_SAVE"] = tuple((causes(x), any_death_fn(x.body, -1)) for x in p.any_saves)

    # -- delayed effects and guard reactions
    def closure_fn(body: tuple[ir.Stmt, ...], extra: tuple[str, ...], names: tuple[str, ...]):
        def fn(g: Any, seat: int, *values: Any) -> None:
            run(body, g, {"self": seat, **dict(zip((*extra, *names), values, strict=True))})

        return fn

    size = max((k for k, *_ in closures.entries), default=-1) + 1
    table: list[Any] = [None] * size
    types: list[tuple[str, ...]] = [()] * size
    for k, block, extra, names in closures.entries:
        table[k] = closure_fn(block.body, extra, names)
        types[k] = _types(block.body, names)
    t["CLOSURES"], t["CLOSURE_TYPES"] = tuple(table), tuple(types)
    cancels: dict[int, Callable[..., bool]] = {}
    for a in abilities:
        for n in ir.nodes(a.body):
            if type(n) is ir.Trial and n.cancel_when is not None:
                names = (
                    n.a.name if isinstance(n.a, ir.Var) else "_a",
                    n.b.name if isinstance(n.b, ir.Var) else "_b",
                )
                cancels[a.idx] = lambda g, actor, x, y, c=n.cancel_when, nm=names: bool(
                    ev(c, g, {"self": actor, nm[0]: x, nm[1]: y})
                )
    t["TRIAL_CANCEL"] = cancels
    t["TRIAL_JUDGEMENT"] = frozenset(
        a.idx
        for a in abilities
        if any(type(n) is ir.Trial and n.judgement for n in ir.nodes(a.body))
    )

    # -- the end of the game
    def wins(g: Any) -> str | None:
        for x in p.wins:
            if ev(x.cond, g, {}):
                return (p.teams if x.kind == "team" else roles)[x.idx].id
        return None

    t["_wins"] = wins
    t["DRAWS"] = bool(p.draws)
    t["_draw"] = lambda g: any(ev(x, g, {}) for x in p.draws)
    t["COWINNERS"] = any(r.alongside for r in roles)
    t["_cowinners"] = lambda g: [
        r.id
        for r in roles
        if r.alongside
        and any(
            g.role[s] == r.idx and any(ev(x, g, {"self": s}) for x in r.alongside)
            for s in range(1, g.n + 1)
        )
    ]
    t["VOTES_READ"] = any(type(n) is ir.Call and n.func == "voted" for n in ir.nodes(p))
    t["START_HOOKS"] = tuple((lambda g, body=body: run(body, g, {})) for body in p.start)
    t["START_ROLE_HOOKS"] = tuple(tuple(hook_fn(body, r.idx) for body in r.start) for r in roles)
    t["START"] = bool(p.start) or any(r.start for r in roles)

    # -- the day
    t["_chaos"] = lambda g: bool(
        day is not None and day.chaos_when is not None and ev(day.chaos_when, g, {})
    )
    for name, v in (("vote", day.vote if day else None), ("chaos", day.chaos if day else None)):
        if v is None:
            t[name.upper()] = None
            for f in ("threshold", "defense_threshold", "defenders_vote", "timers"):
                t[f"_{name}_{f}"] = None
            continue
        t[name.upper()] = {
            "tie": v.tie,
            "ballot": v.ballot,
            "exempt": v.exempt,
            "forced": v.forced,
            "rounds": v.rounds,
            "skips": v.skips,
            **({"nominations": True} if v.nominations else {}),
            **({"ghost": v.ghost} if v.ghost else {}),
            **({"judgement": True} if v.judgement else {}),
        }

        def at(x: ir.Expr | None, default: Any) -> Callable[..., Any]:
            if x is None:
                return lambda g, defenders=0: default
            return lambda g, defenders=0: ev(x, g, {"defenders": defenders})

        t[f"_{name}_threshold"] = at(v.threshold, 1)
        t[f"_{name}_defense_threshold"] = at(v.defense, 1)
        t[f"_{name}_defenders_vote"] = at(v.defenders_vote, True)
        t[f"_{name}_timers"] = lambda g, v=v: {n: ev(x, g, {}) for n, x in v.timers}
    el = day.election if day else None
    t["ELECTION"] = {"title": el.title, "tie": el.tie} if el else None
    if el is not None and el.when is not None:
        t["_election_held"] = lambda g: bool(ev(el.when, g, {}))
    elif el is not None:
        t["_election_held"] = lambda g: (
            not any(g.alive[s] and g.marks[s] >> el.title & 1 for s in range(1, g.n + 1))
        )
    else:
        t["_election_held"] = lambda g: False
    t["_election_threshold"] = (
        (lambda g: ev(el.threshold, g, {}))
        if el and el.threshold is not None
        else (lambda g: 1 if el else 0)
    )
    inq = day.inquiry if day else None
    t["INQUIRY_FROM_DAY"] = inq.from_day if inq else 0
    t["INQUIRY_MAX"] = inq.max if inq else 0
    t["_inquiry_threshold"] = (lambda g: ev(inq.threshold, g, {})) if inq else (lambda g: 0)
    t["_inquiry_allowed"] = (
        (lambda g: bool(ev(inq.when, g, {})) if inq.when is not None else True)
        if inq
        else (lambda g: False)
    )
    t["SPEAKING"] = day.speaking if day else None
    t["_day_timers"] = lambda g: {n: ev(x, g, {}) for n, x in (day.timers if day else ())}
    t["NIGHT_TIMERS"] = bool(p.night_timers)
    t["_night_timers"] = lambda g: {n: ev(x, g, {}) for n, x in p.night_timers}
    # -- nothing compiled: the runtime's generic night, day and draws
    t["FAST_NIGHT"] = None
    t["FAST_DAY"] = None
    t["DRAW_NIGHT"] = (None,) * len(abilities)
    t["DRAW_ALL"] = None
    t["PLAY_NIGHT"] = None
    t["FLAT_SLOTS"] = 0
    t["_fn_fold"] = None
    t["_fn_flat"] = None
    # -- the moderator's choices: their ids; per role what `registers as` lets it be seen as
    # (a role named: its team too, for team reads)
    t["MODERATOR_SITES"] = tuple(p.moderator_sites)
    reg_teams, reg_roles, reg_kinds = [], [], []
    for r in roles:
        teams: list[int] = []
        kinds: list[int] = []
        for kind, i in r.registers:
            team = i if kind == "team" else roles[i].team if kind == "role" else -1
            if team >= 0 and team not in teams:
                teams.append(team)
            of = i if kind == "kind" else roles[i].kind if kind == "role" else -1
            if of >= 0 and of not in kinds:
                kinds.append(of)
        reg_teams.append(tuple(teams))
        reg_roles.append(tuple(i for kind, i in r.registers if kind == "role"))
        reg_kinds.append(tuple(kinds))
    t["REG_TEAMS"], t["REG_ROLES"] = tuple(reg_teams), tuple(reg_roles)
    t["REG_KINDS"] = tuple(reg_kinds)
    return t


def _maf_version() -> str:
    from maf.compiler import version

    return version()


# ------------------------------------------------------------------ the engine namespace
_FUTURE = __future__.annotations.compiler_flag


class _Engine:
    """What a generated engine module offers, made of the runtime's source and the tables
    above: `Game`, `IllegalAction`, `ROLES`, `ABILITIES`... (any name the namespace holds)."""

    IllegalAction = IllegalAction
    IllegalSetup = IllegalSetup
    Unsupported = Unsupported

    def __init__(self, p: ir.Program) -> None:
        self.p = p
        closures = _Closures(p)
        walk = _Walk(p, closures.of)
        ns: dict[str, Any] = {
            "__name__": f"maf_interp_{p.id}",
            "math": math,
            "random": random,
            "reprlib": reprlib,
            "Callable": Callable,
            "Iterable": Iterable,
            "Sequence": Sequence,
            "Fraction": Fraction,
            "compress": compress,
            "MappingProxyType": MappingProxyType,
            "TYPE_CHECKING": TYPE_CHECKING,
            "Any": Any,
            "NoReturn": NoReturn,
            "IllegalAction": IllegalAction,
            "IllegalSetup": IllegalSetup,
        }
        ns.update(_tables(p, walk, closures))
        code = compile(
            runtime.source(_features(p)), "<maf runtime>", "exec", flags=_FUTURE, dont_inherit=True
        )
        exec(code, ns)  # the runtime, as every engine carries it, over the tables above
        self.ns = ns
        self.walk = walk
        self.Game = ns["Game"]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["ns"][name]
        except KeyError:
            raise AttributeError(name) from None
