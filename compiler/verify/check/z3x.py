"""IR expressions -> Z3 over the abstract game state, and solving under a deterministic limit.

Abstraction: a seat is represented by its role (an Int); `team(x)` is the team table applied
to that role; `living(T)` / `living_role(R)` / `alive` are Int counts tied together per table
size; everything the abstraction does not model (marks, `acted`, seat identity, recall) becomes
a fresh unconstrained Bool/Int keyed by the expression's text, so a query asks "is there SOME
game state where ...".
"""

from __future__ import annotations

import z3

from maf.compiler.ir import nodes as ir

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
    if isinstance(e, ir.Const):
        return repr(e.value)
    if isinstance(e, ir.Var):
        return e.name
    if isinstance(e, ir.Builtin):
        return e.name
    if isinstance(e, ir.Sym):
        return f"{e.kind}:{e.name}"
    if isinstance(e, ir.Call):
        return f"{e.func}({','.join(key_of(a) for a in e.args)})"
    if isinstance(e, ir.Unary):
        return f"({e.op} {key_of(e.operand)})"
    if isinstance(e, ir.Binary):
        return f"({key_of(e.left)} {e.op} {key_of(e.right)})"
    if isinstance(e, ir.In):
        return f"({key_of(e.value)} in {e.kind}{list(e.members)})"
    if isinstance(e, ir.Quant):
        return f"{e.func}({e.var}: {key_of(e.cond)})"
    return repr(e)


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


class Translator:
    """Translate IR expressions with an environment: seat vars -> role terms."""

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
            return self._tr(e)
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

    def _tr(self, e):  # one case per node kind
        st = self.st
        if isinstance(e, ir.Const):
            v = e.value
            if isinstance(v, bool):
                return z3.BoolVal(v)
            if isinstance(v, int):
                return z3.IntVal(v)
            return z3.StringVal(str(v))
        if isinstance(e, ir.Sym):
            if e.kind in ("role", "team", "kind"):
                return z3.IntVal(e.idx)
            return e  # marks, memslots, abilities are passed to calls unevaluated
        if isinstance(e, ir.Var):
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
        if isinstance(e, ir.Builtin):
            n = e.name
            if n == "self":
                if self.self_role is None:
                    self.self_role = st.role_var("self")
                return SeatVal(self.self_role, "self")
            if n == "alive":
                return st.alive
            if n == "players":
                return st.players
            if n in ("true", "false"):
                return z3.BoolVal(n == "true")
            if n == "chaos":
                return st.bool_("chaos")
            if n in ("night", "day"):
                return st.int_(n, 1)
            if n == "defenders":
                return st.int_(n, 0)
            return st.int_(n)
        if isinstance(e, ir.Unary):
            if e.op == "not":
                return z3.Not(self.bool_of(e.operand))
            return -self.int_of(e.operand)
        if isinstance(e, ir.In):
            v = self.tr(e.value)
            if isinstance(v, SeatVal):
                v = v.role
            return z3.Or([v == m for m in e.members]) if e.members else z3.BoolVal(False)
        if isinstance(e, ir.Binary):
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
                return a / b
            if op == "%":
                return a % b
            return {
                "==": lambda: a == b,
                "!=": lambda: a != b,
                "<": lambda: a < b,
                "<=": lambda: a <= b,
                ">": lambda: a > b,
                ">=": lambda: a >= b,
            }[op]()
        if isinstance(e, ir.Call):
            return self._call(e)
        if isinstance(e, ir.Quant):  # not modelled seat by seat: a bounded unknown
            if e.func == "count":
                return st.int_(f"quant:{key_of(e)}", 0)
            return st.bool_(f"quant:{key_of(e)}")
        if isinstance(e, ir.Seen):  # what the moderator shows: any role / team / kind
            p = self.st.ctx.p
            n = {"role": self.st.ctx.nroles, "team": len(p.teams)}.get(e.kind, len(p.kinds))
            return st.int_(f"seen:{key_of(e)}", -1 if e.kind == "kind" else 0, n - 1)
        raise TypeError(type(e))  # pragma: no cover

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

    def _call(self, e):
        st, f, args = self.st, e.func, e.args
        if f in ("role", "team"):
            s = self.tr(args[0])
            return s.role if f == "role" else st.team_of(s.role)
        if f == "alive":
            s = self.tr(args[0])
            return st.bool_(f"alive:{s.key}")
        if f == "living":
            return st.living(args[0].idx)
        if f == "living_role":
            return st.lr[args[0].idx]
        if f == "count_team":
            return z3.Sum(
                [z3.IntVal(0)]
                + [c for r, c in self.counts.items() if st.ctx.role_team[r] == args[0].idx]
            )
        if f == "count_role":
            c = self.counts.get(args[0].idx, 0)
            return c if isinstance(c, z3.ArithRef) else z3.IntVal(c)
        if f == "kind":  # the kind of the seat's role now
            role = self.tr(args[0]).role
            out = z3.IntVal(-1)
            for r in st.ctx.p.roles:
                if r.kind >= 0:
                    out = z3.If(role == r.idx, z3.IntVal(r.kind), out)
            return out
        if f in ("count_kind", "max_count") and isinstance(args[0], ir.Sym):
            of = [self.counts.get(r.idx, 0) for r in st.ctx.p.roles if r.kind == args[0].idx]
            of = [c if isinstance(c, z3.ArithRef) else z3.IntVal(c) for c in of]
            if f == "count_kind":
                return z3.Sum([z3.IntVal(0), *of])
            top = z3.IntVal(0)
            for c in of:
                top = z3.If(c > top, c, top)
            return top
        if f == "has":
            s = self.tr(args[0])
            return st.bool_(f"has:{s.key}:{key_of(args[1])}")
        if f == "acted":
            return st.bool_(f"acted:{key_of(e)}")
        if f == "recall":
            k = key_of(e)
            return SeatVal(st.role_var(k), k)
        if f in ("min", "max"):
            a, b = self.tr(args[0]), self.tr(args[1])
            return z3.If(a <= b, a, b) if f == "min" else z3.If(a >= b, a, b)
        if f == "clamp":
            v, lo, hi = (self.tr(x) for x in args)
            return z3.If(v < lo, lo, z3.If(v > hi, hi, v))
        if f in ("floor", "ceil", "round"):
            x = self.real_of(args[0])
            if f == "floor":
                return z3.ToInt(x)
            if f == "ceil":
                return -z3.ToInt(-x)
            return z3.ToInt(x + z3.RealVal("1/2"))
        if f == "pick":
            c, a, b = self.bool_of(args[0]), self.int_of(args[1]), self.int_of(args[2])
            return z3.If(c, a, b)
        return Opaque(key_of(e))

    def real_of(self, e):
        """The exact (rational) value of an integer expression: `/` divides exactly."""
        if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
            return z3.RealVal(e.value)
        if isinstance(e, ir.Unary) and e.op == "-":
            return -self.real_of(e.operand)
        if isinstance(e, ir.Binary) and e.op in ("+", "-", "*", "/"):
            a, b = self.real_of(e.left), self.real_of(e.right)
            if e.op == "+":
                return a + b
            if e.op == "-":
                return a - b
            if e.op == "*":
                return a * b
            return z3.If(b == 0, z3.RealVal(0), a / b)
        return z3.ToReal(self.int_of(e))


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
