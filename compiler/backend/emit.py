"""IR -> Python source, through the Jinja2 template ``templates/engine.py.j2``.

The template receives a view model whose code fragments are already rendered here. Nothing from
a spec reaches the output except through ``ident()`` (names) and ``repr()`` (literals); source
lines quoted in comments go through ``comment()``.
"""

from __future__ import annotations

import keyword
import re
from functools import lru_cache
from typing import Any

import jinja2

from maf.compiler import runtime
from maf.compiler.backend.layout import wrap
from maf.compiler.ir import nodes as ir
from maf.dsl.diagnostics import source_lines

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


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("maf.compiler.backend", "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["c"] = comment
    return env


# How each built-in function reads the engine state ({me}: the acting seat).
_CALLS = {
    "alive": "g.alive[{0}]",
    "role": "g.role[{0}]",
    "team": "g.team[{0}]",
    "living": "g.nteam[{0}]",
    "living_role": "g.living_role({0})",
    "has": "(g.marks[{0}] & {1} != 0)",  # {1}: the mark's bit (Code.ex), `== 0` under `not`
    "acted": "g.acted({0}, {1})",
    "recall": "g.memory[{at}]",  # {at}: the seat's slot in the flat array (_Code.mem_at)
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


class _Code:
    """Renders IR expressions and statements for one program."""

    def __init__(self, prog: ir.Program, lines: list[str]):
        self.p = prog
        self.lines = lines  # spec source lines, for comments
        self.features: set[str] = set()  # runtime machinery the rendered code needs
        if _uses_levels(prog):  # decided up front: it shapes every queued kill
            self.features.add("levels")
        self.closures: list[dict] = []  # delayed blocks and guard reactions, as functions
        self._exact = 0  # > 0 inside a rounding call: `//` is emitted exact (`_q`)

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
    def ex(self, e: ir.Expr, env: dict[str, str], member: str = " in ") -> str:  # noqa: C901
        """The Python code of `e`; a membership test (`in`, has(...), ...) is written with
        `member` (" not in " for the operand of `not`)."""
        p = self.p
        if isinstance(e, ir.Const):
            if isinstance(e.value, bool) or isinstance(e.value, int) or isinstance(e.value, str):
                return repr(e.value)
            raise TypeError(type(e.value))  # pragma: no cover
        if isinstance(e, ir.Var):
            return env[e.name]
        if isinstance(e, ir.Builtin):
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
        if isinstance(e, ir.Sym):
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
        if isinstance(e, ir.Unary):
            x = e.operand
            if e.op == "not" and (
                isinstance(x, (ir.In, ir.InSet))
                or (isinstance(x, ir.Call) and x.func in _MEMBERSHIP_CALLS)
            ):
                return self.ex(x, env, " not in ")
            arg = self.ex(e.operand, env)
            return f"(not {arg})" if e.op == "not" else f"(-{arg})"
        if isinstance(e, ir.Binary):
            op = {"/": "//"}.get(e.op, e.op)
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
        if isinstance(e, ir.In):
            table = "R" if e.kind == "role" else "T"
            items = [
                const(table, (p.roles if e.kind == "role" else p.teams)[i].id) for i in e.members
            ]
            return f"({self.ex(e.value, env)}{member}({', '.join(items)},))"
        if isinstance(e, ir.InSet):
            return f"({self.ex(e.value, env)}{member}{self.ex(e.seats, env)})"
        if isinstance(e, ir.Call):
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
                    args[1] = const("MB", p.marks[m.idx].id)
                else:
                    args[1] = f"(1 << {args[1]})"
                if member == " not in ":
                    template = template.replace("!=", "==")
            elif e.func in _MEMBERSHIP_CALLS:
                template = template.replace(" in ", member)
            me = env.get("self", "0")
            if e.func == "recall":
                return template.format(at=self.mem_at(me, args[0]))
            return template.format(*args, me=me)
        if isinstance(e, ir.Quant):
            var = f"q_{ident(e.var)}"
            inner = dict(env)
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
        raise AssertionError(e)  # pragma: no cover

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
            }.get(e.func, "int")
        return "int"

    # -- statements
    def block(self, body, env, indent: int, out: list[str]) -> None:
        pad = "    " * indent
        if not body:
            out.append(pad + "pass")
            return
        for s in body:
            self.stmt(s, env, indent, out)

    def stmt(self, s: ir.Stmt, env, indent: int, out: list[str]) -> None:  # noqa: C901
        pad = "    " * indent
        x = lambda e: self.ex(e, env)  # noqa: E731
        me = env.get("self", "0")
        if not isinstance(s, ir.If):
            out.append(f"{pad}# {self.src(s.span)}")
        if isinstance(s, ir.Kill):
            cause = const("C", self.p.causes[s.cause])
            # a kill carries its attack level only in a spec that has levels
            attack = f", {s.attack!r}" if "levels" in self.features else ""
            if (isinstance(s.target, ir.Var) and s.target.name not in _MAYBE_NO_SEAT) or (
                isinstance(s.target, ir.Builtin) and s.target.name == "self"
            ):
                # a validated seat: queue the kill directly (the hot path of every night)
                out.append(
                    f"{pad}g.pending.append(({x(s.target)}, {cause}, {s.piercing!r}, {me}{attack}))"
                )
            else:
                out.append(f"{pad}g.kill({x(s.target)}, {cause}, {s.piercing!r}, {me}{attack})")
        elif isinstance(s, ir.Protect) and s.level >= 0:
            out.append(f"{pad}g.shield({x(s.target)}, {s.level!r})")
        elif isinstance(s, ir.Protect):
            causes = ", ".join(const("C", self.p.causes[c]) for c in s.causes)
            out.append(f"{pad}g.protect({x(s.target)}, ({causes},))")
        elif isinstance(s, ir.Guard):
            causes = ", ".join(const("C", self.p.causes[c]) for c in s.causes)
            if s.body:
                k, captured = self.closure(s.body, env, ("attacker",), s.span, "guard reaction")
                out.append(f"{pad}g.guard({x(s.target)}, ({causes},), {me}, ({k}, {captured}))")
            else:
                out.append(f"{pad}g.guard({x(s.target)}, ({causes},), {me})")
        elif isinstance(s, ir.Block):
            self.features.add("blocks")
            out.append(f"{pad}g.block({x(s.target)}, {me})")
        elif isinstance(s, ir.Delayed):
            self.features.add("delays")
            k, captured = self.closure(s.body, env, (), s.span, f"in {s.nights} nights")
            out.append(f"{pad}g.delay({s.nights!r}, {k}, {me}, {captured})")
        elif isinstance(s, ir.SetMark):  # a seat's marks: a bit mask, bit MB_ per mark
            m = const("MB", self.p.marks[s.mark].id)
            if s.remove:
                out.append(f"{pad}g.marks[{x(s.target)}] &= ~{m}")
            else:
                out.append(f"{pad}g.marks[{x(s.target)}] |= {m}")
        elif isinstance(s, ir.Convert):
            out.append(f"{pad}g.convert({x(s.target)}, {const('R', self.p.roles[s.role].id)})")
        elif isinstance(s, ir.Tell):
            to = x(s.to) if s.to is not None else me
            out.append(f"{pad}g.tell({to}, {self.joined_text(s.parts, env)})")
        elif isinstance(s, ir.SkipNight):
            out.append(f"{pad}g.skip_night()")
        elif isinstance(s, ir.CancelVote):
            out.append(f"{pad}g.cancel_vote()")
        elif isinstance(s, ir.Each) and s.source is not None:
            var = f"v_{ident(s.var)}"
            inner = dict(env)
            inner[s.var] = var
            out.append(f"{pad}for {var} in sorted({x(s.source)}):")
            self.block(s.body, inner, indent + 1, out)
        elif isinstance(s, ir.Each):
            var = f"v_{ident(s.var)}"
            inner = dict(env)
            inner[s.var] = var
            out.append(f"{pad}for {var} in range(1, g.n + 1):")
            out.append(f"{pad}    if g.alive[{var}] and {self.ex(s.filter, inner)}:")
            self.block(s.body, inner, indent + 2, out)
        elif isinstance(s, ir.Announce):
            out.append(f"{pad}g.announce({self.joined_text(s.parts, env)})")
        elif isinstance(s, ir.Remember):
            out.append(f"{pad}g.memory[{self.mem_at(me, repr(s.slot))}] = {x(s.value)}")
        elif isinstance(s, ir.Trial):
            out.append(
                f"{pad}g.schedule_trial({me}, ability, {x(s.a)}, {x(s.b)}, "
                f"{s.refund!r}, {s.reveal!r}, {s.tie!r})"
            )
        elif isinstance(s, ir.Steal):
            out.append(f"{pad}g.steal({me}, {x(s.source)}, {x(s.dest)})")
        elif isinstance(s, ir.Revive):
            out.append(f"{pad}g.revive({x(s.target)})")
        elif isinstance(s, ir.Weight):
            out.append(f"{pad}g.weigh({me}, {x(s.value)})")
        elif isinstance(s, ir.WinNow):
            who = (self.p.teams if s.kind == "team" else self.p.roles)[s.idx].id
            out.append(f"{pad}g.win_now({who!r})")
        elif isinstance(s, ir.MiddleSwap):
            out.append(f"{pad}g.middle_swap({x(s.target)}, {const('R', self.p.roles[s.role].id)})")
        elif isinstance(s, ir.CallAbility):
            seat = x(s.seat) if s.seat is not None else me
            out.append(f"{pad}g.call_ability({seat}, {const('A', self.p.abilities[s.ability].id)})")
        elif isinstance(s, ir.If):
            for i, (cond, body) in enumerate(s.branches):
                out.append(f"{pad}# {self.src(cond.span)}")
                out.append(f"{pad}{'if' if i == 0 else 'elif'} {x(cond)}:")
                self.block(body, env, indent + 1, out)
            if s.orelse:
                out.append(f"{pad}else:")
                self.block(s.orelse, env, indent + 1, out)
        else:  # pragma: no cover
            raise AssertionError(s)

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
        self.block(body, inner, 1, entry["body"])
        captured = "(" + "".join(f"{env[n]}, " for n in names) + ")"
        return k, captured


def _trial_cancel(code: _Code, prog: ir.Program) -> list[dict]:
    """Trial cancel conditions, one function per ability that schedules a trial."""
    out = []
    for ab in prog.abilities:
        for st in _walk(ab.body):
            if isinstance(st, ir.Trial) and st.cancel_when is not None:
                env = {
                    "self": "actor",
                    st.a.name if isinstance(st.a, ir.Var) else "_a": "a",
                    st.b.name if isinstance(st.b, ir.Var) else "_b": "b",
                }
                out.append(
                    {
                        "aid": ident(ab.id),
                        "const": const("A", ab.id),
                        "expr": code.ex(st.cancel_when, env),
                        "src": code.src(st.span),
                    }
                )
    return out


def _walk(body):
    for s in body:
        yield s
        if isinstance(s, ir.If):
            for _, b in s.branches:
                yield from _walk(b)
            yield from _walk(s.orelse)
        elif isinstance(s, (ir.Each, ir.Delayed, ir.Guard)):
            yield from _walk(s.body)


def _fn_block(code: _Code, body, env) -> list[str]:
    out: list[str] = []
    code.block(body, env, 1, out)
    return out


def _exprs(prog: ir.Program):
    """Every expression node of the program (to find which built-ins a spec reads)."""
    stack: list = [prog]
    while stack:
        x = stack.pop()
        if isinstance(x, (tuple, list)):
            stack.extend(x)
        elif hasattr(x, "__dataclass_fields__"):
            if isinstance(x, ir.EXPR_NODES):
                yield x
            stack.extend(getattr(x, f) for f in x.__dataclass_fields__)


def view_model(prog: ir.Program, source_text: str) -> dict:
    from maf.compiler.backend import nightgen  # noqa: PLC0415 - it builds on _Code

    code = _Code(prog, source_lines(source_text))
    abilities = []
    for ab in prog.abilities:
        params = [f"v_{ident(t.name)}" for t in ab.targets] + [
            f"v_{ident(c.name)}" for c in ab.choices
        ]
        env = {"self": "actor"}
        env.update({t.name: f"v_{ident(t.name)}" for t in ab.targets})
        env.update({c.name: f"v_{ident(c.name)}" for c in ab.choices})
        body: list[str] = []
        code.block(ab.body, env, 1, body)
        inv: list[str] = []
        if ab.inverted is not None:
            code.block(ab.inverted, env, 1, inv)
        stl: list[str] = []
        if ab.stolen is not None:
            code.block(ab.stolen, env, 1, stl)
        when = code.ex(ab.when, env) if ab.when is not None else None
        filters = []
        for k, t in enumerate(ab.targets):
            fenv = {"self": "actor"}
            fenv.update({tt.name: f"v_{ident(tt.name)}" for tt in ab.targets[: k + 1]})
            filters.append(
                {
                    "params": [f"v_{ident(tt.name)}" for tt in ab.targets[: k + 1]],
                    "expr": code.ex(t.filter, fenv),
                    "src": code.src(t.span),
                    "name": t.name,
                    "text": code.text(t.span),
                }
            )
        fast = None
        if (
            not ab.choices
            and ab.when is None
            and not ab.norepeat
            and ab.granted < 0
            and ab.phase not in ("card", "call")
            and ab.life != "dead"
        ):
            fast = {
                "targets": [f"v_{ident(t.name)}" for t in ab.targets],
                "filters": [f["expr"] for f in filters],
                "group": ab.exclusive_group,
                "table_group": ab.table_group,
                "per_game": ab.per_game,
                "self_per_game": ab.self_per_game,
                "rank": ab.rank,
                "from": ab.from_number,
                "phase_test": (
                    "phase == 'vote'" if ab.phase == "any" else f"phase != {ab.phase!r}"
                ),
                "quiet": {
                    "night": "QUIET_NIGHTS",
                    "any": "(QUIET_NIGHTS if phase == 'night' else QUIET_DAYS)",
                }.get(ab.phase, "QUIET_DAYS"),
            }
        abilities.append(
            {
                "ab": ab,
                "fn": ident(ab.id),
                "const": const("A", ab.id),
                "fast": fast,
                "params": params,
                "body": body,
                "inverted": inv if ab.inverted is not None else None,
                "stolen": stl if ab.stolen is not None else None,
                "filters": filters,
                "src": code.src(ab.span),
                "when": when,
                "when_src": code.src(ab.when.span) if ab.when is not None else "",
            }
        )
    death_env = {"self": "seat", "victim": "seat", "killer": "killer", "cause": "cause"}
    triggers = []
    for role in prog.roles:
        for k, tr in enumerate(role.triggers):
            triggers.append(
                {
                    "role": role,
                    "k": k,
                    "fn": f"{ident(role.id)}_{k}",
                    "causes": [const("C", prog.causes[c]) for c in tr.causes],
                    "body": _fn_block(code, tr.body, death_env),
                    "src": code.src(tr.span),
                }
            )
    # reactions: per role (always active) and per ability (on a night its seat used it)
    reactions = []
    for kind, who in (("visited", "visitor"), ("blocked", "blocker")):
        for role in prog.roles:
            rs = [r for r in role.reactions if r.kind == kind]
            if rs:
                body = [
                    line for r in rs for line in _fn_block(code, r.body, {"self": "seat", who: who})
                ]
                reactions.append(
                    {
                        "kind": kind,
                        "who": who,
                        "role": role.idx,
                        "ab": -1,
                        "fn": f"_{kind}_{ident(role.id)}",
                        "body": body,
                        "src": "; ".join(code.src(r.span) for r in rs),
                    }
                )
        for ab in prog.abilities:
            rs = [r for r in ab.reactions if r.kind == kind]
            if rs:
                body = [
                    line for r in rs for line in _fn_block(code, r.body, {"self": "seat", who: who})
                ]
                reactions.append(
                    {
                        "kind": kind,
                        "who": who,
                        "role": -1,
                        "ab": ab.idx,
                        "fn": f"_{kind}_{ident(ab.id)}",
                        "body": body,
                        "src": "; ".join(code.src(r.span) for r in rs),
                    }
                )
    if any(r["kind"] == "visited" for r in reactions):
        code.features.add("visits")
    # hooks and `on any death`, global (role -1, no self) and per role, in spec order
    hooks: list[dict[str, Any]] = []
    for role_idx, h, fn in hooks_in_order(prog):
        env = {"self": "seat"} if role_idx >= 0 else {}
        hooks.append(
            {
                "when": h.when,
                "role": role_idx,
                "fn": fn,
                "body": _fn_block(code, h.body, env),
                "src": code.src(h.span),
            }
        )
    any_deaths: list[dict[str, Any]] = []
    for role_idx, tr, fn in any_deaths_in_order(prog):
        env = dict(death_env, victim="victim")
        if role_idx < 0:
            del env["self"]
        any_deaths.append(
            {
                "role": role_idx,
                "fn": fn,
                "causes": [const("C", prog.causes[c]) for c in tr.causes],
                "body": _fn_block(code, tr.body, env),
                "src": code.src(tr.span),
            }
        )
    wins = [
        {
            "who": (prog.teams if w.kind == "team" else prog.roles)[w.idx].id,
            "expr": code.ex(w.cond, {}),
            "src": code.src(w.span),
        }
        for w in prog.wins
    ]
    draws = [{"expr": code.ex(e, {}), "src": code.src(e.span)} for e in prog.draws]
    cowinners = [
        {
            "role": r,
            "const": const("R", r.id),
            "expr": " or ".join(code.ex(e, {"self": "seat"}) for e in r.alongside),
            "src": "; ".join(code.src(e.span) for e in r.alongside),
        }
        for r in prog.roles
        if r.alongside
    ]
    start_hooks: list[dict[str, Any]] = []
    for k, stmts in enumerate(prog.start):
        out: list[str] = []
        code.block(stmts, {}, 1, out)
        start_hooks.append({"fn": f"_start_{k}", "role": None, "body": out})
    for r in prog.roles:
        for k, stmts in enumerate(r.start):
            out = []
            code.block(stmts, {"self": "seat"}, 1, out)
            start_hooks.append({"fn": f"_start_{ident(r.id)}_{k}", "role": r, "body": out})
    day = prog.day

    def vote_vm(v: ir.Vote | None):
        if v is None:
            return None
        e = lambda x, dflt: code.ex(x, {"defenders": "defenders"}) if x is not None else dflt  # noqa: E731
        return {
            "threshold": e(v.threshold, "1"),
            "defense": e(v.defense, "1"),
            "exempt": v.exempt,
            "forced": v.forced,
            "defenders_vote": e(v.defenders_vote, "True"),
            "tie": v.tie,
            "ballot": v.ballot,
            "src": code.src(v.span),
            "timers": [(n, code.ex(x, {})) for n, x in v.timers],
            "rounds": v.rounds,
            "skips": v.skips,
        }

    setups: dict[int, list] = {}
    for s in prog.setups:
        counts = [0] * len(prog.roles)
        for ri, n in s.counts:
            counts[ri] = n
        setups.setdefault(s.size, []).append((s.label, tuple(counts)))
    vm: dict[str, Any] = {
        "p": prog,
        "ident": ident,
        "const": const,
        "repr": repr,
        "abilities": abilities,
        "triggers": triggers,
        "wins": wins,
        "draws": draws,
        "cowinners": cowinners,
        "start_hooks": start_hooks,
        "votes_read": any(isinstance(x, ir.Call) and x.func == "voted" for x in _exprs(prog)),
        "trial_cancels": _trial_cancel(code, prog),
        "vote": vote_vm(day.vote) if day else None,
        "chaos": vote_vm(day.chaos) if day else None,
        "chaos_when": code.ex(day.chaos_when, {}) if day and day.chaos_when else "False",
        "inquiry": (
            {
                "from_day": day.inquiry.from_day,
                "max": day.inquiry.max,
                "threshold": code.ex(day.inquiry.threshold, {}),
                "when": code.ex(day.inquiry.when, {}) if day.inquiry.when else "True",
            }
            if day and day.inquiry
            else None
        ),
        "speaking": day.speaking if day else None,
        "election": (
            {
                "title": day.election.title,
                "tie": day.election.tie,
                "src": code.src(day.election.span),
                "when": code.ex(day.election.when, {}) if day.election.when else None,
                "threshold": code.ex(day.election.threshold, {}) if day.election.threshold else "1",
            }
            if day and day.election
            else None
        ),
        "steals": any(isinstance(s, ir.Steal) for ab in prog.abilities for s in _walk(ab.body)),
        "day_timers": [(n, code.ex(x, {})) for n, x in day.timers] if day else [],
        "night_timers": [(n, code.ex(x, {})) for n, x in prog.night_timers],
        "setups": sorted(setups.items()),
        "setup_middle": {(s.size, s.label): s.middle for s in prog.setups if s.middle},
        "custom_setups": [
            {"label": lab, "lo": lo, "hi": hi, "expr": code.ex(w, {}), "src": code.src(sp)}
            for lab, lo, hi, w, sp in prog.custom_setups
        ],
        "names": dict(prog.names),
        "reactions": reactions,
        "hooks": hooks,
        "any_deaths": any_deaths,
        "hook_kinds": ("night_start", "night_end", "dawn", "day_start", "day_end"),
        "hook_used": {h["when"] for h in hooks},
        "closures": code.closures,
        "features": code.features,
    }
    # the runtime machinery this engine carries, which its compiled night may call
    features = _runtime_features(code.features, hooks, any_deaths)
    fast_night, fast_night_why = nightgen.render(prog, code.lines, features)
    vm["fast_night"] = fast_night
    vm["fast_night_why"] = fast_night_why
    vm["fast_night_tables"] = nightgen.tables(prog, features) if fast_night else []
    vm["runtime_source"] = runtime.source(features)
    return vm


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


def _runtime_features(features: set[str], hooks: list[dict], any_deaths: list) -> set[str]:
    """The runtime machinery a spec needs (compiler.runtime.FEATURES), folded into its engine."""
    out = set(features) | {f"hook_{h['when']}" for h in hooks}
    if any_deaths:
        out.add("any_deaths")
    return out


_TABLE = re.compile(r"([A-Z_][A-Za-z0-9_]*)(?:: [^=]+)? = ")


def _typed_tables(text: str) -> str:
    """Write on each table of the generated part the type the runtime declares for it
    (runtime.table_types, the one place it is written): `ROLES = (...)` becomes
    `ROLES: tuple[str, ...] = (...)`."""
    types = runtime.table_types()
    lines = text.split("\n")
    for k, line in enumerate(lines):
        m = _TABLE.match(line)
        if m and m.group(1) in types:
            lines[k] = f"{m.group(1)}: {types[m.group(1)]} = {line[m.end() :]}"
    return "\n".join(lines)


def emit(prog: ir.Program, source_text: str) -> str:
    # the templates write each statement and table on one line; layout.wrap breaks the long ones
    text = _env().get_template("engine.py.j2").render(**view_model(prog, source_text))
    return wrap(_typed_tables(text))
