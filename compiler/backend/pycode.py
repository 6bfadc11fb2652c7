"""Python code for IR expressions and statements: the one printer the emitter (``emit``) and the
compiled night (``nightgen``) share, with the name mangler every spec name goes through.

Nothing from a spec reaches generated code except through ``ident()`` (names) and ``repr()``
(literals); source lines quoted in comments go through ``comment()``. ``PyCode`` renders one
program's expressions and statements; it is a typed visitor over the IR
(``maf.compiler.ir.visitor``: one method per node kind), and the compiled night's printer
subclasses it, overriding the kinds it writes differently.
"""

from __future__ import annotations

import keyword
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from maf.compiler.ir import nodes as ir
from maf.compiler.ir.visitor import ExprVisitor, StmtVisitor

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


def ident(name: str) -> str:
    """The one sanitizer for names: any string -> a safe Python identifier, injectively.

    A prefix-free code, so two different names never meet in one identifier: lowercase letters
    and digits stand for themselves, ``_`` becomes ``__``, ``.`` (the separator of ability ids)
    becomes ``_0``, anything else (uppercase, a leading digit, any other character) becomes
    ``_x<hex>_``; the empty name is ``_e``. A result that is a Python keyword gets a trailing
    ``_``, which no other name's code ends with. ``unident`` inverts it.
    Output letters are all lowercase, so ``const()`` may uppercase it.
    """
    out = []
    for i, ch in enumerate(name):
        if ch in _PLAIN and not (i == 0 and ch.isdigit()):
            out.append(ch)
        elif ch == "_":
            out.append("__")
        elif ch == ".":
            out.append("_0")
        else:
            out.append(f"_x{ord(ch):x}_")
    text = "".join(out) or "_e"
    if keyword.iskeyword(text) or keyword.issoftkeyword(text):
        text += "_"
    return text


def unident(text: str) -> str:
    """The inverse of ``ident`` (ValueError on text ``ident`` never produces)."""
    if text == "_e":
        return ""
    if text.endswith("_") and (keyword.iskeyword(text[:-1]) or keyword.issoftkeyword(text[:-1])):
        return text[:-1]
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch != "_":
            out.append(ch)
            i += 1
        elif text.startswith("__", i):
            out.append("_")
            i += 2
        elif text.startswith("_0", i):
            out.append(".")
            i += 2
        elif text.startswith("_x", i) and "_" in text[i + 2 :]:
            end = text.index("_", i + 2)
            out.append(chr(int(text[i + 2 : end], 16)))
            i = end + 1
        else:
            raise ValueError(f"not an ident() result: {text!r}")
    return "".join(out)


def const(prefix: str, name: str) -> str:
    return f"{prefix}_{ident(name).upper()}"


def comment(text: str) -> str:
    """Text safe inside a one-line ``#`` comment (no line breaks of any kind, ASCII only)."""
    text = text.encode("ascii", "backslashreplace").decode("ascii")
    return "".join(ch if 32 <= ord(ch) < 127 else " " for ch in text).strip()


