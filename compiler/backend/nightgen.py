"""The compiled whole night (issue 9): one generated function per spec that validates, resolves
and reports a whole night, specialised to the spec.

`_night_fast(g, actions, number)` is emitted into the engine module. Its shape:

- validation: one pass over the actions; each is dispatched on (role, name) to the block of its
  ability, where the ability's checks are unrolled (arity, targets and their filters, choices,
  limits, groups, `when`, repeats) and its arguments kept in plain locals (`a3`: the actor of
  ability 3, `t3_0`: its first target...); no plan tuples;
- resolution: the static night order unrolled, each ability's body inlined (its spec lines as
  comments), `acted()` read from the locals;
- dawn: what the spec needs and nothing else (dawn marks, silencing, calm, wins) spelled out.

It returns None without touching the game whenever the night is not its common legal case (an
illegal action, a quiet night, two seats using a `held by`, grouped or multi-target ability, an
ability it does not find by its name, a granted ability, a steal...);
`resolve_night` then runs the generic resolver, which also gives the exact error. Several seats
using any other ability (`_groupable`): the lowest seat's action is compiled, the others run the
ability's generic function right after it (`_fn_more`). A dead seat acts by the abilities of the
dead of its role (`dead`, `alive or dead`: `_FN_DEAD`, see _dispatch).

Features the shape does not specialise run the runtime's generic code for that feature only,
where the generic resolver runs it (`render`'s `features`: the runtime machinery the engine
carries): visits (`Game._visit`; one target: specialised, `_visit`), blocks (`if aK not in
blocked`, `Game.block`), reactions and
`acted()` outside the inlined bodies (the night's plan, `g._plan`, built from the locals),
delayed effects (`Game._run_delayed`), the kills a dawn hook adds (`Game._settle`); an ability
whose body holds a closure (a guard's reaction, a delayed effect) runs its generic function
(`RUN[A]`). The kills settle in the compiled night itself and the phase hooks are unrolled:
not written here but the runtime's own Game._settle, Game._die and Game._hooks, specialised to
the spec by compiler/backend/specialise.py (`_settle`, `_hooks`: levels, guards and their
reactions, immunities, triggers, `on any death` unrolled in spec order).
A spec gets no fast night at all (`FAST_NIGHT: Any = None`, the reasons in a comment) only for
an `on call` ability reading `acted()` or an IR construct not in `_KNOWN`.

The differential test (engine vs compiler/verify/interp.py) keeps it honest.
"""

from __future__ import annotations

import ast
import re
import symtable

from maf.compiler.backend.pycode import (
    ExprCtx,
    PyCode,
    StmtCtx,
    any_deaths_in_order,
    comment,
    const,
    hooks_in_order,
    ident,
    walk,
)
from maf.compiler.backend.specialise import (
    EMPTY,
    Specialiser,
    Val,
    known,
    residual,
    row,
    runtime_source,
    table,
    uniform,
    view,
)
from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.runtime import FEATURES

_PAD = "    "


class _NightCode(PyCode):
    """Renders bodies for the inlined night: `acted()` reads the night's locals."""

    def __init__(self, prog, lines, users):
        super().__init__(prog, lines)
        self.users = users  # ability idx -> the local holding its actor (0: unused tonight)

    def call(self, e: ir.Call, ctx: ExprCtx) -> str:
        if e.func != "acted":
            return super().call(e, ctx)
        ab = e.args[0]
        if not (isinstance(ab, ir.Sym) and ab.kind == "ability"):
            raise _Cannot("acted() of a computed ability")
        who = self.users.get(ab.idx)
        if who is None:
            return "False"  # not a night ability: never in a night's plan
        if len(e.args) == 1:
            return f"({who} != 0)"
        return f"({who} != 0 and g.role[{who}] == {self.ex(e.args[1], ctx.env)})"

    # reports and protections are written straight into the night's locals (Game.tell,
    # Game.announce and Game.protect, inlined); the rest as in every engine
    def tell(self, s: ir.Tell, ctx: StmtCtx) -> None:
        to = self.ex(s.to, ctx.env) if s.to is not None else ctx.env.get("self", "0")
        text = self.joined_text(s.parts, ctx.env)
        if to.isidentifier():
            self._line(ctx, f"tl = private.get({to})")
            self._line(ctx, "if tl is None:")
            self._line(ctx, f"    private[{to}] = [{text}]")
            self._line(ctx, "else:")
            self._line(ctx, f"    tl.append({text})")
        else:
            self._line(ctx, f"private.setdefault({to}, []).append({text})")

    def announce(self, s: ir.Announce, ctx: StmtCtx) -> None:
        self._line(ctx, f"public.append({self.joined_text(s.parts, ctx.env)})")

    def protect(self, s: ir.Protect, ctx: StmtCtx) -> None:
        if s.level >= 0 or not isinstance(s.target, ir.Var):
            return super().protect(s, ctx)
        causes = [const("C", self.p.causes[c]) for c in s.causes]
        x = self.ex(s.target, ctx.env)
        self._line(ctx, f"p = prot.get({x})")
        self._line(ctx, "if p is None:")
        self._line(ctx, f"    prot[{x}] = {{{', '.join(causes)}}}")
        self._line(ctx, "else:")
        if len(causes) == 1:
            self._line(ctx, f"    p.add({causes[0]})")
        else:
            self._line(ctx, f"    p.update(({', '.join(causes)},))")

    def trial(self, s: ir.Trial, ctx: StmtCtx) -> None:
        if not all(isinstance(x, ir.Var) for x in (s.a, s.b)):
            return super().trial(s, ctx)
        a, b = self.ex(s.a, ctx.env), self.ex(s.b, ctx.env)
        me = ctx.env.get("self", "0")
        rest = f"{s.refund!r}, {s.reveal!r}, {s.tie!r}"
        self._line(ctx, f"if {a} <= {b}:  # Game.schedule_trial: the pair in seat order")
        self._line(ctx, f"    g.trial = ({me}, ability, {a}, {b}, {rest})")
        self._line(ctx, "else:")
        self._line(ctx, f"    g.trial = ({me}, ability, {b}, {a}, {rest})")


class _Cannot(Exception):
    pass


# the fields of each IR class the compiled night was written for; a construct added to the
# language since (a new class, or a field not at its default) is not specialised until it is
# taught here: the spec keeps the generic resolver
_KNOWN_TEXT = {
    "Program": "id source names min_players max_players first quiet_days quiet_nights invariants "
    "teams roles causes marks memslots abilities night_order wins check_at setups "
    "custom_setups day card_names night_timers calm span "
    "hooks any_deaths draws start any_saves "  # hooks, `on any death`: generic (see _render)
    "cause_names "  # display names: the rulebook's
    "custom_middle "  # the cards a custom table lays in the middle: dealt before any night
    "kinds",  # kinds of role: tables the night's rules read (ROLE_KIND)
    "Ability": "idx id role name phase tier rank per_game per_phase self_per_game from_number "
    "holders targets choices norepeat body inverted stolen when granted "
    "exclusive_group table_group before span "
    "astral unblockable reactions life "  # the dead's: dispatched by _FN_DEAD
    "names",  # display names: the rulebook's
    "Role": "idx id team names abilities immune triggers span "
    "defense reactions hooks any_deaths alongside start "
    "kind title "  # kind(x) reads ROLE_KIND; a title's role is dealt to no seat
    "votes_with",  # `votes only with`: the day's ballots only
    # the day's vote and election: never read by a night
    "Day": "vote chaos_when chaos inquiry speaking timers span election",
    "Election": "title when threshold tie span",
    "Vote": "threshold defense defenders_vote tie ballot timers rounds skips exempt forced span "
    "runoff_tie split nominations ghost judgement",  # the day's: never read by a night
    "VotesWith": "seat mark span",  # `votes only with`: read by the day's ballots only
    "Mark": "idx id lifetime inverts silences expels span weighs names voteless",
    "Team": "idx id names span members var",  # a side's members: read by wins only
    "Kind": "idx id names span",
    "Target": "name filter span",
    "Choice": "name kind span",
    "Immunity": "causes unless times span",
    "Trigger": "causes body span any",
    "Win": "kind idx cond span",
    "Setup": "label size counts span middle",  # dealt before any night
    "Inquiry": "from_day max threshold when span",
    "Kill": "span target cause piercing attack",
    "Protect": "span target causes level",
    "Guard": "span target causes body takes",  # a reaction: its ability runs generic (RUN)
    "SetMark": "span target mark remove",
    "Convert": "span target role",
    "Tell": "span parts to",
    "Announce": "span parts",
    "Remember": "span slot value",
    "Trial": "span a b cancel_when refund reveal tie judgement",  # (judgement: the day's)
    "Revive": "span target",
    "Weight": "span value",
    "WinNow": "span kind idx",
    "SkipNight": "span",
    "CancelVote": "span",
    "Each": "span var filter body source",
    "If": "span branches orelse",
    "Steal": "span source dest",
    "CallAbility": "span ability seat",
    "Const": "span value",
    "Var": "span name type",
    "Builtin": "span name",
    "Sym": "span kind idx name",
    "Call": "span func args",
    "Unary": "span op operand",
    "Binary": "span op left right",
    "In": "span value kind members",
    # the machinery of the generic runtime the compiled night calls (see _render)
    "Hook": "when body span",
    "Reaction": "kind body span",
    "Block": "span target",
    "Visit": "span target",
    "MiddleSwap": "span target role",  # Game.middle_swap, a convert with the middle
    "Delayed": "span nights body",  # a closure: its ability runs generic (RUN)
    "Quant": "span func var cond",
}
# statuses: the engine plays a night generic while a seat carries one (Game.resolve_night);
# `instead of death`: only of causes no night kills by (see _reasons)
_KNOWN_TEXT["Mark"] += " powerless malfunctions"
_KNOWN_TEXT["Role"] += " replacements"
_KNOWN_TEXT["Replacement"] = "causes when body span"
# the moderator's choices (`moderator chooses`, `registers as`): Game.moderate and Game.seen,
# called from the compiled night as a called ability's decision is (Game.call_ability: the
# step's replay restores the game while a choice is awaited)
_KNOWN_TEXT["Program"] += " moderator_sites"
_KNOWN_TEXT["Role"] += " registers"
_KNOWN_TEXT["ModeratorChoice"] = "span site var kind filter body orelse"
_KNOWN_TEXT["Seen"] = "span kind seat"
_KNOWN: dict[str, frozenset[str]] = {k: frozenset(v.split()) for k, v in _KNOWN_TEXT.items()}


def _unknown(prog: ir.Program) -> str | None:
    """The first IR construct of `prog` the compiled night was not written for, or None."""
    for node in ir.nodes(prog):
        if type(node).__module__ == ir.__name__:
            unknown = ir.unknown_field(node, _KNOWN)
            if unknown is not None:
                return f"the construct {unknown}" if "." not in unknown else unknown
    return None


def _reasons(prog: ir.Program) -> list[str]:
    """Constructs of the spec the fast night cannot specialise."""
    out = []
    unknown = _unknown(prog)
    if unknown is not None:
        out.append(unknown)
    # `on call` decisions are taken inside a compiled night (Game.call_ability: it runs under
    # the step's replay, which restores the game while a decision is awaited), unless a called
    # ability reads `acted()`, which the compiled night answers from its locals only
    called = [a for a in prog.abilities if a.phase == "call"]
    if any(isinstance(x, ir.Call) and x.func == "acted" for a in called for x in ir.nodes(a)):
        out.append("`acted()` in an `on call` ability")
    # `instead of death` (Game._die): the compiled night's settle does not try replacements,
    # so one is allowed only for causes no kill statement uses (the day's `vote`, `moderator`)
    killed_by = {n.cause for n in ir.nodes(prog) if isinstance(n, ir.Kill)}
    for r in prog.roles:
        for rp in r.replacements:
            if not rp.causes or killed_by & set(rp.causes):
                out.append(f"`instead of death` of `{r.id}` by a cause a night may kill by")
    # target filters or `when` read at an ability's wake (they read the night so far,
    # semantics.read_at_wake): the compiled night validates every action before any resolves
    wakes = [a.id for a in prog.abilities if sem.read_at_wake(a, prog)]
    if wakes:
        out.append(f"a target filter or `when` read at the wake (`{wakes[0]}`)")
    # a status set while a night resolves (a night ability, its reactions, a decision, an `on
    # night start` hook): the compiled night reads statuses once, at its start (a seat that
    # carries one then plays the night generic, Game.resolve_night), so a status that an
    # earlier waker sets must be seen by the later ones on the generic night
    status = _status_set_at_night(prog)
    if status is not None:
        out.append(f"a status (`{status}`) set while a night resolves")
    return out


def _status_set_at_night(prog: ir.Program) -> str | None:
    """The first status mark (`powerless`, `malfunctions`) that code run while a night's
    actions resolve can set, or None."""
    statuses = {m.idx: m.id for m in prog.marks if m.powerless or m.malfunctions}
    if not statuses:
        return None
    blocks: list[object] = [
        a for a in prog.abilities if a.phase in ("night", "any", "call") or a.reactions
    ]
    blocks += [x for r in prog.roles for x in r.reactions]
    blocks += [h for h in prog.hooks if h.when == "night_start"]
    blocks += [h for r in prog.roles for h in r.hooks if h.when == "night_start"]
    for b in blocks:
        for n in ir.nodes(b):
            if isinstance(n, ir.SetMark) and not n.remove and n.mark in statuses:
                return statuses[n.mark]
    return None


