"""IR expressions -> Z3 over the abstract game state, and solving under a deterministic limit.

Abstraction: a seat is represented by its role (an Int); `team(x)` is the team table applied
to that role; `living(T)` / `living_role(R)` / `alive` are Int counts tied together per table
size; everything the abstraction does not model (marks, `acted`, seat identity, recall) becomes
a fresh unconstrained Bool/Int keyed by the expression's text, so a query asks "is there SOME
game state where ...".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import z3

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.ir.visitor import ExprVisitor
from maf.dsl.builtins import BUILTIN_NAMES

RLIMIT = 5_000_000  # z3 resource units per query: deterministic, unlike a timeout


class Unknown(Exception):
    """The solver gave up within its resource limit."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def solver() -> z3.Solver:
    s = z3.Solver()
    s.set("rlimit", RLIMIT)
    return s


def check(s: z3.Solver, *assumptions) -> bool:
    """True sat, False unsat, raise Unknown otherwise (never a silent pass)."""
    r = s.check(*assumptions)
    if r == z3.sat:
        return True
    if r == z3.unsat:
        return False
    raise Unknown(s.reason_unknown())


class Opaque:
    """A value the abstraction does not model (unknown function, unsupported type)."""

    __slots__ = ("key",)

    def __init__(self, key):
        self.key = key


class SeatVal:
    __slots__ = ("role", "key")

    def __init__(self, role, key):
        self.role = role
        self.key = key


def key_of(e) -> str:
    """The text of an expression that names the fresh variables of what the abstraction does not
    model (the same text, the same variable)."""
    return _KEY.visit_expr(e, None)


class _Key(ExprVisitor[None, str]):
    """key_of, one method per expression kind."""

    def const(self, e: ir.Const, ctx: None) -> str:
        return repr(e.value)

    def var(self, e: ir.Var, ctx: None) -> str:
        return e.name

    def builtin(self, e: ir.Builtin, ctx: None) -> str:
        return e.name

    def sym(self, e: ir.Sym, ctx: None) -> str:
        return f"{e.kind}:{e.name}"

    def call(self, e: ir.Call, ctx: None) -> str:
        return f"{e.func}({','.join(key_of(a) for a in e.args)})"

    def unary(self, e: ir.Unary, ctx: None) -> str:
        return f"({e.op} {key_of(e.operand)})"

    def binary(self, e: ir.Binary, ctx: None) -> str:
        return f"({key_of(e.left)} {e.op} {key_of(e.right)})"

    def in_(self, e: ir.In, ctx: None) -> str:
        return f"({key_of(e.value)} in {e.kind}{list(e.members)})"

    def quant(self, e: ir.Quant, ctx: None) -> str:
        return f"{e.func}({e.var}: {key_of(e.cond)})"

    def in_set(self, e: ir.InSet, ctx: None) -> str:
        return repr(e)

    def seen(self, e: ir.Seen, ctx: None) -> str:  # one answer per seat and kind (Game.seen)
        return f"{e.kind}({key_of(e.seat)})"


_KEY = _Key()


class State:
    """Z3 variables of one abstract state: players, per-role living counts, derived sums."""

    def __init__(self, ctx, tag: str = ""):
        self.ctx = ctx
        self.tag = tag
        p = ctx.p
        cache = ctx.__dict__.setdefault("_z3_state_vars", {})
        if tag not in cache:  # the same tag names the same variables: build them once
            lr = [z3.Int(f"living_{r.id}{tag}") for r in p.roles]
            cache[tag] = (z3.Int(f"players{tag}"), lr, z3.Sum(lr) if lr else z3.IntVal(0))
        self.players, lr, self.alive = cache[tag]
        self.lr = list(lr)
        self.fresh: dict[str, z3.ExprRef] = {}
        self.side: list[z3.BoolRef] = []

    def living(self, t: int):
        xs = [self.lr[r] for r in range(self.ctx.nroles) if self.ctx.role_team[r] == t]
        return z3.Sum(xs) if xs else z3.IntVal(0)

    def constraints(self, sizes=None):
        """players is a table size; each role's living count is within what the setups allow.

        Sizes at which every role may fill the table (custom setups) need no per-role caps
        (`alive <= players` bounds them): they collapse into one disjunct, which keeps the
        formula small for specs with wide custom ranges. Built once per (tag, sizes)."""
        ctx = self.ctx
        cache = ctx.__dict__.setdefault("_z3_constraints", {})
        key = (self.tag, tuple(sizes or ()))
        if key in cache:
            return list(cache[key])
        out = []
        alts = []
        full = []
        for n in sizes or ctx.sizes:
            if all(ctx.cap(r, n) >= n for r in range(ctx.nroles)):
                full.append(n)
                continue
            alts.append(
                z3.And(
                    self.players == n,
                    *[self.lr[r] <= ctx.cap(r, n) for r in range(ctx.nroles) if ctx.cap(r, n) < n],
                )
            )
        if full:
            alts.append(_size_set(self.players, full))
        out.append(z3.Or(alts))
        out += [x >= 0 for x in self.lr]
        out.append(self.alive <= self.players)
        cache[key] = tuple(out)
        return out

    def bool_(self, name):
        k = f"b:{name}{self.tag}"
        if k not in self.fresh:
            self.fresh[k] = z3.Bool(k)
        return self.fresh[k]

    def int_(self, name, lo=None, hi=None):
        k = f"i:{name}{self.tag}"
        if k not in self.fresh:
            v = z3.Int(k)
            self.fresh[k] = v
            if lo is not None:
                self.side.append(v >= lo)
            if hi is not None:
                self.side.append(v <= hi)
        return self.fresh[k]

    def role_var(self, name):
        return self.int_(f"role:{name}", 0, self.ctx.nroles - 1)

    def team_of(self, role):
        ctx = self.ctx
        out = z3.IntVal(-1)
        for r in range(ctx.nroles):
            out = z3.If(role == r, z3.IntVal(ctx.role_team[r]), out)
        return out


