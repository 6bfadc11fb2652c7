"""K004's abstract domain: a three-valued evaluator of IR expressions over the living counts per
role (True, False or U, unknown), read by K004's search (k004_reach.py), by K003 and K007, and by
the model's presence (model.filter_roles).

`_Compile` is an ExprVisitor: one method per expression kind, so a new kind cannot be added
without the abstraction deciding what it means; what it cannot evaluate is unknown (sound).
What a builtin name or function is comes from the semantics table's entries (ReadFact: count,
of_seat, value, exact); the rest is `_CALLS` (modelled here) or `UNKNOWN_CALLS`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, cast

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.ir.visitor import ExprVisitor

U = object()  # unknown


class Seat:
    """A seat bound to a variable: its role and a name that tells seats apart."""

    __slots__ = ("role", "name")

    def __init__(self, role: int, name: str) -> None:
        self.role, self.name = role, name


def _not(v: Any) -> Any:
    return U if v is U else (not v)


# An abstract evaluator: env (variable name -> Seat, role/team index or value), the living
# count per role, the table size -> a value, True/False, or U (unknown).
Eval = Callable[[dict[str, Any], Sequence[int], int], Any]

# the binary operators on numbers: the engine's meaning (semantics.OPERATORS: x / 0 is 0)
_ARITH = sem.OPERATORS


def aeval(ctx: Any, e: ir.Expr, env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
    """Three-valued evaluation of an IR expression over the abstract state (True, False, a
    value, or U). Each expression is compiled once per spec into a closure (`_compile`): the
    search evaluates the same few filters and conditions hundreds of thousands of times."""
    return evaluator(ctx, e)(env, counts, players)


def evaluator(ctx: Any, e: ir.Expr) -> Eval:
    """The compiled evaluator of `e`, cached on the context by node identity (the cache keeps
    the node alive, so an id is never reused for another node)."""
    memo: dict[int, tuple[ir.Expr, Eval]] = ctx.__dict__.setdefault("_k004_eval", {})
    got = memo.get(id(e))
    if got is None:
        got = memo[id(e)] = (e, _compile(ctx, e))
    return got[1]


def _unknown(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
    return U


def never_true(ctx: Any, e: ir.Expr) -> bool:
    """Is `e`'s three-valued value, by its compiled evaluator's shape, never True on any
    abstract state (always U or False)? An unknown value (`_unknown`), a comparison or
    arithmetic with one, a conjunction with such a side, a disjunction of two. A query that
    needs `e` to hold (K003's witness of two wins at once) then has no answer without a walk."""
    if evaluator(ctx, e) is _unknown:
        return True
    if isinstance(e, ir.Binary):
        if e.op == "and":
            return never_true(ctx, e.left) or never_true(ctx, e.right)
        if e.op == "or":
            return never_true(ctx, e.left) and never_true(ctx, e.right)
        return _always_unknown(ctx, e.left) or _always_unknown(ctx, e.right)
    return False


def _always_unknown(ctx: Any, e: ir.Expr) -> bool:
    if evaluator(ctx, e) is _unknown:
        return True
    if isinstance(e, ir.Binary) and e.op not in ("and", "or"):
        return _always_unknown(ctx, e.left) or _always_unknown(ctx, e.right)
    return False


def _compile(ctx: Any, e: ir.Expr) -> Eval:
    """Translate an expression into a closure with aeval's three-valued meaning."""
    return _COMPILE.visit_expr(e, ctx)


class _Compile(ExprVisitor[Any, Eval]):
    """K004's abstract domain: one method per expression kind (a kind without one is a
    TypeError when this class is made, and a mypy error), each translating an expression once
    per spec into a closure with aeval's three-valued meaning; what it cannot evaluate is
    unknown (`_unknown`: sound). What a builtin name or function is comes from the semantics
    table (ReadFact): a number of seats (`count`), a function of a seat's role (`of_seat`), of
    its arguments' values (`value`, `exact`); the functions K004 models beyond those are
    `_CALLS`, and every other one (UNKNOWN_CALLS) is unknown."""

    def const(self, e: ir.Const, ctx: Any) -> Eval:
        value = e.value
        return lambda env, counts, players: value

    def sym(self, e: ir.Sym, ctx: Any) -> Eval:
        sym: Any = e.idx if e.kind in ("role", "team", "kind") else e
        return lambda env, counts, players: sym

    def var(self, e: ir.Var, ctx: Any) -> Eval:
        name = e.name
        return lambda env, counts, players: env.get(name, U)

    def builtin(self, e: ir.Builtin, ctx: Any) -> Eval:
        if e.name == "self":
            return lambda env, counts, players: env.get("self", U)
        if e.name in ("true", "false"):
            truth = e.name == "true"
            return lambda env, counts, players: truth
        count = sem.BUILTINS[e.name].count if e.name in sem.BUILTINS else None
        if count == "living":
            return lambda env, counts, players: sum(counts)
        if count == "players":
            return lambda env, counts, players: players
        return _unknown  # the calendar, the vote: not in the abstract state

    def unary(self, e: ir.Unary, ctx: Any) -> Eval:
        operand = evaluator(ctx, e.operand)
        if e.op == "not":
            return lambda env, counts, players: _not(operand(env, counts, players))

        def neg(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
            v = operand(env, counts, players)
            return U if v is U else -v

        return neg

    def in_(self, e: ir.In, ctx: Any) -> Eval:
        value = evaluator(ctx, e.value)
        members = tuple(e.members)
        by_role = e.kind == "role"
        role_team = ctx.role_team

        def member(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
            v = value(env, counts, players)
            if isinstance(v, Seat):
                v = v.role if by_role else role_team[v.role]
            return U if v is U else v in members

        return member

    def binary(self, e: ir.Binary, ctx: Any) -> Eval:
        left, right = evaluator(ctx, e.left), evaluator(ctx, e.right)
        op = e.op
        if op == "and":

            def conj(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
                a = left(env, counts, players)
                if a is False:
                    return False
                b = right(env, counts, players)
                return False if b is False else (U if a is U or b is U else True)

            return conj
        if op == "or":

            def disj(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
                a = left(env, counts, players)
                if a is True:
                    return True
                b = right(env, counts, players)
                return True if b is True else (U if a is U or b is U else False)

            return disj
        fn = _ARITH.get(op)
        is_eq = op == "=="
        if op in _COMPARE and any(_is_count(x) for x in (e.left, e.right)):
            return _compare_count(ctx, e)

        def binary(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
            a = left(env, counts, players)
            if a is U:
                return U
            b = right(env, counts, players)
            if b is U:
                return U
            if isinstance(a, Seat) or isinstance(b, Seat):
                if isinstance(a, Seat) and isinstance(b, Seat):
                    if a.name == b.name:
                        return is_eq
                    if env.get("__concrete__"):
                        return op == "!="  # a concrete table: different names, different seats
                    if a.role != b.role:
                        return op == "!="
                return U
            return U if fn is None else fn(a, b)

        return binary

    def call(self, e: ir.Call, ctx: Any) -> Eval:
        rf = sem.CALLS.get(e.func)
        if rf is None or e.func in UNKNOWN_CALLS:
            return _unknown
        if rf.count == "team":  # living(T): the living of T's roles
            t = cast(ir.Sym, e.args[0]).idx  # analysis: a team
            rs = [r for r in range(ctx.nroles) if ctx.role_team[r] == t]
            return lambda env, counts, players: sum(counts[r] for r in rs)
        if rf.count == "role":  # living_role(R)
            r = cast(ir.Sym, e.args[0]).idx  # analysis: a role
            return lambda env, counts, players: counts[r]
        if rf.of_seat is not None:
            return _of_seat(ctx, rf.of_seat, evaluator(ctx, e.args[0]))
        if rf.value is not None:
            return _valued(ctx, rf, e.args)
        compile_call = _CALLS.get(e.func)
        return _unknown if compile_call is None else compile_call(ctx, e)

    def in_set(self, e: ir.InSet, ctx: Any) -> Eval:
        return _unknown  # tonight's visits: not in the abstract state

    def quant(self, e: ir.Quant, ctx: Any) -> Eval:
        if e.func != "count":
            return _unknown  # some / every / random, seat by seat: not in the abstract state
        # count(x: c) (a side's `living(SIDE)`): the seats of the living roles for which c
        # holds, at least, and those for which it may hold, at most: a value when they meet
        bounds = _count_bounds(ctx, e)

        def count(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
            lo, hi = bounds(env, counts, players)
            return lo if lo == hi else U

        return count

    def seen(self, e: ir.Seen, ctx: Any) -> Eval:
        return _unknown  # what the moderator shows: not modelled


_COMPILE = _Compile()
_COMPARE = ("==", "!=", "<", "<=", ">", ">=")


def _is_count(e: ir.Expr) -> bool:
    return isinstance(e, ir.Quant) and e.func == "count"


def _count_bounds(ctx: Any, e: ir.Quant) -> Callable[..., tuple[int, int]]:
    """(at least, at most) the living seats for which a count's condition holds, role by
    role: all of a role's seats when it holds for a seat of that role, none when it is false,
    between when unknown (0 <= count <= alive; 0 when nothing can make a member)."""
    cond, var, name = evaluator(ctx, e.cond), e.var, f"~{e.var}"
    seats = [Seat(r, name) for r in range(ctx.nroles)]

    def bounds(env: dict[str, Any], counts: Sequence[int], players: int) -> tuple[int, int]:
        lo = hi = 0
        env2 = dict(env)
        for r, c in enumerate(counts):
            if c > 0:
                env2[var] = seats[r]
                v = cond(env2, counts, players)
                if v is not False:
                    hi += c
                    if v is True:
                        lo += c
        return lo, hi

    return bounds


def _compare_count(ctx: Any, e: ir.Binary) -> Eval:
    """A comparison with a count (count(x: c), a side's living): decided when every value
    between the count's bounds gives the same answer, unknown otherwise."""
    sides: list[Callable[..., tuple[int, int] | None]] = []
    for x in (e.left, e.right):
        if _is_count(x):
            sides.append(_count_bounds(ctx, cast(ir.Quant, x)))
        else:
            value = evaluator(ctx, x)
            sides.append(
                lambda env, counts, players, value=value: _point(value(env, counts, players))
            )
    left, right = sides
    fn = _ARITH[e.op]

    def compare(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
        a, b = left(env, counts, players), right(env, counts, players)
        if a is None or b is None:
            return U
        if a[0] == a[1] and b[0] == b[1]:
            return fn(a[0], b[0])
        # the answers at the corners decide it: each comparison is monotone in each side
        got = {fn(x, y) for x in a for y in b}
        if e.op in ("==", "!=") and len(got) == 1 and got == {e.op == "!="}:
            # disjoint ranges only: a shared value would make == true somewhere
            return got.pop() if a[1] < b[0] or b[1] < a[0] else U
        return got.pop() if len(got) == 1 and e.op not in ("==", "!=") else U

    return compare


def _point(v: Any) -> tuple[int, int] | None:
    """A known integer as a range of one value (None: anything else)."""
    return (v, v) if isinstance(v, int) and not isinstance(v, bool) else None


def _of_seat(ctx: Any, what: str, seat: Eval) -> Eval:
    """role(x), team(x), kind(x) (ReadFact.of_seat) of a bound seat; unknown for another."""
    if what == "role":
        table: Sequence[Any] = range(ctx.nroles)
    elif what == "team":
        table = ctx.role_team
    else:
        table = [r.kind for r in ctx.p.roles]

    def of_seat(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
        s = seat(env, counts, players)
        return table[s.role] if isinstance(s, Seat) else U

    return of_seat


def _valued(ctx: Any, rf: sem.ReadFact, args: Sequence[ir.Expr]) -> Eval:
    """A function of its arguments' values (ReadFact.value, read exactly if `exact`):
    unknown if one of them is."""
    fn = cast(Callable[..., Any], rf.value)
    evals = [exact_evaluator(ctx, x) if rf.exact else evaluator(ctx, x) for x in args]

    def valued(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
        xs = [a(env, counts, players) for a in evals]
        return U if U in xs else fn(*xs)

    return valued


def _alive_of(ctx: Any, e: ir.Call) -> Eval:
    """alive(x): a seat bound to a living role is alive (the abstraction binds the living)."""
    seat = evaluator(ctx, e.args[0])

    def alive(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
        s = seat(env, counts, players)
        return True if isinstance(s, Seat) and s.name != "?" else U

    return alive


def _pick(ctx: Any, e: ir.Call) -> Eval:
    """pick(c, a, b): the branch the condition picks, evaluated only then."""
    cond, then, other = (evaluator(ctx, x) for x in e.args)

    def pick(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
        c = cond(env, counts, players)
        if c is U:
            return U
        return then(env, counts, players) if c else other(env, counts, players)

    return pick


# the builtin functions K004 evaluates beyond what their semantics entries say; UNKNOWN_CALLS:
# those it leaves unknown (marks, memory, the plan, uses, tonight's kills, visits and blocks,
# the middle, departures, the vote, neighbours, the deal). Every function of the table is in
# exactly one place (tests/check/test_semantics.py)
def mark_setters(ctx: Any) -> dict[int, list[tuple[ir.SetMark, bool]]]:
    """semantics.mark_setters of the checked program, once per context (K004 and K007)."""
    got = ctx.__dict__.get("_k007_setters")
    if got is None:
        got = ctx._k007_setters = sem.mark_setters(ctx.p)
    return got


def _has(ctx: Any, e: ir.Call) -> Eval:
    """has(x, M): false when no statement ever sets mark M (nor the day's election, for its
    title); unknown otherwise (marks are not in the abstract state)."""
    mark = e.args[1]
    if isinstance(mark, ir.Sym) and mark.idx not in mark_setters(ctx):
        return lambda env, counts, players: False
    return _unknown


_CALLS: dict[str, Callable[[Any, ir.Call], Eval]] = {
    "alive": _alive_of,
    "pick": _pick,
    "has": _has,
}
UNKNOWN_CALLS = frozenset(
    {
        "acted",
        "recall",
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
        "count_role",
        "count_team",
        "count_kind",
        "max_count",
    }
)


def aexact(ctx: Any, e: ir.Expr, env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
    """aeval with exact division (inside floor/ceil/round)."""
    return exact_evaluator(ctx, e)(env, counts, players)


def exact_evaluator(ctx: Any, e: ir.Expr) -> Eval:
    """The compiled exact evaluator of `e` (`_Exact`), cached as `evaluator` caches."""
    memo: dict[int, tuple[ir.Expr, Eval]] = ctx.__dict__.setdefault("_k004_exact", {})
    got = memo.get(id(e))
    if got is None:
        got = memo[id(e)] = (e, _EXACT.visit_expr(e, ctx))
    return got[1]


def _integral(ctx: Any, e: ir.Expr) -> Eval:
    """aeval's value of `e` where it is an int (a bool too), else unknown."""
    plain = evaluator(ctx, e)

    def integral(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
        v = plain(env, counts, players)
        return v if isinstance(v, int) else U

    return integral


class _Exact(ExprVisitor[Any, Eval]):
    """The exact value of an integer expression (a rounding's argument): `-`, `+`, `*` and `/`
    on exact values, `/` dividing into a fraction (0 by 0, as the engine); every other
    expression is its aeval value if an int."""

    def unary(self, e: ir.Unary, ctx: Any) -> Eval:
        if e.op != "-":
            return _integral(ctx, e)
        operand = exact_evaluator(ctx, e.operand)

        def neg(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
            v = operand(env, counts, players)
            return U if v is U else -v

        return neg

    def binary(self, e: ir.Binary, ctx: Any) -> Eval:
        if e.op not in ("+", "-", "*", "/"):
            return _integral(ctx, e)
        left, right = exact_evaluator(ctx, e.left), exact_evaluator(ctx, e.right)
        op = e.op

        def exact(env: dict[str, Any], counts: Sequence[int], players: int) -> Any:
            a = left(env, counts, players)
            b = right(env, counts, players)
            if a is U or b is U:
                return U
            if op == "/":
                return Fraction(a) / b if b else 0
            return a + b if op == "+" else a - b if op == "-" else a * b

        return exact

    def const(self, e: ir.Const, ctx: Any) -> Eval:
        return _integral(ctx, e)

    def var(self, e: ir.Var, ctx: Any) -> Eval:
        return _integral(ctx, e)

    def builtin(self, e: ir.Builtin, ctx: Any) -> Eval:
        return _integral(ctx, e)

    def sym(self, e: ir.Sym, ctx: Any) -> Eval:
        return _integral(ctx, e)

    def call(self, e: ir.Call, ctx: Any) -> Eval:
        return _integral(ctx, e)

    def in_(self, e: ir.In, ctx: Any) -> Eval:
        return _integral(ctx, e)

    def in_set(self, e: ir.InSet, ctx: Any) -> Eval:
        return _integral(ctx, e)

    def quant(self, e: ir.Quant, ctx: Any) -> Eval:
        return _integral(ctx, e)

    def seen(self, e: ir.Seen, ctx: Any) -> Eval:
        return _integral(ctx, e)


_EXACT = _Exact()