def _closures(a: ir.Ability) -> bool:
    """Does `a`'s body hold a block that runs later (a guard's reaction, a delayed effect)?
    Such a block is a module-level closure of the engine: the compiled night then calls the
    ability's generic function (RUN) instead of inlining its body."""
    bodies = (a.body, a.inverted or ())
    return any(
        isinstance(s, ir.Delayed) or (isinstance(s, ir.Guard) and s.body)
        for b in bodies
        for s in walk(b)
    )


def _acted_calls(x) -> int:
    return sum(1 for n in ir.nodes(x) if isinstance(n, ir.Call) and n.func == "acted")


def _reads_plan(prog: ir.Program, inlined) -> bool:
    """Does generic code run tonight read the night's plan (`Game._plan`)? `on visited` and
    `on blocked` reactions of an ability (Game._used) and `acted()` outside the bodies the
    compiled night inlines (hooks, triggers, reactions, closures, generic ability functions)."""
    if any(a.reactions for a in prog.abilities):
        return True
    return ir.once(_acted_calls, prog) > sum(_acted_calls(a) for a in inlined)


def _compiled(a: ir.Ability) -> bool:
    """Is `a` played by the compiled night? Night abilities are, but for those that steal
    (`steal`: another seat's action is taken over or added while the night resolves): a night
    in which one is used is played by the generic resolver (a fallback for that feature only)."""
    if a.phase not in ("night", "any"):
        return False
    # `acted()` read while the actions validate (a `when`, a target filter) is the actions
    # submitted tonight, all of them, wherever they stand in the list (Game.acted): the
    # generic resolver validates such an ability (the compiled night checks in one pass)
    if _acted_calls(a.when or ()) or any(_acted_calls(t.filter or ()) for t in a.targets):
        return False
    bodies = (a.body, a.inverted or (), a.stolen or ())
    return not any(isinstance(s, ir.Steal) for b in bodies for s in walk(b))


def _compiled_ids(prog: ir.Program) -> frozenset[int]:
    """The abilities of `prog` the compiled night plays (_compiled), by id(): asked for every
    ability by several renderers, computed once per program (ir.once)."""
    return frozenset(id(a) for a in prog.abilities if _compiled(a))


def _by_role(prog: ir.Program) -> dict[int, list[ir.Ability]]:
    """Each role's own abilities (Ability.role), in the spec's order."""
    out: dict[int, list[ir.Ability]] = {}
    for a in prog.abilities:
        out.setdefault(a.role, []).append(a)
    return out


def _visited_reactions(prog: ir.Program, night) -> tuple[bool, list[ir.Ability]]:
    """Does a role react to its visitors, and which abilities of `night` do (in the spec's
    order)? Asked for every visit (_visit), computed once per night (ir.once)."""
    by_role = any(x.kind == "visited" for r in prog.roles for x in r.reactions)
    mine = {b.idx for b in night}
    by_ab = [
        b for b in prog.abilities if any(x.kind == "visited" for x in b.reactions) and b.idx in mine
    ]
    return by_role, by_ab


def _visit(prog: ir.Program, night, a: ir.Ability, blocks: bool, depth: int, out) -> None:
    """Game._visit, specialised to one target: the visit is recorded, then the living target's
    `on visited` reactions run (its role's; an ability's if the target used it tonight), before
    the action's body. `Game._used` is read from the night's locals (and `more`)."""
    w = out.append
    pad = _PAD * depth
    k = a.idx
    me, t = f"a{k}", f"t{k}_0"
    w(f"{pad}# Game._visit, specialised: the visit is recorded, the target's reactions run")
    w(f"{pad}if {t} != {me}:")
    w(f"{pad}    vi = vis_in.get({t})")
    w(f"{pad}    if vi is None:")
    w(f"{pad}        vis_in[{t}] = [{me}]")
    w(f"{pad}    elif {me} not in vi:")
    w(f"{pad}        vi.append({me})")
    w(f"{pad}    vi = vis_out.get({me})")
    w(f"{pad}    if vi is None:")
    w(f"{pad}        vis_out[{me}] = [{t}]")
    w(f"{pad}    elif {t} not in vi:")
    w(f"{pad}        vi.append({t})")
    by_role, by_ab = ir.once(_visited_reactions, prog, night)
    if not by_role and not by_ab:
        return
    w(f"{pad}    if alive[{t}]:")
    if by_role:
        w(f"{pad}        fn = VISITED_ROLE[role[{t}]]")
        w(f"{pad}        if fn is not None:")
        w(f"{pad}            fn(g, {t}, {me})")
    for b in by_ab:
        used = f"a{b.idx} == {t}"
        if _groupable(b):
            c = const("A", b.id)
            used = f"({used} or {c} in several and _fn_twice(more, {t}, {c}))"
        if blocks and not b.unblockable:
            used += f" and {t} not in blocked"
        w(f"{pad}        if {used}:  # {comment(b.id)} used tonight by the target")
        w(f"{pad}            _visited_{ident(b.id)}(g, {t}, {me})")


def _plan_entry(a: ir.Ability) -> str:
    """The night's plan entry of `a`'s action in the locals, as Game._validate makes one:
    (rank, actor, ability, args, first target)."""
    k = a.idx
    argv = "".join(f"t{k}_{j}, " for j in range(len(a.targets)))
    argv += "".join(f"c{k}_{j}, " for j in range(len(a.choices)))
    first = f"t{k}_0" if a.targets else "0"
    return f"({a.rank}, a{k}, {const('A', a.id)}, ({argv}), {first})"


def _groupable(a: ir.Ability) -> bool:
    """May several seats use `a` in one compiled night? The first (lowest) seat's action lives
    in the night's locals, the others in `more` (plan entries), resolved right after it by the
    ability's generic function (`_fn_more`). Not for a `held by` ability (one holder), one of
    an exclusive group, or one with several targets or choices (its locals would be shared)."""
    return (
        not a.holders
        and a.exclusive_group < 0
        and a.table_group < 0
        and len(a.targets) <= 1
        and not a.choices
    )


def render(
    prog: ir.Program, lines: list[str], features: set[str] | frozenset[str] = frozenset()
) -> tuple[list[str], list[str]]:
    """(code lines of `_night_fast`, reasons it is not specialised); no code when reasons.
    `features`: the runtime machinery the engine carries (compiler.runtime.FEATURES), whose
    generic code the compiled night calls for those features."""
    reasons = _reasons(prog)
    if reasons:
        return [], reasons
    ids = ir.once(_compiled_ids, prog)
    night = sorted((a for a in prog.abilities if id(a) in ids), key=lambda a: a.rank)
    if not night:  # nothing to specialise (and an empty `if/elif` chain is not Python)
        return [], ["no night abilities"]
    users = {a.idx: f"a{a.idx}" for a in night}
    code = _NightCode(prog, lines, users)
    try:
        out = _render(prog, code, night, features)
    except _Cannot as e:
        return [], [str(e)]
    # the game's per-seat lists are read through locals (they are mutated in place, never
    # replaced, while a night resolves)
    out = [
        line.replace("g.alive[", "alive[")
        .replace("g.pending.append(", "pending.append(")
        .replace("g.role[", "role[")
        .replace("g.team[", "team[")
        .replace("g.marks[", "marks[")
        .replace("g.nteam[", "nteam[")
        for line in out
    ]
    # cut at the commit where the whole night's draw may play a night at once (else one
    # function: a call with every local would only cost the validated night)
    out = _split_commit(out) if _unplayable(prog) is None else [x for x in out if x != _COMMIT]
    # only the locals each function reads (an unused one is a lint finding in the engine)
    at = next((i for i, x in enumerate(out) if x.startswith("def _night_commit(")), len(out))
    out = _own_locals(out[:at]) + _own_locals(out[at:])
    extra = sorted(code.features - set(features))
    if extra or code.closures:
        return [], [f"runtime machinery ({', '.join(extra) or 'closures'})"]
    return out, []


def _unplayable(prog: ir.Program) -> str | None:
    """Why the whole night's draw never plays a night at once (render_draw_night), or None:
    what only the validation settles between actions, or steps Game.playout leaves generic."""
    if any(a.life != "alive" for a in prog.abilities):
        return "abilities of the dead"
    if any(a.table_group >= 0 for a in prog.abilities):
        return "table-wide exclusions"
    if any(a.phase == "call" for a in prog.abilities):
        return "decisions: the generic steps"
    return None