# How each built-in function reads the engine state ({me}: the acting seat).
_CALLS = {
    "alive": "g.alive[{0}]",
    "role": "g.role[{0}]",
    "team": "g.team[{0}]",
    "living": "g.nteam[{0}]",
    "living_role": "g.living_role({0})",
    "has": "(g.marks[{0}] & {1} != 0)",  # {1}: the mark's bit (PyCode.call), `== 0` under `not`
    "acted": "g.acted({0}, {1})",
    "recall": "g.memory[{at}]",  # {at}: the seat's slot in the flat array (PyCode.mem_at)
    "used": "g.uses.get(({me}, {0}), 0)",
    "doomed": "g.doomed({0})",
    "in_middle": "g.middle.count({0})",
    "departed": "g.ndeparted({0})",
    "defending": "({0} in g.defenders)",
    "left": "g.left({0})",
    "right": "g.right({0})",
    "pick": "({1} if {0} else {2})",
    "count_role": "g.initial.count({0})",
    "count_team": "sum(1 for r in g.initial if ROLE_TEAM[r] == {0})",
    "kind": "ROLE_KIND[g.role[{0}]]",
    "count_kind": "sum(1 for r in g.initial if ROLE_KIND[r] == {0})",
    "max_count": "g.max_count({0})",
    "min": "min({0}, {1})",
    "max": "max({0}, {1})",
    "clamp": "min(max({0}, {1}), {2})",
    "floor": "_floor({0})",
    "ceil": "_ceil({0})",
    "round": "_round({0})",
    "visitors": "g.vis_in.get({0}, ())",
    "visits": "g.vis_out.get({0}, ())",
    "count": "len({0})",
    "blocked": "({0} in g.blocked)",
    "voted": "(({0}, {1}) in g.votes)",
    "cause_of": "g.death_cause.get({0}, -1)",
}
ROUNDING = ("floor", "ceil", "round")  # `/` inside them is exact (a Fraction)
# which runtime machinery a call needs (emitted only for specs that use it)
_CALL_FEATURES = {"visitors": "visits", "visits": "visits", "blocked": "blocks"}
# calls that render as a membership test `(x in y)`: under `not`, emitted `(x not in y)`
_MEMBERSHIP_CALLS = frozenset({"has", "defending", "blocked", "voted"})
# reaction names that may hold 0 (no seat): a kill of one goes through the checking g.kill()
_MAYBE_NO_SEAT = frozenset(("visitor", "blocker", "attacker", "victim", "killer"))


def _max_count_bound(code, e: ir.Binary, env) -> str | None:
    """`max_count(KIND) <= N` (or `<`, `>=`, `>`) as a test of each role of the kind: every one
    (or, `>=`/`>`, some one) dealt within the bound. The same value as max(...), written so that
    a custom setup's deal probes (compiler/tools/deal.py) can prune by each role's count."""
    x = e.left
    if not (
        e.op in ("<=", "<", ">=", ">")
        and isinstance(x, ir.Call)
        and x.func == "max_count"
        and isinstance(x.args[0], ir.Sym)
    ):
        return None
    roles = [r for r in code.p.roles if r.kind == x.args[0].idx]
    if not roles:
        return None
    bound = code.ex(e.right, env)
    tests = [f"g.initial.count({const('R', r.id)}) {e.op} {bound}" for r in roles]
    return "(" + (" and " if e.op in ("<=", "<") else " or ").join(tests) + ")"


_LEFT_CHAINS = {"+": "+-", "-": "+-", "*": "*"}  # left-associative: `(a - b) + c` is `a - b + c`


def _chain(e: ir.Expr, op: str) -> list[ir.Expr]:
    """The operands of a chain of one associative operator, left to right, without recursion."""
    out, todo = [], [e]
    while todo:
        x = todo.pop()
        if isinstance(x, ir.Binary) and x.op == op:
            todo.append(x.right)
            todo.append(x.left)
        else:
            out.append(x)
    return out


def _vars_in(body) -> dict[str, str]:
    """name -> type of every local (ir.Var) read anywhere in a block."""
    out: dict[str, str] = {}
    todo: list = [body]
    while todo:
        v = todo.pop()
        if isinstance(v, (tuple, list)):
            todo.extend(v)
        elif isinstance(v, ir.Var):
            out[v.name] = v.type
        elif hasattr(v, "__dataclass_fields__"):
            todo.extend(getattr(v, f) for f in v.__dataclass_fields__)
    return out


