"""Semantic analysis: names, types, arities, limits. Collects every diagnostic in one run.

The result, ``Analysis``, holds the symbol tables and, for every expression node, what each
name resolved to and the expression's type. Lowering (compiler/ir/lower.py) reads it; nothing here
builds code.

Diagnostic codes (stable; docs/language.md lists them):
  E000 unreadable spec (driver)      E001-E003 syntax errors (parser)
  E004 nesting too deep (limits)     E032 ordering cycle (compiler/ir/lower.py)
  E005 spec too large (limits)
  E010 duplicate definition          E011 game block missing or repeated
  E020 undefined name                E021 type mismatch
  E022 unknown function / arity      E023 name not available here
  E030 unknown ability in ordering   E031 ability ordered against itself
  E040 limit that makes no sense     E041 bad exclusive group
  E050 setup names unknown role      E051 setup does not add up
  E052 table size without setup      E053 setup size outside `players`
  E060 unknown win subject           E061 unknown check event
  E070 reaction or hook in the wrong place (`on visited` in a day ability, a hook in an ability)
  E062 `wins alongside` in a role of a team
  E080-E082 reuse (dsl/reuse.py)     E083 `random` where a condition is evaluated
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection
from dataclasses import dataclass, field

from maf.dsl import ast as A
from maf.dsl.builtins import (
    BUILTIN_CAUSES,
    BUILTIN_FUNCS,
    BUILTIN_NAMES,
    CHECK_EVENTS,
    CHOOSE_KINDS,
    DEATH_SCOPE,
    DRAWING,
    HOOK_WORDS,
    MAX_TABLE,
    MODERATOR_KINDS,
    QUANTIFIERS,
    REACTION_NAMES,
    RUNTIME,
)
from maf.dsl.codes import Code
from maf.dsl.diagnostics import Diagnostics, Span
from maf.dsl.reuse import ERROR_CALL, expand
from maf.dsl.titles import expand_titles


@dataclass
class AbilityInfo:
    idx: int
    role: str
    node: A.Ability

    @property
    def id(self) -> str:
        return f"{self.role}.{self.node.name.name}"


@dataclass
class Analysis:
    module: A.Module
    game: A.Game | None = None
    teams: dict[str, A.Team] = field(default_factory=dict)  # sides (`side`) included
    roles: dict[str, A.Role] = field(default_factory=dict)
    kinds: dict[str, A.KindDecl] = field(default_factory=dict)  # kinds of role (`kind`)
    causes: dict[str, Span | None] = field(default_factory=dict)
    marks: dict[str, A.MarkDecl] = field(default_factory=dict)
    abilities: dict[str, AbilityInfo] = field(default_factory=dict)  # "role.name"
    memslots: set[str] = field(default_factory=set)
    wins: list[A.Win] = field(default_factory=list)
    checks: list[A.Check] = field(default_factory=list)
    orders: list[A.Order] = field(default_factory=list)
    table_exclusive: list[A.TableExclusive] = field(default_factory=list)
    setups: list[A.Setup] = field(default_factory=list)
    day: A.Day | None = None
    night: A.Night | None = None
    # id(expr node) -> (kind, value): kind in local|builtin|role|team|mark|memslot|ability|const
    res: dict[int, tuple[str, str]] = field(default_factory=dict)
    types: dict[int, str] = field(default_factory=dict)
    setup_counts: dict[tuple[int, int], dict[str, int]] = field(default_factory=dict)
    cards: dict[str, A.Card] = field(default_factory=dict)
    hooks: list[A.Hook] = field(default_factory=list)  # top-level hooks
    any_deaths: list[A.Trigger] = field(default_factory=list)  # top-level `on any death`
    any_saves: list[A.AnySave] = field(default_factory=list)  # top-level `on any save`
    draws: list[A.Draw] = field(default_factory=list)
    start_hooks: list[A.StartHook] = field(default_factory=list)


def _suggest(name: str, pool) -> str | None:
    close = difflib.get_close_matches(name, list(pool), n=1)
    return f"did you mean `{close[0]}`?" if close else None


class _Analyzer:
    def __init__(self, module: A.Module, diags: Diagnostics):
        self.a = Analysis(module)
        self.d = diags
        self._phase = ""  # the phase of the ability being checked
        self._stmt = 0  # > 0 while checking the expressions of statements (see DRAWING)
        self._starting = False  # checking an `on start` hook (no moderator there)

    # ---------------------------------------------------------------- pass 1: declarations
    def collect(self) -> None:
        a, d = self.a, self.d
        for c in BUILTIN_CAUSES:
            a.causes[c] = None
        seen: dict[tuple[str, str], Span] = {}

        def unique(kind: str, ident: A.Ident) -> bool:
            key = (kind, ident.name)
            if key in seen:
                d.error(
                    Code.E010,
                    f"{kind} `{ident.name}` is defined twice",
                    ident.span,
                    notes=(("first defined here", seen[key]),),
                )
                return False
            seen[key] = ident.span
            return True

        for item in a.module.items:
            if isinstance(item, A.Game):
                if a.game is not None:
                    d.error(
                        Code.E011,
                        "a spec has exactly one `game` block",
                        item.span,
                        notes=(("the first one is here", a.game.span),),
                    )
                else:
                    a.game = item
            elif isinstance(item, A.Team):
                if unique("team", item.name):
                    a.teams[item.name.name] = item
            elif isinstance(item, A.KindDecl):
                if unique("kind", item.name):
                    a.kinds[item.name.name] = item
            elif isinstance(item, A.Role):
                if unique("role", item.name):
                    a.roles[item.name.name] = item
            elif isinstance(item, A.CauseDecl):
                for shown in item.displays:
                    _check_tags(shown, d)
                for cn in item.names:
                    if cn.name in BUILTIN_CAUSES:
                        d.error(Code.E010, f"cause `{cn.name}` is built in", cn.span)
                    elif unique("cause", cn):
                        a.causes[cn.name] = cn.span
            elif isinstance(item, A.MarkDecl):
                _check_tags(item.displays, d)
                if unique("mark", item.name):
                    a.marks[item.name.name] = item
            elif isinstance(item, A.Win):
                a.wins.append(item)
            elif isinstance(item, A.Check):
                a.checks.append(item)
            elif isinstance(item, A.Order):
                a.orders.append(item)
            elif isinstance(item, A.TableExclusive):
                a.table_exclusive.append(item)
            elif isinstance(item, A.Card):
                if unique("card", item.name):
                    a.cards[item.name.name] = item
            elif isinstance(item, A.Hook):
                a.hooks.append(item)
            elif isinstance(item, A.Trigger):
                a.any_deaths.append(item)
            elif isinstance(item, A.AnySave):
                a.any_saves.append(item)
            elif isinstance(item, A.Setup):
                a.setups.append(item)
            elif isinstance(item, A.Draw):
                a.draws.append(item)
            elif isinstance(item, A.StartHook):
                a.start_hooks.append(item)
            elif isinstance(item, A.Day):
                if a.day is not None:
                    d.error(Code.E010, "the `day` block is defined twice", item.span)
                a.day = item
            elif isinstance(item, A.Night):
                if a.night is not None:
                    d.error(Code.E010, "the `night` block is defined twice", item.span)
                a.night = item
        if a.game is None:
            d.error(
                Code.E011,
                "the spec has no `game` block",
                a.module.span,
                "start the spec with `game NAME { players LO..HI }`",
            )
        for role in a.roles.values():
            names_seen: dict[str, Span] = {}
            for ab in role.abilities:
                n = ab.name.name
                if n in names_seen:
                    d.error(
                        Code.E010,
                        f"role `{role.name.name}` defines ability `{n}` twice",
                        ab.name.span,
                        notes=(("first defined here", names_seen[n]),),
                    )
                    continue
                names_seen[n] = ab.name.span
                info = AbilityInfo(len(a.abilities), role.name.name, ab)
                a.abilities[info.id] = info
                for st in _walk_stmts(
                    ab.body
                    + (ab.inverted or ())
                    + (ab.stolen or ())
                    + tuple(x for r in ab.reactions for x in r.body)
                ):
                    if isinstance(st, A.Remember):
                        a.memslots.add(st.name.name)
            for st in _walk_stmts(
                tuple(
                    x
                    for blk in role.reactions + role.hooks + role.triggers + role.start
                    for x in blk.body
                )
            ):
                if isinstance(st, A.Remember):
                    a.memslots.add(st.name.name)
        # a last-move card `x` is the ability `card.x`: one id for two abilities is an error
        for name, card in a.cards.items():
            clash = a.abilities.get(f"card.{name}")
            if clash is not None:
                d.error(
                    Code.E010,
                    f"ability id `card.{name}` is defined twice: by the card `{name}` "
                    f"and by the ability `{name}` of role `card`",
                    card.name.span,
                    "rename the role or the card",
                    notes=(("the role's ability is here", clash.node.name.span),),
                )

    # ---------------------------------------------------------------- expressions
    def expr(self, e: A.Expr, ctx: str, scope: dict[str, str], want: str | None = None) -> str:
        """Type-check ``e``; returns its type ("?" after an error, which silences cascades)."""
        t = self._expr(e, ctx, scope, want)
        self.a.types[id(e)] = t
        if want and t != "?" and t != want:
            self.d.error(Code.E021, f"expected {_article(want)}, found {_article(t)}", e.span)
        return t

    def _expr(self, e, ctx, scope, want) -> str:  # one case per node kind
        a, d = self.a, self.d
        if isinstance(e, A.Int):
            return "int"
        if isinstance(e, A.Str):
            return "str"
        if isinstance(e, A.Name):
            return self._name(e, ctx, scope, want)
        if isinstance(e, A.AbilityRef):
            key = f"{e.owner}.{e.name}"
            if key not in a.abilities:
                d.error(Code.E020, f"undefined ability `{key}`", e.span, _suggest(key, a.abilities))
                return "?"
            a.res[id(e)] = ("ability", key)
            return "ability"
        if isinstance(e, A.Unary):
            if e.op == "not":
                self.expr(e.operand, ctx, scope, "bool")
                return "bool"
            self.expr(e.operand, ctx, scope, "int")
            return "int"
        if isinstance(e, A.Binary):
            if e.op in ("and", "or"):
                self.expr(e.left, ctx, scope, "bool")
                self.expr(e.right, ctx, scope, "bool")
                return "bool"
            if e.op in ("+", "-", "*", "/", "%"):
                self.expr(e.left, ctx, scope, "int")
                self.expr(e.right, ctx, scope, "int")
                return "int"
            # comparison: type the side that is not a bare name first, then the other against it
            first, second = (
                (e.right, e.left)
                if isinstance(e.left, A.Name) and not isinstance(e.right, A.Name)
                else (e.left, e.right)
            )
            t1 = self.expr(first, ctx, scope)
            t2 = self.expr(second, ctx, scope, t1 if t1 != "?" else None)
            if t1 == "team" and e.op in ("==", "!="):
                for x in (first, second):
                    side = self._side(x)
                    if side is not None:
                        self._side_as_team(side, x.span)
            if e.op not in ("==", "!=") and "?" not in (t1, t2) and t1 != "int":
                d.error(Code.E021, f"`{e.op}` compares numbers, not {t1}s", e.span)
            return "bool"
        if isinstance(e, A.Member):
            t = self.expr(e.value, ctx, scope)
            if t not in ("role", "team", "kind", "?"):
                d.error(
                    Code.E021,
                    f"`in {{...}}` needs a role, a team or a kind, found {_article(t)}",
                    e.value.span,
                )
                return "bool"
            table = a.roles if t == "role" else a.kinds if t == "kind" else a.teams
            for ident in e.names:
                if t == "team" and ident.name in a.teams and a.teams[ident.name].side:
                    self._side_as_team(ident.name, ident.span)
                if t != "?" and ident.name not in table:
                    d.error(
                        Code.E020,
                        f"undefined {t} `{ident.name}`",
                        ident.span,
                        _suggest(ident.name, table),
                    )
            return "bool"
        if isinstance(e, A.InSet):
            self.expr(e.value, ctx, scope, "seat")
            self.expr(e.seats, ctx, scope, "seats")
            return "bool"
        if isinstance(e, A.Call):
            return self._call(e, ctx, scope)
        if isinstance(e, A.Quant):
            return self._quant(e, ctx, scope)
        raise AssertionError(type(e))  # pragma: no cover

    def _name(self, e: A.Name, ctx, scope, want) -> str:
        a, d = self.a, self.d
        n = e.name
        tables: dict[str, Collection[str]] = {
            "role": a.roles,
            "team": a.teams,
            "mark": a.marks,
            "memslot": a.memslots,
            "cause": a.causes,
            "kind": a.kinds,
        }
        if n in scope and not (n in REACTION_NAMES and want in tables and n in tables[want]):
            a.res[id(e)] = ("local", n)
            return scope[n]
        if n in BUILTIN_NAMES:
            t, ctxs = BUILTIN_NAMES[n]
            if ctx not in ctxs:
                d.error(Code.E023, f"`{n}` is not available in {_CTX_NAMES[ctx]}", e.span)
                return "?"
            a.res[id(e)] = ("builtin", n)
            return t
        if want in tables:
            if n in tables[want]:
                a.res[id(e)] = (want, n)
                return want
            d.error(Code.E020, f"undefined {want} `{n}`", e.span, _suggest(n, tables[want]))
            return "?"
        hits = [k for k in ("role", "team", "mark", "kind") if n in tables[k]]
        if len(hits) == 1:
            a.res[id(e)] = (hits[0], n)
            return hits[0]
        if len(hits) > 1:
            d.error(
                Code.E021,
                f"`{n}` is both a {hits[0]} and a {hits[1]} here",
                e.span,
                "compare it with `role(x)` or `team(x)` to say which",
            )
            return "?"
        if n in REACTION_NAMES:
            d.error(Code.E023, f"`{n}` is available only {REACTION_NAMES[n][1]}", e.span)
            return "?"
        pool = list(scope) + list(BUILTIN_NAMES) + list(a.roles) + list(a.teams)
        d.error(Code.E020, f"undefined name `{n}`", e.span, _suggest(n, pool))
        return "?"

    def _quant(self, e: A.Quant, ctx, scope) -> str:
        d = self.d
        if e.func == "random" and (ctx not in DRAWING or not self._stmt):
            d.error(
                Code.E083,
                f"`random` is not available in {_CTX_NAMES[ctx]}"
                + (" condition" if ctx in DRAWING else ""),
                e.span,
                "draw in a statement (`remember t = random(x: ...)`): a condition may be "
                "evaluated any number of times",
            )
            return "?"
        if e.func not in QUANTIFIERS:
            d.error(
                Code.E022,
                f"`{e.func}(NAME: COND)` is not a seat quantifier",
                e.span,
                f"quantifiers: {', '.join(QUANTIFIERS)}",
            )
            return "?"
        if ctx not in RUNTIME:
            d.error(Code.E023, f"`{e.func}(...)` is not available in {_CTX_NAMES[ctx]}", e.span)
            return "?"
        if e.var.name in scope or e.var.name in BUILTIN_NAMES:
            d.error(Code.E010, f"name `{e.var.name}` is already taken", e.var.span)
        inner = dict(scope)
        inner[e.var.name] = "seat"
        self.expr(e.cond, ctx, inner, "bool")
        return QUANTIFIERS[e.func]

    def _call(self, e: A.Call, ctx, scope) -> str:
        a, d = self.a, self.d
        if e.func == ERROR_CALL:  # a define call reported by dsl/reuse.py
            return "?"
        if e.func not in BUILTIN_FUNCS:
            d.error(
                Code.E022,
                f"unknown function `{e.func}`",
                e.span,
                _suggest(e.func, BUILTIN_FUNCS) or f"functions: {', '.join(BUILTIN_FUNCS)}",
            )
            return "?"
        params, result, ctxs = BUILTIN_FUNCS[e.func]
        if ctx not in ctxs:
            d.error(Code.E023, f"`{e.func}(...)` is not available in {_CTX_NAMES[ctx]}", e.span)
            return "?"
        required = sum(not p.endswith("?") for p in params)
        if not required <= len(e.args) <= len(params):
            want = str(required) if required == len(params) else f"{required} or {len(params)}"
            d.error(Code.E022, f"`{e.func}` takes {want} argument(s), got {len(e.args)}", e.span)
            return result
        # optional parameters (`?`) may be left out: the shorter list ends the pairing
        for arg, p in zip(e.args, params, strict=False):
            self.expr(arg, ctx, scope, p.rstrip("?"))
        side = self._side(e.args[0]) if e.func in ("count_team", "departed") else None
        if side is not None:
            self._side_as_team(side, e.args[0].span, e.func)
        a.res[id(e)] = ("builtin", e.func)
        return result

    def _title_as_role(self, name: str, span: Span, what: str) -> None:
        self.d.error(
            Code.E093,
            f"`{name}` is a title, not a role: it cannot be {what}",
            span,
            f"a title is a mark: a seat holds it (`has(x, {name})`), given by "
            f"`election {name}` or `mark x as {name}`",
        )

    def _side(self, e) -> str | None:
        """The side `e` names (`side ID`), or None."""
        if isinstance(e, A.Name) and self.a.res.get(id(e)) == ("team", e.name):
            return e.name if self.a.teams[e.name].side else None
        return None

    def _side_as_team(self, name: str, span: Span, func: str = "") -> None:
        what = f"`{func}({name})`" if func else f"`{name}` as a seat's team"
        self.d.error(
            Code.E092,
            f"{what}: `{name}` is a side, made by marks; no role belongs to it",
            span,
            f"a seat is a member of `{name}` when its `members` condition holds; "
            f"`living({name})` counts the living members",
        )

    # ---------------------------------------------------------------- statements
    def stmts(self, body, ctx: str, scope: dict[str, str], role: str) -> None:
        self._stmt += 1
        try:
            self._stmts(body, ctx, scope, role)
        finally:
            self._stmt -= 1

    def _stmts(self, body, ctx: str, scope: dict[str, str], role: str) -> None:
        a, d = self.a, self.d
        for st in body:
            if ctx == "hook" and self._needs_self(st):
                d.error(
                    Code.E023,
                    "this statement acts for a seat (`self`), and a top-level hook has none",
                    st.span,
                    "write the hook in a role body, or name the seat (`tell ... to SEAT`)",
                )
            if isinstance(st, A.Kill):
                self.expr(st.target, ctx, scope, "seat")
                self.cause(st.cause)
                if st.at_once and (ctx != "ability" or self._phase not in ("night", "any")):
                    d.error(
                        Code.E091,
                        "a kill `at once` outside a night ability",
                        st.span,
                        "only a night's kills wait for dawn: elsewhere a kill settles when its "
                        "step's statements have run; drop `at once`",
                    )
                if st.attack is not None and st.attack < 1:
                    d.error(
                        Code.E040,
                        f"an attack of level {st.attack} kills nobody",
                        st.span,
                        "attack levels start at 1 (the default)",
                    )
            elif isinstance(st, A.Guard):
                self.expr(st.target, ctx, scope, "seat")
                for c in st.causes:
                    self.cause(c)
                if st.body is not None:
                    self.stmts(st.body, ctx, {**scope, "attacker": "seat"}, role)
            elif isinstance(st, (A.Block, A.Visit)):
                self.expr(st.target, ctx, scope, "seat")
            elif isinstance(st, A.Delayed):
                if st.nights < 1:
                    d.error(
                        Code.E040,
                        f"`in {st.nights} nights` is not in the future",
                        st.span,
                        "write `next night { ... }` or `in N nights` with N >= 1",
                    )
                self.stmts(st.body, ctx, scope, role)
            elif isinstance(st, A.Protect):
                self.expr(st.target, ctx, scope, "seat")
                for c in st.causes:
                    self.cause(c)
            elif isinstance(st, A.Mark):
                self.expr(st.target, ctx, scope, "seat")
                if st.mark.name not in a.marks:
                    d.error(
                        Code.E020,
                        f"undefined mark `{st.mark.name}`",
                        st.mark.span,
                        _suggest(st.mark.name, a.marks) or "declare it: `mark NAME until dawn`",
                    )
            elif isinstance(st, (A.Convert, A.Exchange)):
                self.expr(st.target, ctx, scope, "seat")
                if st.role_expr is not None:
                    self.expr(st.role_expr, ctx, scope, "role")
                elif st.role.name in scope:  # a chosen role (`choose r: role`)
                    if scope[st.role.name] != "role":
                        d.error(
                            Code.E021,
                            f"`convert ... to` needs a role, `{st.role.name}` is "
                            f"{_article(scope[st.role.name])}",
                            st.role.span,
                        )
                    else:
                        a.res[id(st)] = ("local", st.role.name)
                elif st.role.name not in a.roles:
                    d.error(
                        Code.E020,
                        f"undefined role `{st.role.name}`",
                        st.role.span,
                        _suggest(st.role.name, a.roles),
                    )
                elif a.roles[st.role.name].title:
                    self._title_as_role(st.role.name, st.role.span, "a seat's role")
            elif isinstance(st, A.Tell):
                for p in st.parts:
                    self.expr(p, ctx, scope)
                if st.to is not None:
                    self.expr(st.to, ctx, scope, "seat")
            elif isinstance(st, A.Each):
                inner = dict(scope)
                if st.var.name in scope or st.var.name in BUILTIN_NAMES:
                    d.error(Code.E010, f"name `{st.var.name}` is already taken", st.var.span)
                if st.source is not None:
                    self.expr(st.source, ctx, scope, "seats")
                inner[st.var.name] = "seat"
                self.expr(st.filter, ctx, inner, "bool")
                self.stmts(st.body, ctx, inner, role)
            elif isinstance(st, A.CancelVote):
                if ctx != "ability" or self._phase != "vote":
                    d.error(
                        Code.E023, "`cancel vote` belongs in an ability used `at vote`", st.span
                    )
            elif isinstance(st, A.SkipNight):
                pass
            elif isinstance(st, A.Announce):
                for p in st.parts:
                    self.expr(p, ctx, scope)
            elif isinstance(st, A.Remember):
                self.expr(st.value, ctx, scope, "seat")
            elif isinstance(st, A.Trial):
                if ctx != "ability":
                    d.error(Code.E023, "`trial` is scheduled by an ability", st.span)
                self.expr(st.a, ctx, scope, "seat")
                self.expr(st.b, ctx, scope, "seat")
                if st.cancel_when is not None:
                    self._stmt -= 1
                    self.expr(st.cancel_when, "trial", scope, "bool")
                    self._stmt += 1
                self.tie_role(st.tie)
            elif isinstance(st, A.Steal):
                self.expr(st.source, ctx, scope, "seat")
                self.expr(st.dest, ctx, scope, "seat")
            elif isinstance(st, A.Revive):
                self.expr(st.target, ctx, scope, "seat")
            elif isinstance(st, A.Weight):
                self.expr(st.value, ctx, scope, "int")
            elif isinstance(st, A.WinNow):
                if st.who.name not in a.teams and st.who.name not in a.roles:
                    d.error(Code.E060, f"`{st.who.name}` is neither a team nor a role", st.who.span)
            elif isinstance(st, A.CallAbility):
                self.call_ability(st, ctx, scope, role)
            elif isinstance(st, A.ModeratorChoice):
                self.moderator_choice(st, ctx, scope, role)
            elif isinstance(st, A.If):
                for cond, blk in st.branches:
                    self.expr(cond, ctx, scope, "bool")
                    self.stmts(blk, ctx, scope, role)
                if st.orelse is not None:
                    self.stmts(st.orelse, ctx, scope, role)

    def moderator_choice(
        self, st: A.ModeratorChoice, ctx: str, scope: dict[str, str], role: str
    ) -> None:
        """`moderator chooses NAME: KIND [where COND] { } [else { }]`."""
        d = self.d
        kind = st.kind.name
        if kind not in MODERATOR_KINDS:
            d.error(
                Code.E095,
                f"the moderator chooses a {', a '.join(MODERATOR_KINDS)}, not `{kind}`",
                st.kind.span,
                _suggest(kind, MODERATOR_KINDS) or "write `moderator chooses r: role { ... }`",
            )
        if self._starting:
            d.error(
                Code.E095,
                "the moderator cannot choose in an `on start` hook: no step is played there",
                st.span,
                "move the choice to a hook of the first phase (`on night start`, `on day start`)",
            )
        if st.var.name in scope or st.var.name in BUILTIN_NAMES:
            d.error(Code.E010, f"name `{st.var.name}` is already taken", st.var.span)
        inner = {**scope, st.var.name: MODERATOR_KINDS.get(kind, "?")}
        if st.filter is not None:
            self._stmt -= 1  # a condition: evaluated once per candidate value
            self.expr(st.filter, ctx, inner, "bool")
            self._stmt += 1
        self.stmts(st.body, ctx, inner, role)
        if st.orelse is not None:
            self.stmts(st.orelse, ctx, scope, role)

    def registers(self, role: A.Role) -> None:
        """`registers as X [or Y]`: teams or roles, other than the role's own."""
        a, d = self.a, self.d
        seen: set[tuple[str, str]] = set()
        for reg in role.registers:
            for how, ident in reg.items:
                n = ident.name
                tables: dict[str, Collection[str]] = {
                    "team": a.teams,
                    "role": a.roles,
                    "kind": a.kinds,
                }
                kinds = [how] if how else [k for k in tables if n in tables[k]]
                if not kinds or n not in tables[kinds[0]]:
                    pool = tables[how] if how else [*a.teams, *a.roles, *a.kinds]
                    d.error(
                        Code.E020,
                        f"undefined {how or 'team, role or kind'} `{n}`",
                        ident.span,
                        _suggest(n, pool),
                    )
                    continue
                if len(kinds) > 1:
                    d.error(
                        Code.E021,
                        f"`{n}` is both a {kinds[0]} and a {kinds[1]} here",
                        ident.span,
                        f"write `{kinds[0]} {n}` or `{kinds[1]} {n}`",
                    )
                    continue
                kind = kinds[0]
                own = {
                    "role": role.name.name,
                    "team": role.team.name if role.team else None,
                    "kind": role.kind.name if role.kind else None,
                }[kind]
                if n == own:
                    d.error(
                        Code.E096,
                        f"`{role.name.name}` registers as "
                        + ("itself" if kind == "role" else f"its own {kind}"),
                        ident.span,
                        "name another team, role or kind: what information may see instead",
                    )
                elif (kind, n) in seen:
                    d.error(Code.E096, f"`{n}` is named twice", ident.span)
                seen.add((kind, n))
                a.res[id(ident)] = (kind, n)

    def call_ability(self, st: A.CallAbility, ctx: str, scope: dict[str, str], role: str) -> None:
        a, d = self.a, self.d
        name = st.ability.name
        key = name if "." in name else f"{role}.{name}"
        if st.seat is not None:
            self.expr(st.seat, ctx, scope, "seat")
        if key not in a.abilities:
            d.error(
                Code.E020,
                f"undefined ability `{key}`",
                st.ability.span,
                _suggest(key, a.abilities)
                or (
                    "declare it in its role: `ability NAME on call { ... }`"
                    if "." in name
                    else "name it `ROLE.NAME`"
                ),
            )
            return
        ab = a.abilities[key].node
        if ab.phase != "call":
            d.error(
                Code.E023,
                f"`{key}` is used {_PHASE_WORDS.get(ab.phase, ab.phase)}, it cannot be called",
                st.ability.span,
                f"declare it `ability {ab.name.name} on call {{ ... }}`",
            )
            return
        a.res[id(st)] = ("ability", key)

    @staticmethod
    def _needs_self(st) -> bool:
        """Statements that act for the seat running them (`self`)."""
        return (isinstance(st, A.Tell) and st.to is None) or isinstance(
            st, (A.Remember, A.Weight, A.Steal, A.Trial, A.Visit)
        )

    def reactions(self, reactions, scope: dict[str, str], role: str) -> None:
        for r in reactions:
            name = {"visited": "visitor", "nominated": "nominator"}.get(r.kind, "blocker")
            self.stmts(r.body, "trigger", {**scope, name: "seat"}, role)

    def votes_with(self, role: A.Role) -> None:
        """`votes only with EXPR`: once per role; EXPR a seat (self = the voter) or a mark."""
        for vw in role.votes_with[1:]:
            self.d.error(
                Code.E047,
                f"role `{role.name.name}` states `votes only with` twice",
                vw.span,
                "keep one: a voter follows one seat (or the carriers of one mark)",
                notes=(("first stated here", role.votes_with[0].span),),
            )
        for vw in role.votes_with[:1]:
            t = self.expr(vw.seat, "trigger", {}, None)
            if t not in ("seat", "mark", "?"):
                self.d.error(
                    Code.E047,
                    f"`votes only with` names a seat or a mark, not {_article(t)}",
                    vw.seat.span,
                    "name the seat to follow (`recall(master)`) or a mark its seat carries",
                )

    def nominations_used(self, module: A.Module) -> None:
        """`on nominated` needs a day vote of nominations (E046)."""
        days = [it for it in module.items if isinstance(it, A.Day)]
        if any(d.vote is not None and d.vote.nominations for d in days):
            return
        for it in module.items:
            if isinstance(it, A.Role):
                for r in it.reactions:
                    if r.kind == "nominated":
                        self.d.error(
                            Code.E046,
                            f"`on nominated` of `{it.name.name}` never runs: the day vote has "
                            "no `nominations`",
                            r.span,
                            "add `nominations` to the day's `vote { }`, or drop the reaction",
                        )

    def hook(self, h: A.Hook, ctx: str, role: str) -> None:
        self.stmts(h.body, ctx, {}, role)

    def death_trigger(self, t: A.Trigger, ctx: str, role: str) -> None:
        for c in t.causes:
            self.cause(c)
        self.stmts(t.body, ctx, dict(DEATH_SCOPE), role)

    def replacement(self, rp: A.Replacement, role: str) -> None:
        """`instead of death [by ...] [when EXPR] { }`: the scope of a death trigger."""
        for c in rp.causes:
            self.cause(c)
        if rp.when is not None:
            self.expr(rp.when, "trigger", dict(DEATH_SCOPE), "bool")
        self.stmts(rp.body, "trigger", dict(DEATH_SCOPE), role)
        for st in _flat(rp.body):
            if isinstance(st, A.Revive) and _is_self(st.target):
                self.d.error(
                    Code.E090,
                    "`revive self` in a replacement: the seat does not die",
                    st.span,
                    "drop it: `instead of death` keeps the seat alive",
                )
            elif isinstance(st, A.Kill) and _is_self(st.target) and rp.when is None:
                self.d.error(
                    Code.E090,
                    "a replacement that kills its own seat, with no `when` to stop it",
                    st.span,
                    "the kill would be replaced again; add `when` (a condition the body "
                    "makes false) or kill by a cause the replacement does not take",
                )

    def tie_role(self, tie) -> None:
        """`tie ROLE`: the role must exist."""
        if isinstance(tie, A.Ident) and tie.name not in self.a.roles:
            self.d.error(
                Code.E020,
                f"undefined role `{tie.name}` in a tie rule",
                tie.span,
                _suggest(tie.name, self.a.roles)
                or "a tie is `none`, `lottery`, `runoff`, `repeat` or a role",
            )

    def cause(self, c: A.Ident) -> None:
        if c.name not in self.a.causes:
            self.d.error(
                Code.E020,
                f"undefined cause `{c.name}`",
                c.span,
                _suggest(c.name, self.a.causes) or "declare it: `cause NAME`",
            )

    def ref(self, r: A.Ref) -> bool:
        key = str(r)
        if key not in self.a.abilities:
            self.d.error(
                Code.E030,
                f"undefined ability `{key}` in an ordering",
                r.span,
                _suggest(key, self.a.abilities),
            )
            return False
        return True

    @property
    def primary(self) -> str | None:
        """The language every display name must include: the game's `language`, if stated."""
        g = self.a.game
        return g.language[1] if g is not None and g.language is not None else None

    # ---------------------------------------------------------------- pass 2: bodies
    def check(self) -> None:
        a, d = self.a, self.d
        g = a.game
        if g is not None:
            if g.players is None:
                d.error(
                    Code.E040,
                    "the game does not say how many players it takes",
                    g.span,
                    "add `players LO..HI`",
                )
            elif g.players[1] > g.players[2] or g.players[1] < 1:
                d.error(
                    Code.E040, f"player range {g.players[1]}..{g.players[2]} is empty", g.players[0]
                )
            elif g.players[2] > MAX_TABLE:
                d.error(
                    Code.E040,
                    f"a table of {g.players[2]} players is more than maf supports ({MAX_TABLE})",
                    g.players[0],
                )
            if g.first in ("vote", "any"):
                d.error(Code.E040, "a game starts with a day or a night", g.span)
            _check_tags(g.names, d)
            _check_docs(g.docs, d)
            if g.language is not None and not LANG_TAG.fullmatch(g.language[1]):
                d.error(
                    Code.E020,
                    f"`{g.language[1]}` is not a language tag",
                    g.language[0],
                    "a language tag is two or three lowercase letters: `en`, `fa`, `ar`...",
                )
            for span, phase, nums in g.quiet:
                if phase in ("vote", "any"):
                    d.error(Code.E040, "only days and nights can be quiet", span)
                if any(n < 1 for n in nums):
                    d.error(Code.E040, f"{phase}s are numbered from 1", span)
            for inv in g.invariants:
                self.expr(inv, "invariant", {}, "bool")
        for team in a.teams.values():
            _check_names(team.names, team.name, d, self.primary)
            _check_docs(team.docs, d)
            if team.side:
                self.side(team)
        for kd in a.kinds.values():
            _check_names(kd.names, kd.name, d, self.primary)
            _check_docs(kd.docs, d)
        for role in a.roles.values():
            self.role(role)
        self._phase = ""
        for h in a.hooks:
            self.hook(h, "hook", "")
        for t in a.any_deaths:
            self.death_trigger(t, "hook", "")
        for sv in a.any_saves:  # the scope of `on any death`: victim, killer, cause
            self.death_trigger(A.Trigger(sv.span, sv.causes, sv.body, True), "hook", "")
        for w in a.wins:
            if w.who.name not in a.teams and w.who.name not in a.roles:
                d.error(
                    Code.E060,
                    f"`{w.who.name}` is neither a team nor a role",
                    w.who.span,
                    _suggest(w.who.name, list(a.teams) + list(a.roles)),
                )
            elif w.who.name not in a.teams and a.roles[w.who.name].title:
                self._title_as_role(w.who.name, w.who.span, "a winner")
            self.expr(w.cond, "win", {}, "bool")
        for dr in a.draws:
            self.expr(dr.cond, "win", {}, "bool")
        for hook in a.start_hooks:
            self._starting = True
            self.stmts(hook.body, "hook", {}, "")
            self._starting = False
        for m in a.marks.values():
            if m.weighs is not None and m.weighs < 1:
                d.error(
                    Code.E040,
                    f"a vote weight of {m.weighs} makes no sense",
                    m.span,
                    "write `weighs N` with N of 1 or more",
                )
            if "powerless" in m.flags and "malfunctions" in m.flags:
                d.error(
                    Code.E090,
                    f"mark `{m.name.name}` is both `powerless` and `malfunctions`",
                    m.span,
                    "a powerless seat cannot act at all; keep one of the two",
                )
            elif "malfunctions" in m.flags and "inverts" in m.flags:
                d.error(
                    Code.E090,
                    f"mark `{m.name.name}` is both `malfunctions` and `inverts`",
                    m.span,
                    "`malfunctions` already runs the `inverted` blocks; drop `inverts`",
                )
        for c in a.checks:
            for ev in c.events:
                if ev.name not in CHECK_EVENTS:
                    d.error(
                        Code.E061,
                        f"unknown check event `{ev.name}`",
                        ev.span,
                        f"events: {', '.join(CHECK_EVENTS)}",
                    )
        for card in a.cards.values():
            _check_names(card.names, card.name, d, self.primary)
            _check_docs(card.docs, d)
            scope = {}
            for tg in card.targets:
                if tg.name.name in scope or tg.name.name in BUILTIN_NAMES:
                    d.error(
                        Code.E010, f"target name `{tg.name.name}` is already taken", tg.name.span
                    )
                scope[tg.name.name] = "seat"
                self.expr(tg.filter, "card", scope, "bool")
            for ch in card.chooses:
                if ch.kind.name not in CHOOSE_KINDS:
                    d.error(
                        Code.E021,
                        f"a card can choose a role or a team, not `{ch.kind.name}`",
                        ch.kind.span,
                    )
                    continue
                if ch.name.name in scope:
                    d.error(Code.E010, f"name `{ch.name.name}` is already taken", ch.name.span)
                scope[ch.name.name] = ch.kind.name
            self.stmts(card.body, "card", scope, "")
        if not a.wins:
            d.error(
                Code.E060,
                "the spec declares no win condition",
                a.module.span,
                "add `win TEAM when EXPR`",
            )
        for o in a.orders:
            if self.ref(o.first) & self.ref(o.second) and str(o.first) == str(o.second):
                d.error(Code.E031, f"`{o.first}` is ordered before itself", o.span)
        for tx in a.table_exclusive:
            refs = [r for r in tx.refs if self.ref(r)]
            phases = {a.abilities[str(r)].node.phase for r in refs}
            if len(phases) > 1:
                d.error(Code.E041, "an exclusive group mixes day and night abilities", tx.span)
            if len({str(r) for r in refs}) != len(refs):
                d.error(Code.E041, "an exclusive group names an ability twice", tx.span)
        self.setups()
        if a.day is not None:
            self.day(a.day)
        self.nominations_used(a.module)
        if a.night is not None:
            for tm in a.night.timers:
                self.expr(tm.value, "day", {}, "int")
        vote_abilities = [i for i in a.abilities.values() if i.node.phase == "vote"]
        if vote_abilities and (a.day is None or a.day.vote is None):
            d.error(
                Code.E023,
                f"`{vote_abilities[0].id}` is used during the vote, but the day has "
                "no `vote` block",
                vote_abilities[0].node.span,
            )

    def side(self, team: A.Team) -> None:
        """`side ID { members x: EXPR }`: EXPR is read like a win condition, for each seat."""
        if team.members is None:
            self.d.error(
                Code.E092,
                f"side `{team.name.name}` says nothing of who its members are",
                team.span,
                "add `members x: COND` (`members x: has(x, lover)`)",
            )
            return
        var, cond = team.members
        if var.name in BUILTIN_NAMES:
            self.d.error(Code.E010, f"name `{var.name}` is already taken", var.span)
        self.expr(cond, "win", {var.name: "seat"}, "bool")

    def role(self, role: A.Role) -> None:
        a, d = self.a, self.d
        if role.team is not None and role.team.name not in a.teams:
            d.error(
                Code.E020,
                f"undefined team `{role.team.name}`",
                role.team.span,
                _suggest(role.team.name, a.teams),
            )
        elif role.team is not None and a.teams[role.team.name].side:
            d.error(
                Code.E092,
                f"role `{role.name.name}` in `{role.team.name}`, a side: sides are made by "
                "marks, not by roles",
                role.team.span,
                "put the role on a team; the side's `members` condition says who is in it",
            )
        if role.kind is not None and role.kind.name not in a.kinds:
            d.error(
                Code.E094,
                f"undefined kind `{role.kind.name}`",
                role.kind.span,
                _suggest(role.kind.name, a.kinds)
                or f'declare it: `kind {role.kind.name} {{ name en "..." }}`',
            )
        _check_names(role.names, role.name, d, self.primary)
        _check_docs(role.docs, d)
        for imm in role.immune:
            for c in imm.causes:
                self.cause(c)
            if imm.unless is not None and imm.unless.name not in a.marks:
                d.error(
                    Code.E020,
                    f"undefined mark `{imm.unless.name}`",
                    imm.unless.span,
                    _suggest(imm.unless.name, a.marks),
                )
            if imm.times is not None and imm.times < 1:
                d.error(
                    Code.E040, f"an immunity that absorbs {imm.times} kills does nothing", imm.span
                )
        own = {ab.name.name for ab in role.abilities}
        for group in role.exclusive:
            for ident in group:
                if ident.name not in own:
                    d.error(
                        Code.E041,
                        f"role `{role.name.name}` has no ability `{ident.name}`",
                        ident.span,
                        _suggest(ident.name, own),
                    )
        for ab in role.abilities:
            self.ability(role, ab)
        self._phase = ""
        for trig in role.triggers:
            self.death_trigger(trig, "trigger", role.name.name)
        for rp in role.replacements:
            self.replacement(rp, role.name.name)
        for span, _ in role.defense[1:]:
            d.error(
                Code.E010,
                f"role `{role.name.name}` states its `defense` twice",
                span,
                notes=(("first stated here", role.defense[0][0]),),
            )
        self.reactions(role.reactions, {}, role.name.name)
        self.votes_with(role)
        for h in role.hooks:
            self.hook(h, "trigger", role.name.name)
        for al in role.alongside:
            if role.team is not None:
                d.error(
                    Code.E062,
                    f"`{role.name.name}` wins with its team `{role.team.name}`; "
                    "`wins alongside` is for roles that play alone",
                    al.span,
                    f"declare it `role {role.name.name} alone {{ ... }}`",
                )
            self.expr(al.cond, "trigger", {}, "bool")
        self.registers(role)
        for hook in role.start:
            self._starting = True
            self.stmts(hook.body, "trigger", {}, role.name.name)
            self._starting = False

    def ability(self, role: A.Role, ab: A.Ability) -> None:
        a, d = self.a, self.d
        _check_docs(ab.docs, d)
        _check_tags(ab.names, d)
        self._phase = ab.phase
        if ab.phase == "call":
            self.called(ab)
        if ab.life.startswith("?"):
            d.error(
                Code.E003,
                f"unexpected `{ab.life[1:]} or dead`; expected `alive or dead`",
                ab.life_span or ab.span,
            )
        elif ab.life != "alive" and ab.phase in ("vote", "call"):
            d.error(
                Code.E040,
                f"`{'dead' if ab.life == 'dead' else 'alive or dead'}` has no meaning "
                f"for an ability used {_PHASE_WORDS.get(ab.phase, 'on call')}",
                ab.life_span or ab.span,
                "a dead player's ability is used at night or by day",
            )
        scope: dict[str, str] = {}
        for t in ab.targets:
            if t.name.name in scope or t.name.name in BUILTIN_NAMES:
                d.error(Code.E010, f"target name `{t.name.name}` is already taken", t.name.span)
            scope[t.name.name] = "seat"
            self.expr(t.filter, "ability", scope, "bool")
        for ch in ab.chooses:
            if ch.kind.name not in CHOOSE_KINDS:
                d.error(
                    Code.E021,
                    f"an ability can choose a {' or a '.join(CHOOSE_KINDS)}, not `{ch.kind.name}`",
                    ch.kind.span,
                )
                continue
            if ch.name.name in scope:
                d.error(Code.E010, f"name `{ch.name.name}` is already taken", ch.name.span)
            scope[ch.name.name] = ch.kind.name
        for u in ab.uses:
            if u.per != "game" and u.count != 1:
                d.error(
                    Code.E040,
                    f"an ability is used at most once per {u.per}",
                    u.span,
                    f"write `uses 1 per {u.per}` or a per-game limit",
                )
            if u.count < 1:
                d.error(
                    Code.E040,
                    f"`uses {u.count}` allows nothing",
                    u.span,
                    "remove the ability, or allow at least one use",
                )
            if u.self_only and not ab.targets:
                d.error(Code.E040, "a self-target limit needs a target", u.span)
        if ab.when is not None:
            self.expr(ab.when, "ability", scope, "bool")
        if ab.from_ is not None and ab.phase != "call":
            span, phase, n = ab.from_
            if phase in ("vote", "any"):
                d.error(Code.E040, f"`from` names a day or a night, not `{phase}`", span)
            elif (
                phase != ab.phase
                and not (phase == "day" and ab.phase == "vote")
                and ab.phase != "any"
            ):
                d.error(Code.E040, f"a {ab.phase} ability cannot start from a {phase}", span)
            elif n < 1:
                d.error(Code.E040, f"{phase}s are numbered from 1", span)
        if ab.tier is not None and ab.tier[1] < 0:
            d.error(Code.E040, "tiers are not negative", ab.tier[0])
        if ab.norepeat and not ab.targets:
            d.error(Code.E040, "`no repeat` needs a target", ab.span)
        if ab.granted is not None and ab.granted.name not in a.marks:
            d.error(
                Code.E020,
                f"undefined mark `{ab.granted.name}`",
                ab.granted.span,
                _suggest(ab.granted.name, a.marks),
            )
        for ident in ab.held:
            if ident.name not in a.roles:
                d.error(
                    Code.E020,
                    f"undefined role `{ident.name}`",
                    ident.span,
                    _suggest(ident.name, a.roles),
                )
        if ab.held and ab.held[0].name != role.name.name:
            d.error(
                Code.E040,
                f"the first holder of `{role.name.name}.{ab.name.name}` must be "
                f"`{role.name.name}` itself",
                ab.held[0].span,
            )
        me = f"{role.name.name}.{ab.name.name}"
        for r in ab.before + ab.after:
            if self.ref(r) and str(r) == me:
                d.error(Code.E031, f"`{me}` is ordered against itself", r.span)
        night = ab.phase in ("night", "any")
        if ab.astral and not ab.targets:
            d.error(
                Code.E040,
                f"`astral` on `{me}`, which has no target: it visits nobody anyway",
                ab.span,
                "remove `astral`",
            )
        if (ab.astral or ab.unblockable) and not night:
            d.error(
                Code.E040,
                f"`{'astral' if ab.astral else 'unblockable'}` belongs to a night "
                f"ability; `{me}` is used at {ab.phase}",
                ab.span,
            )
        for rx in ab.reactions:
            if not night:
                d.error(
                    Code.E070,
                    f"`on {rx.kind}` in `{me}`, a {ab.phase} ability: visits and "
                    "blocks happen at night",
                    rx.span,
                    "move it to the role body, or make the ability `at night`",
                )
        for x in ab.misplaced:
            what = (
                ("on any death" if x.any else "on death")
                if isinstance(x, A.Trigger)
                else HOOK_WORDS[x.when]
            )
            d.error(
                Code.E070,
                f"`{what}` inside the ability `{me}`: hooks and death triggers "
                "belong in a role body or at the top level",
                x.span,
                "move it out of the ability",
            )
        self.reactions(ab.reactions, {}, role.name.name)
        self.stmts(ab.body, "ability", scope, role.name.name)
        if ab.inverted is not None:
            self.stmts(ab.inverted, "ability", scope, role.name.name)
        if ab.stolen is not None:
            self.stmts(ab.stolen, "ability", scope, role.name.name)

    def called(self, ab: A.Ability) -> None:
        """An `on call` ability: used when a `call` fires, never submitted, outside any order."""
        d = self.d
        if not ab.targets and not ab.chooses:
            d.error(
                Code.E040,
                f"`{ab.name.name}` is used `on call` but has nothing to decide",
                ab.name.span,
                "give it a `target` or a `choose` line, or inline its body",
            )
        misplaced = [
            (ab.tier[0] if ab.tier else None, "tier"),
            (ab.before[0].span if ab.before else None, "before"),
            (ab.after[0].span if ab.after else None, "after"),
            (ab.from_[0] if ab.from_ else None, "from"),
            (ab.held[0].span if ab.held else None, "held by"),
            (ab.granted.span if ab.granted else None, "granted by"),
        ]
        for span, what in misplaced:
            if span is not None:
                d.error(
                    Code.E040,
                    f"`{what}` has no meaning for an ability used `on call`",
                    span,
                    "a called ability runs when a `call` statement fires",
                )
        for u in ab.uses:
            if u.per != "game":
                d.error(
                    Code.E040,
                    f"an ability used `on call` has no per-{u.per} limit",
                    u.span,
                    "write `uses N per game`",
                )
        if ab.norepeat:
            d.error(Code.E040, "`no repeat` has no meaning for an ability used `on call`", ab.span)

    def setups(self) -> None:
        a, d = self.a, self.d
        g = a.game
        players = g.players if g is not None else None
        lo, hi = (players[1], players[2]) if players else (None, 0)
        covered: dict[int, list[A.Setup]] = {}
        for s in a.setups:
            if s.where is not None:
                self.expr(s.where, "invariant", {}, "bool")
            bad = False
            for m in s.middle:
                if m.name not in a.roles:
                    d.error(
                        Code.E050,
                        f"setup names undefined role `{m.name}`",
                        m.span,
                        _suggest(m.name, a.roles),
                    )
            for e in s.entries:
                if e.role.name not in a.roles:
                    d.error(
                        Code.E050,
                        f"setup names undefined role `{e.role.name}`",
                        e.role.span,
                        _suggest(e.role.name, a.roles),
                    )
                    bad = True
                elif a.roles[e.role.name].title:
                    self._title_as_role(e.role.name, e.role.span, "dealt to a seat")
                    bad = True
            for m in s.middle:
                if m.name in a.roles and a.roles[m.name].title:
                    self._title_as_role(m.name, m.span, "laid in the middle")
            rests = [e for e in s.entries if e.count == "rest"]
            if len(rests) > 1:
                d.error(Code.E051, "only one entry can take `rest`", rests[1].span)
                bad = True
            if s.lo > s.hi:
                d.error(Code.E040, f"setup size {s.lo}..{s.hi} is empty", s.span)
                continue
            if s.hi > MAX_TABLE:
                d.error(
                    Code.E040,
                    f"a table of {s.hi} players is more than maf supports ({MAX_TABLE})",
                    s.span,
                )
                continue
            if lo is not None and (s.lo < lo or s.hi > hi):
                d.error(
                    Code.E053,
                    f"setup for {s.lo}..{s.hi} players is outside the game's {lo}..{hi}",
                    s.span,
                )
                continue
            for size in range(s.lo, s.hi + 1):
                covered.setdefault(size, []).append(s)
                if bad or s.where is not None:
                    continue
                fixed = sum(
                    e.count if isinstance(e.count, int) else 1
                    for e in s.entries
                    if e.count != "rest"
                )
                counts: dict[str, int] = {}
                for e in s.entries:
                    n = e.count if isinstance(e.count, int) else 1
                    if e.count == "rest":
                        n = size - fixed
                    counts[e.role.name] = counts.get(e.role.name, 0) + n
                if fixed > size or (not rests and fixed != size):
                    d.error(
                        Code.E051,
                        f"setup lists {fixed} seats for a table of {size}",
                        s.span,
                        "add `ROLE * rest` to fill the table, or fix the counts"
                        if not rests
                        else None,
                    )
                    continue
                a.setup_counts[(id(s), size)] = counts
        if players is not None and lo is not None and a.setups and hi <= MAX_TABLE:
            missing = [n for n in range(lo, hi + 1) if n not in covered]
            if missing:
                d.error(
                    Code.E052,
                    f"no setup for {_ranges(missing)} players",
                    players[0],
                    "add a `setup` line for these sizes or narrow `players`",
                )
        for size, ss in covered.items():
            unlabeled = [s for s in ss if s.label is None and s.where is None]
            if len(unlabeled) > 1:
                d.error(
                    Code.E051,
                    f"two unnamed setups for {size} players",
                    unlabeled[1].span,
                    'name them: `setup "a" 10: ...`',
                )

    def vote_kind(self, v: A.VoteSpec, chaos: bool) -> None:
        """E045: options that conflict with nominations, judgements and ghost votes."""
        bad = []
        if chaos:
            bad = [
                k
                for k, x in (
                    ("nominations", v.nominations),
                    ("ghost votes", v.ghost is not None),
                    ("judgement", v.judgement),
                )
                if x
            ]
            for k in bad:
                self.d.error(
                    Code.E045,
                    f"`{k}` has no meaning in a chaos vote: a chaos day has one plain round",
                    v.span,
                    "state it in the day's `vote { }`",
                )
            return
        if v.nominations:
            bad = [
                k
                for k, x in (
                    ("defense threshold", v.defense),
                    ("defenders vote", v.defenders_vote),
                    ("forced", v.forced),
                    ("judgement", v.judgement or None),
                    ("runoff tie", v.runoff_tie),
                    ("split", v.split),
                )
                if x is not None
            ]
            if v.skips:
                bad.append("skips")
            if v.tie == "runoff":
                bad.append("tie runoff")
            for k in bad:
                self.d.error(
                    Code.E045,
                    f"a day of nominations has one vote per nominee: `{k}` has no meaning here",
                    v.span,
                    "nominations take `threshold`, `tie none|lottery|repeat|ROLE`, `ballot`, "
                    "`ghost votes`, `exempt` and timers",
                )
        if v.ghost is not None and v.ghost < 1:
            self.d.error(
                Code.E045,
                "`ghost votes 0` gives the dead nothing",
                v.span,
                "drop it (the dead do not vote), or give them at least one vote",
            )

    def day(self, day: A.Day) -> None:
        for v in filter(None, (day.vote, day.chaos.vote if day.chaos else None)):
            for ex in (v.threshold, v.defense):
                if ex is not None:
                    self.expr(ex, "vote", {}, "int")
            if v.defenders_vote is not None:
                self.expr(v.defenders_vote, "vote", {}, "bool")
            for t in v.timers:
                self.expr(t.value, "vote", {}, "int")
            self.tie_role(v.tie)
            if v.rounds not in (1, 2):
                self.d.error(Code.E040, f"a vote has 1 or 2 rounds, not {v.rounds}", v.span)
            if v.runoff_tie and v.tie != "runoff":
                self.d.error(
                    Code.E040,
                    "`runoff tie` states what a tied runoff does: it needs `tie runoff`",
                    v.span,
                    "add `tie runoff`, or drop `runoff tie`",
                )
            if v.split and day.chaos is not None and v is day.chaos.vote:
                self.d.error(
                    Code.E040,
                    "`split` has no meaning in a chaos vote: a chaos vote without a winner "
                    "goes to its tie rule",
                    v.span,
                    "state it with `tie none|lottery|repeat`",
                )
            self.vote_kind(v, day.chaos is not None and v is day.chaos.vote)
            for ident in filter(None, (v.exempt, v.forced)):
                if ident.name not in self.a.marks:
                    self.d.error(
                        Code.E020,
                        f"undefined mark `{ident.name}`",
                        ident.span,
                        _suggest(ident.name, self.a.marks),
                    )
        if day.election is not None:
            el = day.election
            if el.title.name not in self.a.marks:
                self.d.error(
                    Code.E020,
                    f"undefined mark `{el.title.name}`",
                    el.title.span,
                    _suggest(el.title.name, self.a.marks)
                    or "the title is a mark: `mark NAME until forever`",
                )
            if el.when is not None:
                self.expr(el.when, "day", {}, "bool")
            v = el.vote
            if v.threshold is not None:
                self.expr(v.threshold, "vote", {}, "int")
            self.tie_role(v.tie)
            extra = [
                k
                for k, x in (
                    ("defense threshold", v.defense),
                    ("defenders vote", v.defenders_vote),
                    ("exempt", v.exempt),
                    ("forced", v.forced),
                )
                if x is not None
            ]
            if v.tie in ("runoff", "repeat"):
                extra.append(f"tie {v.tie}")
            if v.rounds != 2 or v.skips or v.timers or v.ballot == "multi":
                extra.append("rounds/skips/timers/ballot")
            if v.runoff_tie or v.split:
                extra.append("runoff tie/split")
            if v.nominations or v.ghost is not None or v.judgement:
                extra.append("nominations/ghost votes/judgement")
            for k in extra:
                self.d.error(
                    Code.E040,
                    f"an election has one round of one vote per player: `{k}` has no meaning here",
                    v.span,
                    "an election takes `threshold` and `tie none|lottery|ROLE`",
                )
        if day.chaos is not None:
            self.expr(day.chaos.when, "day", {}, "bool")
        if day.inquiry is not None:
            self.expr(day.inquiry.threshold, "day", {}, "int")
            if day.inquiry.when is not None:
                self.expr(day.inquiry.when, "day", {}, "bool")
            if day.inquiry.max < 1 or day.inquiry.from_day < 1:
                self.d.error(
                    Code.E040, "an inquiry needs a positive day and count", day.inquiry.span
                )
        for t in day.timers:
            self.expr(t.value, "day", {}, "int")