def _own_locals(out: list[str]) -> list[str]:
    """`out` (one function) with its `_LOCALS` line cut to the game's lists its code reads."""
    body = "\n".join(line for line in out if line != _LOCALS)
    body = re.sub(r"'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"|#[^\n]*", "", body)  # code only
    keep = [x for x in ("role", "alive", "team", "marks", "nteam") if f"{x}[" in body]
    if re.search(r"(?<![.\w])n\b", body):  # `n`, not `g.n`
        keep.insert(0, "n")
    line = f"    {', '.join(keep)} = {', '.join('g.' + x for x in keep)}" if keep else ""
    return [line if x == _LOCALS else x for x in out if x != _LOCALS or line]


# where the validation ends: _night_fast calls _night_commit there (_split_commit)
_COMMIT = "    # <commit>"
_COMMIT_DEF = "def _night_commit(g, number, *locals):"  # (its arguments in place of `*locals`)


def _split_commit(out: list[str]) -> list[str]:
    """The compiled night cut where its validation ends (`_COMMIT`): `_night_fast(g, actions,
    number)` validates and calls `_night_commit(g, number, ...)`, which charges, resolves,
    settles and reports. Its arguments are the validation's locals the rest reads (each
    ability's actor, targets and choices, the flat counters, `more`), each bound on every
    path (the unused ones start at 0): the whole-night draw (render_draw_night) calls it with
    the same locals, recorded as it draws. Not cut (one function, as before) when one of them
    may be unbound there."""
    i = out.index(_COMMIT)
    args = _commit_locals(out, i)
    if args is None:
        args = _commit_locals_ast(out, i)
    if args is None:
        return [x for x in out if x != _COMMIT]
    call = f"_night_commit(g, number, {', '.join(args)})"
    return (
        out[:i]
        + [
            "    # (the drawn night of Game.playout comes in below: render_draw_night)",
            f"    return {call}",
            "",
            "",
            _COMMIT_DEF.replace("*locals", ", ".join(args)),
            '    """The compiled night once its actions are valid (_night_fast\'s validation, or',
            "    the whole-night draw's: _draw_night, with the same locals): every action charged,",
            '    resolved in the night order, the kills settled at dawn; the report."""',
            _LOCALS,
        ]
        + out[i + 1 :]
    )


# the game's lists, read again by _night_commit (_LOCALS): never its arguments
_COMMIT_LISTS = frozenset(("n", "role", "alive", "team", "marks", "nteam"))


def _ast_names(sts, ctx) -> list[str]:
    """The names `sts` bind (ctx ast.Store) or read (ast.Load), in the order first met: the
    statements in order, each walked breadth first (ast.walk)."""
    seen: dict[str, None] = {}
    for st in sts:
        for x in ast.walk(st):
            if isinstance(x, ast.Name) and isinstance(x.ctx, ctx):
                seen.setdefault(x.id, None)
    return list(seen)


def _top_assigned(sts) -> set[str]:
    """The names bound on every path through `sts`: by an assignment among them (the top level)."""
    return set(
        _ast_names([st for st in sts if isinstance(st, ast.Assign | ast.AnnAssign)], ast.Store)
    )


def _commit_locals_ast(out: list[str], i: int) -> list[str] | None:
    """_night_commit's arguments: the names the function's top-level statements before the
    commit (`out[i]`) bind and those after it read, in the order first bound (_ast_names), but
    the game's lists; None (no cut) when the rest reads `actions` or one of them is not bound
    by a top-level assignment before the commit (it may be unbound there). From the AST of the
    whole function: its reference (_commit_locals gives the same, cheaper)."""
    text = "\n".join(x for x in out if x != _COMMIT)
    fn = ast.parse(text).body[0]
    assert isinstance(fn, ast.FunctionDef)
    head = [st for st in fn.body if st.lineno <= i]
    tail = [st for st in fn.body if st.lineno > i]
    stored = _ast_names(head, ast.Store)
    bound = _top_assigned(head)  # (bound on every path)
    loaded = set(_ast_names(tail, ast.Load))
    args = [x for x in stored if x in loaded and x not in _COMMIT_LISTS]
    if "actions" in loaded or any(x not in bound for x in args):
        return None
    return args


_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")


def _statement_at(line: str) -> bool:
    """Does `line`, read at the start of a logical line of a function whose body is indented by
    4, begin one of its top-level statements (not a clause of the one before, a comment, a
    blank line or a deeper line)?"""
    return (
        line.startswith("    ")
        and line[4:5] not in ("", " ", "#")
        and _CLAUSE.match(line, 4) is None
    )


def _scopes(text: str) -> list[symtable.SymbolTable] | None:
    """The symbol tables of the one function `text` defines (`def _x():` and a body indented by
    4) and of every scope nested in it (comprehensions, lambdas, functions); None if `text` is
    not that, or a scope mangles names (a class) or is of a kind not known here. Python's own
    symbol table, built from the parse in C: no AST objects are made."""
    try:
        top = symtable.symtable(text, "<night>", "exec")
    except (SyntaxError, ValueError):
        return None
    children = top.get_children()
    if len(children) != 1 or top.get_identifiers() - {children[0].get_name()}:
        return None
    out, todo = [], list(children)
    while todo:
        t = todo.pop()
        if t.get_type() != "function":
            return None
        out.append(t)
        todo.extend(t.get_children())
    return out


def _commit_locals(out: list[str], i: int) -> list[str] | None:
    """_commit_locals_ast's answer without the AST of the whole function, which is most of the
    compile time of a large spec (2,000 abilities: a 52,000-line night, 1.7 s to parse, as much
    to walk): only its top-level statements but the last before the commit are parsed (they bind
    the night's locals), the last one (the validation's loop, most of the head) and the rest
    after the commit are read through Python's symbol table (which names each scope binds and
    reads: a Name stored or read, exactly as the AST has them). The answer is the same when
    the last statement before the commit binds no name the rest reads that the statements
    before it do not bind first, and every argument is bound by a top-level assignment of those
    statements; otherwise (or if the text is not laid out as expected: one statement a line
    start, a body indented by 4, ASCII, no tabs) it is None, and _commit_locals_ast answers."""
    text = "\n".join(out)
    if not text.isascii() or "\t" in text or "\f" in text or "\r" in text:
        return None
    if text.count("\n") != len(out) - 1 or not out[0].startswith("def "):
        return None
    # (a line at the margin may end the function: the statements after it are not its own)
    if any(x[:1] not in ("", " ") for x in out[1:]):
        return None
    # the last statement before the commit: where the last line that may begin one does
    last = next((j for j in range(i - 1, 0, -1) if _statement_at(out[j])), 0)
    after = next((j for j in range(i + 1, len(out)) if out[j].strip(" ")[:1] not in ("", "#")), 0)
    if not last or not after or not _statement_at(out[after]):
        return None
    try:
        module = ast.parse("\n".join(out[:last]))
    except SyntaxError:
        return None
    fn = module.body[0] if len(module.body) == 1 else None
    if not isinstance(fn, ast.FunctionDef) or fn.col_offset or fn.body[0].col_offset != 4:
        return None
    # the last statement alone, then the rest, each as the body of a function of its own: each
    # parses whole, so the cuts fall between top-level statements of the function
    inner = _scopes("def _x():\n" + "\n".join(out[last:i]))
    rest = _scopes("def _x():\n" + "\n".join(out[i + 1 :]))
    if inner is None or rest is None:
        return None
    loaded = {s.get_name() for t in rest for s in t.get_symbols() if s.is_referenced()}
    if "actions" in loaded:
        return None  # (no cut: _commit_locals_ast says so)
    stored = _ast_names(fn.body, ast.Store)
    first = set(stored)
    late = {s.get_name() for t in inner for s in t.get_symbols() if s.is_assigned()}
    if any(x in loaded and x not in first and x not in _COMMIT_LISTS for x in late):
        return None
    bound = _top_assigned(fn.body)
    args = [x for x in stored if x in loaded and x not in _COMMIT_LISTS]
    if any(x not in bound for x in args):
        return None
    return args


def commit_args(night: list[str]) -> tuple[str, ...] | None:
    """The arguments `_night_commit` takes after (g, number), from the compiled night's code
    lines (render); None when the night is not cut there."""
    for line in night:
        if line.startswith("def _night_commit(g, number, "):
            return tuple(line[len("def _night_commit(g, number, ") : -2].split(", "))
    return None


def _slots(night) -> list[tuple[str, int]]:
    """The flat per-seat counters of the compiled night: (kind, ability) in slot order, only for
    the limits its validation reads (uses per game, uses on oneself, repeat rules)."""
    out = []
    for a in night:
        if a.per_game:
            out.append(("uses", a.idx))
        if a.targets and a.self_per_game:
            out.append(("self", a.idx))
        if a.targets and a.norepeat == "ever":
            out.append(("ever", a.idx))  # a bit mask of the seats targeted so far
        elif a.targets and a.norepeat:
            out.append(("lastn", a.idx))  # the night of the last use
            out.append(("lastt", a.idx))  # ... and its first target
    return out


def _at(slots, kind: str, k: int, seat: str) -> str:
    """The flat list's element for `seat`'s counter `kind` of ability `k`."""
    i = slots.index((kind, k))
    return f"F[{seat} * {len(slots)}{f' + {i}' if i else ''}]"


_LOCALS = "    n, role, alive, team, marks, nteam = g.n, g.role, g.alive, g.team, g.marks, g.nteam"


def _charge(limit: int) -> str:
    """Charge a counter the validation checked below `limit`: set it when that was 1."""
    return "= 1  # (it was 0)" if limit == 1 else "+= 1"


def _unused(night) -> list[str]:
    """The night's locals, each ability unused, in one unpacking of a constant tuple (CPython
    folds `(0,) * n`): a third of the dispatches of a statement `aK = 0` each."""
    # (every target and choice too: each is bound where the night calls _night_commit)
    zero = [
        n
        for a in night
        for n in [f"a{a.idx}"]
        + [f"t{a.idx}_{j}" for j in range(len(a.targets))]
        + [f"c{a.idx}_{j}" for j in range(len(a.choices))]
    ]
    held = [f"h{a.idx}" for a in night if a.holders]
    out = [
        "    # every ability unused tonight: aK its actor (0: unused), tK_J its targets, cK_J its",
        "    # choices,",
        "    # for " + ", ".join(f"a{a.idx} {comment(a.id)}" for a in night),
    ]
    if held:
        out.append("    # hK: the holder of a `held by` ability, looked up once (-1: not yet)")
    value = f"(0,) * {len(zero)}" + (f" + (-1,) * {len(held)}" if held else "")
    out.append(f"    ({', '.join(zero + held)},) = {value}")
    return out


def _render(prog, code: _NightCode, night, features) -> list[str]:  # in order
    out: list[str] = []
    w = out.append
    slots = _slots(night)
    w("def _night_fast(g, actions, number):")
    w('    """The whole night of this spec, specialised (compiler/backend/nightgen.py); None:')
    w('    not its common legal case, the generic resolver plays it (and names any error)."""')
    if prog.quiet_nights:  # (an empty quiet night is any empty night; its actions are refused)
        w("    if number in QUIET_NIGHTS and actions:")
        w("        return None")
    w("    if actions.__class__ is not list and actions.__class__ is not tuple \\")
    w("            or START and g.start_pending:  # (the start hooks' report rides on it)")
    w("        return None")
    w(_LOCALS)
    if slots:
        w("    F = g._flat  # per-seat limit counters (Game._LAZY), rebuilt if a reader dropped it")
        w("    if F is None:")
        w("        F = g._flat = _fn_flat(g)")
    out.extend(_unused(night))
    grouped = [a for a in night if _groupable(a)]
    if grouped:
        w("    more: list[Any] = []  # the second and later seats using an ability tonight")
    out.extend(_validation(code, night, slots, _dead_tables(prog) is not None))
    w(_COMMIT)
    out.extend(_commit(night, slots, grouped))
    stmts = [s for a in night for s in walk(a.body)]
    stmts += [s for a in night if a.inverted for s in walk(a.inverted)]
    protects = any(isinstance(s, ir.Protect) for s in stmts)
    shape = _Shape(prog, features)
    inlined = [a for a in night if not _closures(a)]
    # membership by number: `a in grouped` compared whole abilities field by field, once per
    # pair (a 2,000-ability spec spent 33 s in dataclass __eq__)
    inlined_idx = {a.idx for a in inlined}
    grouped_idx = {a.idx for a in grouped}
    own_reports = shape.own_reports and len(inlined) == len(night)
    w("    pending = g.pending")
    if own_reports:
        w("    # the night's reports: only its abilities write them (and, for a second seat")
        w("    # using one, its generic function: see `more`)")
        w("    public: list[str] = []")
        w("    private: dict[int, list[str]] = {}")
        if grouped:
            w("    if more:")
            w("        g._public, g._private = public, private")
    else:
        w("    public, private = g._public, g._private")
    # a fresh dict, not a test of the last one (which may sit anywhere in memory by now)
    if protects:
        w("    prot = g.prot = {}")
    elif shape.protects:
        w("    g.prot = {}")
    if shape.guards:
        w("    g.guards = {}")
    if prog.night_timers:
        w("    timers = _night_timers(g)")
    # the generic machinery tonight calls, for the features the engine carries (runtime
    # FEATURES): each as the generic resolver runs it, at the same point of the night
    levels, visits, blocks = ("levels" in features), ("visits" in features), ("blocks" in features)
    plan = _reads_plan(prog, inlined)
    # a second seat's action runs the ability's generic function, whose `acted()` reads the plan
    plan_more = not plan and _reads_plan(prog, [a for a in inlined if not _groupable(a)])
    if levels:
        w("    if g.level:  # defence levels of the night (Game.shield)")
        w("        g.level = {}")
    if visits:
        w("    vis_in = g.vis_in = {}  # tonight's visits (Game._visit): who visited a seat")
        w("    vis_out = g.vis_out = {}  # ... and whom a seat visited")
    out.extend(_plan(night, grouped, plan, plan_more))
    if "delays" in features:
        w("    if g.delayed:  # delayed effects due tonight run first (generic)")
        w("        g._run_delayed(number)")
    if "hook_night_start" in features:
        out.extend(_hooks(prog, code, night, shape, features, "night_start"))
    if blocks:
        w("    blocked = g.blocked  # seats blocked so far (Game.block adds to it)")
    out.extend(_resolution(prog, code, night, features, inlined_idx, grouped_idx))
    if "hook_night_end" in features:
        out.extend(_hooks(prog, code, night, shape, features, "night_end"))
    if plan or plan_more:
        w("    g._plan = None")
    # -- dawn: the night's kills settle (Game._settle and Game._die, specialised)
    # every exit a death, once (no revive), all of them settled below: the deaths and their
    # causes are the night's locals, written as the seats die (the dawn hooks' kills settle in
    # the generic code, which writes g._deaths)
    own_deaths = not shape.revives and "hook_dawn" not in features
    w("    # -- dawn: the kills settle in order (Game._settle, specialised); triggers may add more")
    if own_deaths:
        w("    deaths = []")
        w("    causes = {}")
    else:
        w("    deaths, exits = g._deaths, g._exits")
    settle = _settle(prog, code, night, shape, features, protects, own_deaths)
    if own_reports and any(x in line for line in settle for x in _REPORTS):
        # (the night's reports are its locals: the runtime's settle may not write g's)
        raise _Cannot("the runtime's settle writes the night's reports")
    out.extend(settle)
    if "hook_dawn" in features:
        out.extend(_hooks(prog, code, night, shape, features, "dawn"))
        w("    if pending:  # what the dawn hooks kill (generic)")
        w("        g._settle()")
    if blocks:
        w("    g.blocked = {}")
        w("    g._blockings = set()")
    out.extend(_dawn_marks(prog, code, night, grouped))
    silences = any(m.silences for m in prog.marks)
    if silences:
        w("    g._silenced = {s for s in range(1, n + 1)")
        w("                   if alive[s] and SILENCING_MASK & g.marks[s]}")
    if protects:
        w("    if prot:")
        w("        g.prot = {}")
    if shape.guards:
        w("    if g.guards:")
        w("        g.guards = {}")
    if levels:
        w("    if g.level:")
        w("        g.level = {}")
    if prog.calm is not None:
        w("    if not deaths:")
        w("        g.announce(CALM)")
    w('    g.phase = "day"')
    w("    g.day += 1")
    day = prog.day
    if day is not None and day.chaos_when is not None:
        w(f"    g.chaos = {code.ex(day.chaos_when, {})}  # {code.src(day.chaos_when.span)}")
    else:
        w("    g.chaos = False")
    out.extend(_dawn_wins(prog, code))
    out.extend(_night_report(prog, shape, own_deaths, own_reports, grouped, silences))
    return out


def _commit(night, slots, grouped) -> list[str]:
    """Every action valid: each is charged before the first resolves (acted(), used())."""
    out: list[str] = []
    w = out.append
    # -- commit: every action valid; charge them all before the first resolves (acted(), used())
    w("    # -- commit: nothing below fails. Every action is charged before the first resolves:")
    w("    # the limits the validation read in the flat counters, the rest journaled (_fn_fold)")
    for a in night:
        k = a.idx
        mine = [kind for kind, j in slots if j == k]
        if not mine:
            continue
        w(f"    if a{k}:")
        # (a limit of one use, checked above: the counter was 0, so it becomes 1)
        if "uses" in mine:
            w(f"        {_at(slots, 'uses', k, f'a{k}')} {_charge(a.per_game)}")
        if "self" in mine:
            w(f"        if t{k}_0 == a{k}:")
            w(f"            {_at(slots, 'self', k, f'a{k}')} {_charge(a.self_per_game)}")
        if "ever" in mine:
            w(f"        {_at(slots, 'ever', k, f'a{k}')} |= 1 << t{k}_0")
        if "lastn" in mine:
            w(f"        {_at(slots, 'lastn', k, f'a{k}')} = number")
            w(f"        {_at(slots, 'lastt', k, f'a{k}')} = t{k}_0")
    w(f"    g._journal.append(({', '.join(_record(night))}))")
    if grouped:
        w("    if more:  # charged and journaled one by one, in the generic order")
        w("        more.sort()")
        w(f"        _fn_charge_more({'F' if slots else 'None'}, g._journal, number, more)")
        w("        several = tuple([e[2] for e in more])  # the abilities several seats use")
        w("    else:")
        w("        several = ()")
    return out


def _plan(night, grouped, plan: bool, plan_more: bool) -> list[str]:
    """The night's plan (Game._plan), where generic code reads it: always, or for `more`."""
    out: list[str] = []
    w = out.append
    if plan:
        w("    # the night's plan, for the generic code that reads it (`acted()`, reactions)")
        w("    plan: list[Any] = []")
        for a in night:
            w(f"    if a{a.idx}:")
            w(f"        plan.append({_plan_entry(a)})")
        if grouped:
            w("    if more:")
            w("        plan += more")
            w("        plan.sort()")
        w("    g._plan = plan")
    elif plan_more:
        w("    if more:  # the plan, for the generic functions the other seats run (`acted()`)")
        w("        plan: list[Any] = [")
        for a in night:
            w(f"            {_plan_entry(a)},")
        w("        ]")
        w("        plan = [e for e in plan if e[1]] + more")
        w("        plan.sort()")
        w("        g._plan = plan")
    return out


def _resolution(prog, code: _NightCode, night, features, inlined_idx, grouped_idx) -> list[str]:
    """Each action resolves, in the static night order: inlined, or by its generic function."""
    out: list[str] = []
    w = out.append
    visits, blocks = ("visits" in features), ("blocks" in features)
    # -- resolution, in the static night order
    inverting = any(m.inverts for m in prog.marks)
    for a in night:
        k = a.idx
        w(f"    if a{k}:  # {code.src(a.span)}")
        depth = 2
        if blocks and not a.unblockable:
            w(f"        if a{k} not in blocked:  # a blocked action neither resolves nor visits")
            depth = 3
        pad = _PAD * depth
        targets = [f"t{k}_{j}" for j in range(len(a.targets))]
        if visits and a.visits and len(targets) == 1:
            _visit(prog, night, a, blocks, depth, out)
        elif visits and a.visits:
            w(f"{pad}# Game._visit: the targets' `on visited` reactions run first")
            w(f"{pad}g._visit(a{k}, {const('A', a.id)}, ({''.join(x + ', ' for x in targets)}))")
        if a.idx not in inlined_idx:
            # a guard's reaction or a delayed effect is one of the engine's closures: the
            # ability's generic function runs it
            args = targets + [f"c{k}_{j}" for j in range(len(a.choices))]
            fn = f"RUN[{const('A', a.id)}]"
            if a.inverted is not None and inverting:
                w(f"{pad}fn = {fn}")
                w(f"{pad}if INVERTING_MASK & g.marks[a{k}]:")
                w(f"{pad}    fn = INVERTED[{const('A', a.id)}]")
                fn = "fn"
            w(f"{pad}# generic: {code.src(a.span)}")
            w(f"{pad}{fn}(g, a{k}, {const('A', a.id)}{''.join(', ' + x for x in args)})")
            if a.idx in grouped_idx:
                w(f"    if more and {const('A', a.id)} in several:  # the others, after the lowest")
                w(f"        _fn_more(g, more, {const('A', a.id)})")
            continue
        env = {"self": f"a{k}"}
        env.update({t.name: f"t{k}_{j}" for j, t in enumerate(a.targets)})
        env.update({c.name: f"c{k}_{j}" for j, c in enumerate(a.choices)})
        if any(isinstance(s, ir.Trial) for s in walk(a.body)) or (
            a.inverted and any(isinstance(s, ir.Trial) for s in walk(a.inverted))
        ):
            w(f"{pad}ability = {const('A', a.id)}")
        if a.inverted is not None and inverting:
            w(f"{pad}if INVERTING_MASK & g.marks[a{k}]:")
            code.stmts(a.inverted, env, depth + 1, out)
            w(f"{pad}else:")
            code.stmts(a.body, env, depth + 1, out)
        else:
            code.stmts(a.body, env, depth, out)
        if a.idx in grouped_idx:
            w(f"    if more and {const('A', a.id)} in several:  # the others, after the lowest")
            w(f"        _fn_more(g, more, {const('A', a.id)})")
    return out


def _dawn_marks(prog, code: _NightCode, night, grouped) -> list[str]:
    """Marks `until dawn` end: on the seats tonight's abilities named, or swept."""
    out: list[str] = []
    w = out.append
    dawn = [m for m in prog.marks if m.lifetime == "dawn"]
    placed = _dawn_marks_placed(prog, night)
    if dawn and placed is not None:
        # every mark `until dawn` is set by tonight's abilities only, on a seat they name:
        # those seats are the only ones holding one now
        if grouped:
            w("    if more:  # several seats used one ability: every seat is swept")
            w("        s = -1")
            w("        for m in marks:  # (a counter: cheaper than enumerate on mostly 0s)")
            w("            s += 1")
            w("            if m:")
            w("                marks[s] = m & ~DAWN_MASK")
        w("    # marks `until dawn` end: only tonight's abilities set them, on these seats")
        for k, target, m in placed:
            env = {"self": f"a{k}"}
            ab = prog.abilities[k]
            env.update({t.name: f"t{k}_{j}" for j, t in enumerate(ab.targets)})
            w(f"    if a{k}:")
            w(f"        marks[{code.ex(target, env)}] &= ~{const('MB', prog.marks[m].id)}")
    elif dawn:
        w("    s = -1")
        w("    for m in marks:  # marks `until dawn` end (a counter: cheaper than enumerate)")
        w("        s += 1")
        w("        if m:")
        w("            marks[s] = m & ~DAWN_MASK")
    return out


def _dawn_wins(prog, code: _NightCode) -> list[str]:
    """Game._check_wins at dawn (or after a death): the spec's wins in order."""
    out: list[str] = []
    w = out.append
    if "dawn" in prog.check_at or "death" in prog.check_at:
        pad = "    "
        if "dawn" not in prog.check_at:
            w("    if deaths:")
            pad = "        "
        w(f"{pad}if not g.over:  # Game._check_wins, the spec's wins in order (_wins)")
        w(f"{pad}    winner = None")
        for i, win in enumerate(prog.wins):
            who = (prog.teams if win.kind == "team" else prog.roles)[win.idx].id
            w(f"{pad}    # {code.src(win.span)}")
            w(f"{pad}    {'if' if i == 0 else 'elif'} {code.ex(win.cond, {})}:")
            w(f"{pad}        winner = {who!r}")
        w(f"{pad}    g.winner = winner")
        w(f"{pad}    g.over = winner is not None{' or _draw(g)' if prog.draws else ''}")
    return out


def _night_report(
    prog, shape, own_deaths: bool, own_reports: bool, grouped, silences: bool
) -> list[str]:
    """The night's report (Game._report, specialised), then Game._reset_reports."""
    out: list[str] = []
    w = out.append
    # -- the report (Game._report, specialised: no start report, nothing left from before)
    w("    # -- the report (Game._report, specialised)")
    w("    if g.over:")
    w("        winners = g.winners = g._final_winners()")
    w("        winners = list(winners)")
    w("        over = True")
    w("    else:  # (a game not over has no winners: from_json holds to it)")
    w("        winners = []")
    w("        over = False")
    if own_deaths:
        w("    if len(deaths) > 1:")
        w("        deaths.sort()")
    else:
        w("    causes = {}")
        w("    for s, c in exits:")
        w("        if s in deaths:")
        w("            causes[s] = CAUSES[c]")
        w("    deaths = sorted(deaths) if deaths else []")
    if shape.converts:
        w("    changes = g._changes")
    w("    rep = {")
    w('        "phase": "night", "number": number,')
    w('        "deaths": deaths,')
    w('        "causes": causes,')
    # (the report's lists are its own: a later step cannot append to one already returned)
    changed = "changes or []" if shape.converts else "[]"
    w(f'        "public": public, "private": private, "changes": {changed},')
    w(f'        "silenced": {"sorted(g._silenced)" if silences else "[]"}, "winner": g.winner,')
    w('        "winners": winners, "over": over,')
    w(f'        "timers": {"timers" if prog.night_timers else "{}"},')
    w("    }")
    w("    # Game._reset_reports, for what was written (the report keeps these objects)")
    if not own_deaths:
        w("    if deaths:")
        w("        g._deaths = []")
        w("        g._exits = []")
    if not own_reports:
        w("    g._public = []")
        w("    g._private = {}")
    elif grouped:
        w("    if more:")
        w("        g._public = []")
        w("        g._private = {}")
    if shape.converts:
        w("    if changes:")
        w("        g._changes = []")
    if silences:
        w("    g._silenced = set()")
    w("    return rep")
    return out


# what writes the game's reports (Game.tell, Game.announce)
_REPORTS = ("g.tell(", "g.announce(", "g._public", "g._private")

# the night's locals the code after the kills settle reads (or the surroundings hold): the
# settle's own locals avoid them (compiler/backend/specialise.py renames one that would not)
_NIGHT_LOCALS = frozenset(
    "g n role alive team marks nteam pending prot deaths causes exits more several timers "
    "number plan public private F actions winners winner over rep changes blocked vis_in "
    "vis_out ability".split()
)


def _runtime(prog: ir.Program, code: _NightCode, night, shape: _Shape, features, **views):
    """The specialiser of the runtime's own Game methods (compiler/backend/specialise.py) for
    this spec: the tables the spec fixes (none of a kind: known empty; `on any death`: its rows,
    unrolled), the game state it never fills (protections, guards: known empty), the night's
    locals for the game's lists, and `views` (attribute -> how the night holds it)."""
    rows = []
    notes = []
    for r, tr, fn in any_deaths_in_order(prog):
        causes = (
            Val(
                expr=ast.parse(
                    "(" + "".join(const("C", prog.causes[c]) + ", " for c in tr.causes) + ")",
                    mode="eval",
                ).body,
                known=frozenset(tr.causes),
            )
            if tr.causes
            else known(None)
        )
        role = known(r, const("R", prog.roles[r].id)) if r >= 0 else known(-1)
        rows.append(row(role, causes, residual(fn)))
        notes.append(f"# {code.src(tr.span)}")
    consts = {
        "ANY_SAVE": residual("ANY_SAVE", truth=True) if prog.any_saves else known(()),
        "ANY_DEATH": table("ANY_DEATH", rows, notes),
    }
    if not any(r.immune for r in prog.roles):
        consts["IMMUNE"] = uniform("IMMUNE", known(()))
        consts["IMMUNE_TO"] = uniform("IMMUNE_TO", known(frozenset()))
    if not any(r.triggers for r in prog.roles):
        consts["TRIGGERS"] = uniform("TRIGGERS", known(()))
    seen = {"alive", "role", "team", "marks", "nteam", "pending", "n"}
    reserved = set(_NIGHT_LOCALS)
    for a in night:
        reserved |= {f"a{a.idx}", f"h{a.idx}"}
        reserved |= {f"t{a.idx}_{j}" for j in range(len(a.targets))}
        reserved |= {f"c{a.idx}_{j}" for j in range(len(a.choices))}
    base = {x: view(x) for x in seen}
    base["prot"] = view("g.prot") if shape.protects else EMPTY
    base["guards"] = view("g.guards") if shape.guards else EMPTY
    base.update(views.pop("views", {}))
    return Specialiser(
        runtime_source("core"),
        "compiler/runtime/core.py",
        "Game",
        consts=consts,
        features=features,
        views=base,
        rewrites=views.pop("rewrites", None),
        inline=("_die",),
        reserved=reserved,
    )


def _hooks(prog: ir.Program, code: _NightCode, night, shape, features, when: str) -> list[str]:
    """Game._hooks(HOOKS_<WHEN>), specialised (compiler/backend/specialise.py): the phase's
    hooks unrolled in spec order, a top-level one once (no seat), a role's once per living
    seat of it."""
    rows, notes = [], []
    for r, h, fn in hooks_in_order(prog):
        if h.when == when:
            role = known(r, const("R", prog.roles[r].id)) if r >= 0 else known(-1)
            rows.append(row(role, residual(fn)))
            notes.append(f"# {code.src(h.span)}")
    out = [f"    # `on {when.replace('_', ' ')}` hooks (Game._hooks, specialised)"]
    sp = _runtime(prog, code, night, shape, features)
    return out + sp.method("_hooks", {"hooks": table(f"HOOKS_{when.upper()}", rows, notes)}, 1)


def _settle(
    prog: ir.Program, code: _NightCode, night, shape: _Shape, features, protects: bool, own: bool
) -> list[str]:
    """The night's kills settle: Game._settle with Game._die inlined, specialised to the spec by
    compiler/backend/specialise.py (the runtime's code is the one meaning of a kill, a
    protection, an immunity, a defence level, a guard, `on any save`, the death triggers and
    `on any death`; this night holds only what its spec can reach of it). `protects`: tonight's
    abilities protect (the local `prot`); `own`: the deaths and their causes are the night's
    locals (every exit a death, once: an exit is its report's cause)."""
    views = {"_deaths": view("deaths")}
    if protects:
        views["prot"] = view("prot")
    rewrites = None
    if own:

        def exit_as_cause(args: list[ast.expr]) -> list[ast.stmt]:
            (pair,) = args
            assert isinstance(pair, ast.Tuple) and len(pair.elts) == 2
            seat, cause = (ast.unparse(x) for x in pair.elts)
            return [ast.parse(f"causes[{seat}] = CAUSES[{cause}]").body[0]]

        rewrites = {("_exits", "append"): exit_as_cause}
    else:
        views["_exits"] = view("exits")
    sp = _runtime(prog, code, night, shape, features, views=views, rewrites=rewrites)
    out = [
        "    if pending:  # (Game._generic_night: `if self.pending: self._settle()`)",
        "        # Game._settle, Game._die inlined: compiler/runtime/core.py, specialised to the",
        "        # spec (compiler/backend/specialise.py)",
    ]
    return out + sp.method("_settle", {}, 2)


class _Shape:
    """What a spec's statements can do to a night, wherever they are (every ability of any
    phase, triggers, called abilities): the compiled night skips what cannot happen."""

    def __init__(self, prog: ir.Program, features) -> None:
        kinds = {type(n) for n in ir.nodes(prog)}
        self.protects = ir.Protect in kinds  # else `g.prot` stays empty
        self.guards = ir.Guard in kinds  # else `g.guards` stays empty
        self.converts = ir.Convert in kinds  # else no `changes`
        self.revives = ir.Revive in kinds  # else every exit is a death, once
        # the night's public and private reports are written by its own abilities only (no
        # trigger tells, no called ability, no calm text, no generic machinery of a feature):
        # they can be fresh locals
        told = {type(n) for r in prog.roles for t in r.triggers for n in ir.nodes(t)} & {
            ir.Tell,
            ir.Announce,
        }
        self.own_reports = (
            not told
            and ir.CallAbility not in kinds
            and prog.calm is None
            and not (set(features) & (FEATURES - {"hook_day_start", "hook_day_end"}))
        )


def _validation(code: _NightCode, night, slots, dead: bool = False) -> list[str]:
    """One pass over the actions: each dispatched (a tree of `k` tests) to its ability's unrolled
    checks. A malformed action ends it by an exception (a short list, an unknown name, a seat
    past the table): the generic resolver then names the error. `dead`: some abilities are used
    by the dead (`_FN_DEAD`, see _dispatch)."""
    out = ["    try:", "        for raw in actions:"]
    w = out.append
    w("            if raw.__class__ is not list and raw.__class__ is not tuple:")
    w("                return None")
    w("            actor = raw[0]")
    out.extend(_dispatch(dead))
    _tree(code, night, sorted(night, key=lambda a: a.idx), slots, 3, out)
    w("    except (IndexError, KeyError, ValueError, TypeError):")
    w("        return None  # malformed, unknown or beyond the table")
    return out


def _dispatch(dead: bool) -> list[str]:
    """The actor's seat and the action's name -> `k`, the ability the validation checks. A living
    seat names its role's abilities (`_FN_OWN`); where the spec has abilities of the dead, a dead
    seat names those of its role (`_FN_DEAD`): the life an ability asks for (`dead`, `alive or
    dead`) is the table the name is found in, as the generic validation's `dead-actor` and
    `living-actor` rules hold (a name of the other life is -1: the generic resolver refuses it)."""
    p = _PAD * 3
    if not dead:
        return [
            f"{p}if _FN_SEAT[actor] is not actor or not alive[actor]:  # an int seat, alive",
            f"{p}    return None",
            f"{p}name = raw[1]",
            f"{p}if name.__class__ is not str:",
            f"{p}    return None",
            f"{p}k = _FN_OWN[role[actor]][name]  # own or held; -1: not for the compiled night",
        ]
    return [
        f"{p}if _FN_SEAT[actor] is not actor:  # an int seat (alive[actor]: within the table)",
        f"{p}    return None",
        f"{p}name = raw[1]",
        f"{p}if name.__class__ is not str:",
        f"{p}    return None",
        f"{p}if alive[actor]:",
        f"{p}    k = _FN_OWN[role[actor]][name]  # own or held; -1: not for the compiled night",
        f"{p}else:  # a dead seat: its role's abilities of the dead only",
        f"{p}    k = _FN_DEAD[role[actor]][name]",
    ]


def _tree(code: _NightCode, night, abs_, slots, depth: int, out: list[str], left=True) -> None:
    """The dispatch on `k` as a balanced tree of tests (a few comparisons, not one per ability).
    `k` is a night ability of the table or -1, which only the leftmost leaf can meet."""
    pad = _PAD * depth
    if len(abs_) <= 2:
        last = len(abs_) - 1
        for i, a in enumerate(abs_):
            if left or i < last:
                out.append(f"{pad}{'if' if i == 0 else 'elif'} k == {a.idx}:  # {code.src(a.span)}")
                _checks(code, night, a, slots, depth + 1, out)
            elif i == 0:
                out.append(f"{pad}# k == {a.idx}: {code.src(a.span)}")
                _checks(code, night, a, slots, depth, out)
            else:
                out.append(f"{pad}else:  # k == {a.idx}: {code.src(a.span)}")
                _checks(code, night, a, slots, depth + 1, out)
        if left:
            out.append(f"{pad}else:")
            out.append(f"{pad}    return None")
        return
    mid = len(abs_) // 2
    out.append(f"{pad}if k < {abs_[mid].idx}:")
    _tree(code, night, abs_[:mid], slots, depth + 1, out, left)
    out.append(f"{pad}else:")
    _tree(code, night, abs_[mid:], slots, depth + 1, out, False)


def _checks(code: _NightCode, night, a, slots, depth: int, out: list[str]) -> None:
    """One ability's checks, unrolled, in the generic validation's order."""
    w = out.append
    p = _PAD * depth
    k = a.idx
    nt, nc = len(a.targets), len(a.choices)
    checks = [] if _groupable(a) else [f"a{k}"]  # (a second seat: see the end)
    if a.from_number > 1:
        checks.append(f"number < {a.from_number}")
    if checks:
        w(f"{p}if {' or '.join(checks)}:")
        w(f"{p}    return None")
    env = {"self": "actor"}
    names = ["t" if j == 0 else f"t{k}_{j}" for j in range(nt)]
    names += [f"c{k}_{j}" for j in range(nc)]
    # the action's length: unpacking fails (ValueError) unless it is exactly this long
    w(f"{p}_, _{''.join(f', {x}' for x in names)} = raw")
    if a.holders:
        # the holder, looked up once: the actor himself when he is the first seat of the
        # chain's first role (he is alive), else the chain is walked
        first = a.holders[0]
        w(f"{p}if h{k} < 0:")
        w(f"{p}    if role[actor] == {first} and role.index({first}) == actor:")
        w(f"{p}        h{k} = actor")
        w(f"{p}    else:")
        w(f"{p}        h{k} = _fn_holder(role, alive, {tuple(a.holders)!r})")
        w(f"{p}if actor != h{k}:")
        w(f"{p}    return None")
    if a.exclusive_group >= 0:
        others = [b for b in night if b.exclusive_group == a.exclusive_group and b.idx != k]
        if others:
            w(f"{p}if {' or '.join(f'a{b.idx} == actor' for b in others)}:")
            w(f"{p}    return None")
    if a.table_group >= 0:
        others = [b for b in night if b.table_group == a.table_group and b.idx != k]
        if others:
            w(f"{p}if {' or '.join(f'a{b.idx}' for b in others)}:")
            w(f"{p}    return None")
    if a.per_game:
        w(f"{p}if {_at(slots, 'uses', k, 'actor')} >= {a.per_game}:")
        w(f"{p}    return None")
    for j, t in enumerate(a.targets):
        var = names[j]
        env[t.name] = var
        w(f"{p}# {code.src(t.span)}")
        # a filter that first reads a per-seat list at the target bounds it above itself
        # (IndexError); only a seat below 1 would be read from the end of the list
        bound = "" if _indexes_first(t.filter, t.name) else f" or {var} > n"
        w(f"{p}if _FN_SEAT[{var}] is not {var}{bound} or not {code.ex(t.filter, env)}:")
        w(f"{p}    return None")
    for j, c in enumerate(a.choices):
        var = names[nt + j]
        env[c.name] = var
        table = "_FN_ROLE" if c.kind == "role" else "_FN_TEAM"
        w(f"{p}if {var}.__class__ is not str:")
        w(f"{p}    return None")
        w(f"{p}{var} = {table}[{var}]  # (an unknown name: KeyError)")
    if a.when is not None:
        w(f"{p}# {code.src(a.when.span)}")
        w(f"{p}if not {code.ex(a.when, env)}:")
        w(f"{p}    return None")
    if nt and a.self_per_game:
        w(f"{p}if t == actor and {_at(slots, 'self', k, 'actor')} >= {a.self_per_game}:")
        w(f"{p}    return None")
    if nt and a.norepeat == "ever":
        w(f"{p}if {_at(slots, 'ever', k, 'actor')} >> t & 1:")
        w(f"{p}    return None")
    elif nt and a.norepeat:
        w(
            f"{p}if {_at(slots, 'lastn', k, 'actor')} == number - 1 "
            f"and {_at(slots, 'lastt', k, 'actor')} == t:"
        )
        w(f"{p}    return None")
    if _groupable(a):
        # a second seat using it tonight: the lowest seat keeps the locals (it resolves
        # first), the others go to `more` as plan entries (rank, actor, ability, args, first)
        def entry(who: str, t: str) -> str:
            return f"({a.rank}, {who}, {const('A', a.id)}, {f'({t},)' if nt else '()'}, {t})"

        w(f"{p}if a{k}:  # a second seat (never the same seat twice)")
        w(f"{p}    if actor == a{k} or more and _fn_twice(more, actor, {const('A', a.id)}):")
        w(f"{p}        return None")
        w(f"{p}    if actor < a{k}:")
        w(f"{p}        more.append({entry(f'a{k}', f't{k}_0' if nt else '0')})")
        w(f"{p}    else:")
        w(f"{p}        more.append({entry('actor', 't' if nt else '0')})")
        w(f"{p}        continue")
    w(f"{p}a{k} = actor")
    if nt:
        w(f"{p}t{k}_0 = t")


def _dawn_marks_placed(prog: ir.Program, night) -> list[tuple[int, ir.Expr, int]] | None:
    """(ability, target, mark) of every statement setting a mark `until dawn`, if all of them
    are in the compiled night's abilities (outside loops) and mark one of the ability's own
    targets or its actor (locals that still hold at dawn); None otherwise."""
    dawn = {m.idx for m in prog.marks if m.lifetime == "dawn"}

    def setting(n) -> bool:
        return isinstance(n, ir.SetMark) and not n.remove and n.mark in dawn

    total = sum(1 for n in ir.nodes(prog) if setting(n))
    out: list[tuple[int, ir.Expr, int]] = []
    for a in night:
        names = {t.name for t in a.targets}
        todo = list(a.body) + list(a.inverted or ())
        while todo:
            st = todo.pop()
            if isinstance(st, ir.If):
                for _, b in st.branches:
                    todo.extend(b)
                todo.extend(st.orelse)
            elif setting(st):
                t = st.target
                if (isinstance(t, ir.Var) and t.name in names) or (
                    isinstance(t, ir.Builtin) and t.name == "self"
                ):
                    out.append((a.idx, t, st.mark))
    return out if len(out) == total else None


def _indexes_first(e: ir.Expr, name: str) -> bool:
    """Does evaluating `e` begin by reading a per-seat list at the seat `name`?"""
    while True:
        if isinstance(e, ir.Binary) and e.op in ("and", "or"):
            e = e.left
        elif isinstance(e, ir.Unary) and e.op == "not":
            e = e.operand
        else:
            break
    return (
        isinstance(e, ir.Call)
        and e.func in ("alive", "role", "team")
        and isinstance(e.args[0], ir.Var)
        and e.args[0].name == name
    )


def _record(night) -> list[str]:
    """The night's journal record: its number, then each ability's actor (and first target)."""
    out = ["number"]
    for a in night:
        out.append(f"a{a.idx}")
        if a.targets:
            out.append(f"t{a.idx}_0")
    return out


def _support(prog: ir.Program, night) -> list[str]:
    """Module-level helpers of the compiled night: the holder lookup, the flat counters'
    layout, their rebuild from the bookkeeping dicts and the journal's fold into them."""
    slots = _slots(night)
    w: list[str] = []
    w.append(f"FLAT_SLOTS = {len(slots)}  # per seat: {', '.join(f'{k} {j}' for k, j in slots)}")
    w.append("")
    w.append("")
    w.append("def _fn_holder(role, alive, chain):")
    w.append(
        '    """Game.holder: the first living seat of the first role of `chain` that has one."""'
    )
    w.append("    for r in chain:")
    w.append("        if r in role:")
    w.append("            s = role.index(r)")
    w.append("            while not alive[s]:")
    w.append("                if r not in role[s + 1:]:")
    w.append("                    break")
    w.append("                s = role.index(r, s + 1)")
    w.append("            else:")
    w.append("                return s")
    w.append("    return 0")
    w.append("")
    w.append("")
    w.append("def _fn_flat(g):")
    w.append('    """The compiled night\'s flat counters, rebuilt from the bookkeeping dicts."""')
    w.append("    if g._journal:")
    w.append("        g._fold()")
    w.append("    F = [0] * ((g.n + 1) * FLAT_SLOTS)")
    tabs = {
        "uses": ("g._uses", "k"),
        "self": ("g._self_uses", "k"),
        "lastn": ("g._last_target", "k[0]"),
        "lastt": ("g._last_target", "k[1]"),
    }
    for kind, (src, val) in tabs.items():
        mine = [(i, j) for i, (kd, j) in enumerate(slots) if kd == kind]
        if mine:
            w.append(f"    for (s, a), k in {src}.items():  # {kind}")
            for n, (i, j) in enumerate(mine):
                w.append(f"        {'if' if n == 0 else 'elif'} a == {j}:")
                w.append(f"            F[s * {len(slots)} + {i}] = {val}")
    mine = [(i, j) for i, (kd, j) in enumerate(slots) if kd == "ever"]
    if mine:
        w.append("    for (s, a), ts in g._ever.items():  # ever: one bit per seat targeted")
        for n, (i, j) in enumerate(mine):
            w.append(f"        {'if' if n == 0 else 'elif'} a == {j}:")
            w.append("            for t in ts:")
            w.append(f"                F[s * {len(slots)} + {i}] |= 1 << t")
    w.append("    return F")
    w.append("")
    w.append("")
    w.append("def _fn_fold(g, journal):")
    w.append('    """Fold journaled nights into the bookkeeping dicts (Game._LAZY), in order."""')
    w.append("    uses, self_uses, last = g._uses, g._self_uses, g._last_target")
    w.append(f"    for ({', '.join(_record(night))}) in journal:")  # parenthesized: may wrap
    for a in night:
        k = a.idx
        w.append(f"        if a{k}:  # {comment(a.id)}")
        w.append(f"            key = (a{k}, {k})")
        w.append("            uses[key] = uses.get(key, 0) + 1")
        if a.targets:
            w.append(f"            if t{k}_0 == a{k}:")
            w.append("                self_uses[key] = self_uses.get(key, 0) + 1")
            w.append(f"            last[key] = (number, t{k}_0)")
            if a.norepeat == "ever":
                w.append(f"            g._ever.setdefault(key, []).append(t{k}_0)")
    return w


def _dead_tables(prog: ir.Program) -> list[dict[str, int]] | None:
    """Per role, the night abilities a dead seat may use in the compiled night, by short and full
    name (`_FN_DEAD`): its role's own abilities of the dead (`dead`, `alive or dead`), neither
    granted nor `held by` (a holder is a living seat); -1 for its other abilities' names (the
    generic resolver refuses those: a living seat's ability, or decides: a granted one). None
    when no ability of the spec is used by the dead: a dead actor always falls back (the error)."""
    ids = ir.once(_compiled_ids, prog)
    if not any(id(a) in ids and a.life != "alive" for a in prog.abilities):
        return None
    out = []
    by_role = ir.once(_by_role, prog)
    for r in prog.roles:
        names = {}
        for a in by_role.get(r.idx, ()):
            ok = id(a) in ids and a.granted < 0 and not a.holders and a.life != "alive"
            names[a.name] = a.idx if ok else -1
            names[a.id] = a.idx if ok else -1
        out.append(names)
    return out


def tables(prog: ir.Program, features: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The name tables the fast night dispatches on, and its module-level helpers."""
    ids = ir.once(_compiled_ids, prog)
    night = [a for a in prog.abilities if id(a) in ids]
    own = []
    by_role = ir.once(_by_role, prog)
    for r in prog.roles:
        names = {}
        for a in by_role.get(r.idx, ()):
            # -1: the role's own ability of that name is not for the fast night (another
            # phase, or granted): the generic resolver decides
            ok = id(a) in ids and a.granted < 0 and a.life != "dead"
            names[a.name] = a.idx if ok else -1
            names[a.id] = a.idx if ok else -1
        own.append(names)
    dead = _dead_tables(prog)
    held: dict[str, list[int]] = {}
    for a in night:
        if a.holders and a.granted < 0:
            for nm in (a.name, a.id):
                held.setdefault(nm, []).append(a.idx)
    granted_names = {nm for a in prog.abilities if a.granted >= 0 for nm in (a.name, a.id)}
    held_one = {
        nm: ks[0] for nm, ks in sorted(held.items()) if len(ks) == 1 and nm not in granted_names
    }
    # a role naming a held ability of another role by a name of its own ability is dispatched
    # to its own; a role with an ability of that name it cannot use now goes the generic way
    for names in own:
        for nm, k in held_one.items():
            names.setdefault(nm, k)
    lines = [
        "# (role) -> {name: ability}: the night abilities a seat may name, by short and full",
        "# name: its role's own, then those passed down (`held by`: the holder is checked)",
        "_FN_OWN: tuple[dict[str, int], ...] = (",
    ]
    lines += [
        f"    {names!r},  # {comment(r.id)}" for names, r in zip(own, prog.roles, strict=True)
    ]
    lines.append(")")
    if dead is not None:
        lines += [
            "# (role) -> {name: ability}: the night abilities a DEAD seat may name (`dead`,",
            "# `alive or dead`), by short and full name; -1: the generic resolver decides",
            "_FN_DEAD: tuple[dict[str, int], ...] = (",
        ]
        lines += [
            f"    {names!r},  # {comment(r.id)}" for names, r in zip(dead, prog.roles, strict=True)
        ]
        lines.append(")")
    if any(r.title for r in prog.roles):  # a title's role is no choice (CHOICE_VALUES)
        lines.append("_FN_ROLE = {r: i for i, r in enumerate(ROLES) if i not in TITLE_ROLES}")
    else:
        lines.append("_FN_ROLE = {r: i for i, r in enumerate(ROLES)}")
    lines.append("_FN_TEAM = {t: i for i, t in enumerate(TEAMS)}")
    lines += [
        "# `_FN_SEAT[x] is x` holds for an int x in 1..256 alone (CPython keeps one object per",
        "# small int): a bool, an int subclass, 0, a negative or a larger number fails it (or",
        "# raises IndexError), and the generic resolver decides. Cheaper than a type test.",
        "_FN_SEAT: tuple[int, ...] = (-1, *range(1, 257))",
    ]
    night = sorted(night, key=lambda a: a.rank)
    return lines + ["", ""] + _support(prog, night) + _more(prog, night, features)


# a journal record of at most this many fields is written out whole in `_fn_charge_more` (one per
# ability: a wider one would make the engine grow with the square of the spec)
_RECORD_LITERAL = 40


def _more(prog: ir.Program, night, features) -> list[str]:
    """Helpers for the second and later seats using one ability in a night (`_groupable`):
    kept as plan entries in `more`, charged (flat counters and a journal record each) and
    resolved by the ability's generic function, as the generic resolver does."""
    grouped = [a for a in night if _groupable(a)]
    if not grouped:
        return []
    slots = _slots(night)
    record = _record(night)
    w: list[str] = ["", ""]
    w.append("def _fn_twice(more, actor, k):")
    w.append('    """Does `actor` use ability `k` tonight already (as a second seat)?"""')
    w.append("    for e in more:")
    w.append("        if e[1] == actor and e[2] == k:")
    w.append("            return True")
    w.append("    return False")
    w.append("")
    w.append("")
    w.append("def _fn_charge_more(F, journal, number, more):")
    w.append('    """Charge the second and later seats (as the compiled night charges the first):')
    w.append('    the flat counters a limit reads, and one journal record each (_fn_fold)."""')
    if len(record) > _RECORD_LITERAL:
        w.append(f"    zero = (0,) * {len(record) - 1}  # a record with no ability used")
    w.append("    for _, actor, k, _, t in more:")
    for i, a in enumerate(grouped):
        k = a.idx
        w.append(f"        {'if' if i == 0 else 'elif'} k == {const('A', a.id)}:")
        mine = [kind for kind, j in slots if j == k]
        if "uses" in mine:
            w.append(f"            {_at(slots, 'uses', k, 'actor')} += 1")
        if "self" in mine:
            w.append("            if t == actor:")
            w.append(f"                {_at(slots, 'self', k, 'actor')} += 1")
        if "ever" in mine:
            w.append(f"            {_at(slots, 'ever', k, 'actor')} |= 1 << t")
        if "lastn" in mine:
            w.append(f"            {_at(slots, 'lastn', k, 'actor')} = number")
            w.append(f"            {_at(slots, 'lastt', k, 'actor')} = t")
        if len(record) <= _RECORD_LITERAL:
            rec = ["number"] + [
                "actor" if x == f"a{k}" else "t" if x == f"t{k}_0" else "0" for x in record[1:]
            ]
            w.append(f"            journal.append(({', '.join(rec)}))")
        else:  # a wide record is spliced out of `zero`, so the code grows linearly
            i = record.index(f"a{k}") - 1
            mid, after = ("actor, t", i + 2) if a.targets else ("actor", i + 1)
            w.append(f"            journal.append((number, *zero[:{i}], {mid}, *zero[{after}:]))")
    w.append("")
    w.append("")
    w.append("def _fn_more(g, more, k):")
    w.append('    """The other seats using ability `k` tonight, in seat order, as the generic')
    w.append('    resolver plays an action: blocked, visits, the inverted body, the body (RUN)."""')
    w.append("    for _, actor, kk, args, _ in more:")
    w.append("        if kk != k:")
    w.append("            continue")
    if "blocks" in features:
        w.append("        if actor in g.blocked and not AB_UNBLOCKABLE[k]:")
        w.append("            continue  # blocked: the action neither resolves nor visits")
    if "visits" in features:
        w.append("        if AB_VISITS[k]:")
        w.append("            g._visit(actor, k, args)")
    if any(m.inverts for m in prog.marks) and any(a.inverted is not None for a in grouped):
        w.append("        fn = RUN[k]")
        w.append("        inv = INVERTED[k]")
        w.append("        if inv is not None and INVERTING_MASK & g.marks[actor]:")
        w.append("            fn = inv")
        w.append("        fn(g, actor, k, *args)")
    else:
        w.append("        RUN[k](g, actor, k, *args)")
    return w


# ---------------------------------------------------------------- the compiled day (issue 22)
def render_day(prog: ir.Program, vm: dict, features: set[str] | frozenset[str]) -> list[str]:
    """Code lines of `_day_fast(g, eliminate, actions)`: the day of `resolve_day` for its common
    legal case (an elimination given directly or none; no day actions, votes, election,
    breach, card, trial input: a scheduled trial is announced, as the generic day does when no
    trial input is given; not a repeated day; no kill pending; a chaos day too, announced and
    timed as the generic day does: it differs by its vote alone), specialised to the
    spec: what the spec's day has not (a vote, quiet days, chaos, an election, a speaker, dusk and
    tomorrow marks, day-end hooks, levels, the win checks) is left out. It returns None without
    touching the game for any other day, which the generic `Game._day` plays (and refuses with
    its exact error). Nothing it runs after its checks raises for a legal day, so it keeps no
    snapshot. No code (the generic day only) for a spec with day-start hooks (they may kill
    the seat to eliminate: the check would come too late)."""
    hooks = vm.get("hook_used", set())
    if "day_start" in hooks:
        return []
    vote, chaos, check = vm.get("vote"), vm.get("chaos"), set(prog.check_at)
    quiet = bool(prog.quiet_days)
    dusk = any(m.lifetime == "dusk" for m in prog.marks)
    tomorrow = any(m.lifetime == "tomorrow" for m in prog.marks)
    out = [
        "def _day_fast(g, eliminate, actions, report=True):",
        '    """The day, compiled for its common legal case (compiler/backend/nightgen.py',
        "    render_day); None, the game untouched, for any other day (the generic one plays it).",
        "    `report=False` (Game.playout): True, the state as with a report, none made.",
        '    """',
        "    if actions or g.repeat or g.pending:",
        "        return None",
        "    number = g.day",
        "    if eliminate is not None:",
    ]
    w = out.append
    if vote is None:
        w("        return None  # no day vote: the generic day refuses it")
    else:
        if quiet:
            w("        if number in QUIET_DAYS:")
            w("            return None")
        w("        if eliminate.__class__ is not int or not 0 < eliminate <= g.n:")
        w("            return None")
        w("        if not g.alive[eliminate]:")
        w("            return None")
    if chaos is not None:  # a chaos day differs by its vote alone: an elimination is one
        w("    chaos = _chaos(g)  # (a chaos day: its announcement and timers below)")
    else:
        w("    chaos = _chaos(g)  # (the spec has no chaos vote)")
    if vm.get("election"):
        w("    if _election_held(g):")
        w("        return None")
    w("    g.chaos = chaos")
    w("    g._runoff = None")
    w("    if g.trial is not None:  # its cancel condition (a use refunded), as the day starts")
    w("        g._settle_trial()")
    speaks = vm.get("speaking") is not None
    w("    if report:  # (the speaker and the timers are the report's alone)")
    w("        speaker = g._speaker(number)" if speaks else "        speaker = None")
    w("        timers = _day_timers(g)")
    if vote is not None and chaos is not None:
        w("        timers.update((_chaos_timers if chaos else _vote_timers)(g))")
    elif vote is not None:
        w("        timers.update(_vote_timers(g))")
    elif chaos is not None:
        w("        if chaos:")
        w("            timers.update(_chaos_timers(g))")
    w("    g.repeat = False")
    if chaos is not None:
        w("    if chaos:")
        w('        g.announce("chaos")')
    w("    trial = g.trial")
    w("    if trial is not None:  # the scheduled trial, given no input: announced")
    w("        g.trial = None")
    w('        g.announce(f"trial {trial[2]} {trial[3]}")')
    if vm.get("votes_read"):
        w("    g.votes = set()  # `voted` reads the most recent day vote: today's from now on")
    if vote is not None:
        w("    if eliminate is not None:")
        w("        g._die(eliminate, C_VOTE)")
        w("        if g.pending:  # (a death trigger's kill; none was pending before)")
        w("            g._settle()")
    w("    g.defenders = _NO_SET")
    w("    g.vote_cancelled = False")
    w("    g.weight = _NO_DICT  # vote weights last for the day")
    w("    g.prot = {}  # so do protections and guards taken by day")
    w("    g.guards = {}")
    if "levels" in features:
        w("    g.level = {}")
    if "day_end" in hooks:
        w("    g._hooks(HOOKS_DAY_END)  # dusk")
        w("    g._settle()")
    w("    # -- dusk")
    if dusk:
        w("    marks = g.marks")
        w("    for seat, mark in g.later:")
        w("        marks[seat] &= ~(1 << mark)")
        w("    for s, m in enumerate(marks):")
        w("        if m & DUSK_MASK:")
        w("            marks[s] = m & ~DUSK_MASK")
    else:
        w("    if g.later:")
        w("        marks = g.marks")
        w("        for seat, mark in g.later:")
        w("            marks[seat] &= ~(1 << mark)")
    if tomorrow:
        w("    g.later = [")
        w("        [s, m]")
        w("        for s in range(1, g.n + 1)")
        w("        if g.marks[s] & TOMORROW_MASK")
        w("        for m in _bits(g.marks[s] & TOMORROW_MASK)")
        w("    ]")
    else:
        w("    g.later = _NO_LIST")
    w("    skipped = False")
    w("    if g.skip and not g.repeat:")
    w("        g.skip = False")
    w("        skipped = True  # the night is not played: straight to the next day")
    w("        g.night += 1")
    w("        g.day += 1")
    w("        g.chaos = _chaos(g)")
    w("    elif not g.repeat:")
    w('        g.phase = "night"')
    w("        g.night += 1")
    w("        g.chaos = False")
    if "vote" in check or "dusk" in check:
        w("    g._check_wins()")
    elif "death" in check:
        w("    if g._deaths:")
        w("        g._check_wins()")
    w("    if not report:  # Game._report's changes to the state, without the report")
    w("        if g.over:")
    w("            g.winners = g._final_winners()")
    w("        g.start_pending = False")
    w("        g._reset_reports()")
    w("        return True")
    w("    return g._report(")
    w('        "day",')
    w("        number,")
    w("        chaos=chaos,")
    w("        speaker=speaker,")
    w("        repeat=g.repeat,")
    w("        skipped_night=skipped,")
    w("        timers=timers,")
    w("    )")
    return out


# ---------------------------------------------------------------- the compiled draws (issue 22)
def _drawable(a: ir.Ability, prog: ir.Program) -> bool:
    """Is the playout draw of `a` compiled? A night ability of the living with no `when` (which
    may read every argument), not granted by a mark."""
    return (
        a.phase == "night"
        and a.life == "alive"
        and a.when is None
        and a.granted < 0
        and len(a.targets) <= 4
        and not sem.read_at_wake(a, prog)  # its filters wait for its wake: the generic preview
    )


class _Draw:
    """The playout draw of one night ability (render_draws, render_draw_night): its checks,
    its targets' filters, the first target's rules and its choices, as code."""

    def __init__(self, prog: ir.Program, a: ir.Ability, slots, code: PyCode | None) -> None:
        self.a, self.k, self.nt = a, a.idx, len(a.targets)
        self.slots = slots
        # each choice drawn from every id of its table, after the targets (as the generic
        # draw does: the first target's rules are asked after the choices are drawn)
        roles, choosable = _role_values(prog)
        self.choices = [
            f"{roles}[floor(random() * {choosable})]"
            if c.kind == "role"
            else f"TEAMS[floor(random() * {len(prog.teams)})]"
            for c in a.choices
        ]
        self.names = [f"t{j}" for j in range(self.nt)] + [f"c{j}" for j in range(len(a.choices))]
        # the first target's rules (Game._first_rule), as conditions a kept t0 meets
        self.rules: list[str] = []
        self.before: list[str] = []  # statements before the targets are drawn
        if self.nt and a.self_per_game:
            used = self.limit("self") or f"g.self_uses.get((seat, {a.idx}), 0)"
            self.rules.append(f"(t0 != seat or {used} < {a.self_per_game})")
        if self.nt and a.norepeat == "ever":
            ever = self.limit("ever")
            self.rules.append(
                f"not {ever} >> t0 & 1" if ever else f"t0 not in g.ever.get((seat, {a.idx}), ())"
            )
        elif self.nt and a.norepeat:
            lastn, lastt = self.limit("lastn"), self.limit("lastt")
            if lastn and lastt:
                self.rules.append(f"not ({lastn} == number - 1 and {lastt} == t0)")
            else:
                self.before.append(f"last = g.last_target.get((seat, {a.idx}))")
                self.rules.append("(last is None or last[0] != number - 1 or last[1] != t0)")
        # what refuses the ability itself (Game._check_ability), as conditions it meets
        self.checks: list[str] = []
        if a.from_number > 1:
            self.checks.append(f"number >= {a.from_number}")
        if a.per_game:
            used = self.limit("uses") or f"g.uses.get((seat, {a.idx}), 0)"
            self.checks.append(f"{used} < {a.per_game}")
        self.reads_flat = "F[" in " ".join(self.rules + self.checks)
        # the targets' filters: the spec's expressions inlined (as emit renders FILTERS),
        # or, where one needs a closure, FILTERS' function called
        self.filters: list[str] = []
        self.srcs: list[str] = []
        for j, t in enumerate(a.targets):
            call = f"FILTERS[{a.idx}][{j}](g, seat, {', '.join(self.names[: j + 1])})"
            if code is not None:
                env = {"self": "seat"}
                env.update({tt.name: f"t{i}" for i, tt in enumerate(a.targets[: j + 1])})
                before = len(code.closures)
                expr = code.ex(t.filter, env)
                if len(code.closures) == before:
                    call = expr
                else:  # (not inlined: the closure is FILTERS' own)
                    del code.closures[before:]
            self.filters.append(call)
            self.srcs.append(code.src(t.span) if code is not None else "")

    def limit(self, kind: str) -> str | None:
        """The flat counter of `kind` for this ability, if the compiled night keeps one."""
        k = self.a.idx
        return _at(self.slots, kind, k, "seat") if (kind, k) in self.slots else None

    def action(self) -> str:
        return f"[seat, {', '.join([repr(self.a.id)] + self.names)}]"

    def tries(self, pad: str, filters: list[str], keep: str, then=()) -> list[str]:
        """The rejection loop's body: targets and choices drawn, kept by `keep` (a statement,
        and the lines `then`).
        A seat is `floor(random() * n) + 1` (math.floor: the same int as int() of a
        non-negative float, as the generic draw computes it, at half the cost of the call)."""
        out = []
        for k in range(self.nt):
            out.append(f"{pad}t{k} = floor(random() * n) + 1")
            if self.srcs[k]:
                out.append(f"{pad}# {self.srcs[k]}")
            out.append(f"{pad}if not {_paren(filters[k])}:")
            out.append(f"{pad}    continue")
        for k, c in enumerate(self.choices):
            out.append(f"{pad}c{k} = {c}")
        if self.rules:
            why = "the limit on oneself" if self.a.self_per_game else "no repeat"
            out.append(f"{pad}if not {_paren(' and '.join(self.rules))}:")
            out.append(f"{pad}    continue  # {why}")
        out.append(f"{pad}{keep}")
        out.extend(pad + x for x in then)
        return out


_GAME = {"number": "night"}  # a local of _draw_night -> the game's attribute it reads


_LISTS = ("role", "alive", "team", "marks", "nteam")  # the game's per-seat lists


def _lists_local(line: str) -> str:
    """`line` reading the game's per-seat lists through locals of the same names."""
    for x in _LISTS:
        line = line.replace(f"g.{x}[", f"{x}[")
    return line


def _paren(expr: str) -> str:
    """`expr` as an operand of `not`: parenthesized unless it is a name, an index, a call or
    already one parenthesized whole."""
    if re.fullmatch(r"[\w.\[\]]+", expr):
        return expr
    call = re.match(r"[\w.]*", expr)  # (a call: its name, then its parentheses)
    start = call.end() if call else 0
    if expr[start:].startswith("("):
        depth = 0
        for i, ch in enumerate(expr[start:], start):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                if i == len(expr) - 1:
                    return expr
                break
    return f"({expr})"


def render_draws(
    prog: ir.Program,
    flat: bool = False,
    lines: list[str] | None = None,
    commit: tuple[str, ...] | None = None,
) -> list[str]:
    """Code lines of `_draw_A(g, seat, number, random)` for each ability whose night draw is
    compiled (`_drawable`), and `DRAW_NIGHT`, the table `Game.draw_actions` reads (None: the
    generic `Game._draw_ability`). A draw is the playout API's (docs/engine.md "Playouts"):
    the checks of `_check_ability` a fresh draw can fail (life, `from night N`, `uses N per
    game`; the phase and a quiet night are checked by `draw_actions`), unrolled with the
    ability's limits as constants; targets drawn uniformly from every seat through the
    spec's compiled target filters, kept when they pass (rejection: uniform over the
    accepted); the first target's rules (`uses N on self`, `no repeat`) inlined; after
    `_DRAW_TRIES` refused draws the legal actions are listed as `_legal_for` lists them
    (`_list_A`, unrolled: slot by slot through the same filters) and one is drawn. The same
    random numbers in the same order as the generic draw: the same actions.

    `flat`: the engine has a compiled night, whose flat per-seat counters (`_slots`, Game._flat)
    hold the limits of its abilities: a draw reads a limit there (the bookkeeping dicts are
    read through Game._LAZY, which folds the night's journal and drops the counters, which the
    next night would rebuild). `lines`: the spec's source lines (for comments); `_draw_night`
    follows (`render_draw_night`), with the filters inlined; `commit`: the arguments of the
    compiled night's `_night_commit` (commit_args), for the drawn night played at once."""
    out: list[str] = []
    w = out.append
    table = []
    ids = ir.once(_compiled_ids, prog)
    night = sorted((a for a in prog.abilities if id(a) in ids), key=lambda a: a.rank)
    slots = _slots(night) if flat else []
    draws = {a.idx: _Draw(prog, a, slots, None) for a in prog.abilities if _drawable(a, prog)}
    listing = PyCode(prog, lines or [])  # (the listings' filters, inlined)
    for a in prog.abilities:
        d = draws.get(a.idx)
        if d is None:
            table.append("None")
            continue
        k = a.idx
        table.append(f"_draw_{k}")
        fetch = [
            "    F = g._flat  # the compiled night's counters, rebuilt if a reader dropped them",
            "    if F is None:",
            "        F = g._flat = _fn_flat(g)",
        ]
        w("")
        w("")
        w(f"def _draw_{k}(g, seat, number, random):")
        w(f'    """The playout draw of {a.id} by night (nightgen.render_draws)."""')
        w("    if not g.alive[seat]:")
        w("        return None")
        if d.reads_flat:
            out.extend(fetch)
        if d.checks:
            w(f"    if not {_paren(' and '.join(d.checks))}:")
            w("        return None")
        if d.choices:
            w("    floor = math.floor")
        if not d.nt:
            w(f"    return [seat, {', '.join([repr(a.id)] + d.choices)}]")
            continue
        out.extend("    " + x for x in d.before)
        w("    n = g.n")
        if not d.choices:
            w("    floor = math.floor")
        w(f"    fs = FILTERS[{k}]")
        fs = [f"f{j}(g, seat, {', '.join(d.names[: j + 1])})" for j in range(d.nt)]
        for j in range(d.nt):
            w(f"    f{j} = fs[{j}]")
        w("    for _ in _TRIES:  # (_DRAW_TRIES of them)")
        out.extend(d.tries("        ", fs, f"return {d.action()}"))
        w("    return _list_{k}(g, seat, number, random)".replace("{k}", str(k)))
        # refused every time: few actions are legal, listed as Game._legal_for lists them
        # (targets slot by slot, each through its filter, the first target's rules, then every
        # choice of each table in id order), and one is drawn
        w("")
        w("")
        w(f"def _list_{k}(g, seat, number, random):")
        w(f'    """{a.id}\'s legal actions by night, listed as Game._legal_for lists them, and')
        w("    one drawn: the draw's last resort, when its random targets were refused")
        w('    _DRAW_TRIES times (few actions are legal)."""')
        if "F[" in " ".join(d.rules):
            out.extend(fetch)
        out.extend("    " + x for x in d.before)
        # the spec's filters written out, as in the whole night's draw (a call per seat and
        # slot was most of a listing's time), through locals of the game's lists
        inline = _Draw(prog, a, slots, listing)
        filters = [_lists_local(f) for f in inline.filters]
        lists = [x for x in _LISTS if any(f"{x}[" in f for f in filters)]
        w(f"    {', '.join(['n'] + lists)} = {', '.join(['g.n'] + ['g.' + x for x in lists])}")
        w("    legal = [")
        w(f"        {d.action()}")
        for j in range(d.nt):
            w(f"        for t{j} in range(1, n + 1)")
            if inline.srcs[j]:
                w(f"        # {inline.srcs[j]}")
            w(f"        if {filters[j]}")
            if j == 0 and d.rules:
                w(f"        and {' and '.join(d.rules)}")
        roles = _role_values(prog)[0]
        for j, ch in enumerate(a.choices):  # each choice's values (CHOICE_VALUES)
            w(f"        for c{j} in {roles if ch.kind == 'role' else 'TEAMS'}")
        w("    ]")
        w("    return legal[int(random() * len(legal))] if legal else None")
    w("")
    w("")
    w("# per ability: its compiled playout draw by night, or None (Game._draw_ability)")
    w(f"DRAW_NIGHT: tuple[Any, ...] = ({', '.join(table)}{',' if len(table) == 1 else ''})")
    return out + render_draw_night(prog, slots, lines or [], flat, commit)


def _role_values(prog: ir.Program) -> tuple[str, int]:
    """The engine's tuple of the values a role choice may name (CHOICE_VALUES["role"]: every
    role but a title's; ROLES itself when the spec has no title), and how many there are.
    (Asked for every ability's draw: counted once per program, ir.once.)"""
    return ir.once(_count_role_values, prog.roles)


def _count_role_values(roles) -> tuple[str, int]:
    n = sum(not r.title for r in roles)
    return ("ROLES" if n == len(roles) else 'CHOICE_VALUES["role"]'), n


def _role_tree(branches: list[tuple[int, str, list[str]]], depth: int, out: list[str]) -> None:
    """Each role's branch of the whole night's draw under a balanced tree of tests on `r` (a
    few comparisons a seat, not one per role before it; a role with no night ability meets no
    leaf)."""
    pad = _PAD * depth
    if len(branches) <= 3:  # (a short chain at the leaves: the code stays shallow)
        for i, (r, name, lines) in enumerate(branches):
            out.append(f"{pad}{'if' if i == 0 else 'elif'} r == {r}:  # {name}")
            out.extend(pad + _PAD + x for x in lines)
        return
    mid = len(branches) // 2
    out.append(f"{pad}if r < {branches[mid][0]}:")
    _role_tree(branches[:mid], depth + 1, out)
    out.append(f"{pad}else:")
    _role_tree(branches[mid:], depth + 1, out)


def render_draw_night(
    prog: ir.Program,
    slots,
    lines: list[str],
    flat: bool = False,
    commit: tuple[str, ...] | None = None,
) -> list[str]:
    """Code lines of `_draw_night(g, rng, act)`, the random player's whole night for every seat
    (`Game.draw_actions` by night with `seats` not given), compiled per role: each seat's
    night abilities in id order (its role's own, a passed-down one when the seat is its
    holder, a granted one when the seat carries the mark), each used with probability `act`
    and drawn: a compiled draw inlined (its checks, then its rejection loop with the spec's
    filters written out, `_list_A` its last resort), any other by `Game._draw_ability`; of a
    seat's abilities that exclude each other one is kept, then of the table's. Exactly
    draw_actions' generic loop and the draws, unrolled: the same random numbers in the same
    order, the same actions (tests/test_compiled_draws.py). What the generic loop reads at
    run time (which abilities a role holds, which of them exclude each other) is fixed here.

    The drawn night played at once (`PLAY_NIGHT`, `_draw_night(g, rng, act, True)`, for
    Game.playout), where the compiled night is cut at its commit (`commit`: _night_commit's
    arguments): as it draws, the draw records the locals the night's validation would set from
    each kept action (the actor `aK`, the targets `tK_J`, the choices' ids `cK_J`); when every
    kept action is one that validation accepts as it stands, it calls `_night_commit` with them
    and returns (actions, True); otherwise (actions, False), the game untouched, for
    `FAST_NIGHT` to validate. Sound because both sides come from one source: a drawn action
    passed the checks the validation makes of it (life, `from night N`, `uses N per game` in
    the same flat counters, the same target filters, `uses N on self` and `no repeat`, the
    holder as _fn_holder finds him, the choice an id of its table), and the checks between
    actions hold by construction (a seat's abilities that exclude each other: one kept; a
    held ability: one holder). What the draw does not prove leaves the night to the
    validation: a second seat using an ability (the validation's `more`), an action of the
    generic draw or of a `_list_A` listing, an ability the compiled night does not play, start
    hooks pending, and (no play at all) abilities of the dead or table-wide exclusions.
    tests/test_play_night.py plays every such night both ways and compares the states."""
    usable = [a for a in prog.abilities if a.phase in ("night", "any")]
    dead = any(a.life != "alive" for a in prog.abilities)
    holders = sorted({a.idx for a in usable if a.holders and a.granted < 0})
    table_any = any(a.table_group >= 0 for a in prog.abilities)
    code = PyCode(prog, lines)
    draws = {a.idx: _Draw(prog, a, slots, code) for a in usable if _drawable(a, prog)}
    # the drawn night played at once: the locals the draw records (render_draw_night above)
    ids = ir.once(_compiled_ids, prog)
    compiled = {a.idx: a for a in prog.abilities if id(a) in ids}
    recordable = {"F", "more"}
    for a in compiled.values():
        recordable |= {f"a{a.idx}"} | {f"t{a.idx}_{j}" for j in range(len(a.targets))}
        recordable |= {f"c{a.idx}_{j}" for j in range(len(a.choices))}
    unplayable = _unplayable(prog)
    play = not (commit is None or not flat or unplayable) and set(commit or ()) <= recordable
    args = commit or ()
    recorded: dict[str, None] = {x: None for x in args if x not in ("F", "more")}

    def record(a: ir.Ability, targets: list[str], choices: list[str]) -> list[str]:
        """The validation's locals of ability `a`'s kept action (seat, targets, choices)."""
        if not play:
            return []
        if a.idx not in compiled or (choices and len(choices) != len(a.choices)):
            return ["clean = False  # (not the compiled night's: the validation decides)"]
        k = a.idx
        recorded.setdefault(f"a{k}", None)
        out = [
            f"if a{k}:  # a second seat using it (the validation's `more`)",
            "    clean = False",
            f"a{k} = seat",
        ]
        out += [f"t{k}_{j} = {t}" for j, t in enumerate(targets) if f"t{k}_{j}" in recorded]
        for j, c in enumerate(choices):
            table = "_FN_ROLE" if a.choices[j].kind == "role" else "_FN_TEAM"
            if f"c{k}_{j}" in recorded:
                out.append(f"c{k}_{j} = {table}[{c}]")
        return out

    unproven = ["clean = False  # (the generic draw, or a listing: the validation decides)"]
    unproven = unproven if play else []
    body: list[str] = []
    w = body.append
    w("    for seat in range(1, n + 1):")
    if not dead:
        w("        if not alive[seat]:  # (no ability of the dead in this spec)")
        w("            continue")
    w("        r = role[seat]")
    first = True
    branches: list[tuple[int, str, list[str]]] = []  # (role, its name, its code at 12 spaces)
    # a role's abilities (in `usable`'s order): its own but those held by a chain, those its
    # chain holds, and every granted one (one pass over the abilities, not one per role)
    granted = [k for k, a in enumerate(usable) if a.granted >= 0]
    reach: dict[int, list[int]] = {}
    for k, a in enumerate(usable):
        if a.granted < 0:
            for r_idx in dict.fromkeys(a.holders) if a.holders else (a.role,):
                reach.setdefault(r_idx, []).append(k)
    for r in prog.roles:
        mine = [usable[k] for k in sorted(reach.get(r.idx, []) + granted)]
        if not mine:
            continue
        mine_abs = mine
        groups = [a.exclusive_group for a in mine if a.exclusive_group >= 0]
        several = len(groups) != len(set(groups))  # two of them exclude each other
        one = several and len(groups) == len(mine) and len(set(groups)) == 1  # all of them
        first = False
        start = len(body)
        sink = "mine" if several else "out"
        pad = "            "
        if several:
            w(f"{pad}mine = []")
        for a in mine:
            cond = []
            if a.granted >= 0:
                cond.append(f"marks[seat] >> {a.granted} & 1")
            elif a.holders:
                w(f"{pad}if h{a.idx} < 0:")
                if flat:  # (Game.holder, as the compiled night walks the chain: _fn_holder)
                    w(f"{pad}    h{a.idx} = _fn_holder(role, alive, {tuple(a.holders)!r})")
                else:
                    w(f"{pad}    h{a.idx} = g.holder({a.idx})")
                cond.append(f"h{a.idx} == seat")
            cond.append("(full or random() < act)")
            d = draws.get(a.idx)
            if d is None:  # the generic draw
                w(f"{pad}if {' and '.join(cond)}:  # {comment(a.id)}")
                w(f'{pad}    x = g._draw_ability(seat, {a.idx}, {a.id!r}, "night", number, rng)')
                w(f"{pad}    if x is not None:")
                w(f"{pad}        {sink}.append(x)")
                body.extend(f"{pad}        {x}" for x in unproven)
                continue
            if dead:
                cond.append("alive[seat]")
            cond += d.checks
            test = " and ".join(cond)
            w(f"{pad}if {f'({test})' if len(cond) > 2 else test}:  # {comment(a.id)}")
            if not d.nt:
                w(f"{pad}    {sink}.append([seat, {', '.join([repr(a.id)] + d.choices)}])")
                if not several:  # (the choices are not kept apart: the validation decides)
                    body.extend(f"{pad}    {x}" for x in record(a, [], ["?"] * len(a.choices)))
                continue
            body.extend(f"{pad}    {x}" for x in d.before)
            w(f"{pad}    for _ in _TRIES:  # (_DRAW_TRIES of them)")
            then = [] if several else record(a, d.names[: d.nt], d.names[d.nt :])
            body.extend(d.tries(pad + "        ", d.filters, f"{sink}.append({d.action()})", then))
            w(f"{pad}        break")
            w(f"{pad}    else:  # refused every time: the legal actions listed, one drawn")
            w(f"{pad}        x = _list_{a.idx}(g, seat, number, random)")
            w(f"{pad}        if x is not None:")
            w(f"{pad}            {sink}.append(x)")
            # a listed action passed the same checks and filters (its choices: every id of
            # the table, which the validation may refuse)
            if a.choices:
                listed = unproven
            elif several:
                listed = []  # (recorded with the kept ones)
            else:
                listed = record(a, [f"x[{2 + j}]" for j in range(d.nt)], [])
            body.extend(f"{pad}            {x}" for x in listed)
        if one:
            # (as _one_per_group: rng.randrange(m), which for the stdlib's Random is
            # _randbelow(m), m.bit_length() bits drawn until one is below m: unrolled)
            w(f"{pad}m = len(mine)")
            w(f"{pad}if m > 1:  # they exclude each other: one is kept")
            w(f"{pad}    if bits is None:")
            w(f"{pad}        i = rng.randrange(m)")
            w(f"{pad}    else:")
            w(f"{pad}        k = m.bit_length()")
            w(f"{pad}        i = bits(k)")
            w(f"{pad}        while i >= m:")
            w(f"{pad}            i = bits(k)")
            w(f"{pad}    mine = [mine[i]]")
            w(f"{pad}out += mine")
        elif several:
            w(f"{pad}if len(mine) > 1:  # of those that exclude each other, one is kept")
            w(f"{pad}    mine = _one_per_group(mine, AB_EXCLUSIVE, rng)")
            w(f"{pad}out += mine")
        if several and play:  # the kept actions' locals, for the night played at once
            w(f"{pad}for x in mine:")
            w(f"{pad}    name = x[1]")
            el = "if"
            for a in mine_abs:
                if a.idx not in compiled:
                    continue
                nt, nc = len(a.targets), len(a.choices)
                w(f"{pad}    {el} name == {a.id!r}:  # {comment(a.id)}")
                el = "elif"
                ts = [f"x[{2 + j}]" for j in range(nt)]
                cs = [f"x[{2 + nt + j}]" for j in range(nc)]
                body.extend(f"{pad}        {x}" for x in record(a, ts, cs))
            if el == "if":
                w(f"{pad}    clean = False  # (none of them the compiled night's)")
            else:
                w(f"{pad}    else:")
                w(f"{pad}        clean = False  # (not the compiled night's)")
        branches.append((r.idx, comment(r.id), [x[12:] for x in body[start:]]))
        del body[start:]
    if first:
        w("        pass")
    _role_tree(branches, 2, body)
    if table_any:
        w("    return _one_per_group(out, AB_TABLE_GROUP, rng) if len(out) > 1 else out")
    elif not play:
        w("    return out")
    else:
        w("    if not play:")
        w("        return out")
        ok = ["clean", "not (START and g.start_pending)"]  # (as _night_fast refuses them)
        if prog.quiet_nights:
            ok.append("not (out and number in QUIET_NIGHTS)")
        w(f"    if {' and '.join(ok)}:  # every action one the validation accepts as it is")
        if "F" in args and "F[" not in "\n".join(body):  # (else fetched above)
            w("        F = g._flat  # (as the night reads it)")
            w("        if F is None:")
            w("            F = g._flat = _fn_flat(g)")
        call = ", ".join("[]" if x == "more" else x for x in args)
        w(f"        _night_commit(g, number, {call})  # (its report is dropped)")
        w("        return out, True")
        w("    return out, False")
    # the game's per-seat lists, read through locals (a draw changes none of them)
    body = [
        line.replace("g.alive[", "alive[")
        .replace("g.role[", "role[")
        .replace("g.team[", "team[")
        .replace("g.marks[", "marks[")
        .replace("g.nteam[", "nteam[")
        for line in body
    ]
    text = re.sub(r"#[^\n]*", "", "\n".join(body))
    keep = ["n", "number"] + [
        x
        for x in ("role", "alive", "team", "marks", "nteam")
        if f"{x}[" in text or ("_fn_holder(role, alive" in text and x in ("role", "alive"))
    ]
    head = [
        "",
        "",
        f"def _draw_night(g, rng, act{', play=False' if play else ''}):",
        '    """The random player\'s night, every seat (Game.draw_actions by night, `seats` not',
        "    given), compiled per role (nightgen.render_draw_night): the same random numbers in",
        "    the same order as draw_actions' generic loop and draws, the same actions."
        + (
            ""
            if not play
            else "\n    `play` (Game.playout): the night is played at once when every action is one"
            "\n    the validation accepts as it is (render_draw_night): (actions, played)."
        )
        + '"""',
        "    random, full, floor = rng.random, act >= 1.0, math.floor",
        *(
            ["    bits = rng.getrandbits if rng.__class__ is _STD_RANDOM else None"]
            if "bits(k)" in text
            else []
        ),
        f"    {', '.join(keep)} = {', '.join('g.' + _GAME.get(x, x) for x in keep)}",
    ]
    if "F[" in text:
        head += [
            "    F = g._flat  # the compiled night's counters, rebuilt if a reader dropped them",
            "    if F is None:",
            "        F = g._flat = _fn_flat(g)",
        ]
    for k in holders:
        a = prog.abilities[k]
        chain = ", ".join(prog.roles[r].id for r in a.holders)
        head.append(f"    h{k} = -1  # the holder of {comment(a.id)} (held by {chain}), asked once")
    head.append("    out = []")
    if play:
        zero = list(recorded)
        head.append(
            "    # the compiled night's locals, as its validation sets them (render_draw_night)"
        )
        head.append(f"    ({', '.join(zero)},) = (0,) * {len(zero)}")
        head.append("    clean = True  # every kept action one the validation accepts as it is")
        tail = ["PLAY_NIGHT: Any = _draw_night  # (Game.playout: the drawn night played at once)"]
    else:
        why = unplayable or (
            "no compiled night cut at its commit"
            if commit is None or not flat
            else "locals the draw does not record"
        )
        tail = [f"PLAY_NIGHT: Any = None  # (not played at once: {why})"]
    return head + body + ["", "", "DRAW_ALL: Any = _draw_night  # (Game.draw_actions)"] + tail
