"""AST + analysis -> IR. Runs only on specs without errors; computes the night order.

E032 ordering cycle: tiers and before/after declarations admit no order.
"""

from __future__ import annotations

import heapq

from maf.compiler.ir import nodes as ir
from maf.dsl import ast as A
from maf.dsl.analysis import Analysis
from maf.dsl.codes import Code
from maf.dsl.diagnostics import NO_SPAN, Diagnostics, Span

DEFAULT_TIER = 100


class _Lower:
    def _choosable(self) -> tuple[tuple[str, int], ...]:
        """(name, idx) of the roles a run-time role value can be: every role but a title's."""
        return tuple((n, i) for n, i in self.roles.items() if not self.an.roles[n].title)

    def __init__(self, an: Analysis):
        self.an = an
        self.teams = {n: i for i, n in enumerate(an.teams)}
        self.roles = {n: i for i, n in enumerate(an.roles)}
        self.causes = {n: i for i, n in enumerate(an.causes)}
        self.marks = {n: i for i, n in enumerate(an.marks)}
        self.memslots = {n: i for i, n in enumerate(sorted(an.memslots))}
        self.kinds = {n: i for i, n in enumerate(an.kinds)}
        self.abilities = {k: info.idx for k, info in an.abilities.items()}
        self.index = {
            "role": self.roles,
            "team": self.teams,
            "mark": self.marks,
            "memslot": self.memslots,
            "ability": self.abilities,
            "cause": self.causes,
            "kind": self.kinds,
        }
        # `moderator chooses` sites (Program.moderator_sites) and whose statements are lowered
        self.sites: list[str] = []
        self._owner = "game"
        # information reads (Seen) exist only in a spec where some role `registers as`
        self._registers = any(r.registers for r in an.roles.values())
        self._info = False  # lowering an expression whose value only decides what is told

    # -- expressions
    def expr(self, e: A.Expr) -> ir.Expr:
        if isinstance(e, A.Int):
            return ir.Const(e.span, e.value)
        if isinstance(e, A.Str):
            return ir.Const(e.span, e.value)
        if isinstance(e, (A.Name, A.AbilityRef)):
            kind, value = self.an.res[id(e)]  # analysis resolved every name
            if kind == "local":
                return ir.Var(e.span, value, self.an.types[id(e)])
            if kind == "builtin":
                return ir.Builtin(e.span, value)
            return ir.Sym(e.span, kind, self.index[kind][value], value)
        if isinstance(e, A.Unary):
            return ir.Unary(e.span, e.op, self.expr(e.operand))
        if isinstance(e, A.Binary):
            return ir.Binary(e.span, e.op, self.expr(e.left), self.expr(e.right))
        if isinstance(e, A.Member):
            kind = self.an.types[id(e.value)]
            table = self.index[kind]
            return ir.In(
                e.span, self.expr(e.value), kind, tuple(sorted({table[i.name] for i in e.names}))
            )
        if isinstance(e, A.InSet):
            return ir.InSet(e.span, self.expr(e.value), self.expr(e.seats))
        if isinstance(e, A.Call):
            members = self._side(e)
            if members is not None:  # living(SIDE): its living members, a count of the living
                return ir.Quant(e.span, "count", members[0].name, self.expr(members[1]))
            if self._info and e.func in ("team", "role", "kind") and len(e.args) == 1:
                return ir.Seen(e.span, e.func, self.expr(e.args[0]))
            return ir.Call(e.span, e.func, tuple(self.expr(x) for x in e.args))
        if isinstance(e, A.Quant):
            return ir.Quant(e.span, e.func, e.var.name, self.expr(e.cond))
        raise AssertionError(type(e))  # pragma: no cover

    def _side(self, e: A.Call) -> tuple[A.Ident, A.Expr] | None:
        """The members (variable, condition) of the side `living(SIDE)` counts, or None for
        another call."""
        if e.func != "living" or len(e.args) != 1 or not isinstance(e.args[0], A.Name):
            return None
        if self.an.res.get(id(e.args[0])) != ("team", e.args[0].name):
            return None
        t = self.an.teams[e.args[0].name]
        return t.members if t.side else None

    # -- statements
    def stmts(self, body) -> tuple[ir.Stmt, ...]:
        return tuple(self.stmt(s) for s in body)

    def _told(self, body) -> bool:
        """Does `body` only tell (tell, and if / each / moderator choices of tells)? Then the
        reads that decide it are information: they see registrations (Seen)."""
        for s in body:
            if isinstance(s, A.Tell):
                continue
            if isinstance(s, A.If):
                if not all(self._told(b) for _, b in s.branches) or not self._told(s.orelse or ()):
                    return False
            elif isinstance(s, A.Each):
                if not self._told(s.body):
                    return False
            elif isinstance(s, A.ModeratorChoice):
                if not self._told(s.body) or not self._told(s.orelse or ()):
                    return False
            else:
                return False
        return True

    def _read(self, e: A.Expr, info: bool) -> ir.Expr:
        """An expression lowered as information (`info`: team/role reads see registrations)."""
        was = self._info
        self._info = was or (info and self._registers)
        try:
            return self.expr(e)
        finally:
            self._info = was

    def owned(self, owner: str, body) -> tuple[ir.Stmt, ...]:
        """`body` lowered with `owner` naming its moderator choices (ABILITY, ROLE or game)."""
        was, self._owner = self._owner, owner
        try:
            return self.stmts(body)
        finally:
            self._owner = was

    def stmt(self, s) -> ir.Stmt:
        x = self.expr
        if isinstance(s, A.Kill):
            return ir.Kill(
                s.span,
                x(s.target),
                self.causes[s.cause.name],
                s.piercing,
                1 if s.attack is None else s.attack,
                s.at_once,
            )
        if isinstance(s, A.Protect):
            return ir.Protect(
                s.span,
                x(s.target),
                tuple(self.causes[c.name] for c in s.causes),
                -1 if s.level is None else s.level,
            )
        if isinstance(s, A.Guard):
            return ir.Guard(
                s.span,
                x(s.target),
                tuple(self.causes[c.name] for c in s.causes),
                self.stmts(s.body or ()),
                s.takes,
            )
        if isinstance(s, A.Block):
            return ir.Block(s.span, x(s.target))
        if isinstance(s, A.Visit):
            return ir.Visit(s.span, x(s.target))
        if isinstance(s, A.Delayed):
            return ir.Delayed(s.span, s.nights, self.stmts(s.body))
        if isinstance(s, A.Mark):
            return ir.SetMark(s.span, x(s.target), self.marks[s.mark.name], s.remove)
        if isinstance(s, A.Exchange):
            # for each role the card could be: if it lies in the middle, swap it for the
            # seat's own, and the seat becomes it
            if s.role_expr is None and id(s) not in self.an.res:
                roles: tuple[tuple[str, int], ...] = ((s.role.name, self.roles[s.role.name]),)
                value = None
            else:  # a title's card lies in no middle (no seat is dealt it)
                roles = self._choosable()
                value = (
                    x(s.role_expr)
                    if s.role_expr is not None
                    else ir.Var(s.role.span, s.role.name, "role")
                )
            branches = []
            for name, i in roles:
                sym = ir.Sym(s.span, "role", i, name)
                there = ir.Binary(
                    s.span, ">", ir.Call(s.span, "in_middle", (sym,)), ir.Const(s.span, 0)
                )
                if value is not None:
                    there = ir.Binary(s.span, "and", ir.Binary(s.span, "==", value, sym), there)
                branches.append(
                    (
                        there,
                        (ir.MiddleSwap(s.span, x(s.target), i), ir.Convert(s.span, x(s.target), i)),
                    )
                )
            return ir.If(s.span, tuple(branches), ())
        if isinstance(s, A.Convert):
            if s.role_expr is None and id(s) not in self.an.res:
                return ir.Convert(s.span, x(s.target), self.roles[s.role.name])
            # a role known only at run time (chosen, or read from a seat): one branch per role,
            # so that every later stage sees conversions to fixed roles; none to a title's
            # role, which no choice names and no seat holds (CHOICE_VALUES)
            value = (
                x(s.role_expr)
                if s.role_expr is not None
                else ir.Var(s.role.span, s.role.name, "role")
            )
            return ir.If(
                s.span,
                tuple(
                    (
                        ir.Binary(s.span, "==", value, ir.Sym(s.span, "role", i, name)),
                        (ir.Convert(s.span, x(s.target), i),),
                    )
                    for name, i in self._choosable()
                ),
                (),
            )
        if isinstance(s, A.Tell):
            return ir.Tell(
                s.span,
                tuple(self._read(p, True) for p in s.parts),
                x(s.to) if s.to is not None else None,
            )
        if isinstance(s, A.ModeratorChoice):
            base = f"{self._owner}:{s.var.name}"
            site = base
            k = 1
            while site in self.sites:
                k += 1
                site = f"{base}#{k}"
            self.sites.append(site)
            info = self._told(s.body) and self._told(s.orelse or ())
            return ir.ModeratorChoice(
                s.span,
                len(self.sites) - 1,
                s.var.name,
                s.kind.name,
                self._read(s.filter, info) if s.filter is not None else None,
                self.stmts(s.body),
                self.stmts(s.orelse or ()),
            )
        if isinstance(s, A.SkipNight):
            return ir.SkipNight(s.span)
        if isinstance(s, A.CancelVote):
            return ir.CancelVote(s.span)
        if isinstance(s, A.Each):
            return ir.Each(
                s.span,
                s.var.name,
                self._read(s.filter, self._told(s.body)),
                self.stmts(s.body),
                x(s.source) if s.source is not None else None,
            )
        if isinstance(s, A.Announce):
            return ir.Announce(s.span, tuple(x(p) for p in s.parts))
        if isinstance(s, A.Remember):
            return ir.Remember(s.span, self.memslots[s.name.name], x(s.value))
        if isinstance(s, A.Trial):
            return ir.Trial(
                s.span,
                x(s.a),
                x(s.b),
                x(s.cancel_when) if s.cancel_when is not None else None,
                s.refund,
                s.reveal,
                _tie(s.tie),
                s.judgement,
            )
        if isinstance(s, A.Steal):
            return ir.Steal(s.span, x(s.source), x(s.dest))
        if isinstance(s, A.Revive):
            return ir.Revive(s.span, x(s.target))
        if isinstance(s, A.Weight):
            return ir.Weight(s.span, x(s.value))
        if isinstance(s, A.WinNow):
            kind = "team" if s.who.name in self.teams else "role"
            return ir.WinNow(s.span, kind, self.index[kind][s.who.name])
        if isinstance(s, A.CallAbility):
            key = self.an.res[id(s)][1]
            return ir.CallAbility(
                s.span, self.abilities[key], x(s.seat) if s.seat is not None else None
            )
        if isinstance(s, A.If):
            info = all(self._told(b) for _, b in s.branches) and self._told(s.orelse or ())
            return ir.If(
                s.span,
                tuple((self._read(c, info), self.stmts(b)) for c, b in s.branches),
                self.stmts(s.orelse or ()),
            )
        raise AssertionError(type(s))  # pragma: no cover

    # -- declarations
    def ability(self, info, rank: int, group: int, table_group: int) -> ir.Ability:
        ab: A.Ability = info.node
        per_game = min((u.count for u in ab.uses if u.per == "game" and not u.self_only), default=0)
        per_phase = min(
            (u.count for u in ab.uses if u.per != "game" and not u.self_only), default=0
        )
        self_game = min((u.count for u in ab.uses if u.self_only), default=0)
        before = {b for a, b in self.edges if a == info.idx}
        return ir.Ability(
            info.idx,
            info.id,
            self.roles[info.role],
            ab.name.name,
            ab.phase,
            ab.tier[1] if ab.tier else DEFAULT_TIER,
            rank,
            per_game,
            per_phase,
            self_game,
            ab.from_[2] if ab.from_ else 1,
            tuple(self.roles[h.name] for h in ab.held),
            tuple(ir.Target(t.name.name, self.expr(t.filter), t.span) for t in ab.targets),
            tuple(ir.Choice(c.name.name, c.kind.name, c.span) for c in ab.chooses),
            ab.norepeat,
            self.owned(info.id, ab.body),
            self.owned(info.id, ab.inverted) if ab.inverted is not None else None,
            self.owned(info.id, ab.stolen) if ab.stolen is not None else None,
            self.expr(ab.when) if ab.when is not None else None,
            self.marks[ab.granted.name] if ab.granted is not None else -1,
            group,
            table_group,
            tuple(sorted(before)),
            ab.span,
            ab.astral,
            ab.unblockable,
            self.reactions(ab.reactions),
            ab.life,
            tuple(e for n in ab.names for e in n.entries),
        )

    def reactions(self, rs) -> tuple[ir.Reaction, ...]:
        return tuple(ir.Reaction(r.kind, self.stmts(r.body), r.span) for r in rs)

    def hooks(self, hs) -> tuple[ir.Hook, ...]:
        return tuple(ir.Hook(h.when, self.stmts(h.body), h.span) for h in hs)

    def trigger(self, t) -> ir.Trigger:
        return ir.Trigger(
            tuple(self.causes[c.name] for c in t.causes), self.stmts(t.body), t.span, t.any
        )

    def declared_edges(self) -> dict[tuple[int, int], Span]:
        """Every declared ordering (before, after, order) as (earlier, later) -> span."""
        spans: dict[tuple[int, int], Span] = {}
        for i in self.an.abilities.values():
            for r in i.node.before:
                spans[(i.idx, self.abilities[str(r)])] = r.span
            for r in i.node.after:
                spans[(self.abilities[str(r)], i.idx)] = r.span
        for o in self.an.orders:
            spans[(self.abilities[str(o.first)], self.abilities[str(o.second)])] = o.span
        return spans

    def night_order(self, diags: Diagnostics) -> list[int]:
        """Topological order of night abilities: declared edges first, then (tier, position)."""
        infos = [i for i in self.an.abilities.values() if i.node.phase in ir.NIGHT_PHASES]
        key = {i.idx: (i.node.tier[1] if i.node.tier else DEFAULT_TIER, i.idx) for i in infos}
        edges: dict[int, set[int]] = {i.idx: set() for i in infos}
        spans = {
            e: sp for e, sp in self.declared_edges().items() if e[0] in edges and e[1] in edges
        }
        for a, b in spans:
            edges[a].add(b)
        indeg = {n: 0 for n in edges}
        for outs in edges.values():
            for m in outs:
                indeg[m] += 1
        heap = [(key[n], n) for n, d in indeg.items() if d == 0]
        heapq.heapify(heap)
        order = []
        while heap:
            _, n = heapq.heappop(heap)
            order.append(n)
            for m in edges[n]:
                indeg[m] -= 1
                if indeg[m] == 0:
                    heapq.heappush(heap, (key[m], m))
        if len(order) != len(edges):
            stuck = sorted(n for n in edges if indeg[n] > 0)
            names = [f"`{self._aid(n)}`" for n in stuck]
            notes = tuple(
                ("this ordering is part of the cycle", sp)
                for (a, b), sp in sorted(spans.items(), key=lambda kv: kv[1].line)
                if a in stuck and b in stuck
            )
            first = notes[0][1] if notes else NO_SPAN
            diags.error(
                Code.E032,
                f"night orderings form a cycle among {', '.join(names)}",
                first,
                "remove one of the before/after declarations",
                notes=notes[1:],
            )
        return order

    def _aid(self, idx: int) -> str:
        return next(k for k, v in self.abilities.items() if v == idx)

    def program(self, diags: Diagnostics, source: str) -> ir.Program | None:
        an = self.an
        order = self.night_order(diags)
        if diags.has_errors:
            return None
        self.edges = self.declared_edges()
        rank = {idx: r for r, idx in enumerate(order)}
        groups: dict[tuple[str, str], int] = {}
        for role in an.roles.values():
            for k, members in enumerate(role.exclusive):
                for m in members:
                    groups[(role.name.name, m.name)] = 1000 * self.roles[role.name.name] + k
        table_groups = {str(r): k for k, tx in enumerate(an.table_exclusive) for r in tx.refs}
        abilities = tuple(
            self.ability(
                info,
                rank.get(info.idx, 0),
                groups.get((info.role, info.node.name.name), -1),
                table_groups.get(info.id, -1),
            )
            for info in an.abilities.values()
        )
        abilities += tuple(
            ir.Ability(
                len(abilities) + k,
                f"card.{name}",
                -1,
                name,
                "card",
                0,
                0,
                0,
                0,
                0,
                1,
                (),
                tuple(ir.Target(t.name.name, self.expr(t.filter), t.span) for t in c.targets),
                tuple(ir.Choice(ch.name.name, ch.kind.name, ch.span) for ch in c.chooses),
                "",
                self.owned(f"card.{name}", c.body),
                None,
                None,
                None,
                -1,
                -1,
                -1,
                (),
                c.span,
            )
            for k, (name, c) in enumerate(an.cards.items())
        )
        roles = []
        for name, r in an.roles.items():
            self._owner = name
            roles.append(
                ir.Role(
                    self.roles[name],
                    name,
                    self.teams[r.team.name] if r.team else -1,
                    tuple(e for n in r.names for e in n.entries),
                    tuple(self.abilities[f"{name}.{ab.name.name}"] for ab in r.abilities),
                    tuple(
                        ir.Immunity(
                            tuple(self.causes[c.name] for c in imm.causes),
                            self.marks[imm.unless.name] if imm.unless else -1,
                            imm.times or 0,
                            imm.span,
                        )
                        for imm in r.immune
                    ),
                    tuple(self.trigger(t) for t in r.triggers if not t.any),
                    r.span,
                    r.defense[0][1] if r.defense else 0,
                    self.reactions(r.reactions),
                    self.hooks(r.hooks),
                    tuple(self.trigger(t) for t in r.triggers if t.any),
                    tuple(self.expr(al.cond) for al in r.alongside),
                    tuple(self.stmts(h.body) for h in r.start),
                    votes_with=self.votes_with(r),
                    kind=self.kinds[r.kind.name] if r.kind is not None else -1,
                    title=r.title,
                    replacements=tuple(
                        ir.Replacement(
                            tuple(self.causes[c.name] for c in rp.causes),
                            None if rp.when is None else self.expr(rp.when),
                            self.stmts(rp.body),
                            rp.span,
                        )
                        for rp in r.replacements
                    ),
                    registers=tuple(
                        (kind, self.index[kind][n])
                        for reg in r.registers
                        for kind, n in (an.res[id(i)] for _, i in reg.items)
                    ),
                )
            )
        self._owner = "game"
        g = an.game
        if g is None or g.players is None:  # analysis reported it (E011, E040)
            return None
        setups = []
        for s in an.setups:
            if s.where is not None:
                continue
            for size in range(s.lo, s.hi + 1):
                counts = an.setup_counts[(id(s), size)]
                setups.append(
                    ir.Setup(
                        s.label,
                        size,
                        tuple((self.roles[k], v) for k, v in counts.items() if v),
                        s.span,
                        tuple(self.roles[m.name] for m in s.middle),
                    )
                )
        day = None
        if an.day is not None:
            d = an.day
            day = ir.Day(
                self.vote(d.vote),
                self.expr(d.chaos.when) if d.chaos else None,
                self.vote(d.chaos.vote) if d.chaos else None,
                ir.Inquiry(
                    d.inquiry.from_day,
                    d.inquiry.max,
                    self.expr(d.inquiry.threshold),
                    self.expr(d.inquiry.when) if d.inquiry.when else None,
                    d.inquiry.span,
                )
                if d.inquiry
                else None,
                (d.speaking.first, d.speaking.shift, d.speaking.from_day) if d.speaking else None,
                tuple((t.name.name, self.expr(t.value)) for t in d.timers),
                d.span,
                ir.Election(
                    self.marks[d.election.title.name],
                    self.expr(d.election.when) if d.election.when else None,
                    self.expr(d.election.vote.threshold) if d.election.vote.threshold else None,
                    _tie(d.election.vote.tie) or "none",
                    d.election.span,
                )
                if d.election
                else None,
            )
        quiet: dict[str, list[int]] = {"day": [], "night": []}
        for _, phase, nums in g.quiet:
            quiet[phase].extend(nums)
        checks = tuple(dict.fromkeys(ev.name for c in an.checks for ev in c.events)) or ("dawn",)
        return ir.Program(
            g.name.name,
            source,
            tuple(e for n in g.names for e in n.entries),
            g.players[1],
            g.players[2],
            g.first or "night",
            tuple(sorted(set(quiet["day"]))),
            tuple(sorted(set(quiet["night"]))),
            tuple(self.expr(e) for e in g.invariants),
            tuple(
                ir.Team(
                    i,
                    n,
                    tuple(e for nm in t.names for e in nm.entries),
                    t.span,
                    None if t.members is None else self.expr(t.members[1]),
                    "" if t.members is None else t.members[0].name,
                )
                for i, (n, t) in enumerate(an.teams.items())
            ),
            tuple(roles),
            tuple(an.causes),
            tuple(
                ir.Mark(
                    i,
                    n,
                    m.lifetime,
                    "inverts" in m.flags,
                    "silences" in m.flags,
                    "expels" in m.flags,
                    m.span,
                    "voteless" in m.flags,
                    m.weighs or 0,
                    tuple(e for n in m.displays for e in n.entries),
                    powerless="powerless" in m.flags,
                    malfunctions="malfunctions" in m.flags,
                )
                for i, (n, m) in enumerate(an.marks.items())
            ),
            tuple(self.memslots),
            abilities,
            tuple(order),
            tuple(
                ir.Win(
                    "team" if w.who.name in self.teams else "role",
                    (self.teams if w.who.name in self.teams else self.roles)[w.who.name],
                    self.expr(w.cond),
                    w.span,
                )
                for w in an.wins
            ),
            checks,
            tuple(setups),
            tuple(
                (s.label, s.lo, s.hi, self.expr(s.where), s.span)
                for s in an.setups
                if s.where is not None
            ),
            day,
            tuple(tuple(e for n in c.names for e in n.entries) for c in an.cards.values()),
            tuple((t.name.name, self.expr(t.value)) for t in an.night.timers) if an.night else (),
            an.night.calm if an.night else None,
            an.module.span,
            self.hooks(an.hooks),
            tuple(self.trigger(t) for t in an.any_deaths),
            tuple(self.expr(d.cond) for d in an.draws),
            tuple(self.stmts(h.body) for h in an.start_hooks),
            self.cause_names(),
            self.custom_middle(),
            kinds=tuple(
                ir.Kind(i, n, tuple(e for nm in k.names for e in nm.entries), k.span)
                for i, (n, k) in enumerate(self.an.kinds.items())
            ),
            any_saves=tuple(
                ir.Trigger(tuple(self.causes[c.name] for c in t.causes), self.stmts(t.body), t.span)
                for t in self.an.any_saves
            ),
            # (last: every statement above is lowered, so every site is numbered)
            moderator_sites=tuple(self.sites),
        )

    def custom_middle(self) -> tuple[tuple[int, ...], ...]:
        """The cards each custom setup lays in the middle, in the order of `custom_setups`;
        () when none lays any (the field then keeps its default)."""
        middle = tuple(
            tuple(self.roles[m.name] for m in s.middle)
            for s in self.an.setups
            if s.where is not None
        )
        return middle if any(middle) else ()

    def cause_names(self) -> tuple[tuple[tuple[str, str], ...], ...]:
        """The display names of every cause, in the order of `Program.causes`."""
        shown = {
            ident.name: tuple(e for n in names for e in n.entries)
            for item in self.an.module.items
            if isinstance(item, A.CauseDecl)
            # a declaration built without display names (displays == ()) names none
            for ident, names in zip(item.names, item.displays, strict=False)
        }
        return tuple(shown.get(c, ()) for c in self.an.causes)

    def vote(self, v: A.VoteSpec | None) -> ir.Vote | None:
        if v is None:
            return None
        return ir.Vote(
            self.expr(v.threshold) if v.threshold else None,
            self.expr(v.defense) if v.defense else None,
            self.expr(v.defenders_vote) if v.defenders_vote else None,
            _tie(v.tie) or "none",
            v.ballot or "multi",
            tuple((t.name.name, self.expr(t.value)) for t in v.timers),
            v.rounds,
            v.skips,
            self.marks[v.exempt.name] if v.exempt else -1,
            self.marks[v.forced.name] if v.forced else -1,
            v.span,
            v.runoff_tie or "",
            v.split or "",
            v.nominations,
            v.ghost or 0,
            v.judgement,
        )

    def votes_with(self, r: A.Role) -> ir.VotesWith | None:
        """`votes only with EXPR`: a seat expression, or a mark's name (its carriers)."""
        if not r.votes_with:
            return None
        vw = r.votes_with[0]
        if self.an.types.get(id(vw.seat)) == "mark" and isinstance(vw.seat, A.Name):
            return ir.VotesWith(None, self.marks[vw.seat.name], vw.span)
        return ir.VotesWith(self.expr(vw.seat), -1, vw.span)


def _tie(tie):
    """A tie rule for the engine: a kind, or `role:ID` (that role's living seat leaves)."""
    return f"role:{tie.name}" if isinstance(tie, A.Ident) else tie


def lower(an: Analysis, diags: Diagnostics, source: str) -> ir.Program | None:
    return _Lower(an).program(diags, source)
