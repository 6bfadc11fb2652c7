"""What each night ability reads and writes while the night resolves (for ordering checks).

Engine semantics (compiler/runtime/core.py): target filters are checked when actions are
validated, before anything resolves, so they never depend on the order. During resolution:
kills go to a pending list settled at dawn and protections accumulate, so kill/protect commute;
`mark`/`unmark` change marks at once (read by `has`, and by `inverted` via inverting marks);
`convert` changes role and team at once (read by role/team/living/living_role/`in`);
`remember` writes the actor's own memory (read by `recall`); `trial` replaces the scheduled
trial; `steal` redirects the targets of abilities resolving after it; `wins` sets the winner
if none is set; `guard` replaces any earlier guard of the same seat (so two guards do not
commute: the later one is the one who dies). `tell`/`announce` only append messages and are
treated as commuting. `block x` stops x's abilities that resolve after it: every blockable
night ability reads the blocks (as does `blocked(x)`), so a block is an ordering edge, blocker
before blocked.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from maf.compiler.ir import nodes as ir
from maf.compiler.verify.check.model import bodies, stmt_exprs, subexprs, walk
from maf.dsl.diagnostics import Span


@dataclass
class Effects:
    reads: dict[tuple, Span] = field(default_factory=dict)
    writes: dict[tuple, Span] = field(default_factory=dict)


def _reads_of(e, out, span_default):
    for x in subexprs(e):
        if isinstance(x, ir.Call):
            if x.func == "has" and isinstance(x.args[1], ir.Sym):
                out.setdefault(("mark", x.args[1].idx), x.span)
            elif x.func in ("role", "team", "living", "living_role"):
                out.setdefault(("role",), x.span)
            elif x.func == "recall" and isinstance(x.args[0], ir.Sym):
                out.setdefault(("mem", x.args[0].idx), x.span)
            elif x.func == "blocked":
                out.setdefault(("block",), x.span)
            elif x.func in ("visitors", "visits"):
                out.setdefault(("visit",), x.span)  # the visits resolved so far tonight
        elif isinstance(x, ir.In):
            out.setdefault(("role",), x.span)


def _skip_later(stmts):
    """The statements that run while the ability resolves: not a delayed block (it runs at the
    start of a later night, before any action) nor a guard's reaction (it runs when the kills
    settle, after every action)."""
    out = []
    for s in stmts:
        name = type(s).__name__
        if name == "Delayed":
            continue
        if isinstance(s, ir.Guard) and s.body:
            s = dataclasses.replace(s, body=())
        elif isinstance(s, ir.If):
            s = dataclasses.replace(
                s,
                branches=tuple((c, tuple(_skip_later(b))) for c, b in s.branches),
                orelse=tuple(_skip_later(s.orelse)),
            )
        elif isinstance(getattr(s, "body", None), tuple):
            s = dataclasses.replace(s, body=tuple(_skip_later(s.body)))
        out.append(s)
    return out


def effects(p: ir.Program, ab: ir.Ability) -> Effects:
    ef = Effects()
    body = tuple(_skip_later(bodies(ab)))
    for s, _ in walk(body):
        for e in stmt_exprs(s):
            _reads_of(e, ef.reads, s.span)
        if isinstance(s, ir.SetMark):
            ef.writes.setdefault(("mark", s.mark, "unset" if s.remove else "set"), s.span)
        elif isinstance(s, ir.Convert):
            ef.writes.setdefault(("role", s.role), s.span)
        elif isinstance(s, ir.Remember):
            ef.writes.setdefault(("mem", s.slot), s.span)
        elif isinstance(s, ir.Trial):
            ef.writes.setdefault(("trial",), s.span)
        elif isinstance(s, ir.Steal):
            ef.writes.setdefault(("targets",), s.span)
        elif isinstance(s, ir.WinNow):
            ef.writes.setdefault(("winner", s.kind, s.idx), s.span)
        elif isinstance(s, ir.Block):
            ef.writes.setdefault(("block",), s.span)
        elif isinstance(s, ir.Guard):
            # the engine keeps one guard per seat: a later guard replaces an earlier one
            ef.writes.setdefault(("guard",), s.span)
    if getattr(ab, "visits", False) and ab.at_night:
        # it visits its targets when it resolves: `visitors(x)`/`visits(x)` see it only after
        ef.writes.setdefault(("visit",), ab.span)
    if ab.inverted is not None:
        for m in p.marks:
            if m.inverts:
                ef.reads.setdefault(("mark", m.idx), ab.span)
    if ab.targets:
        ef.reads.setdefault(("targets",), ab.span)
    if not getattr(ab, "unblockable", False):
        ef.reads.setdefault(("block",), ab.span)  # a block stops it if it comes first
    return ef


def _read_key(wkey):
    """The read resource a write key affects."""
    if wkey[0] == "mark":
        return ("mark", wkey[1])
    if wkey[0] == "role":
        return ("role",)
    if wkey[0] == "mem":
        return ("mem", wkey[1])
    if wkey[0] == "targets":
        return ("targets",)
    if wkey[0] == "block":
        return ("block",)
    if wkey[0] == "visit":
        return ("visit",)
    return None


def flows(a: Effects, b: Effects):
    """(write key, write span, read span): what `a` writes that `b` reads."""
    out = []
    for wk, ws in a.writes.items():
        rk = _read_key(wk)
        if rk is not None and rk in b.reads:
            out.append((wk, ws, b.reads[rk]))
    return out


def clashes(a: Effects, b: Effects):
    """(key a, span a, key b, span b): writes of both that do not commute."""
    out = []
    for ka, sa in a.writes.items():
        for kb, sb in b.writes.items():
            if ka[0] != kb[0]:
                continue
            if ka[0] == "mark" and ka[1] == kb[1] and ka[2] != kb[2]:
                out.append((ka, sa, kb, sb))
            elif ka[0] == "role" and ka[1] != kb[1]:
                out.append((ka, sa, kb, sb))
            elif ka[0] in ("trial", "targets", "guard"):
                out.append((ka, sa, kb, sb))
            elif ka[0] == "winner" and ka != kb:
                out.append((ka, sa, kb, sb))
    return out


def describe(p: ir.Program, key) -> str:
    k = key[0]
    if k == "mark":
        m = p.marks[key[1]].id
        if len(key) > 2:
            return f"{'removes' if key[2] == 'unset' else 'sets'} mark `{m}`"
        return f"mark `{m}`"
    if k == "role":
        return f"converts a player to `{p.roles[key[1]].id}`" if len(key) > 1 else "roles/teams"
    if k == "mem":
        return f"memory `{p.memslots[key[1]]}`"
    if k == "trial":
        return "schedules the trial"
    if k == "targets":
        return "targets (steal)"
    if k == "winner":
        return "declares a winner"
    if k == "block":
        return "blocks a player"
    if k == "visit":
        return "visits its target (seen by `visitors`/`visits`)" if len(key) == 1 else "visits"
    if k == "guard":
        return "guards a seat (one guard per seat: the later one replaces the earlier)"
    return str(key)


def before_closure(p: ir.Program):
    """ability idx -> set of abilities it is declared (transitively) to resolve before."""
    succ = {a.idx: set(a.before) for a in p.abilities}
    out = {}
    for a in succ:
        seen, stack = set(), list(succ[a])
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(succ.get(x, ()))
        out[a] = seen
    return out


def forced(p: ir.Program, a: ir.Ability, b: ir.Ability, closure) -> bool:
    """Is the relative order of a and b decided by the spec (not only by definition order)?"""
    if a.tier != b.tier:
        return True
    if b.idx in closure[a.idx] or a.idx in closure[b.idx]:
        return True
    # the compiler's tie-break is definition order; a rank against it means a declaration
    return (a.rank < b.rank) != (a.idx < b.idx)
