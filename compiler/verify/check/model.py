"""Shared pieces of the checks: findings, the per-spec context, IR walking helpers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.dsl.diagnostics import Span, source_lines


@dataclass
class Finding:
    code: str
    severity: str  # error | warning
    message: str
    span: Span
    evidence: list[str] = field(default_factory=list)
    notes: tuple[tuple[str, Span], ...] = ()
    hint: str | None = None
    witness: dict | None = None  # machine-readable witness (json/sarif properties)
    unknown: bool = False  # not proven either way (K000, an unconfirmed K002): --strict fails

    def key(self):
        return (self.span.file, self.span.line, self.span.col, self.code, self.message)


def bodies(ab):
    """All statement blocks of an ability: body, inverted, stolen."""
    return (
        tuple(ab.body)
        + tuple(getattr(ab, "inverted", None) or ())
        + tuple(getattr(ab, "stolen", None) or ())
    )


def walk(stmts, path=()):
    """Yield (stmt, path) for every statement, nested blocks included (the semantics table
    says which fields hold them); path is a tuple of (cond_expr, positive) guards."""
    return sem.walk(stmts, path)


def subexprs(e):
    """Every sub-expression of an IR expression (pre-order)."""
    return sem.subexprs(e)


def stmt_exprs(s):
    """The expressions a statement evaluates itself (not those of nested blocks)."""
    return sem.own_exprs(s)


def immune_causes(role, *, certain=True):
    """Causes the role is immune to; certain=True: only unconditional, unlimited immunities."""
    out = set()
    for im in role.immune:
        if isinstance(im, int):
            out.add(im)
            continue
        if certain and (getattr(im, "unless", -1) != -1 or getattr(im, "times", 0)):
            continue
        out.update(im.causes)
    return out


def survives(ctx, role: int, kill) -> bool:
    """Does a player of `role` always survive this kill (non-piercing, and the role is
    unconditionally immune to its cause or its innate defence is at least the attack)?"""
    if kill.cause in ctx.replaced[role]:
        return True  # an `instead of death` without `when`
    if kill.piercing:
        return False
    if kill.cause in ctx.immune[role]:
        return True
    return getattr(ctx.p.roles[role], "defense", 0) >= getattr(kill, "attack", 1)


def immunity_span(role, cause):
    for im in role.immune:
        if not isinstance(im, int) and cause in im.causes:
            return im.span
    return role.span


class Context:
    """Everything the checks share about one compiled spec."""

    def __init__(
        self,
        program: ir.Program,
        source: str,
        python: str | Callable[[], str] | None = None,
    ):
        self.p = program
        self.source = source
        self._python = python  # the engine source, or a function emitting it on first use
        self.lines = source_lines(source)
        p = program
        self.custom = tuple(getattr(p, "custom_setups", ()) or ())
        self.custom_sizes = sorted({n for c in self.custom for n in range(c[1], c[2] + 1)})
        self.sizes = sorted({s.size for s in p.setups} | set(self.custom_sizes))
        self.nroles = len(p.roles)
        self.role_team = [r.team for r in p.roles]
        # roles some statement converts players into: present whenever their convert source is
        # (abilities and death triggers: a conversion in a hook, a reaction or `on any death`
        # is not counted here, since presence is per size, not per seated source: counting
        # tos's `on any death` successions would seat a mafia at tables without one)
        self.convert_dest = sorted(sem.convert_dests(p, ("ability", "trigger")))
        self.immune = [immune_causes(r) for r in p.roles]
        self.defense = [getattr(r, "defense", 0) for r in p.roles]
        # a status (`powerless`, `malfunctions`) a statement can set suspends immunities and
        # defence levels (semantics.FIELDS): then none of them is certain
        status = set(sem.status_marks(p))
        suspendable = bool(status) and any(
            isinstance(n, ir.SetMark) and not n.remove and n.mark in status for n in ir.nodes(p)
        )
        if suspendable:
            self.immune = [set() for _ in p.roles]
            self.defense = [0 for _ in p.roles]
        # causes whose deaths an `instead of death` without `when` always replaces (piercing
        # kills too), per role; none while a status can suspend it
        every = set(range(len(p.causes)))
        self.replaced: list[set[int]] = [
            set()
            if suspendable
            else {c for rp in r.replacements if rp.when is None for c in (rp.causes or every)}
            for r in p.roles
        ]
        # (role, size) -> max count over the setups of that size
        self.max_count: dict[tuple[int, int], int] = {}
        for s in p.setups:
            for r, c in s.counts:
                k = (r, s.size)
                self.max_count[k] = max(self.max_count.get(k, 0), c)
        for n in self.custom_sizes:  # a custom setup may seat any role (its `where` is not solved)
            for r in range(self.nroles):  # but a title's role, which no seat is dealt
                self.max_count[(r, n)] = 0 if p.roles[r].title else n

    @property
    def python(self) -> str | None:
        """The generated engine (K002 replays through it): emitted only when a check asks."""
        if callable(self._python):
            self._python = self._python()
        return self._python

    def all_setups(self):
        """The fixed setups, then sample tables drawn from the custom `any where` rules."""
        return tuple(self.p.setups) + self.samples()

    def samples(self):
        if "_samples" not in self.__dict__:
            from maf.compiler.verify.check.samples import sample_tables

            self._samples = sample_tables(self)
        return self._samples

    def query(self, ab):
        """The shared incremental solver of one ability (targets, filters asserted)."""
        from maf.compiler.verify.check.abq import AbilityQuery

        qs = self.__dict__.setdefault("_queries", {})
        if ab.idx not in qs:
            qs[ab.idx] = AbilityQuery(self, ab)
        return qs[ab.idx]

    def present(self, role: int, size: int) -> bool:
        return self.max_count.get((role, size), 0) > 0 or role in self.convert_dest

    def coexist(self, roles, other: int) -> bool:
        """Can a player of one of `roles` and a player of `other` sit at the same table?"""
        if self.custom:
            return True  # a custom table may seat any roles together (its `where` is not solved)
        conv = set(self.convert_dest)
        for s in self.p.setups:
            seated = {r for r, c in s.counts if c} | conv
            if other in seated and any(r in seated for r in roles):
                return True
        return False

    def cap(self, role: int, size: int) -> int:
        """Upper bound on the living players of `role` at `size`."""
        return size if role in self.convert_dest else self.max_count.get((role, size), 0)

    def actor_roles(self, ab: ir.Ability) -> tuple[int, ...]:
        """Roles whose players may use the ability (all roles: cards, granted by a mark)."""
        if ab.role < 0 or getattr(ab, "granted", -1) >= 0 or self.p.roles[ab.role].title:
            # (a title's ability is whoever holds the title's: any seat's)
            return tuple(range(self.nroles))
        return tuple(dict.fromkeys((ab.role,) + tuple(ab.holders)))

    def line_of(self, span: Span) -> str:
        if 0 < span.line <= len(self.lines):
            return self.lines[span.line - 1].split("//")[0].strip()
        return ""

    def role_name(self, r: int) -> str:
        return self.p.roles[r].id if 0 <= r < self.nroles else "?"

    def team_name(self, t: int) -> str:
        return self.p.teams[t].id if 0 <= t < len(self.p.teams) else "(none)"

    def cause_name(self, c: int) -> str:
        return self.p.causes[c]

    def loc(self, span: Span) -> str:
        return f"line {span.line}"
