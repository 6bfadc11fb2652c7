"""A reference interpreter of the IR: the oracle the generated engines are tested against.

It reads a `compiler.ir.Program` directly and plays it: expressions and statements are walked as
trees, state is kept in plain dicts and lists, and nothing is cached or inlined. It shares no
resolution code with the generated engines (compiler/runtime/, the emitter's templates): it is
written from the rules in docs/language.md and docs/engine.md, small and slow on purpose, so
that a difference between the two is a bug in one of them. `tests/test_differential.py` and
`maf fuzz --differential` compare them step by step.

API (the same as a generated engine's, docs/engine.md): ``eng = load(program)``, then
``eng.Game.new(seats, setup=None, seed=0, cards=True)``, ``g.resolve_night(actions)``,
``g.resolve_day(...)``, ``g.moderator_kill(seat)``, ``g.moderator_revive(seat)``, ``g.winner``,
``g.to_json()``, ``eng.Game.from_json(data)``; what a bot reads: ``g.legal_actions(seat)``,
``g.alive_seats()``, ``g.held_abilities(seat)``, ``g.waiting()``, ``g.phase``, ``g.number``;
decisions ``g.pending_choices()``, ``g.resolve_choice(seat, values)``; a night in wake order
``g.next_wake()``, ``g.wake(actions)``, ``g.end_night()``.
Rejections raise ``eng.IllegalAction`` with ``seat``, ``ability`` and ``rule`` as the engines do
(the `reason` text is the interpreter's own: only the rule code is part of the contract).

It knows every IR class and field of today. A program using one it does not know (a construct
added since) is refused at load with ``Unsupported`` naming it, never interpreted wrongly by
omission.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

from maf.compiler.ir import nodes as ir
from maf.dsl.diagnostics import Span

Env = dict[str, Any]  # an expression's variables: `self`, targets, choices, locals
Report = dict[str, Any]  # a step's report (docs/engine.md)
Entry = tuple[Any, int, int, Sequence[Any]]  # a checked action: (rank, actor, ability, args)


class Unsupported(Exception):
    """The program uses an IR feature this interpreter does not implement (yet)."""

    def __init__(self, feature: str) -> None:
        super().__init__(f"the reference interpreter does not implement {feature}")
        self.feature = feature


class IllegalAction(Exception):
    def __init__(self, seat: Any, ability: Any, rule: str, reason: str = "") -> None:
        super().__init__(f"seat {seat}: {ability}: {reason} [{rule}]")
        self.seat, self.ability, self.rule, self.reason = seat, ability, rule, reason


class IllegalSetup(IllegalAction):
    pass


class _Await(Exception):
    """A `call` needs a decision that was not given yet: the step stops and waits for it."""

    def __init__(self, seat: int, ab: int, options: list[int]) -> None:
        super().__init__(seat, ab)
        self.seat, self.ab, self.options = seat, ab, options


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
# the rules `validate` refuses an action by before it reads the action's targets and choices
_BEFORE_ARGUMENTS = {
    "dead-actor",
    "living-actor",
    "ambiguous",
    "not-holder",
    "unknown-ability",
    "wrong-phase",
    "quiet-phase",
    "too-early",
    "used-up",
}
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


# ------------------------------------------------------------------ the engine namespace
class _Engine:
    IllegalAction = IllegalAction
    IllegalSetup = IllegalSetup
    Unsupported = Unsupported

    def __init__(self, p: ir.Program) -> None:
        self.p = p
        self.SPEC = p.id
        self.ROLES = tuple(r.id for r in p.roles)
        self.TEAMS = tuple(t.id for t in p.teams)
        self.ABILITIES = tuple(a.id for a in p.abilities)
        self.MARKS = tuple(m.id for m in p.marks)
        self.CAUSES = p.causes
        self.C_VOTE = p.causes.index("vote") if "vote" in p.causes else -1
        self.C_MODERATOR = p.causes.index("moderator") if "moderator" in p.causes else -1
        # decisions (`on call`), `voted`, `on start`: their state keys exist only where used
        self.CALLS = any(a.phase == "call" for a in p.abilities)
        self.DEAD_ACT = any(a.life != "alive" for a in p.abilities)  # may the dead act?
        self.INVERTING = {m.idx for m in p.marks if m.inverts}
        self.VOTED = any(type(n) is ir.Call and n.func == "voted" for n in ir.nodes(p))
        self.START = bool(p.start) or any(r.start for r in p.roles)
        # visits are recorded only where something reads them (visitors/visits, on visited)
        self.VISITS = any(
            type(n) is ir.Call
            and n.func in ("visitors", "visits")
            or type(n) is ir.Visit
            or type(n) is ir.Reaction
            and n.kind == "visited"
            for n in ir.nodes(p)
        )
        # hooks and `on any death` triggers of the whole spec, in spec order:
        # (span, role or -1 for a top-level one, hook/trigger)
        self.hooks: dict[str, list] = {}
        for r in [None, *p.roles]:
            for h in p.hooks if r is None else r.hooks:
                self.hooks.setdefault(h.when, []).append(
                    (_pos(h.span), -1 if r is None else r.idx, h)
                )
        for v in self.hooks.values():
            v.sort(key=lambda x: x[0])
        # `in N nights` blocks by their spec line (the key saved states use)
        self.delayed: dict[int, ir.Delayed] = {}
        for node in ir.nodes(p):
            if type(node) is ir.Delayed:
                if self.delayed.get(node.span.line, node) != node:
                    raise Unsupported("two `in N nights` blocks on one line")
                self.delayed[node.span.line] = node
        self.delayed_reads = {
            line: {n.name for n in ir.nodes(node.body) if type(n) is ir.Var}
            for line, node in self.delayed.items()
        }
        self.any_deaths = sorted(
            [(_pos(t.span), -1, t) for t in p.any_deaths]
            + [(_pos(t.span), r.idx, t) for r in p.roles for t in r.any_deaths],
            key=lambda x: x[0],
        )
        eng = self

        class Game(_Game):
            E = eng

        self.Game = Game


def _pos(span: Span) -> tuple[int, int]:
    return (span.line, span.col)


def _by_name(ab: ir.Ability, name: object) -> bool:
    return name == ab.name or name == ab.id


class _Game:
    E: _Engine  # set per program

    # ------------------------------------------------------------ construction
    def __init__(
        self, roles: Sequence[int], seed: int = 0, cards: bool = True, start: bool = True
    ) -> None:
        p = self.E.p
        self.p = p
        self.n = len(roles)
        self.role = {s: r for s, r in enumerate(roles, 1)}
        self.alive = {s: True for s in self.role}
        self.phase = p.first
        self.day = 1 if p.first == "day" else 0
        self.night = 1 if p.first == "night" else 0
        self.chaos = False
        self.winner: str | None = None
        self.over = False
        self.winners: list[str] = []
        # (voter, accused) of the most recent day vote (`voted`)
        self.votes: set[tuple[int, int]] = set()
        self.blocked: dict[int, int] = {}  # seat -> its first blocker, until dawn
        # (seat, blocker) pairs applied (each reacts once)
        self.blockings: set[tuple[int, int]] = set()
        # visits of the night (by day: the last night): seat -> its visitors, seat -> its visits
        self.vis_in: dict[int, list[int]] = {}
        self.vis_out: dict[int, list[int]] = {}
        self.delayed: list[list[Any]] = []  # [night due, spec line, self, {local: value}]
        # what `on start` did, reported with the first step: deaths, public, private, changes
        self.start_report: dict[str, Any] | None = None
        self.start_pending = False
        self.awaiting: dict[str, Any] | None = None  # the decision a suspended step waits for
        self.wake_state: dict[str, Any] | None = None  # a night in wake order: {"pos", "actions"}
        self.middle: list[int] = []  # role cards left undealt in the middle of the table
        self.answers: list[Any] | None = None  # decisions given for the step being played
        self.apos = 0
        self.keyed = False  # a night in wake order: decisions are kept per seat (wake)
        self.uses: dict[tuple[int, int], int] = {}
        self.self_uses: dict[tuple[int, int], int] = {}
        self.last_target: dict[tuple[int, int], Any] = {}
        self.marks: dict[int, set[int]] = {s: set() for s in range(0, self.n + 1)}
        self.memory: dict[int, dict[int, Any]] = {s: {} for s in range(0, self.n + 1)}
        # a trial set by `trial A B`: (actor, ability, a, b, refund, reveal, tie rule)
        self.trial: tuple[int, Any, int, int, bool, bool, str] | None = None
        self.inquiries = 0
        self.departed: list[Any] = []
        self.death_cause: dict[int, int] = {}  # seat -> cause of its death
        self.seed, self.draws = seed, 0
        self.repeat = False
        self.initial = list(roles)
        self.absorbed: dict[Any, int] = {}
        self.ever: dict[Any, Any] = {}
        self.later: list[Any] = []
        self.cards_on = bool(cards) and any(a.phase == "card" for a in p.abilities)
        self.skip = False
        vote = p.day.vote if p.day else None
        self.skips = vote.skips if vote else 0
        self.weight: dict[int, int] = {}
        self._transient()
        if p.first == "day":
            self.chaos = self._chaos_now()
        if start and self.E.START:
            self._start()

    def _start(self) -> None:
        """`on start`: the top-level bodies, then each seat's role's, in seat order."""
        for body in self.p.start:
            self.run(body, {"self": 0})
        for s in range(1, self.n + 1):
            for body in self.p.roles[self.role[s]].start:
                self.run(body, {"self": s})
        self.settle()
        self.start_report = {
            "deaths": sorted(self._deaths),
            "public": self._public,
            "private": self._private,
            "changes": self._changes,
        }
        self.start_pending = True
        self._clear_report()

    def _transient(self) -> None:
        self.prot: dict[int, Any] = {}
        self.guards: dict[int, Any] = {}
        self.pending: list[Any] = []
        self.level: dict[int, Any] = {}
        self.defenders: set[int] = set()
        self.vote_cancelled = False
        self.plan: list[Entry] | None = None
        self.stolen: dict[Any, Any] = {}
        self.pos = 0
        self.runoff: Any = None
        self.deferred: list[Any] = []
        self._clear_report()

    def _clear_report(self) -> None:
        """What the step being played did, for its report: nothing yet."""
        self._deaths: list[int] = []
        self._exits: list[tuple[int, int]] = []  # (seat, cause) in order of death
        self._public: list[str] = []
        self._private: dict[int, list[str]] = {}
        self._changes: list[dict[str, Any]] = []
        self._silenced: set[int] = set()

    def team(self, s: int) -> int:
        r = self.role.get(s, -1)
        return self.p.roles[r].team if r >= 0 else -1

    @classmethod
    def new(
        cls, seats: Iterable[Any], setup: str | None = None, seed: int = 0, cards: bool = True
    ) -> _Game:
        E, p = cls.E, cls.E.p
        seats = list(seats)
        n = len(seats)
        if any(s not in E.ROLES for s in seats):
            raise IllegalSetup(None, None, "setup", "unknown role id(s)")
        custom = [
            c for c in p.custom_setups if c[1] <= n <= c[2] and (setup is None or c[0] == setup)
        ]
        sized = [s for s in p.setups if s.size == n]
        if not sized and not custom:
            raise IllegalSetup(None, None, "setup", "no setup of this size")
        roles = [E.ROLES.index(s) for s in seats]
        counts = {r: roles.count(r) for r in set(roles)}
        if setup is not None:
            sized = [s for s in sized if s.label == setup]
            if not sized and not custom:
                raise IllegalSetup(None, None, "setup", "no setup of this name")
        for s in sized:
            if dict(s.counts) == counts or {r: k for r, k in s.counts if k} == counts:
                g = cls(roles, seed, cards)
                g.middle = list(s.middle)
                return g
        view = cls(roles, seed, cards)
        for c in custom:
            if view.ev(c[3], {}):
                k = p.custom_setups.index(c)
                view.middle = list(p.custom_middle[k]) if p.custom_middle else []
                return view
        raise IllegalSetup(None, None, "setup", "no setup matches")

    # ------------------------------------------------------------ expressions
    def ev(self, e: ir.Expr, env: Env, exact: bool = False) -> Any:  # one case per node kind
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Var):
            return env[e.name]
        if isinstance(e, ir.Builtin):
            b = e.name
            if b == "self":
                return env.get("self", 0)
            if b == "defenders":
                return env["defenders"] if "defenders" in env else len(self.defenders)
            if b == "alive":
                return sum(self.alive.values())
            if b == "true":
                return True
            if b == "false":
                return False
            return {
                "players": self.n,
                "night": self.night,
                "day": self.day,
                "chaos": self.chaos,
                "skips": self.skips,
            }[b]
        if isinstance(e, ir.Sym):
            return e.idx
        if isinstance(e, ir.Unary):
            v = self.ev(e.operand, env, exact)
            return (not v) if e.op == "not" else -v
        if isinstance(e, ir.Binary):
            if e.op == "and":
                return self.ev(e.left, env, exact) and self.ev(e.right, env, exact)
            if e.op == "or":
                return self.ev(e.left, env, exact) or self.ev(e.right, env, exact)
            a, b = self.ev(e.left, env, exact), self.ev(e.right, env, exact)
            if e.op == "/":
                if exact:
                    return Fraction(a) / b if b else 0
                return a // b if b else 0
            if e.op == "%":
                return a % b if b else 0
            return {
                "+": lambda: a + b,
                "-": lambda: a - b,
                "*": lambda: a * b,
                "==": lambda: a == b,
                "!=": lambda: a != b,
                "<": lambda: a < b,
                "<=": lambda: a <= b,
                ">": lambda: a > b,
                ">=": lambda: a >= b,
            }[e.op]()
        if isinstance(e, ir.In):
            return self.ev(e.value, env, exact) in e.members
        if isinstance(e, ir.InSet):
            return self.ev(e.value, env, exact) in self.ev(e.seats, env, exact)
        if isinstance(e, ir.Call):
            return self.call(e, env, exact)
        if isinstance(e, ir.Quant):
            seats = [
                s
                for s in range(1, self.n + 1)
                if self.alive[s] and self.ev(e.cond, dict(env, **{e.var: s}), exact)
            ]
            if e.func == "count":
                return len(seats)
            if e.func == "some":
                return bool(seats)
            if e.func == "every":
                return len(seats) == sum(self.alive.values())
            # random: a living seat drawn with the game's seeded RNG (as tie lotteries)
            if not seats:
                return 0
            self.draws += 1
            return random.Random(self.seed * 1000003 + self.draws).choice(seats)
        raise Unsupported(type(e).__name__)

    def call(self, e: ir.Call, env: Env, exact: bool) -> Any:
        f = e.func
        if f in ("floor", "ceil", "round"):
            x = self.ev(e.args[0], env, True)
            return {
                "floor": math.floor,
                "ceil": math.ceil,
                "round": lambda v: math.floor(v + Fraction(1, 2)),
            }[f](x)
        a = [self.ev(x, env, exact) for x in e.args]
        me = env.get("self", 0)
        if f == "alive":
            return self.alive.get(a[0], False)
        if f == "role":
            return self.role.get(a[0], -1)
        if f == "team":
            return self.team(a[0])
        if f == "living":
            return sum(1 for s in self.alive if self.alive[s] and self.team(s) == a[0])
        if f == "living_role":
            return sum(1 for s in self.alive if self.alive[s] and self.role[s] == a[0])
        if f == "has":
            return a[1] in self.marks[a[0]]
        if f == "acted":
            want = a[1] if len(a) > 1 else -1
            return self.plan is not None and any(
                ab == a[0] and (want == -1 or self.role[actor] == want)
                for _, actor, ab, _ in self.plan
            )
        if f == "recall":
            return self.memory[me].get(a[0], 0)
        if f == "used":
            return self.uses.get((me, a[0]), 0)
        if f == "departed":
            return sum(1 for _, t in self.departed if t == a[0])
        if f == "defending":
            return a[0] in self.defenders
        if f in ("left", "right"):
            step = -1 if f == "left" else 1
            for k in range(1, self.n):
                s = (a[0] - 1 + step * k) % self.n + 1
                if self.alive[s]:
                    return s
            return 0
        if f == "pick":
            return a[1] if a[0] else a[2]
        if f == "count_role":
            return self.initial.count(a[0])
        if f == "count_team":
            return sum(1 for r in self.initial if self.p.roles[r].team == a[0])
        if f == "min":
            return min(a)
        if f == "max":
            return max(a)
        if f == "clamp":
            return min(max(a[0], a[1]), a[2])
        if f == "cause_of":
            return self.death_cause.get(a[0], -1)
        if f == "voted":
            return (a[0], a[1]) in self.votes
        if f == "visitors":
            return frozenset(self.vis_in.get(a[0], ()))
        if f == "visits":
            return frozenset(self.vis_out.get(a[0], ()))
        if f == "count":
            return len(a[0])
        if f == "blocked":
            return a[0] in self.blocked
        if f == "doomed":
            return any(k[0] == a[0] for k in self.pending)
        if f == "in_middle":
            return self.middle.count(a[0])
        raise Unsupported(f)

    def text(self, parts: Iterable[ir.Expr], env: Env) -> str:
        """Told as docs/language.md says: roles, teams and causes by id, seats as digits."""
        out = []
        for x in parts:
            v = self.ev(x, env)
            if isinstance(x, ir.Const) and isinstance(x.value, str):
                out.append(v)
                continue
            kind = "int"
            if isinstance(x, ir.Var):
                kind = x.type
            elif isinstance(x, ir.Sym):
                kind = x.kind
            elif isinstance(x, ir.Call):
                kind = {
                    "role": "role",
                    "team": "team",
                    "cause_of": "cause",
                    "visitors": "seats",
                    "visits": "seats",
                }.get(x.func, "int")
            if kind == "role":
                out.append(self.E.ROLES[v])
            elif kind == "team":
                out.append(self.E.TEAMS[v])
            elif kind == "cause":
                out.append(self.p.causes[v] if v >= 0 else "none")
            elif kind == "seats":
                out.append(" ".join(str(t) for t in sorted(v)))
            else:
                out.append(str(v))
        return " ".join(out)

    # ------------------------------------------------------------ statements
    def run(self, body: Iterable[ir.Stmt], env: Env, ability: int | None = None) -> None:
        me = env.get("self", 0)
        for s in body:
            if isinstance(s, ir.Kill):
                t = self.ev(s.target, env)
                if 1 <= t <= self.n:
                    # (seat, cause, piercing, killer, attack level)
                    self.pending.append((t, s.cause, s.piercing, me, s.attack))
            elif isinstance(s, ir.Protect) and s.level >= 0:
                t = self.ev(s.target, env)
                if 1 <= t <= self.n:
                    self.level[t] = max(self.level.get(t, 0), s.level)
            elif isinstance(s, ir.Protect):
                self.prot.setdefault(self.ev(s.target, env), set()).update(s.causes)
            elif isinstance(s, ir.Guard):
                t = self.ev(s.target, env)
                if 1 <= t <= self.n and t != me:
                    # the guard, the causes, and its reaction with the values it sees now
                    self.guards[t] = (me, set(s.causes), s.body, dict(env), s.takes)
            elif isinstance(s, ir.Block):
                self._block(self.ev(s.target, env), me)
            elif isinstance(s, ir.Visit):
                self._visit_seat(me, self.ev(s.target, env))
            elif isinstance(s, ir.Delayed):
                self.delayed.append([self.night + s.nights, s.span.line, me, dict(env)])
            elif isinstance(s, ir.MiddleSwap):
                # (lowering guards it with in_middle and follows it with the conversion)
                t = self.ev(s.target, env)
                if 1 <= t <= self.n and s.role in self.middle:
                    self.middle.remove(s.role)
                    self.middle.append(self.role[t])
            elif isinstance(s, ir.CallAbility):
                self._call(self.ev(s.seat, env) if s.seat is not None else me, s.ability)
            elif isinstance(s, ir.SetMark):
                t = self.ev(s.target, env)
                (self.marks[t].discard if s.remove else self.marks[t].add)(s.mark)
            elif isinstance(s, ir.Convert):
                t = self.ev(s.target, env)
                if self.role[t] != s.role:
                    self.role[t] = s.role
                    team = self.p.roles[s.role].team
                    self._changes.append(
                        {
                            "seat": t,
                            "role": self.E.ROLES[s.role],
                            "team": self.E.TEAMS[team] if team >= 0 else None,
                        }
                    )
            elif isinstance(s, ir.Tell):
                to = self.ev(s.to, env) if s.to is not None else me
                self._private.setdefault(to, []).append(self.text(s.parts, env))
            elif isinstance(s, ir.Announce):
                self._public.append(self.text(s.parts, env))
            elif isinstance(s, ir.Remember):
                self.memory[me][s.slot] = self.ev(s.value, env)
            elif isinstance(s, ir.Trial):
                a, b = self.ev(s.a, env), self.ev(s.b, env)
                self.trial = (me, ability, min(a, b), max(a, b), s.refund, s.reveal, s.tie)
            elif isinstance(s, ir.Steal):
                self._steal(me, self.ev(s.source, env), self.ev(s.dest, env))
            elif isinstance(s, ir.Revive):
                self._revive(self.ev(s.target, env))
            elif isinstance(s, ir.Weight):
                self.weight[me] = self.ev(s.value, env)
            elif isinstance(s, ir.WinNow):
                if not self.over:
                    self.winner = (self.p.teams if s.kind == "team" else self.p.roles)[s.idx].id
                    self.over = True
            elif isinstance(s, ir.SkipNight):
                self.skip = True
            elif isinstance(s, ir.CancelVote):
                self.vote_cancelled = True
            elif isinstance(s, ir.Each) and s.source is not None:
                for v in sorted(self.ev(s.source, env)):
                    inner = dict(env, **{s.var: v})
                    if self.ev(s.filter, inner):
                        self.run(s.body, inner, ability)
            elif isinstance(s, ir.Each):
                for v in range(1, self.n + 1):
                    inner = dict(env, **{s.var: v})
                    if self.alive[v] and self.ev(s.filter, inner):
                        self.run(s.body, inner, ability)
            elif isinstance(s, ir.If):
                for cond, branch in s.branches:
                    if self.ev(cond, env):
                        self.run(branch, env, ability)
                        break
                else:
                    self.run(s.orelse, env, ability)
            else:
                raise Unsupported(type(s).__name__)

    def _revive(self, s: int) -> None:
        if 1 <= s <= self.n and not self.alive[s]:
            self.alive[s] = True
            if s in self._deaths:
                self._deaths.remove(s)
            self.departed = [d for d in self.departed if d[0] != s]
            self.death_cause.pop(s, None)

    # ------------------------------------------------------------ deaths
    def die(self, s: int, cause: int, killer: int = 0) -> None:
        """`s` leaves the game; its `on death` triggers run, then every `on any death` (a
        top-level one once, a role's once per living seat of the role), in spec order."""
        self.alive[s] = False
        self._deaths.append(s)
        self._exits.append((s, cause))
        self.departed.append((s, self.team(s)))
        self.death_cause[s] = cause
        info = {"victim": s, "killer": killer, "cause": cause}
        for t in self.p.roles[self.role[s]].triggers:
            if not t.causes or cause in t.causes:
                self.run(t.body, {"self": s, **info})
        for _, r, t in self.E.any_deaths:
            if t.causes and cause not in t.causes:
                continue
            if r < 0:
                self.run(t.body, {"self": 0, **info})
                continue
            for seat in range(1, self.n + 1):
                if self.alive[seat] and self.role[seat] == r:
                    self.run(t.body, {"self": seat, **info})

    def settle(self) -> None:
        """Pending kills in order (docs/language.md, "Night resolution" 3): protection from
        the cause, immunity, the defence level, then a guard who dies in the seat's place
        (piercing), or takes the attack (`takes the attack`: piercing None, his own
        protections hold and no guard of his takes it further)."""
        i = 0
        while i < len(self.pending):
            s, cause, piercing, killer, attack = self.pending[i]
            i += 1
            if not self.alive[s]:
                continue
            if not piercing:
                if (
                    cause in self.prot.get(s, ())
                    or self._immune(s, cause)
                    or attack <= max(self.p.roles[self.role[s]].defense, self.level.get(s, 0))
                ):
                    self._saved(s, cause, killer)
                    continue
                g = self.guards.get(s) if piercing is not None else None
                if g is not None and cause in g[1] and self.alive[g[0]]:
                    self.pending.append((g[0], cause, None if g[4] else True, killer, attack))
                    if g[2]:  # the guard's reaction, knowing the attacker
                        self.run(g[2], dict(g[3], self=g[0], attacker=killer))
                    continue
            self.die(s, cause, killer)
        self.pending = []

    def _saved(self, s: int, cause: int, killer: int) -> None:
        """`on any save`: a kill on `s` a protection, immunity or level stopped."""
        for t in self.p.any_saves:
            if not t.causes or cause in t.causes:
                self.run(t.body, {"self": 0, "victim": s, "killer": killer, "cause": cause})

    def _immune(self, s: int, cause: int) -> bool:
        for k, im in enumerate(self.p.roles[self.role[s]].immune):
            if cause in im.causes and (im.unless < 0 or im.unless not in self.marks[s]):
                if im.times:
                    if self.absorbed.get((s, k), 0) >= im.times:
                        continue
                    self.absorbed[(s, k)] = self.absorbed.get((s, k), 0) + 1
                return True
        return False

    def wins(self) -> None:
        """Win conditions in spec order; then `draw when` (the game ends, nobody's win)."""
        if self.over:
            return
        for w in self.p.wins:
            if self.ev(w.cond, {}):
                self.winner = (self.p.teams if w.kind == "team" else self.p.roles)[w.idx].id
                self.over = True
                return
        if any(self.ev(d, {}) for d in self.p.draws):
            self.over = True

    def final_winners(self) -> list[str]:
        """The winner, then the roles that win alongside (spec order): one of a role's seats,
        dead or alive, for which one of its conditions holds."""
        out = [self.winner] if self.winner is not None else []
        for r in self.p.roles:
            if r.id in out or not r.alongside:
                continue
            seats = [s for s in range(1, self.n + 1) if self.role[s] == r.idx]
            if any(self.ev(c, {"self": s}) for s in seats for c in r.alongside):
                out.append(r.id)
        return out

    def _chaos_now(self) -> bool:
        d = self.p.day
        return bool(d and d.chaos_when is not None and self.ev(d.chaos_when, {}))

    # ------------------------------------------------------------ abilities
    def holder(self, ab: int) -> int:
        for r in self.p.abilities[ab].holders:
            for s in range(1, self.n + 1):
                if self.role[s] == r and self.alive[s]:
                    return s
        return 0

    def holds(self, seat: int, ab: int) -> bool:
        a = self.p.abilities[ab]
        if a.granted >= 0:
            return a.granted in self.marks[seat]
        if a.holders:
            return self.holder(ab) == seat
        return a.role == self.role[seat]

    def find(self, seat: int, name: str, own_first: bool = True) -> int:
        """The ability `seat` means by `name` (short or full id), or raise."""
        abs_ = self.p.abilities
        own = [a.idx for a in abs_ if a.role == self.role[seat] and _by_name(a, name)]
        if own_first and len(own) == 1 and self.holds(seat, own[0]) and abs_[own[0]].granted < 0:
            return own[0]  # the actor's own ability by that name comes first
        found = [
            a.idx
            for a in abs_
            if a.phase != "card" and _by_name(a, name) and self.holds(seat, a.idx)
        ]
        if len(found) == 1:
            return found[0]
        if found:
            raise IllegalAction(seat, name, "ambiguous")
        for a in own:
            raise IllegalAction(seat, abs_[a].id, "not-holder")
        raise IllegalAction(seat, name, "unknown-ability")

    def validate(  # the rules in order
        self, raw: Any, phase: str, number: int, seen: set[Any], groups: dict[Any, Any]
    ) -> Entry:
        if type(raw) not in (list, tuple) or len(raw) < 2:
            raise IllegalAction(None, None, "malformed")
        actor, name = raw[0], raw[1]
        if type(name) is not str:
            raise IllegalAction(None, None, "malformed")
        if type(actor) is not int or not 1 <= actor <= self.n:
            raise IllegalAction(None, name, "bad-seat")
        if not self.alive[actor] and not self.E.DEAD_ACT:
            raise IllegalAction(actor, name, "dead-actor")
        ab = self.find(actor, name)
        a = self.p.abilities[ab]
        fail = lambda rule: IllegalAction(actor, a.id, rule)  # noqa: E731
        # who may use it: the living (default), the dead (`dead`), or both
        if a.life == "dead" and self.alive[actor]:
            raise fail("living-actor")
        if a.life == "alive" and not self.alive[actor]:
            raise IllegalAction(actor, name, "dead-actor")
        if not (
            a.phase == phase
            or phase == "day"
            and a.phase == "vote"
            or a.phase == "any"
            and phase != "vote"
        ):
            raise fail("wrong-phase")
        if number in (self.p.quiet_nights if phase == "night" else self.p.quiet_days):
            raise fail("quiet-phase")
        if number < a.from_number:
            raise fail("too-early")
        if (actor, ab) in seen:
            raise fail("duplicate")
        seen.add((actor, ab))
        if a.exclusive_group >= 0:
            if (actor, a.exclusive_group) in groups:
                raise fail("exclusive")
            groups[(actor, a.exclusive_group)] = ab
        if a.table_group >= 0:
            if (0, a.table_group) in groups:
                raise fail("exclusive")
            groups[(0, a.table_group)] = ab
        if a.per_game and self.uses.get((actor, ab), 0) >= a.per_game:
            raise fail("used-up")
        args = self.arguments(actor, a, list(raw[2:]))
        env = self.ability_env(actor, a, args)
        if a.when is not None and not self.ev(a.when, env):
            raise fail("condition")
        first = args[0] if a.targets else 0
        if (
            first == actor
            and a.self_per_game
            and self.self_uses.get((actor, ab), 0) >= a.self_per_game
        ):
            raise fail("self-limit")
        if a.norepeat and first:
            if a.norepeat == "ever":
                if first in self.ever.get((actor, ab), ()):
                    raise fail("repeat")
            else:
                last = self.last_target.get((actor, ab))
                if last is not None and last == (number - 1, first):
                    raise fail("repeat")
        return (a.rank, actor, ab, tuple(args))

    def arguments(self, actor: int, a: ir.Ability, given: list[Any]) -> list[Any]:
        if len(given) != len(a.targets) + len(a.choices):
            raise IllegalAction(actor, a.id, "arity")
        for k, t in enumerate(a.targets):
            v = given[k]
            if type(v) is not int or not 1 <= v <= self.n:
                raise IllegalAction(actor, a.id, "bad-target")
            env = {"self": actor}
            env.update({tt.name: given[j] for j, tt in enumerate(a.targets[: k + 1])})
            if not self.ev(t.filter, env):
                raise IllegalAction(actor, a.id, "bad-target")
        for k, c in enumerate(a.choices, len(a.targets)):
            table = self.E.ROLES if c.kind == "role" else self.E.TEAMS
            if given[k] not in table:
                raise IllegalAction(actor, a.id, "bad-choice")
            given[k] = table.index(given[k])
        return given

    def ability_env(self, actor: int, a: ir.Ability, args: Sequence[Any]) -> Env:
        env = {"self": actor}
        env.update({t.name: args[k] for k, t in enumerate(a.targets)})
        env.update({c.name: args[len(a.targets) + k] for k, c in enumerate(a.choices)})
        return env

    def charge(self, actor: int, ab: int, first: int, number: int) -> None:
        key = (actor, ab)
        self.uses[key] = self.uses.get(key, 0) + 1
        if first:
            if first == actor:
                self.self_uses[key] = self.self_uses.get(key, 0) + 1
            self.last_target[key] = (number, first)
            if self.p.abilities[ab].norepeat == "ever":
                self.ever.setdefault(key, []).append(first)

    def use(
        self, actor: int, ab: int, args: Sequence[Any], body: Iterable[ir.Stmt] | None = None
    ) -> None:
        a = self.p.abilities[ab]
        if a.inverted is not None and self.E.INVERTING & self.marks[actor]:
            body = a.inverted
        self.run(a.body if body is None else body, self.ability_env(actor, a, args), ab)

    def stealable(self, r: int) -> int:
        """What a taker steals from role r: its first targeted night ability without choices."""
        for k in self.p.roles[r].abilities:
            a = self.p.abilities[k]
            if a.phase == "night" and a.targets and not a.choices:
                return k
        return -1

    def _steal(self, taker: int, source: int, dest: int) -> None:
        """`steal SOURCE onto DEST` (docs/language.md): the taker uses source's stealable
        ability on dest tonight: taking over the action if source submitted it and it is still
        to come; using it at once if its turn has passed (charged to source if it was never
        submitted); else adding it on source's behalf at its place in the order."""
        plan = self.plan
        ab = self.stealable(self.role[source]) if 1 <= source <= self.n else -1
        if plan is None or ab < 0 or not self.alive[source] or source in self.stolen:
            return
        a = self.p.abilities[ab]
        if any(e[1] == source and e[2] == ab for e in plan[self.pos :]):
            self.stolen[source] = (taker, dest)
            return
        done = any(e[1] == source and e[2] == ab for e in plan[: self.pos])
        if not done:
            if a.per_game and self.uses.get((source, ab), 0) >= a.per_game:
                return
            self.uses[(source, ab)] = self.uses.get((source, ab), 0) + 1
        args = [dest] * len(a.targets)
        self.stolen[source] = (taker, dest)
        if done or a.rank < plan[self.pos - 1][0]:
            self.run(
                a.stolen if a.stolen is not None else a.body, self.ability_env(taker, a, args), ab
            )
            return
        plan.append((a.rank, source, ab, tuple(args)))
        plan[self.pos :] = sorted(plan[self.pos :])

    # ------------------------------------------------------------ steps
    def _require(self, phase: str) -> None:
        if self.over:
            raise IllegalAction(None, None, "game-over")
        if self.phase != phase:
            raise IllegalAction(None, None, "wrong-phase")

    def _report(self, phase: str, number: int, **extra: Any) -> Report:
        rep: Report = {
            "phase": phase,
            "number": number,
            "deaths": sorted(self._deaths),
            "causes": {s: self.CAUSE(c) for s, c in self._exits if s in self._deaths},
            "public": self._public,
            "private": self._private,
            "changes": self._changes,
            "silenced": sorted(self._silenced),
            "winner": self.winner,
        }
        if self.over:
            self.winners = self.final_winners()
        rep["winners"] = list(self.winners)
        rep["over"] = self.over
        start = self.start_report if self.start_pending else None
        if start is not None:  # what the start hooks did rides on the first step's report
            self.start_pending = False
            rep["start"] = {
                "deaths": list(start["deaths"]),
                "public": list(start["public"]),
                "private": {s: list(t) for s, t in start["private"].items()},
                "changes": [dict(c) for c in start["changes"]],
            }
            rep["public"] = start["public"] + rep["public"]
            private = {s: list(t) for s, t in start["private"].items()}
            for s, t in rep["private"].items():
                private.setdefault(s, []).extend(t)
            rep["private"] = private
        rep.update(extra)
        self._clear_report()
        return rep

    def CAUSE(self, c: int) -> str:
        return self.p.causes[c]

    def timers(self, pairs: Iterable[tuple[str, ir.Expr]], env: Env | None = None) -> Env:
        return {name: self.ev(x, env or {}) for name, x in pairs}

    # ------------------------------------------------------------ decisions (`call`)
    def _step(
        self, step: str, args: tuple[Any, ...], kw: dict[str, Any], answers: Sequence[Any] = ()
    ) -> Any:
        """Play a step. In a spec with `on call` abilities the step is played from its start
        with the decisions given so far (`answers`: those a night in wake order kept); one still
        missing leaves the game as before the step, waiting for it (docs/engine.md,
        "Decisions")."""
        if not self.E.CALLS:
            return getattr(self, "_" + step)(*args, **kw)
        aw = self.awaiting
        if aw is not None:
            raise IllegalAction(aw["seat"], aw["ability"], "awaiting")
        return self._replay(step, args, kw, list(answers))

    def _replay(
        self, step: str, args: Sequence[Any], kw: dict[str, Any], answers: list[Any]
    ) -> Any:
        saved = self.to_json()
        self.answers, self.apos = answers, 0
        try:
            return getattr(self, "_" + step)(*args, **kw)
        except _Await as w:
            self._undo(saved)
            self._declinable(step, args, kw, answers)
            a = self.p.abilities[w.ab]
            self.awaiting = {
                "seat": w.seat,
                "ability": a.id,
                "targets": len(a.targets),
                "choices": [c.kind for c in a.choices],
                "options": w.options,
                "step": step,
                "args": list(args),
                "kw": dict(kw),
                "answers": answers,
            }
            return {
                "phase": {"resolve_night": "night", "resolve_day": "day", "wake": "night"}.get(
                    step, step.split("_")[-1]
                ),
                "number": self.day if self.phase == "day" else self.night,
                "deaths": [],
                "causes": {},
                "public": [],
                "private": {},
                "changes": [],
                "silenced": [],
                "winner": self.winner,
                "winners": list(self.winners),
                "awaiting": self.pending_choices(),
            }
        except Exception:
            self._undo(saved)
            raise
        finally:
            self.answers = None

    def _declinable(
        self, step: str, args: Sequence[Any], kw: dict[str, Any], answers: list[Any]
    ) -> None:
        """Before the step waits: played with this and every later decision declined, it goes
        through (declining always moves the game on), else its IllegalAction is raised now."""
        given = _json(answers) + [[]]
        saved = self.to_json()
        for _ in range(10_000):
            self.answers, self.apos = given, 0
            try:
                getattr(self, "_" + step)(*args, **kw)
                return
            except _Await:
                given.append([])
            finally:
                self._undo(saved)

    def pending_choices(self) -> list[dict[str, Any]]:
        aw = self.awaiting
        if aw is None:
            return []
        keys = ("seat", "ability", "targets", "choices", "options")
        return [{k: _json(aw[k]) for k in keys}]

    def resolve_choice(self, seat: Any, values: Any = None) -> Any:
        aw = self.awaiting
        if aw is None:
            raise IllegalAction(seat, None, "no-choice")
        if seat != aw["seat"]:
            raise IllegalAction(seat, aw["ability"], "not-awaited")
        if values is not None and not isinstance(values, (list, tuple)):
            raise IllegalAction(seat, aw["ability"], "malformed")
        self.awaiting = None
        try:
            return self._replay(
                aw["step"], aw["args"], aw["kw"], aw["answers"] + [list(values or ())]
            )
        except Exception:
            self.awaiting = aw
            raise

    def _call(self, seat: Any, ab: int) -> None:
        """`call`: `seat` decides now how to use the `on call` ability `ab`: the next decision
        given for this step, else the step waits (_Await). Spent uses: nobody is asked."""
        if type(seat) is not int or not 1 <= seat <= self.n:
            return
        a = self.p.abilities[ab]
        if a.per_game and self.uses.get((seat, ab), 0) >= a.per_game:
            return
        values = None
        if self.answers is not None and self.apos < len(self.answers):
            values = self.answers[self.apos]
            if isinstance(values, dict):  # kept by a night in wake order: this call's only
                values = self._kept(seat, a, values)
                if values is None:  # the night changed since: asked again from here
                    del self.answers[self.apos :]
        if values is None:
            options = []
            if a.targets:
                f = a.targets[0]
                options = [
                    t for t in range(1, self.n + 1) if self.ev(f.filter, {"self": seat, f.name: t})
                ]
            raise _Await(seat, ab, options)
        if self.keyed and self.answers is not None:
            self.answers[self.apos] = {"seat": seat, "ability": a.id, "values": list(values)}
        self.apos += 1
        if not values:
            return  # declined
        args = self.arguments(seat, a, list(values))
        env = self.ability_env(seat, a, args)
        if a.when is not None and not self.ev(a.when, env):
            raise IllegalAction(seat, a.id, "condition")
        number = self.night if self.phase == "night" else self.day
        self.charge(seat, ab, args[0] if a.targets else 0, number)
        self.run(a.body, env, ab)

    def _kept(self, seat: int, a: ir.Ability, kept: dict[str, Any]) -> list[Any] | None:
        """A decision kept by a night in wake order, if it is this seat's for this ability and
        still legal now; else None."""
        values = kept.get("values")
        if kept.get("seat") != seat or kept.get("ability") != a.id or type(values) is not list:
            return None
        if not values:
            return values
        try:
            args = self.arguments(seat, a, list(values))
        except IllegalAction:
            return None
        if a.when is not None and not self.ev(a.when, self.ability_env(seat, a, args)):
            return None
        return values

    # ------------------------------------------------------------ blocks, visits, hooks
    def _block(self, seat: int, by: int) -> None:
        """`block`: the seat's night actions still to come do not resolve; its `on blocked`
        reactions run once per blocker (a dead seat does not react)."""
        if not 1 <= seat <= self.n or (seat, by) in self.blockings:
            return
        self.blockings.add((seat, by))
        self.blocked.setdefault(seat, by)
        if self.alive[seat]:
            self._react(seat, "blocked", "blocker", by)

    def _used_tonight(self, seat: int, ab: int) -> bool:
        return self.plan is not None and any(e[1] == seat and e[2] == ab for e in self.plan)

    def _react(self, seat: int, kind: str, name: str, other: int) -> None:
        """`on visited` / `on blocked`: the role's, then those of the abilities the seat used
        tonight (a visit reaction only if the ability resolved: unblocked or unblockable)."""
        for r in self.p.roles[self.role[seat]].reactions:
            if r.kind == kind:
                self.run(r.body, {"self": seat, name: other})
        for a in self.p.abilities:
            for r in a.reactions:
                if r.kind != kind or not self._used_tonight(seat, a.idx):
                    continue
                if kind == "visited" and seat in self.blocked and not a.unblockable:
                    continue
                self.run(r.body, {"self": seat, name: other})

    def _visit(self, actor: int, a: ir.Ability, args: Sequence[Any]) -> None:
        """A resolving night action visits its target seats (not its actor), first."""
        done = set()
        for t in args[: len(a.targets)]:
            if t == actor or not 1 <= t <= self.n or t in done:
                continue
            done.add(t)
            self._visit_seat(actor, t)

    def _visit_seat(self, actor: int, t: int) -> None:
        """`actor` visits `t` (an action's target, or `visit t`): recorded, then the living
        target's `on visited` reactions run."""
        if t == actor or not 1 <= t <= self.n:
            return
        if actor not in self.vis_in.setdefault(t, []):
            self.vis_in[t].append(actor)
        if t not in self.vis_out.setdefault(actor, []):
            self.vis_out[actor].append(t)
        if self.alive[t]:
            self._react(t, "visited", "visitor", actor)

    def _hooks(self, when: str) -> None:
        """Hooks of one moment in spec order: a top-level one once, a role's once per living
        seat of the role (seat order)."""
        for _, r, h in self.E.hooks.get(when, ()):
            if r < 0:
                self.run(h.body, {"self": 0})
                continue
            for s in range(1, self.n + 1):
                if self.alive[s] and self.role[s] == r:
                    self.run(h.body, {"self": s})

    # ------------------------------------------------------------ a night in wake order
    def next_wake(self) -> dict[str, Any] | None:
        """The next night ability in the night order, usable tonight, that living seats hold
        now: {"ability", "seats", "slot"}; None if nobody is left to wake (or no night now)."""
        if (
            self.phase != "night"
            or self.over
            or self.awaiting is not None
            or self.night in self.p.quiet_nights
        ):
            return None
        start = self.wake_state["pos"] if self.wake_state is not None else 0
        for slot in range(start, len(self.p.night_order)):
            ab = self.p.night_order[slot]
            if self.p.abilities[ab].from_number > self.night:
                continue
            seats = [s for s in self.alive_seats() if self.holds(s, ab)]
            if seats:
                return {"ability": self.E.ABILITIES[ab], "seats": seats, "slot": slot}
        return None

    def wake(self, actions: Any) -> Any:
        """The woken seats' actions; returns the night so far (resolved on the side). A decision
        it asks for suspends the wake; the night keeps the decisions given."""
        w = self.wake_state
        return self._step("wake", (actions,), {}, (w or {}).get("answers", ()))

    def _wake(self, actions: Any) -> Report:
        nxt = self.next_wake()
        if nxt is None:
            raise IllegalAction(None, None, "no-wake")
        if not isinstance(actions, (list, tuple)):
            raise IllegalAction(None, None, "malformed")
        awake = self.p.night_order[nxt["slot"]]
        for raw in actions:
            if not isinstance(raw, (list, tuple)) or len(raw) < 2 or raw[0] not in nxt["seats"]:
                raise IllegalAction(None, None, "not-awake")
            if self.find(raw[0], raw[1]) != awake:
                raise IllegalAction(raw[0], raw[1], "not-awake")
        so_far = (self.wake_state["actions"] if self.wake_state else []) + [
            list(raw) for raw in actions
        ]
        keyed, self.keyed = self.keyed, self.E.CALLS
        try:
            report, taken = self._preview(so_far)
        finally:
            self.keyed = keyed
        self.wake_state = {"pos": nxt["slot"] + 1, "actions": so_far}
        if taken:
            self.wake_state["answers"] = taken
        return report

    def _preview(self, actions: Any) -> tuple[Report, list[Any]]:
        """The night resolved with `actions` on the side: (its report, the decisions taken)."""
        saved = self.to_json()
        self.wake_state = None
        ans, apos = self.answers, 0
        try:
            if ans is None:
                return self.resolve_night(actions), []
            report = self._resolve_night(actions)
            apos = self.apos
            return report, ans[:apos]
        finally:
            apos = self.apos
            keyed = self.keyed
            self._undo(saved)
            self.answers, self.apos, self.keyed = ans, apos, keyed

    def _rewake(self) -> None:
        """A moderator step in a night under way in wake order: the night goes on without the
        actions it no longer accepts (the dead seat's, those aimed at him) and the decisions it
        no longer asks for (docs/engine.md, "The moderator")."""
        w = self.wake_state
        if w is None or self.over or self.phase != "night":
            self.wake_state = None
            return
        seen: set[Any] = set()
        groups: dict[Any, int] = {}
        kept = []
        for raw in w["actions"]:
            s2, g2 = set(seen), dict(groups)
            try:
                self.validate(raw, "night", self.night, s2, g2)
            except IllegalAction:
                continue
            if self.alive[raw[0]]:
                seen, groups = s2, g2
                kept.append(raw)
        nw = {"pos": w["pos"], "actions": kept}
        answers = w.get("answers")
        if answers and self.E.CALLS:
            saved = self.answers, self.apos, self.keyed
            self.answers, self.apos, self.keyed = list(answers), 0, True
            try:
                self._preview(kept)
            except (_Await, IllegalAction):
                pass
            finally:
                taken = self.answers[: self.apos]
                self.answers, self.apos, self.keyed = saved
            if taken:
                nw["answers"] = taken
        self.wake_state = nw

    def end_night(self) -> Any:
        """Every action given in wake order resolves as one night (resolve_night)."""
        w, self.wake_state = self.wake_state, None
        try:
            if w is not None and self.E.CALLS:
                return self._step("resolve_night", (w["actions"],), {}, w.get("answers", ()))
            return self.resolve_night(w["actions"] if w is not None else [])
        except Exception:
            self.wake_state = w
            raise

    # ------------------------------------------------------------ the steps
    def resolve_night(self, actions: Any) -> Any:
        return self._step("resolve_night", (actions,), {})

    def _resolve_night(self, actions: Any) -> Report:
        if self.wake_state is not None:
            raise IllegalAction(None, None, "wake-order")
        self._require("night")
        if type(actions) not in (list, tuple):
            raise IllegalAction(None, None, "malformed")
        number = self.night
        timers = self.timers(self.p.night_timers)
        seen: set[tuple[int, int]] = set()
        groups: dict[tuple[int, int], int] = {}
        plan = sorted(self.validate(raw, "night", number, seen, groups) for raw in actions)
        for _, actor, ab, args in plan:
            self.charge(actor, ab, args[0] if self.p.abilities[ab].targets else 0, number)
        self.prot, self.guards, self.level = {}, {}, {}
        self.vis_in, self.vis_out = {}, {}
        self.plan, self.stolen = plan, {}
        # delayed effects due tonight, then the night-start hooks, then the actions
        due = [d for d in self.delayed if d[0] <= number]
        self.delayed = [d for d in self.delayed if d[0] > number]
        for _, line, me, env in due:
            self.run(self.E.delayed[line].body, dict(env, self=me))
        self._hooks("night_start")
        i = 0
        while i < len(plan):  # a steal may add to the plan as it resolves
            _, actor, ab, args = plan[i]
            i += 1
            self.pos = i
            a = self.p.abilities[ab]
            if actor in self.blocked and not a.unblockable:
                continue  # blocked: neither resolves nor visits
            body = a.body
            taken = self.stolen.get(actor)
            if taken is not None and ab == self.stealable(self.role[actor]):
                # the taker uses it instead, on his second target
                actor, args = taken[0], [taken[1]] * len(a.targets)
                if a.stolen is not None:
                    body = a.stolen
            if self.E.VISITS and a.phase in ir.NIGHT_PHASES and a.targets and not a.astral:
                self._visit(actor, a, args)
            self.use(actor, ab, args, body)
        self._hooks("night_end")
        self.plan = None
        self.settle()
        if self.E.hooks.get("dawn"):
            self._hooks("dawn")
            self.settle()
        self.blocked, self.blockings = {}, set()
        for s in self.marks:
            self.marks[s] -= {m.idx for m in self.p.marks if m.lifetime == "dawn"}
        silencing = {m.idx for m in self.p.marks if m.silences}
        self._silenced = {
            s for s in range(1, self.n + 1) if self.alive[s] and silencing & self.marks[s]
        }
        self.prot, self.guards, self.level = {}, {}, {}
        if self.p.calm is not None and not self._deaths:
            self._public.append(self.p.calm)
        self.phase = "day"
        self.day += 1
        self.chaos = self._chaos_now()
        if "dawn" in self.p.check_at or "death" in self.p.check_at and self._deaths:
            self.wins()
        return self._report("night", number, timers=timers)

    def resolve_day(
        self,
        eliminate: Any = None,
        votes: Any = None,
        defense: Any = None,
        trial: Any = None,
        inquiry: Any = None,
        actions: Any = None,
        breach: Any = None,
        card: Any = None,
        runoff: Any = None,
        election: Any = None,
    ) -> Any:
        kw = dict(
            eliminate=eliminate,
            votes=votes,
            defense=defense,
            trial=trial,
            inquiry=inquiry,
            actions=actions,
            breach=breach,
            card=card,
            runoff=runoff,
            election=election,
        )
        return self._step("resolve_day", (), kw)

    def _resolve_day(
        self,
        eliminate: Any = None,
        votes: Any = None,
        defense: Any = None,
        trial: Any = None,
        inquiry: Any = None,
        actions: Any = None,
        breach: Any = None,
        card: Any = None,
        runoff: Any = None,
        election: Any = None,
    ) -> Any:
        self._require("day")
        # (played inside _replay, the replay's own snapshot restores a rejected day)
        saved = self.to_json() if self.answers is None else None
        try:
            self.runoff = runoff
            return self._day(
                eliminate, votes, defense, trial, inquiry, actions or [], breach, card, election
            )
        except IllegalAction:
            self._undo(saved)
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError):
            self._undo(saved)
            raise IllegalAction(None, None, "malformed") from None

    def _undo(self, saved: dict[str, Any] | None) -> None:
        if saved is None:
            return
        back = type(self).from_json(saved)
        self.__dict__.update(back.__dict__)

    def _seat(self, s: Any) -> int:
        if type(s) is not int or not 1 <= s <= self.n:
            raise IllegalAction(None, None, "bad-seat")
        return s

    def _living(self, s: Any) -> int:
        self._seat(s)
        if not self.alive[s]:
            raise IllegalAction(s, None, "dead-player")
        return s

    def _rules(self) -> ir.Vote | None:
        d = self.p.day
        if d is None:
            return None
        return d.chaos if self.chaos else d.vote

    def _speaker(self, number: int) -> int | None:
        d = self.p.day
        if d is None or d.speaking is None:
            return None
        first, shift, from_day = d.speaking
        seat = first + (shift * (number - from_day + 1) if number >= from_day else 0)
        seat = (seat - 1) % self.n + 1
        for _ in range(self.n):
            if self.alive[seat]:
                return seat
            seat = seat % self.n + 1
        return None

    def _trial_called_off(self) -> bool:
        """Does the scheduled trial's `cancel when` hold now? (False without a trial.)"""
        if self.trial is None:
            return False
        actor, ab, a, b, _, _, _ = self.trial
        cancels = [
            st
            for st in _statements(self.p.abilities[ab].body)
            if isinstance(st, ir.Trial) and st.cancel_when is not None
        ]
        if not cancels:
            return False
        st = cancels[-1]
        when = st.cancel_when
        assert when is not None  # (cancels holds only those with one)
        env = {
            "self": actor,
            st.a.name if isinstance(st.a, ir.Var) else "_a": a,
            st.b.name if isinstance(st.b, ir.Var) else "_b": b,
        }
        return bool(self.ev(when, env))

    def _trial_dropped(self) -> bool:
        """The day starts: a trial called off is dropped (its use refunded if it says so)."""
        if self.trial is None or not self._trial_called_off():
            return False
        actor, ab, _, _, refund, _, _ = self.trial
        self.trial = None
        if refund:
            self.uses[(actor, ab)] -= 1
        return True

    def _day(
        self,
        eliminate: Any,
        votes: Any,
        defense: Any,
        trial: Any,
        inquiry: Any,
        actions: Sequence[Any],
        breach: Any,
        card: Any,
        election: Any,
    ) -> Report:
        p, number = self.p, self.day
        quiet = number in p.quiet_days
        if not self.repeat:
            self.chaos = self._chaos_now()
        chaos = self.chaos
        held = self._election_today()  # the election held today, if any
        dropped = self._trial_dropped()
        rules = self._rules()
        speaker = self._speaker(number)
        timers = self.timers(p.day.timers) if p.day else {}
        if rules is not None:
            timers.update(self.timers(rules.timers))
        self.repeat = False
        if chaos:
            self._public.append("chaos")
        self._hooks("day_start")  # (their kills settle with the breaches')
        if quiet and (eliminate is not None or votes or defense or trial or inquiry):
            raise IllegalAction(None, None, "quiet-day")
        expelling = {m.idx for m in p.marks if m.expels}
        for s in breach or ():
            self._living(s)
            if not expelling & self.marks[s]:
                raise IllegalAction(s, None, "no-restriction")
            self.die(s, self.E.C_MODERATOR)
        self.settle()
        if self.trial is not None:
            self._run_trial(self.trial, trial)
        elif trial:
            raise IllegalAction(None, None, "chaos" if dropped and chaos else "no-trial")
        if election is not None:
            if held is None:
                raise IllegalAction(None, None, "no-election")
            self._elect(held, election)
        seen: set[tuple[int, int]] = set()
        groups: dict[tuple[int, int], int] = {}
        at_vote = []
        for raw in actions:
            if (
                isinstance(raw, (list, tuple))
                and len(raw) >= 2
                and type(raw[0]) is int
                and 1 <= raw[0] <= self.n
                and type(raw[1]) is str
                and self.alive[raw[0]]
            ):
                if p.abilities[self.find(raw[0], raw[1], own_first=False)].phase == "vote":
                    at_vote.append(raw)
                    continue
            self._act(self.validate(raw, "day", number, seen, groups))
        self.settle()
        if inquiry is not None:
            self._inquiry(number, inquiry)
        if eliminate is not None and (votes or defense):
            raise IllegalAction(None, None, "malformed")
        if at_vote and eliminate is not None:
            raise IllegalAction(at_vote[0][0], at_vote[0][1], "no-vote")
        if (eliminate is not None or votes or at_vote) and rules is None:
            raise IllegalAction(None, None, "no-vote")
        out = None
        self.votes = set()  # `voted` reads the most recent day's vote (none: an empty one)
        if eliminate is not None:
            out = self._living(eliminate)
        elif votes is not None or at_vote:
            out = self._vote(votes or {}, defense, chaos, at_vote, number, seen, groups)
        elif defense:
            raise IllegalAction(None, None, "malformed")
        if out:
            self.die(out, self.E.C_VOTE)
            self.settle()
        if self.deferred:
            self.defenders = set()
            for raw in self.deferred:
                if not self.alive[raw[0]]:
                    raise IllegalAction(raw[0], raw[1], "dead-actor")
                self._act(self.validate(raw, "vote", number, seen, groups))
            self.deferred = []
            self.settle()
        if self.runoff:
            raise IllegalAction(None, None, "bad-vote")
        voted_out = out or next((s for s, c in self._exits if c == self.E.C_VOTE), 0)
        self.defenders = set()
        self.vote_cancelled = False
        self.weight = {}
        self.prot, self.guards = {}, {}
        if card is not None:
            self._card(voted_out, card)
        if self.E.hooks.get("day_end"):  # dusk
            self._hooks("day_end")
            self.settle()
        dusk = {m.idx for m in p.marks if m.lifetime == "dusk"}
        for s, m in self.later:
            self.marks[s].discard(m)
        for s in self.marks:
            self.marks[s] -= dusk
        tomorrow = {m.idx for m in p.marks if m.lifetime == "tomorrow"}
        self.later = [
            [s, m] for s in range(1, self.n + 1) for m in sorted(self.marks[s]) if m in tomorrow
        ]
        skipped = False
        if self.skip and not self.repeat:
            self.skip = False
            skipped = True
            self.night += 1
            self.day += 1
            self.chaos = self._chaos_now()
        elif not self.repeat:
            self.phase = "night"
            self.night += 1
            self.chaos = False
        at = p.check_at
        if "vote" in at or "dusk" in at or ("death" in at and self._deaths):
            self.wins()
        return self._report(
            "day",
            number,
            chaos=chaos,
            speaker=speaker,
            repeat=self.repeat,
            skipped_night=skipped,
            timers=timers,
        )

    def _act(self, entry: Entry) -> None:
        _, actor, ab, args = entry
        self.charge(actor, ab, args[0] if self.p.abilities[ab].targets else 0, self.day)
        self.use(actor, ab, args)

    def _card(self, seat: Any, raw: Any) -> None:
        cards = [a for a in self.p.abilities if a.phase == "card"]
        if not cards:
            raise IllegalAction(None, None, "no-cards")
        if not self.cards_on:
            raise IllegalAction(None, None, "no-cards")
        if not seat:
            raise IllegalAction(None, None, "no-card")
        raw = [raw] if isinstance(raw, str) else list(raw)
        name = raw[0] if raw else None
        a = next((c for c in cards if name in (c.name, c.id)), None)
        if a is None:
            raise IllegalAction(seat, name, "unknown-card")
        args = self.arguments(seat, a, list(raw[1:]))
        self._public.append(f"card {a.name}")
        self.run(a.body, self.ability_env(seat, a, args), a.idx)
        self.settle()

    def _run_trial(self, pending: Any, given: Any) -> None:
        """The trial `pending` (self.trial) is held today, as `given` says."""
        actor, ab, a, b, refund, reveal, tie = pending
        abid = self.E.ABILITIES[ab]
        self.trial = None
        self._public.append(f"trial {a} {b}")
        if not given:
            return
        if not isinstance(given, dict):
            raise IllegalAction(None, abid, "malformed")
        forms = [k for k in ("cancel", "votes", "eliminate") if given.get(k) not in (None, False)]
        if len(forms) > 1 or set(given) - {"cancel", "votes", "eliminate"}:
            raise IllegalAction(None, abid, "malformed")
        if given.get("cancel"):
            if not self.alive[actor]:
                raise IllegalAction(actor, abid, "dead-actor")
            self._public.append("trial cancelled")
            return
        loser = given.get("eliminate")
        if loser is None and "votes" in given:
            counts, voted = {a: 0, b: 0}, set()
            for s, voters in dict(given["votes"]).items():
                if s not in counts:
                    raise IllegalAction(s, abid, "bad-vote")
                for v in voters:
                    self._living(v)
                    if v in (a, b) or self._voteless(v):
                        raise IllegalAction(v, abid, "bad-vote")
                    if v in voted:
                        raise IllegalAction(v, abid, "bad-vote")
                    voted.add(v)
                    counts[s] += self.vote_weight(v)
            if counts[a] == counts[b]:
                loser = self._tie([a, b], tie) if tie != "none" else None
            else:
                loser = a if counts[a] > counts[b] else b
        elif loser is not None and loser not in (a, b):
            raise IllegalAction(loser, abid, "bad-vote")
        if loser:
            self._living(loser)
            if reveal:
                t = self.team(loser)
                self._public.append(
                    f"side {loser} {self.E.TEAMS[t] if t >= 0 else self.E.ROLES[self.role[loser]]}"
                )
            self.die(loser, self.E.C_VOTE)
            self.settle()

    def _inquiry(self, number: int, voters: Any) -> None:
        q = self.p.day.inquiry if self.p.day else None
        if q is None or not q.max:
            raise IllegalAction(None, None, "no-inquiry")
        if q.when is not None and not self.ev(q.when, {}):
            raise IllegalAction(None, None, "no-inquiry")
        if number < q.from_day:
            raise IllegalAction(None, None, "too-early")
        if self.inquiries >= q.max:
            raise IllegalAction(None, None, "used-up")
        seen = set()
        for v in voters:
            self._living(v)
            if v in seen or self._voteless(v):
                raise IllegalAction(v, None, "bad-vote")
            seen.add(v)
        if len(seen) >= self.ev(q.threshold, {}):
            self.inquiries += 1
            counts = [sum(1 for _, t in self.departed if t == i) for i in range(len(self.E.TEAMS))]
            self._public.append(
                "status "
                + " ".join(f"{self.E.TEAMS[i]} {counts[i]}" for i in range(len(self.E.TEAMS)))
            )

    def _tally(
        self, ballots: Any, candidates: Any, single: bool, excluded: Iterable[int] = ()
    ) -> dict[int, Any]:
        counts, voted = {}, set()
        for s, voters in dict(ballots).items():
            self._living(s)
            if candidates is not None and s not in candidates:
                raise IllegalAction(s, None, "bad-vote")
            hands, c = set(), 0
            for v in voters:
                self._living(v)
                if v in hands or self._voteless(v):
                    raise IllegalAction(v, None, "bad-vote")
                hands.add(v)
                if v in excluded:
                    raise IllegalAction(v, None, "bad-vote")
                if single:
                    if v in voted:
                        raise IllegalAction(v, None, "bad-vote")
                    voted.add(v)
                c += self.vote_weight(v)
                if self.E.VOTED:
                    self.votes.add((v, s))
            counts[s] = c
        return counts

    def _election_today(self) -> ir.Election | None:
        """The election held today, or None: `election MARK when EXPR`, by default while no
        living seat carries the title."""
        el = self.p.day.election if self.p.day else None
        if el is None:
            return None
        if el.when is not None:
            return el if self.ev(el.when, {}) else None
        titled = any(self.alive[s] and el.title in self.marks[s] for s in range(1, self.n + 1))
        return None if titled else el

    def _elect(self, el: ir.Election, ballots: Any) -> None:
        """One vote per player, any living candidate: the unique top seat with at least the
        threshold (default 1) takes the title; a tie goes to the election's tie rule."""
        if not isinstance(ballots, dict):
            raise IllegalAction(None, None, "malformed")
        counts = self._tally(ballots, None, True)
        best = max(counts.values(), default=0)
        need = self.ev(el.threshold, {}) if el.threshold is not None else 1
        if best == 0 or best < need:
            return
        top = sorted(s for s, c in counts.items() if c == best)
        seat = top[0] if len(top) == 1 else self._tie(top, el.tie)
        if seat:
            self.marks[seat].add(el.title)
            self._public.append(f"elected {seat}")

    def _voteless(self, v: int) -> bool:
        """Does the voter carry a `voteless` mark (he has no vote in any ballot)?"""
        return any(self.p.marks[m].voteless for m in self.marks[v])

    def vote_weight(self, v: int) -> int:
        """The day's `weight`, or the largest `weighs N` of the marks carried, the larger."""
        return max([self.weight.get(v, 1)] + [self.p.marks[m].weighs for m in self.marks[v]])

    def _threshold(self, x: ir.Expr | None, default: Any, defenders: int = 0) -> Any:
        return self.ev(x, {"defenders": defenders}) if x is not None else default

    def _ability_vote_ends(
        self, at_vote: Sequence[Any], number: int, seen: set[Any], groups: dict[Any, Any]
    ) -> bool:
        for raw in at_vote:
            self._act(self.validate(raw, "vote", number, seen, groups))
        if at_vote:
            self.settle()
            return self.vote_cancelled or any(c == self.E.C_VOTE for _, c in self._exits)
        return False

    def _vote(
        self,
        votes: dict[Any, Any],
        defense: Any,
        chaos: bool,
        at_vote: Sequence[Any],
        number: int,
        seen: set[Any],
        groups: dict[Any, Any],
    ) -> int | None:
        rules: Any = self._rules()  # a day with a vote has its rules
        for s in votes:
            if rules.exempt >= 0 and 1 <= s <= self.n and rules.exempt in self.marks[s]:
                raise IllegalAction(s, None, "exempt")
        if chaos:
            if defense or at_vote:
                raise IllegalAction(None, None, "bad-vote")
            counts = self._tally(votes, None, rules.ballot == "single")
            need = self._threshold(rules.threshold, 1)
            top = [s for s, c in counts.items() if c >= need]
            if len(top) == 1:
                return top[0]
            if top:
                best = max(counts[s] for s in top)
                top = [s for s in top if counts[s] == best]
                return top[0] if len(top) == 1 else self._tie(sorted(top), rules.tie)
            return self._tie(sorted(counts), rules.tie)
        counts = self._tally(votes, None, rules.ballot == "single")
        need = self._threshold(rules.threshold, 1)
        if rules.rounds == 1:
            if defense:
                raise IllegalAction(None, None, "bad-vote")
            self.defenders = {s for s, c in counts.items() if c >= need}
            if self._ability_vote_ends(at_vote, number, seen, groups):
                return None
            if rules.skips:
                cast = {v for voters in votes.values() for v in voters}
                if self.skips > 0 and sum(self.alive.values()) - len(cast) >= need:
                    self.skips -= 1
                    self._public.append("skip")
                    return None
            if not counts:
                return None
            best = max(counts.values())
            top = sorted(s for s, c in counts.items() if c == best)
            if best < need or best == 0:
                return None
            return top[0] if len(top) == 1 else self._tie(top, rules.tie)
        accused = {s for s, c in counts.items() if c >= need}
        if rules.forced >= 0:
            accused |= {
                s for s in range(1, self.n + 1) if self.alive[s] and rules.forced in self.marks[s]
            }
        defenders = sorted(accused)
        self.defenders = set(accused)
        self.deferred = [raw for raw in at_vote if raw[0] in self.defenders]
        if self._ability_vote_ends(
            [raw for raw in at_vote if raw[0] not in self.defenders], number, seen, groups
        ):
            if defense:
                raise IllegalAction(None, None, "bad-vote")
            return None
        if not defenders:
            if defense:
                raise IllegalAction(None, None, "bad-vote")
            return None
        if not defense:
            return None
        defenders = [s for s in defenders if self.alive[s]]
        may = self._threshold(rules.defenders_vote, True, len(defenders))
        second = self._tally(defense, set(defenders), True, () if may else tuple(defenders))
        need2 = self._threshold(rules.defense, 1, len(defenders))
        if not second:
            return None
        best = max(second.values())
        top = sorted(s for s, c in second.items() if c == best)
        if best < need2:
            return None
        return top[0] if len(top) == 1 else self._tie(top, rules.tie)

    def _tie(self, seats: Sequence[int], rule: str) -> int | None:
        if rule.startswith("role:"):  # that role's living seat (the lowest) instead
            r = self.E.ROLES.index(rule[5:])
            return next(
                (s for s in range(1, self.n + 1) if self.alive[s] and self.role[s] == r), None
            )
        if rule == "runoff":
            ballots, self.runoff = self.runoff, None
            if not ballots:
                return None
            self._public.append("runoff " + " ".join(map(str, seats)))
            counts = self._tally(ballots, set(seats), True)
            best = max(counts.values(), default=0)
            top = [s for s, c in counts.items() if c == best]
            return top[0] if best and len(top) == 1 else None
        if rule == "lottery" and seats:
            self.draws += 1
            seat = random.Random(self.seed * 1000003 + self.draws).choice(seats)
            self._public.append(f"lottery {seat}")
            return seat
        if rule == "repeat":
            self.repeat = True
        return None

    def moderator_kill(self, seat: Any) -> Any:
        return self._step("moderator_kill", (seat,), {})

    def moderator_revive(self, seat: Any) -> Any:
        return self._step("moderator_revive", (seat,), {})

    def _moderator_kill(self, seat: Any) -> Report:
        if self.over:
            raise IllegalAction(None, None, "game-over")
        self._living(seat)
        self.die(seat, self.E.C_MODERATOR)
        self.settle()
        if "moderator" in self.p.check_at or "death" in self.p.check_at:
            self.wins()
        rep = self._report("kill", self.day if self.phase == "day" else self.night)
        if self.wake_state is not None:
            self._rewake()
        return rep

    def _moderator_revive(self, seat: Any) -> Report:
        if self.over:
            raise IllegalAction(None, None, "game-over")
        self._seat(seat)
        if self.alive[seat]:
            raise IllegalAction(seat, None, "alive")
        self._revive(seat)
        if "moderator" in self.p.check_at:
            self.wins()
        rep = self._report("revive", self.day if self.phase == "day" else self.night)
        if self.wake_state is not None:
            self._rewake()
        return rep

    # ------------------------------------------------------------ the bot API
    @property
    def number(self) -> int:
        """The number of the current phase: the day's by day, the night's by night."""
        return self.day if self.phase == "day" else self.night

    def alive_seats(self) -> list[int]:
        return [s for s in range(1, self.n + 1) if self.alive[s]]

    def held_abilities(self, seat: Any) -> list[str]:
        """The ids of the abilities `seat` holds now, whatever the phase: its role's own, one
        passed down to it (`held by`), one a mark grants it (`granted by`); cards are nobody's."""
        if not (type(seat) is int and 1 <= seat <= self.n):
            return []
        return [a.id for a in self.p.abilities if a.phase != "card" and self.holds(seat, a.idx)]

    def waiting(self) -> dict[str, Any]:  # one input after the other
        """What the game waits for now (docs/engine.md, "Driving a game"): the step, the phase
        and its number, the inputs of that step that can change something, and the seats that
        may act in it."""
        view: dict[str, Any] = {
            "step": None,
            "phase": self.phase,
            "number": self.number,
            "inputs": [],
            "actors": [],
        }
        if self.over:
            return view
        if self.awaiting is not None:  # a suspended step: only the decision it waits for
            return dict(
                view, step="resolve_choice", inputs=["choice"], actors=[self.awaiting["seat"]]
            )
        if self.wake_state is not None:  # a night under way in wake order: wake or end it
            nxt = self.next_wake()
            if nxt is None:
                return dict(view, step="end_night")
            woken = [s for s in nxt["seats"] if self._may_act(s, nxt["ability"])]
            return dict(view, step="wake", inputs=["actions"], actors=woken)
        actors = [s for s in range(1, self.n + 1) if self._may_act(s)]
        if self.phase == "night":
            return dict(view, step="resolve_night", inputs=["actions"], actors=actors)
        # the day: what resolve_day would do with each input, played now
        d, quiet = self.p.day, self.day in self.p.quiet_days
        chaos = self.chaos if self.repeat else self._chaos_now()  # as _day decides it
        rules = None if d is None else d.chaos if chaos else d.vote
        inputs = []
        if rules is not None and not quiet:
            inputs += ["eliminate", "votes"]
            if not chaos and rules.rounds != 1:
                inputs.append("defense")  # a second round
            if rules.tie == "runoff":
                inputs.append("runoff")
        if self.trial is not None and not quiet:
            was, self.chaos = self.chaos, chaos  # (`cancel when` may read today's chaos)
            try:
                if not self._trial_called_off():
                    inputs.append("trial")
            finally:
                self.chaos = was
        if self._election_today() is not None:
            inputs.append("election")
        q = d.inquiry if d is not None else None
        if (
            q is not None
            and q.max
            and not quiet
            and self.inquiries < q.max
            and self.day >= q.from_day
            and (q.when is None or self.ev(q.when, {}))
        ):
            inputs.append("inquiry")
        if actors:
            inputs.append("actions")
        expels = {m.idx for m in self.p.marks if m.expels}
        if any(self.alive[s] and expels & self.marks[s] for s in range(1, self.n + 1)):
            inputs.append("breach")
        if self.cards_on:
            inputs.append("card")
        return dict(view, step="resolve_day", inputs=inputs, actors=actors)

    def legal_actions(self, seat: Any) -> list[list[Any]]:
        """Every concrete action `seat` may submit now, by brute force over all candidates."""
        return list(self._legal(seat))

    def _may_act(self, seat: Any, ability: str | None = None) -> bool:
        """Has `seat` a legal action now (of that ability id, if given)?"""
        return any(ability in (None, act[1]) for act in self._legal(seat))

    def _legal(self, seat: Any) -> Iterator[list[Any]]:
        """The legal actions of `seat`, one after the other (legal_actions)."""
        if self.over:
            return
        if self.awaiting is not None:
            # the awaited decision only: decline, or each first target offered (further
            # targets and choices: every seat and id, checked when given)
            aw = self.awaiting
            if seat != aw["seat"]:
                return
            a = self.p.abilities[self.E.ABILITIES.index(aw["ability"])]
            yield [seat, a.id]
            for t in aw["options"]:
                rest = [range(1, self.n + 1)] * (len(a.targets) - 1) + [
                    self.E.ROLES if c.kind == "role" else self.E.TEAMS for c in a.choices
                ]
                for more in itertools.product(*rest):
                    yield [seat, a.id, t, *more]
            return
        if not (type(seat) is int and 1 <= seat <= self.n) or not (
            self.alive[seat] or self.E.DEAD_ACT
        ):
            return
        for a in self.p.abilities:
            if a.phase == "card" or not self.holds(seat, a.idx):
                continue
            if self.phase == "night":
                if a.phase not in ("night", "any"):
                    continue
                vphase = "night"
            else:
                if a.phase not in ("day", "vote", "any"):
                    continue
                if a.phase == "vote" and (
                    self.chaos or self.p.day is None or self.p.day.vote is None
                ):
                    continue
                vphase = "vote" if a.phase == "vote" else "day"
            slots = [range(1, self.n + 1)] * len(a.targets) + [
                self.E.ROLES if ch.kind == "role" else self.E.TEAMS for ch in a.choices
            ]
            for args in itertools.product(*slots):
                cand = [seat, a.id, *args]
                try:
                    self.validate(cand, vphase, self.number, set(), {})
                except IllegalAction as e:
                    if e.rule in _BEFORE_ARGUMENTS:
                        break  # refused before its arguments are read: every candidate is
                    continue
                yield cand

    # ------------------------------------------------------------ serialization
    def to_json(self) -> dict[str, Any]:
        E = self.E
        d = {
            "spec": E.SPEC,
            "n": self.n,
            "roles": [E.ROLES[self.role[s]] for s in range(1, self.n + 1)],
            "teams": [
                E.TEAMS[self.team(s)] if self.team(s) >= 0 else None for s in range(1, self.n + 1)
            ],
            "alive": [self.alive[s] for s in range(1, self.n + 1)],
            "phase": self.phase,
            "day": self.day,
            "night": self.night,
            "chaos": self.chaos,
            "winner": self.winner,
            "repeat": self.repeat,
            "uses": sorted([s, E.ABILITIES[a], k] for (s, a), k in self.uses.items()),
            "self_uses": sorted([s, E.ABILITIES[a], k] for (s, a), k in self.self_uses.items()),
            "last_target": sorted(
                [s, E.ABILITIES[a], nt, t] for (s, a), (nt, t) in self.last_target.items()
            ),
            "marks": [sorted(E.MARKS[m] for m in self.marks[s]) for s in range(1, self.n + 1)],
            "memory": [  # a slot that holds 0 (no seat) reads as one never written: left out
                {str(k): v for k, v in sorted(self.memory[s].items()) if v}
                for s in range(1, self.n + 1)
            ],
            "trial": None
            if self.trial is None
            else [self.trial[0], E.ABILITIES[self.trial[1]]] + list(self.trial[2:]),
            "inquiries": self.inquiries,
            "departed": [[s, E.TEAMS[t] if t >= 0 else None] for s, t in self.departed],
            "seed": self.seed,
            "draws": self.draws,
            "initial": [E.ROLES[r] for r in self.initial],
            "absorbed": sorted([s, k, v] for (s, k), v in self.absorbed.items()),
            "ever": sorted([s, E.ABILITIES[a], list(v)] for (s, a), v in self.ever.items()),
            "later": [[s, E.MARKS[m]] for s, m in self.later],
            "cards_on": self.cards_on,
            "skip": self.skip,
            "skips": self.skips,
            "weight": sorted([s, w] for s, w in self.weight.items()),
            "blocked": sorted([s, b] for s, b in self.blocked.items()),
            "visits": sorted([s, list(t)] for s, t in self.vis_out.items()),
            # [night due, spec line of the block, self, {local the block reads: value}]
            "delayed": [
                [due, line, me, {k: v for k, v in env.items() if k in E.delayed_reads[line]}]
                for due, line, me, env in self.delayed
            ],
            "over": self.over,
            "winners": list(self.winners),
            "votes": sorted([v, a] for v, a in self.votes),
            "death_cause": sorted([s, E.CAUSES[c]] for s, c in self.death_cause.items()),
        }
        if E.START:
            d["start_report"] = _json(self.start_report)
            d["start_pending"] = self.start_pending
        if E.CALLS:
            d["awaiting"] = _json(self.awaiting)
        if self.wake_state is not None:
            d["wake"] = _json(self.wake_state)
        if any(s.middle for s in self.p.setups):
            d["middle"] = [E.ROLES[r] for r in self.middle]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> _Game:
        E = cls.E
        g = cls([E.ROLES.index(r) for r in d["initial"]], d["seed"], start=False)
        g.role = {s: E.ROLES.index(r) for s, r in enumerate(d["roles"], 1)}
        g.alive = {s: a for s, a in enumerate(d["alive"], 1)}
        for k in (
            "phase",
            "day",
            "night",
            "chaos",
            "winner",
            "repeat",
            "inquiries",
            "draws",
            "cards_on",
            "skip",
            "skips",
        ):
            setattr(g, k, d[k])
        g.uses = {(s, E.ABILITIES.index(a)): k for s, a, k in d["uses"]}
        g.self_uses = {(s, E.ABILITIES.index(a)): k for s, a, k in d["self_uses"]}
        g.last_target = {(s, E.ABILITIES.index(a)): (nt, t) for s, a, nt, t in d["last_target"]}
        g.marks = {
            0: set(),
            **{s: {E.MARKS.index(m) for m in ms} for s, ms in enumerate(d["marks"], 1)},
        }
        g.memory = {
            0: {},
            **{s: {int(k): v for k, v in m.items()} for s, m in enumerate(d["memory"], 1)},
        }
        t = d["trial"]
        if t is not None:
            actor, ab, a, b, refund, reveal, tie = t
            g.trial = (actor, E.ABILITIES.index(ab), a, b, refund, reveal, tie)
        g.departed = [(s, E.TEAMS.index(t) if t is not None else -1) for s, t in d["departed"]]
        g.absorbed = {(s, k): v for s, k, v in d["absorbed"]}
        g.ever = {(s, E.ABILITIES.index(a)): list(v) for s, a, v in d["ever"]}
        g.later = [[s, E.MARKS.index(m)] for s, m in d["later"]]
        g.weight = {s: w for s, w in d.get("weight", ())}
        g.death_cause = {s: E.CAUSES.index(c) for s, c in d.get("death_cause", ())}
        g.blocked = {s: b for s, b in d["blocked"]}
        g.blockings = set(g.blocked.items())
        g.vis_out = {s: list(t) for s, t in d["visits"]}
        g.vis_in = {}
        for s, targets in d["visits"]:
            for t in targets:
                g.vis_in.setdefault(t, []).append(s)
        g.delayed = [[due, line, me, dict(env)] for due, line, me, env in d["delayed"]]
        g.over, g.winners = d["over"], list(d["winners"])
        g.votes = {(v, a) for v, a in d["votes"]}
        if E.START:
            g.start_report = _unjson(d["start_report"])
            g.start_pending = d["start_pending"]
        if E.CALLS:
            g.awaiting = _unjson(d["awaiting"])
        if d.get("wake") is not None:
            g.wake_state = _unjson(d["wake"])
        g.middle = [E.ROLES.index(r) for r in d.get("middle", ())]
        return g


def _json(v: Any) -> Any:
    """As JSON data: mapping keys become strings, tuples lists."""
    if isinstance(v, dict):
        return {str(k): _json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json(x) for x in v]
    return v


def _unjson(v: Any) -> Any:
    """The inverse of _json for seat-keyed mappings ("3" -> 3)."""
    if isinstance(v, dict):
        return {
            (int(k) if isinstance(k, str) and k.isdigit() else k): _unjson(x) for k, x in v.items()
        }
    if isinstance(v, list):
        return [_unjson(x) for x in v]
    return v


def _statements(body: Iterable[ir.Stmt]) -> Iterator[ir.Stmt]:
    for s in body:
        yield s
        if isinstance(s, ir.If):
            for _, b in s.branches:
                yield from _statements(b)
            yield from _statements(s.orelse)
        elif isinstance(s, ir.Each):
            yield from _statements(s.body)