_PHASE_WORDS = {
    "call": "on call",
    "night": "at night",
    "day": "by day",
    "vote": "during the vote",
    "any": "at any time",
    "card": "as a card",
}

_CTX_NAMES = {
    "ability": "an ability",
    "card": "a card",
    "trigger": "a trigger",
    "hook": "a top-level hook",
    "trial": "a trial condition",
    "win": "a win condition",
    "day": "a day rule",
    "vote": "a vote rule",
    "invariant": "an invariant",
}


def _article(t: str) -> str:
    return {
        "int": "a number",
        "bool": "a condition",
        "seat": "a seat",
        "str": "a string",
        "seats": "a seat set",
        "?": "an invalid expression",
    }.get(t, f"a {t}")


def _ranges(nums: list[int]) -> str:
    """[10, 11, 12, 15] -> "10..12, 15"."""
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}..{nums[j]}")
        i = j + 1
    return ", ".join(out)


LANG_TAG = re.compile(r"[a-z]{2,3}")


def _check_tags(names: tuple[A.Names, ...], d: Diagnostics) -> None:
    for n in names:
        for lang, _ in n.entries:
            if not LANG_TAG.fullmatch(lang):
                d.error(
                    Code.E020,
                    f"`{lang}` is not a language tag",
                    n.span,
                    "a language tag is two or three lowercase letters: `en`, `fa`, `ar`...",
                )