def _uses_levels(prog: ir.Program) -> bool:
    """Does the spec use attack or defence levels anywhere (so kills carry a level)?"""
    if any(r.defense for r in prog.roles):
        return True
    todo: list = [prog]
    while todo:
        v = todo.pop()
        if isinstance(v, (tuple, list)):
            todo.extend(v)
        elif isinstance(v, ir.Kill) and v.attack != 1:
            return True
        elif isinstance(v, ir.Protect) and v.level >= 0:
            return True
        elif hasattr(v, "__dataclass_fields__") and not isinstance(v, ir.EXPR_NODES):
            todo.extend(getattr(v, f) for f in v.__dataclass_fields__)
    return False


@dataclass(frozen=True, slots=True)
class ExprCtx:
    """What rendering an expression needs: the Python code of each name in scope (targets,
    locals, `self`...), and how a membership test is written (" not in " under `not`)."""

    env: dict[str, str]
    member: str = " in "


@dataclass(frozen=True, slots=True)
class StmtCtx:
    """What rendering a statement needs: the names in scope, the indentation, the output."""

    env: dict[str, str]
    indent: int
    out: list[str]


class PyCode(ExprVisitor[ExprCtx, str], StmtVisitor[StmtCtx, None]):
    """Renders IR expressions and statements for one program, as Python code."""

    def __init__(self, prog: ir.Program, lines: list[str]):
        self.p = prog
        self.lines = lines  # spec source lines, for comments
        self.features: set[str] = set()  # runtime machinery the rendered code needs
        if ir.once(_uses_levels, prog):  # decided up front: it shapes every queued kill
            self.features.add("levels")
        self.closures: list[dict] = []  # delayed blocks and guard reactions, as functions
        self._exact = 0  # > 0 inside a rounding call: `//` is emitted exact (`_q`)
        # information reads (`registers as`): one answer per seat and kind in the outermost
        # statement holding them, kept in the local `_shown` (> 0: inside such a statement)
        self._registers = any(r.registers for r in prog.roles)
        self._memo = 0

    def text(self, span) -> str:
        """The spec text of a one-line span, without its comment (reaches code only via repr)."""
        if 0 < span.line <= len(self.lines):
            return self.lines[span.line - 1].split("//")[0].strip()
        return ""

    def src(self, span) -> str:
        if 0 < span.line <= len(self.lines):
            text = self.lines[span.line - 1].split("//")[0].strip()
            return f"{comment(span.file)}:{span.line}: {comment(text)}"
        return f"{comment(span.file)}:{span.line}"

    # -- expressions
    def ex(self, e: ir.Expr, env: dict[str, str], member: str = " in ") -> str:
        """The Python code of `e`; a membership test (`in`, has(...), ...) is written with
        `member` (" not in " for the operand of `not`)."""
        return self.visit_expr(e, ExprCtx(env, member))

    def const(self, e: ir.Const, ctx: ExprCtx) -> str:
        if isinstance(e.value, bool) or isinstance(e.value, int) or isinstance(e.value, str):
            return repr(e.value)
        raise TypeError(type(e.value))  # pragma: no cover

    def var(self, e: ir.Var, ctx: ExprCtx) -> str:
        return ctx.env[e.name]

    def builtin(self, e: ir.Builtin, ctx: ExprCtx) -> str:
        env = ctx.env
        return {
            "self": env.get("self", "0"),
            "alive": "g.nalive",
            "players": "g.n",
            "night": "g.night",
            "day": "g.day",
            "chaos": "g.chaos",
            "true": "True",
            "false": "False",
            "skips": "g.skips",
            "defenders": env.get("defenders", "len(g.defenders)"),
        }[e.name]

    def sym(self, e: ir.Sym, ctx: ExprCtx) -> str:
        p = self.p
        if e.kind == "role":
            return const("R", p.roles[e.idx].id)
        if e.kind == "team":
            return const("T", p.teams[e.idx].id)
        if e.kind == "mark":
            return const("M", p.marks[e.idx].id)
        if e.kind == "ability":
            return const("A", p.abilities[e.idx].id)
        if e.kind == "memslot":
            return repr(e.idx)
        if e.kind == "cause":
            return const("C", p.causes[e.idx])
        if e.kind == "kind":
            return const("K", p.kinds[e.idx].id)
        raise AssertionError(e)  # pragma: no cover

    def unary(self, e: ir.Unary, ctx: ExprCtx) -> str:
        x = e.operand
        if e.op == "not" and (
            isinstance(x, (ir.In, ir.InSet))
            or (isinstance(x, ir.Call) and x.func in _MEMBERSHIP_CALLS)
        ):
            return self.ex(x, ctx.env, " not in ")
        arg = self.ex(e.operand, ctx.env)
        return f"(not {arg})" if e.op == "not" else f"(-{arg})"

    def binary(self, e: ir.Binary, ctx: ExprCtx) -> str:
        env = ctx.env
        op = {"/": "//"}.get(e.op, e.op)
        top = _max_count_bound(self, e, env)
        if top is not None:
            return top
        if op in ("and", "or"):
            # a chain of one operator is emitted flat: one level of Python nesting, however
            # long the chain (dsl/limits.py counts it so)
            return "(" + f" {op} ".join(self.ex(x, env) for x in _chain(e, op)) + ")"
        if op in _LEFT_CHAINS:
            group, terms = _LEFT_CHAINS[op], []
            node: ir.Expr = e
            while isinstance(node, ir.Binary) and node.op in group:
                terms.append(f" {node.op} {self.ex(node.right, env)}")
                node = node.left
            return "(" + self.ex(node, env) + "".join(reversed(terms)) + ")"
        left, right = self.ex(e.left, env), self.ex(e.right, env)
        if op == "//" and self._exact:
            return f"_q({left}, {right})"
        if op in ("//", "%"):
            return f"_{'div' if op == '//' else 'mod'}({left}, {right})"
        return f"({left} {op} {right})"

    def in_(self, e: ir.In, ctx: ExprCtx) -> str:
        p = self.p
        table = {"role": "R", "kind": "K"}.get(e.kind, "T")
        decls: Sequence[Any] = {"role": p.roles, "kind": p.kinds}.get(e.kind, p.teams)
        items = [const(table, decls[i].id) for i in e.members]
        return f"({self.ex(e.value, ctx.env)}{ctx.member}({', '.join(items)},))"

    def in_set(self, e: ir.InSet, ctx: ExprCtx) -> str:
        return f"({self.ex(e.value, ctx.env)}{ctx.member}{self.ex(e.seats, ctx.env)})"

    def call(self, e: ir.Call, ctx: ExprCtx) -> str:
        env, member = ctx.env, ctx.member
        if e.func in ROUNDING:
            self._exact += 1
            try:
                args = [self.ex(x, env) for x in e.args]
            finally:
                self._exact -= 1
            return _CALLS[e.func].format(*args)
        if e.func in _CALL_FEATURES:
            self.features.add(_CALL_FEATURES[e.func])
        args = [self.ex(x, env) for x in e.args]
        if e.func == "acted" and len(args) == 1:
            args.append("-1")
        template = _CALLS[e.func]
        if e.func == "has":  # a seat's marks are a bit mask (Game.marks): test the mark's bit
            m = e.args[1]
            if isinstance(m, ir.Sym) and m.kind == "mark":
                args[1] = const("MB", self.p.marks[m.idx].id)
            else:
                args[1] = f"(1 << {args[1]})"
            if member == " not in ":
                template = template.replace("!=", "==")
        elif e.func in _MEMBERSHIP_CALLS:
            template = template.replace(" in ", member)
        if e.func in ("count_kind", "max_count") and isinstance(e.args[0], ir.Sym):
            # over the dealt counts of the kind's roles (a custom setup's deal probes read them)
            of = [
                f"g.initial.count({const('R', r.id)})"
                for r in self.p.roles
                if r.kind == e.args[0].idx
            ]
            if not of:
                return "0"
            if e.func == "count_kind":
                return "(" + " + ".join(of) + ")"
            return of[0] if len(of) == 1 else "max(" + ", ".join(of) + ")"
        me = env.get("self", "0")
        if e.func == "recall":
            return template.format(at=self.mem_at(me, args[0]))
        return template.format(*args, me=me)

    def quant(self, e: ir.Quant, ctx: ExprCtx) -> str:
        var = f"q_{ident(e.var)}"
        inner = dict(ctx.env)
        inner[e.var] = var
        cond = self.ex(e.cond, inner)
        if e.func == "random":
            return f"g.random_seat(lambda {var}: {cond})"
        seats = f"for {var} in range(1, g.n + 1) if g.alive[{var}]"
        if e.func == "count":
            return f"sum(1 {seats} and {cond})"
        if e.func == "some":
            return f"any({cond} {seats})"
        return f"all({cond} {seats})"

    def seen(self, e: ir.Seen, ctx: ExprCtx) -> str:
        # information: what the moderator lets the reader see (Game.seen, `registers as`)
        self.features.add("moderator")
        return f"g.seen({e.kind!r}, {self.ex(e.seat, ctx.env)}, _shown)"

    def mem_at(self, me: str, slot: str) -> str:
        """Where seat `me` keeps memory slot `slot` in `Game.memory`, a flat list of ints with
        one row of len(MEMSLOTS) per seat: `me` alone when the spec has one slot."""
        width = len(self.p.memslots)
        if width == 1:
            return me
        return f"{me} * {width}" if slot == "0" else f"{me} * {width} + {slot}"

    def value_text(self, e: ir.Expr, env) -> str:
        """An expression rendered as the text a player is told."""
        code = self.ex(e, env)
        if isinstance(e, ir.Const) and isinstance(e.value, str):
            return code
        t = self.type_of(e)
        if t == "role":
            return f"ROLES[{code}]"
        if t == "team":
            return f"TEAMS[{code}]"
        if t == "kind":
            return f"_kind_name({code})"
        if t == "cause":
            return f"_cause_name({code})"
        if t == "seats":
            return f"' '.join(map(str, sorted({code})))"
        return f"str({code})"

    def joined_text(self, parts, env) -> str:
        """Parts of a `tell` or `announce`, joined with spaces into one text."""
        if len(parts) == 1:
            return self.value_text(parts[0], env)
        return "' '.join((" + ", ".join(self.value_text(p, env) for p in parts) + ",))"

    def type_of(self, e: ir.Expr) -> str:
        if isinstance(e, ir.Var):
            return e.type
        if isinstance(e, ir.Seen):
            return e.kind
        if isinstance(e, ir.Sym):
            return e.kind
        if isinstance(e, ir.Call):
            return {
                "role": "role",
                "team": "team",
                "recall": "seat",
                "left": "seat",
                "right": "seat",
                "visitors": "seats",
                "visits": "seats",
                "cause_of": "cause",
                "kind": "kind",
            }.get(e.func, "int")
        return "int"

    # -- statements
    def stmts(self, body, env, indent: int, out: list[str]) -> None:
        pad = "    " * indent
        if not body:
            out.append(pad + "pass")
            return
        for s in body:
            self.stmt(s, env, indent, out)

    def stmt(self, s: ir.Stmt, env, indent: int, out: list[str]) -> None:
        """`s` as Python lines appended to `out`, each statement under the comment that quotes
        its spec line (an `if` quotes each condition's)."""
        if not isinstance(s, ir.If):
            out.append(f"{'    ' * indent}# {self.src(s.span)}")
        memo = self._registers and not self._memo and _reads_seen(s)
        if memo:  # what the moderator shows of each seat, once for the whole statement
            out.append(f"{'    ' * indent}_shown = dict[Any, int]()")
            self._memo += 1
        try:
            self.visit_stmt(s, StmtCtx(env, indent, out))
        finally:
            if memo:
                self._memo -= 1

    def _line(self, ctx: StmtCtx, code: str) -> None:
        ctx.out.append("    " * ctx.indent + code)

    def kill(self, s: ir.Kill, ctx: StmtCtx) -> None:
        x, me = self.ex(s.target, ctx.env), ctx.env.get("self", "0")
        cause = const("C", self.p.causes[s.cause])
        # a kill carries its attack level only in a spec that has levels
        attack = f", {s.attack!r}" if "levels" in self.features else ""
        if s.at_once:  # settles now (Game.kill_now), not at dawn
            self.features.add("at_once")
            self._line(ctx, f"g.kill_now({x}, {cause}, {s.piercing!r}, {me}{attack})")
        elif (isinstance(s.target, ir.Var) and s.target.name not in _MAYBE_NO_SEAT) or (
            isinstance(s.target, ir.Builtin) and s.target.name == "self"
        ):
            # a validated seat: queue the kill directly (the hot path of every night)
            self._line(ctx, f"g.pending.append(({x}, {cause}, {s.piercing!r}, {me}{attack}))")
        else:
            self._line(ctx, f"g.kill({x}, {cause}, {s.piercing!r}, {me}{attack})")

    def protect(self, s: ir.Protect, ctx: StmtCtx) -> None:
        x = self.ex(s.target, ctx.env)
        if s.level >= 0:
            self._line(ctx, f"g.shield({x}, {s.level!r})")
        else:
            causes = ", ".join(const("C", self.p.causes[c]) for c in s.causes)
            self._line(ctx, f"g.protect({x}, ({causes},))")

    def guard(self, s: ir.Guard, ctx: StmtCtx) -> None:
        x, me = self.ex(s.target, ctx.env), ctx.env.get("self", "0")
        causes = ", ".join(const("C", self.p.causes[c]) for c in s.causes)
        takes = ", takes=True" if s.takes else ""
        if s.body:
            k, captured = self.closure(s.body, ctx.env, ("attacker",), s.span, "guard reaction")
            self._line(ctx, f"g.guard({x}, ({causes},), {me}, ({k}, {captured}){takes})")
        else:
            self._line(ctx, f"g.guard({x}, ({causes},), {me}{takes})")

    def block(self, s: ir.Block, ctx: StmtCtx) -> None:
        self.features.add("blocks")
        self._line(ctx, f"g.block({self.ex(s.target, ctx.env)}, {ctx.env.get('self', '0')})")

    def visit(self, s: ir.Visit, ctx: StmtCtx) -> None:
        self.features.add("visits")
        self._line(ctx, f"g.visit({ctx.env.get('self', '0')}, {self.ex(s.target, ctx.env)})")

    def delayed(self, s: ir.Delayed, ctx: StmtCtx) -> None:
        self.features.add("delays")
        k, captured = self.closure(s.body, ctx.env, (), s.span, f"in {s.nights} nights")
        self._line(ctx, f"g.delay({s.nights!r}, {k}, {ctx.env.get('self', '0')}, {captured})")

    def set_mark(self, s: ir.SetMark, ctx: StmtCtx) -> None:
        # a seat's marks: a bit mask, bit MB_ per mark
        m, x = const("MB", self.p.marks[s.mark].id), self.ex(s.target, ctx.env)
        self._line(ctx, f"g.marks[{x}] &= ~{m}" if s.remove else f"g.marks[{x}] |= {m}")

    def convert(self, s: ir.Convert, ctx: StmtCtx) -> None:
        role = const("R", self.p.roles[s.role].id)
        self._line(ctx, f"g.convert({self.ex(s.target, ctx.env)}, {role})")

    def tell(self, s: ir.Tell, ctx: StmtCtx) -> None:
        to = self.ex(s.to, ctx.env) if s.to is not None else ctx.env.get("self", "0")
        self._line(ctx, f"g.tell({to}, {self.joined_text(s.parts, ctx.env)})")

    def skip_night(self, s: ir.SkipNight, ctx: StmtCtx) -> None:
        self._line(ctx, "g.skip_night()")

    def cancel_vote(self, s: ir.CancelVote, ctx: StmtCtx) -> None:
        self._line(ctx, "g.cancel_vote()")

    def each(self, s: ir.Each, ctx: StmtCtx) -> None:
        var = f"v_{ident(s.var)}"
        inner = dict(ctx.env)
        inner[s.var] = var
        if s.source is not None:
            self._line(ctx, f"for {var} in sorted({self.ex(s.source, ctx.env)}):")
            self.stmts(s.body, inner, ctx.indent + 1, ctx.out)
        else:
            self._line(ctx, f"for {var} in range(1, g.n + 1):")
            self._line(ctx, f"    if g.alive[{var}] and {self.ex(s.filter, inner)}:")
            self.stmts(s.body, inner, ctx.indent + 2, ctx.out)

    def announce(self, s: ir.Announce, ctx: StmtCtx) -> None:
        self._line(ctx, f"g.announce({self.joined_text(s.parts, ctx.env)})")

    def remember(self, s: ir.Remember, ctx: StmtCtx) -> None:
        at = self.mem_at(ctx.env.get("self", "0"), repr(s.slot))
        self._line(ctx, f"g.memory[{at}] = {self.ex(s.value, ctx.env)}")

    def trial(self, s: ir.Trial, ctx: StmtCtx) -> None:
        x = lambda e: self.ex(e, ctx.env)  # noqa: E731
        self._line(
            ctx,
            f"g.schedule_trial({ctx.env.get('self', '0')}, ability, {x(s.a)}, {x(s.b)}, "
            f"{s.refund!r}, {s.reveal!r}, {s.tie!r})",
        )

    def steal(self, s: ir.Steal, ctx: StmtCtx) -> None:
        me, x = ctx.env.get("self", "0"), lambda e: self.ex(e, ctx.env)
        self._line(ctx, f"g.steal({me}, {x(s.source)}, {x(s.dest)})")

    def revive(self, s: ir.Revive, ctx: StmtCtx) -> None:
        self._line(ctx, f"g.revive({self.ex(s.target, ctx.env)})")

    def weight(self, s: ir.Weight, ctx: StmtCtx) -> None:
        self._line(ctx, f"g.weigh({ctx.env.get('self', '0')}, {self.ex(s.value, ctx.env)})")

    def win_now(self, s: ir.WinNow, ctx: StmtCtx) -> None:
        who = (self.p.teams if s.kind == "team" else self.p.roles)[s.idx].id
        self._line(ctx, f"g.win_now({who!r})")

    def middle_swap(self, s: ir.MiddleSwap, ctx: StmtCtx) -> None:
        role = const("R", self.p.roles[s.role].id)
        self._line(ctx, f"g.middle_swap({self.ex(s.target, ctx.env)}, {role})")

    def call_ability(self, s: ir.CallAbility, ctx: StmtCtx) -> None:
        seat = self.ex(s.seat, ctx.env) if s.seat is not None else ctx.env.get("self", "0")
        ability = const("A", self.p.abilities[s.ability].id)
        self._line(ctx, f"g.call_ability({seat}, {ability})")

    def moderator_choice(self, s: ir.ModeratorChoice, ctx: StmtCtx) -> None:
        # the moderator's pick (Game.moderate: an input of the step, like a decision); None:
        # declined, or nothing the filter accepts
        self.features.add("moderator")
        var = f"v_{ident(s.var)}"
        inner = dict(ctx.env)
        inner[s.var] = var
        accepts = f"lambda {var}: {self.ex(s.filter, inner)}" if s.filter is not None else "None"
        self._line(ctx, f"{var} = g.moderate({s.site!r}, {s.kind!r}, {accepts})")
        self._line(ctx, f"if {var} is not None:")
        self.stmts(s.body, inner, ctx.indent + 1, ctx.out)
        if s.orelse:
            self._line(ctx, "else:")
            self.stmts(s.orelse, ctx.env, ctx.indent + 1, ctx.out)

    def if_(self, s: ir.If, ctx: StmtCtx) -> None:
        for i, (cond, body) in enumerate(s.branches):
            self._line(ctx, f"# {self.src(cond.span)}")
            self._line(ctx, f"{'if' if i == 0 else 'elif'} {self.ex(cond, ctx.env)}:")
            self.stmts(body, ctx.env, ctx.indent + 1, ctx.out)
        if s.orelse:
            self._line(ctx, "else:")
            self.stmts(s.orelse, ctx.env, ctx.indent + 1, ctx.out)

    def closure(self, body, env, extra: tuple[str, ...], span, what: str) -> tuple[int, str]:
        """A block that runs later (a delayed effect, a guard's reaction) as a module-level
        function ``_closure_K(g, seat, *extra, *captured)``: `self` and every local of the
        enclosing code are captured as values. Returns K and the captured values' code."""
        used = _vars_in(body)  # only the locals the block reads are captured
        names = [n for n in env if n in used and n not in ("self", "defenders") and n not in extra]
        params = [f"c_{ident(n)}" for n in names]
        inner = {"self": "seat"}
        inner.update(zip(names, params, strict=True))
        inner.update({n: n for n in extra})
        k = len(self.closures)
        entry: dict[str, Any] = {
            "k": k,
            "params": ["g", "seat", *extra, *params],
            "body": [],
            "src": self.src(span),
            "what": what,
            "types": [used[n] for n in names],
        }
        self.closures.append(entry)
        memo, self._memo = self._memo, 0  # a function of its own: its own information reads
        try:
            self.stmts(body, inner, 1, entry["body"])
        finally:
            self._memo = memo
        captured = "(" + "".join(f"{env[n]}, " for n in names) + ")"
        return k, captured


