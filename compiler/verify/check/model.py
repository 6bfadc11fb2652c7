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
    return sem.ability_bodies(ab)


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
        # roles an ability or a death trigger converts players into (K002 and --matrix read
        # it); presence follows each conversion's source instead (`made`)
        self.convert_dest = sorted(sem.convert_dests(p, ("ability", "trigger")))
        # every conversion, anywhere (abilities, triggers, hooks, reactions, `on any death`):
        # (new role, the roles one of which must be seated for it to run or None: any, the
        # roles the seat it converts can be or None: any)
        self.conversions = [_conversion_source(self, c) for c in sem.conversions(p)]
        self._made: dict[frozenset[int], frozenset[int]] = {}
        self._made_at: dict[int, frozenset[int]] = {}
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

    def made(self, seated) -> frozenset[int]:
        """The roles conversions can make at a table dealing the roles `seated`: a conversion
        runs only where a seat of its source can sit (the holders of its ability, the role
        whose card carries the trigger, hook or reaction; any seat for a top-level block) and
        the seat it converts can be of a role there (its filter: `self`, a target's, an
        `each`'s or a random pick's); what it makes can be a source in turn (a fixpoint)."""
        key = frozenset(seated)
        got = self._made.get(key)
        if got is None:
            have, made = set(key), set()
            grew = True
            while grew:
                grew = False
                for dest, owners, seats in self.conversions:
                    if dest in made or not have:
                        continue
                    if (owners is None or owners & have) and (seats is None or seats & have):
                        made.add(dest)
                        have.add(dest)
                        grew = True
            got = self._made[key] = frozenset(made)
        return got

    def seated_at(self, size: int) -> frozenset[int]:
        """The roles some setup of that size deals."""
        return frozenset(r for r in range(self.nroles) if self.max_count.get((r, size), 0) > 0)

    def made_at(self, size: int) -> frozenset[int]:
        """The roles conversions can make at some table of that size (cached per size)."""
        got = self._made_at.get(size)
        if got is None:
            got = self._made_at[size] = self.made(self.seated_at(size))
        return got

    def present(self, role: int, size: int) -> bool:
        return self.max_count.get((role, size), 0) > 0 or role in self.made_at(size)

    def coexist(self, roles, other: int) -> bool:
        """Can a player of one of `roles` and a player of `other` sit at the same table?"""
        if self.custom:
            return True  # a custom table may seat any roles together (its `where` is not solved)
        for s in self.p.setups:
            seated = {r for r, c in s.counts if c}
            seated |= self.made(seated)
            if other in seated and any(r in seated for r in roles):
                return True
        return False

    def cap(self, role: int, size: int) -> int:
        """Upper bound on the living players of `role` at `size`."""
        if role in self.made_at(size):
            return size
        return self.max_count.get((role, size), 0)

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


def _conversion_source(
    ctx: Context, conv
) -> tuple[int, frozenset[int] | None, frozenset[int] | None]:
    """(new role, source roles, converted seat's roles) of one sem.conversions entry."""
    dest, site, seat, bound = conv
    owners: frozenset[int] | None = None
    if site.ability is not None:
        roles = ctx.actor_roles(site.ability)
        owners = None if len(roles) == ctx.nroles else frozenset(roles)
    elif site.role is not None:
        owners = frozenset({site.role.idx})
    if isinstance(seat, ir.Builtin) and seat.name == "self":
        return dest, owners, owners
    if isinstance(seat, ir.Var) and seat.name in bound:
        return dest, owners, filter_roles(ctx, seat.name, bound[seat.name])
    if isinstance(seat, ir.Quant):  # a random pick among the seats its condition holds for
        return dest, owners, filter_roles(ctx, seat.var, seat.cond)
    return dest, owners, None


def filter_roles(ctx: Context, var: str, filt) -> frozenset[int] | None:
    """The roles a seat bound to `var` can have under `filt` (K004's three-valued evaluator:
    a role for which it is not definitely false), or None (any role) when the filter reads a
    count of the living (its truth then depends on the state)."""
    from maf.compiler.verify.check.aeval import Seat, aeval

    if sem.counts_read([filt]):
        return None
    ones = [1] * ctx.nroles
    n = max(ctx.sizes, default=0)
    return frozenset(
        r for r in range(ctx.nroles) if aeval(ctx, filt, {var: Seat(r, var)}, ones, n) is not False
    )