class Translator(ExprVisitor[None, Any]):
    """Translate IR expressions with an environment: seat vars -> role terms. One method per
    expression kind (a kind without one is a TypeError when the class is made, and a mypy
    error); what a builtin name or function is comes from its semantics entry where that says
    it (ReadFact.count: a number of seats; .of_seat: a function of a seat's role), from a case
    of its own otherwise (_CALLS); every other function (UNKNOWN_CALLS) is opaque."""

    def __init__(self, st: State, env: dict | None = None, self_role=None, counts=None):
        self.st = st
        self.env = env or {}  # var name -> SeatVal | z3 Int (choices)
        self.self_role = self_role
        self.counts = counts  # invariant context: role idx -> int count at a size

    def __call__(self, e):
        return self.tr(e)

    def tr(self, e):
        """Translate; anything outside the abstraction becomes an opaque (unconstrained) value."""
        try:
            return self.visit_expr(e, None)
        except (TypeError, AttributeError, KeyError, IndexError, ValueError, z3.Z3Exception):
            return Opaque(key_of(e))

    def bool_of(self, e):
        v = self.tr(e)
        if isinstance(v, z3.BoolRef):
            return v
        return self.st.bool_(f"opaque:{key_of(e)}")

    def int_of(self, e):
        v = self.tr(e)
        if isinstance(v, z3.ArithRef):
            return v
        return self.st.int_(f"opaque:{key_of(e)}")

    def const(self, e: ir.Const, ctx: None) -> Any:
        v = e.value
        if isinstance(v, bool):
            return z3.BoolVal(v)
        if isinstance(v, int):
            return z3.IntVal(v)
        return z3.StringVal(str(v))

    def sym(self, e: ir.Sym, ctx: None) -> Any:
        if e.kind in ("role", "team", "kind", "cause"):  # (`cause == shot` in a trigger)
            return z3.IntVal(e.idx)
        return e  # marks, memslots, abilities are passed to calls unevaluated

    def var(self, e: ir.Var, ctx: None) -> Any:
        st = self.st
        v = self.env.get(e.name)
        if v is None:
            if e.type == "seat":
                v = SeatVal(st.role_var(e.name), e.name)
            elif e.type in ("role", "team"):
                n = self.st.ctx.nroles if e.type == "role" else len(self.st.ctx.p.teams)
                v = st.int_(f"choice:{e.name}", 0, n - 1)
            elif e.type == "bool":
                v = st.bool_(f"var:{e.name}")
            else:
                v = st.int_(f"var:{e.name}")
            self.env[e.name] = v
        return v

    def builtin(self, e: ir.Builtin, ctx: None) -> Any:
        st, n = self.st, e.name
        if n == "self":
            if self.self_role is None:
                self.self_role = st.role_var("self")
            return SeatVal(self.self_role, "self")
        count = sem.BUILTINS[n].count if n in sem.BUILTINS else None
        if count == "living":
            return st.alive
        if count == "players":
            return st.players
        if n in ("true", "false"):
            return z3.BoolVal(n == "true")
        # the calendar, the vote: a fresh value of the name's type (dsl/builtins.py), an int
        # within what its entry says (ReadFact.at_least)
        if BUILTIN_NAMES.get(n, ("int",))[0] == "bool":
            return st.bool_(n)
        return st.int_(n, sem.BUILTINS[n].at_least if n in sem.BUILTINS else None)

    def unary(self, e: ir.Unary, ctx: None) -> Any:
        if e.op == "not":
            return z3.Not(self.bool_of(e.operand))
        return -self.int_of(e.operand)

    def in_(self, e: ir.In, ctx: None) -> Any:
        v = self.tr(e.value)
        if isinstance(v, SeatVal):
            v = v.role
        return z3.Or([v == m for m in e.members]) if e.members else z3.BoolVal(False)

    def binary(self, e: ir.Binary, ctx: None) -> Any:
        op = e.op
        if op == "and":
            return z3.And(self.bool_of(e.left), self.bool_of(e.right))
        if op == "or":
            return z3.Or(self.bool_of(e.left), self.bool_of(e.right))
        a, b = self.tr(e.left), self.tr(e.right)
        if isinstance(a, Opaque) or isinstance(b, Opaque):
            if op in ("==", "!=", "<", "<=", ">", ">="):
                return self.st.bool_(f"opaque:{key_of(e)}")
            return self.st.int_(f"opaque:{key_of(e)}")
        if isinstance(a, SeatVal) or isinstance(b, SeatVal):
            return self._seat_cmp(op, a, b)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return _div(a, b)
        if op == "%":
            return _mod(a, b)
        return {
            "==": lambda: a == b,
            "!=": lambda: a != b,
            "<": lambda: a < b,
            "<=": lambda: a <= b,
            ">": lambda: a > b,
            ">=": lambda: a >= b,
        }[op]()

    def call(self, e: ir.Call, ctx: None) -> Any:
        st, f, args = self.st, e.func, e.args
        rf = sem.CALLS.get(f)
        if rf is None or f in UNKNOWN_CALLS:
            return Opaque(key_of(e))
        if rf.count == "team":  # living(T)
            return st.living(cast(ir.Sym, args[0]).idx)  # analysis: a team
        if rf.count == "role":  # living_role(R)
            return st.lr[cast(ir.Sym, args[0]).idx]  # analysis: a role
        if rf.of_seat is not None:  # the role, team or kind of the seat's role now
            role = self.tr(args[0]).role
            if rf.of_seat == "role":
                return role
            if rf.of_seat == "team":
                return st.team_of(role)
            out = z3.IntVal(-1)
            for r in st.ctx.p.roles:
                if r.kind >= 0:
                    out = z3.If(role == r.idx, z3.IntVal(r.kind), out)
            return out
        translate = _CALLS.get(f)
        return Opaque(key_of(e)) if translate is None else translate(self, e)

    def in_set(self, e: ir.InSet, ctx: None) -> Any:
        return Opaque(key_of(e))  # tonight's visits: not modelled

    def quant(self, e: ir.Quant, ctx: None) -> Any:  # not modelled seat by seat: a bounded unknown
        if e.func == "count":
            return self.st.int_(f"quant:{key_of(e)}", 0)
        return self.st.bool_(f"quant:{key_of(e)}")

    def seen(self, e: ir.Seen, ctx: None) -> Any:
        """team(x) / role(x) / kind(x) read by information (Game._seen): the seat's true value,
        or, where its role `registers as` something (semantics.registrations), one of those;
        one value per seat and kind (key_of), as the moderator answers once per statement."""
        st, p = self.st, self.st.ctx.p
        seat = self.tr(e.seat)
        role = seat.role
        col = {"team": 0, "role": 1}.get(e.kind, 2)
        true = {"role": lambda: role, "team": lambda: st.team_of(role)}.get(
            e.kind, lambda: self.visit_expr(ir.Call(e.span, "kind", (e.seat,)), None)
        )()
        v = st.int_(f"seen:{key_of(e)}")
        alts = [
            z3.And(role == r, v == x)
            for r, regs in enumerate(sem.registrations(p))
            for x in regs[col]
        ]
        st.side.append(z3.Or(v == true, *alts))
        return v

    def _seat_cmp(self, op, a, b):
        if not (isinstance(a, SeatVal) and isinstance(b, SeatVal)):
            return self.st.bool_(f"opaque:{getattr(a, 'key', a)}{op}{getattr(b, 'key', b)}")
        if a.key == b.key:
            eq = z3.BoolVal(True)
        else:
            k1, k2 = sorted((a.key, b.key))
            eq = self.st.bool_(f"same:{k1}:{k2}")
            st, ctx = self.st, self.st.ctx
            st.side.append(z3.Implies(eq, a.role == b.role))
            # one seat is alive or not (`h == visitor and not alive(h)` with the visitor alive)
            alive_a, alive_b = st.bool_(f"alive:{a.key}"), st.bool_(f"alive:{b.key}")
            st.side.append(z3.Implies(eq, alive_a == alive_b))
            # two different seats share a role only where the setups allow two of it
            for r in range(ctx.nroles):
                many = [n for n in ctx.sizes if ctx.cap(r, n) >= 2]
                if len(many) < len(ctx.sizes):
                    st.side.append(
                        z3.Implies(
                            z3.And(z3.Not(eq), a.role == r, b.role == r),
                            z3.Or([st.players == n for n in many]),
                        )
                    )
        return eq if op == "==" else z3.Not(eq)

    def _alive(self, e):
        s = self.tr(e.args[0])
        return self.st.bool_(f"alive:{s.key}")

    def _count_team(self, e):
        st = self.st
        return z3.Sum(
            [z3.IntVal(0)]
            + [c for r, c in self.counts.items() if st.ctx.role_team[r] == e.args[0].idx]
        )

    def _count_role(self, e):
        c = self.counts.get(e.args[0].idx, 0)
        return c if isinstance(c, z3.ArithRef) else z3.IntVal(c)

    def _of_kind(self, e):  # count_kind(K), max_count(K): over the roles of the kind
        f, args = e.func, e.args
        if not isinstance(args[0], ir.Sym):
            return Opaque(key_of(e))
        of = [self.counts.get(r.idx, 0) for r in self.st.ctx.p.roles if r.kind == args[0].idx]
        of = [c if isinstance(c, z3.ArithRef) else z3.IntVal(c) for c in of]
        if f == "count_kind":
            return z3.Sum([z3.IntVal(0), *of])
        top = z3.IntVal(0)
        for c in of:
            top = z3.If(c > top, c, top)
        return top

    def _has(self, e):
        s = self.tr(e.args[0])
        return self.st.bool_(f"has:{s.key}:{key_of(e.args[1])}")

    def _acted(self, e):
        return self.st.bool_(f"acted:{key_of(e)}")

    def _recall(self, e):
        k = key_of(e)
        return SeatVal(self.st.role_var(k), k)

    def _min_max(self, e):
        a, b = self.tr(e.args[0]), self.tr(e.args[1])
        return z3.If(a <= b, a, b) if e.func == "min" else z3.If(a >= b, a, b)

    def _clamp(self, e):  # as the engine: min(max(v, lo), hi) (ReadFact.value)
        v, lo, hi = (self.tr(x) for x in e.args)
        low = z3.If(v >= lo, v, lo)
        return z3.If(low <= hi, low, hi)

    def _rounded(self, e):
        f = e.func
        x = self.real_of(e.args[0])
        if f == "floor":
            return z3.ToInt(x)
        if f == "ceil":
            return -z3.ToInt(-x)
        return z3.ToInt(x + z3.RealVal("1/2"))

    def _pick(self, e):
        args = e.args
        c, a, b = self.bool_of(args[0]), self.int_of(args[1]), self.int_of(args[2])
        return z3.If(c, a, b)

    def real_of(self, e):
        """The exact (rational) value of an integer expression: `/` divides exactly."""
        return _REAL.visit_expr(e, self)