def _reads_seen(s: ir.Stmt) -> bool:
    """Does the statement hold an information read (ir.Seen), however deep?"""
    return any(isinstance(n, ir.Seen) for n in ir.nodes(s))


def walk(body):
    for s in body:
        yield s
        if isinstance(s, ir.If):
            for _, b in s.branches:
                yield from walk(b)
            yield from walk(s.orelse)
        elif isinstance(s, (ir.Each, ir.Delayed, ir.Guard)):
            yield from walk(s.body)
        elif isinstance(s, ir.ModeratorChoice):
            yield from walk(s.body)
            yield from walk(s.orelse)


def hooks_in_order(prog: ir.Program) -> list[tuple[int, ir.Hook, str]]:
    """The spec's phase hooks in spec order: (role, or -1 for a top-level hook; the hook; the
    engine's function `_hook_N`). The order the tables HOOKS_* list them in and the compiled
    night unrolls them in (compiler/backend/nightgen.py)."""
    found = [(-1, h) for h in prog.hooks] + [(r.idx, h) for r in prog.roles for h in r.hooks]
    found.sort(key=lambda rh: (rh[1].span.line, rh[1].span.col))
    return [(r, h, f"_hook_{i}") for i, (r, h) in enumerate(found)]


def any_deaths_in_order(prog: ir.Program) -> list[tuple[int, ir.Trigger, str]]:
    """The spec's `on any death` triggers in spec order: (role, or -1 for a top-level one; the
    trigger; the engine's function `_any_death_N`), as the table ANY_DEATH lists them."""
    found = [(-1, t) for t in prog.any_deaths]
    found += [(r.idx, t) for r in prog.roles for t in r.any_deaths]
    found.sort(key=lambda rt: (rt[1].span.line, rt[1].span.col))
    return [(r, t, f"_any_death_{i}") for i, (r, t) in enumerate(found)]