def _check_docs(docs: tuple[A.Names, ...], d: Diagnostics) -> None:
    """`doc LANG "..."` lines: language tags, and one text per language."""
    _check_tags(docs, d)
    first: dict[str, Span] = {}
    for n in docs:
        for lang, _ in n.entries:
            if lang in first:
                d.error(
                    Code.E010,
                    f"a second `doc` in {lang} here",
                    n.span,
                    "write one `doc` per language (a string may hold several sentences)",
                    notes=(("the first is here", first[lang]),),
                )
            else:
                first[lang] = n.span


def _check_names(
    names: tuple[A.Names, ...], ident: A.Ident, d: Diagnostics, primary: str | None = None
) -> None:
    _check_tags(names, d)
    langs = {lang for n in names for lang, _ in n.entries}
    if not langs:
        d.error(
            Code.E020,
            f"`{ident.name}` has no display name",
            ident.span,
            f'add `name {primary or "en"} "..."`',
        )
    elif primary is not None and primary not in langs:
        d.error(
            Code.E020,
            f"`{ident.name}` has no display name in {primary}, the game's language",
            ident.span,
            f'add `name {primary} "..."`',
        )


def _walk_stmts(body):
    stack = list(body)
    while stack:
        st = stack.pop()
        yield st
        if isinstance(st, A.If):
            for _, blk in st.branches:
                stack.extend(blk)
            stack.extend(st.orelse or ())
        elif isinstance(st, (A.Each, A.Delayed)):
            stack.extend(st.body)
        elif isinstance(st, A.Guard) and st.body:
            stack.extend(st.body)
        elif isinstance(st, A.ModeratorChoice):
            stack.extend(st.body + (st.orelse or ()))


def analyze(module: A.Module, diags: Diagnostics) -> Analysis:
    module = expand_titles(expand(module, diags))
    an = _Analyzer(module, diags)
    an.collect()
    an.check()
    return an.a


def _is_self(e) -> bool:
    return isinstance(e, A.Name) and e.name == "self"


def _flat(body):
    """Every statement of a body, those of `if` branches and `each` bodies included."""
    todo = list(body)
    while todo:
        st = todo.pop()
        yield st
        if isinstance(st, A.If):
            for _, b in st.branches:
                todo.extend(b)
            todo.extend(st.orelse or ())
        elif isinstance(st, A.Each):
            todo.extend(st.body)