# the builtin functions z3x translates beyond what their semantics entries say; UNKNOWN_CALLS:
# those it leaves opaque (uses, tonight's kills, visits and blocks, the middle, departures, the
# vote, neighbours, seat sets). Every function of the table is in exactly one place
# (tests/check/test_semantics.py)
_CALLS: dict[str, Callable[[Translator, ir.Call], Any]] = {
    "alive": Translator._alive,
    "count_team": Translator._count_team,
    "count_role": Translator._count_role,
    "count_kind": Translator._of_kind,
    "max_count": Translator._of_kind,
    "has": Translator._has,
    "acted": Translator._acted,
    "recall": Translator._recall,
    "min": Translator._min_max,
    "max": Translator._min_max,
    "clamp": Translator._clamp,
    "floor": Translator._rounded,
    "ceil": Translator._rounded,
    "round": Translator._rounded,
    "pick": Translator._pick,
}
UNKNOWN_CALLS = frozenset(
    {
        "used",
        "doomed",
        "in_middle",
        "departed",
        "defending",
        "left",
        "right",
        "visitors",
        "visits",
        "count",
        "blocked",
        "voted",
        "cause_of",
    }
)


class _Real(ExprVisitor[Translator, Any]):
    """Translator.real_of: `-`, `+`, `*` and `/` of exact values (`/` exact; 0 by 0), an int
    constant as a real; any other expression is its integer translation as a real."""

    def const(self, e: ir.Const, tr: Translator) -> Any:
        v = e.value
        if isinstance(v, int) and not isinstance(v, bool):
            return z3.RealVal(v)
        return z3.ToReal(tr.int_of(e))

    def unary(self, e: ir.Unary, tr: Translator) -> Any:
        if e.op == "-":
            return -tr.real_of(e.operand)
        return z3.ToReal(tr.int_of(e))

    def binary(self, e: ir.Binary, tr: Translator) -> Any:
        if e.op not in ("+", "-", "*", "/"):
            return z3.ToReal(tr.int_of(e))
        a, b = tr.real_of(e.left), tr.real_of(e.right)
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if e.op == "*":
            return a * b
        return z3.If(b == 0, z3.RealVal(0), a / b)

    def var(self, e: ir.Var, tr: Translator) -> Any:
        return z3.ToReal(tr.int_of(e))

    def builtin(self, e: ir.Builtin, tr: Translator) -> Any:
        return z3.ToReal(tr.int_of(e))

    def sym(self, e: ir.Sym, tr: Translator) -> Any:
        return z3.ToReal(tr.int_of(e))

    def call(self, e: ir.Call, tr: Translator) -> Any:
        return z3.ToReal(tr.int_of(e))

    def in_(self, e: ir.In, tr: Translator) -> Any:
        return z3.ToReal(tr.int_of(e))

    def in_set(self, e: ir.InSet, tr: Translator) -> Any:
        return z3.ToReal(tr.int_of(e))

    def quant(self, e: ir.Quant, tr: Translator) -> Any:
        return z3.ToReal(tr.int_of(e))

    def seen(self, e: ir.Seen, tr: Translator) -> Any:
        return z3.ToReal(tr.int_of(e))


_REAL = _Real()


def _div(a, b):
    """`/` as the engine computes it (semantics.OPERATORS): floor division, and x / 0 is 0
    (Z3's integer division rounds toward minus infinity only for a positive divisor, and leaves
    x / 0 unconstrained). A constant divisor decides the case at once."""
    if z3.is_int_value(b):
        d = b.as_long()
        return a / b if d > 0 else (-a) / (-b) if d < 0 else z3.IntVal(0)
    return z3.If(b > 0, a / b, z3.If(b < 0, (-a) / (-b), z3.IntVal(0)))


def _mod(a, b):
    """`%` as the engine computes it: the remainder of floor division (the divisor's sign), and
    x % 0 is 0. A positive constant divisor is Z3's own remainder."""
    if z3.is_int_value(b) and b.as_long() > 0:
        return a % b
    return z3.If(b == 0, z3.IntVal(0), a - b * _div(a, b))


def _size_set(players, sizes):
    """players is one of `sizes` (runs of consecutive sizes become ranges)."""
    sizes = sorted(set(sizes))
    runs, start = [], None
    for i, n in enumerate(sizes):
        if start is None:
            start = n
        if i + 1 == len(sizes) or sizes[i + 1] != n + 1:
            runs.append((start, n))
            start = None
    return (
        z3.Or([players == a if a == b else z3.And(players >= a, players <= b) for a, b in runs])
        if runs
        else z3.BoolVal(False)
    )


def presence(ctx, st: State, role_term, roles=None):
    """role_term names a role that exists at the state's table size (and is one of `roles`).

    Sizes with the same set of present roles share one disjunct (cached per spec)."""
    cache = ctx.__dict__.setdefault("_z3_presence", {})
    key = (role_term.sexpr(), st.players.sexpr(), None if roles is None else tuple(roles))
    if key in cache:
        return cache[key]
    by_set: dict[tuple[int, ...], list[int]] = {}
    for n in ctx.sizes:
        rs = tuple(
            r for r in (roles if roles is not None else range(ctx.nroles)) if ctx.present(r, n)
        )
        if rs:
            by_set.setdefault(rs, []).append(n)
    alts = [
        z3.And(_size_set(st.players, ns), z3.Or([role_term == r for r in rs]))
        for rs, ns in by_set.items()
    ]
    out = z3.Or(alts) if alts else z3.BoolVal(False)
    cache[key] = out
    return out


def conjuncts(e):
    """Split an IR `and` chain into its parts (for unsat cores by spec span)."""
    if isinstance(e, ir.Binary) and e.op == "and":
        return conjuncts(e.left) + conjuncts(e.right)
    return [e]
