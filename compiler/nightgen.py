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
illegal action, a quiet night, two seats using one ability, an ability it does not find by its
name, a granted ability...); `resolve_night` then runs the generic resolver, which also gives the
exact error. A spec using a construct the shape cannot specialise gets no fast night at all
(`FAST_NIGHT = None`, the reasons in a comment): steals, `on call` decisions, visits and
reactions, blocks, delayed effects, attack/defence levels, hooks, guard reactions.

The differential test (engine vs compiler/interp.py) keeps it honest.
"""

from __future__ import annotations

from . import ir
from .emit import _Code, _walk, comment, const

_PAD = "    "


class _NightCode(_Code):
    """Renders bodies for the inlined night: `acted()` reads the night's locals."""

    def __init__(self, prog, lines, users):
        super().__init__(prog, lines)
        self.users = users  # ability idx -> the local holding its actor (0: unused tonight)

    def ex(self, e, env):
        if isinstance(e, ir.Call) and e.func == "acted":
            ab = e.args[0]
            if not (isinstance(ab, ir.Sym) and ab.kind == "ability"):
                raise _Cannot("acted() of a computed ability")
            who = self.users.get(ab.idx)
            if who is None:
                return "False"  # not a night ability: never in a night's plan
            if len(e.args) == 1:
                return f"({who} != 0)"
            return f"({who} != 0 and g.role[{who}] == {self.ex(e.args[1], env)})"
        return super().ex(e, env)


class _Cannot(Exception):
    pass


# the fields of each IR class the compiled night was written for; a construct added to the
# language since (a new class, or a field not at its default) is not specialised until it is
# taught here: the spec keeps the generic resolver
_KNOWN = {
    "Program": "id source names min_players max_players first quiet_days quiet_nights invariants "
    "teams roles causes marks memslots abilities night_order wins check_at setups "
    "custom_setups day card_names night_timers calm span",
    "Ability": "idx id role name phase tier rank per_game per_phase self_per_game from_number "
    "holders targets choices norepeat body inverted stolen when granted "
    "exclusive_group table_group before span",
    "Role": "idx id team names abilities immune triggers span",
    "Day": "vote chaos_when chaos inquiry speaking timers span",
    "Vote": "threshold defense defenders_vote tie ballot timers rounds skips exempt forced span",
    "Mark": "idx id lifetime inverts silences expels span",
    "Team": "idx id names span",
    "Target": "name filter span",
    "Choice": "name kind span",
    "Immunity": "causes unless times span",
    "Trigger": "causes body span",
    "Win": "kind idx cond span",
    "Setup": "label size counts span",
    "Inquiry": "from_day max threshold when span",
    "Kill": "span target cause piercing",
    "Protect": "span target causes",
    "Guard": "span target causes",
    "SetMark": "span target mark remove",
    "Convert": "span target role",
    "Tell": "span parts to",
    "Announce": "span parts",
    "Remember": "span slot value",
    "Trial": "span a b cancel_when refund reveal tie",
    "Revive": "span target",
    "Weight": "span value",
    "WinNow": "span kind idx",
    "SkipNight": "span",
    "CancelVote": "span",
    "Each": "span var filter body",
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
}
_KNOWN = {k: frozenset(v.split()) for k, v in _KNOWN.items()}


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
    if any(a.phase == "call" for a in prog.abilities):
        out.append("`on call` decisions")
    stmts = [s for a in prog.abilities for s in _walk(a.body)]
    stmts += [s for r in prog.roles for t in r.triggers for s in _walk(t.body)]
    if any(isinstance(s, ir.Steal) for s in stmts):
        out.append("steals")
    if any(isinstance(s, ir.Guard) and getattr(s, "body", ()) for s in stmts):
        out.append("guard reactions")
    if any(getattr(a, "reactions", ()) for a in prog.abilities) or any(
        getattr(r, "reactions", ()) for r in prog.roles
    ):
        out.append("visit and block reactions")
    if getattr(prog, "hooks", ()) or any(getattr(r, "hooks", ()) for r in prog.roles):
        out.append("phase hooks")
    if any(getattr(a, "life", "alive") != "alive" for a in prog.abilities):
        out.append("abilities of the dead")  # the fast night admits living actors only
    return out


def render(prog: ir.Program, lines: list[str]) -> tuple[list[str], list[str]]:
    """(code lines of `_night_fast`, reasons it is not specialised); no code when reasons."""
    reasons = _reasons(prog)
    if reasons:
        return [], reasons
    night = sorted((a for a in prog.abilities if a.phase in ("night", "any")), key=lambda a: a.rank)
    if not night:  # nothing to specialise (and an empty `if/elif` chain is not Python)
        return [], ["no night abilities"]
    users = {a.idx: f"a{a.idx}" for a in night}
    code = _NightCode(prog, lines, users)
    try:
        out = _render(prog, code, night)
    except _Cannot as e:
        return [], [str(e)]
    # the game's per-seat lists are read through locals (they are mutated in place, never
    # replaced, while a night resolves)
    out = [
        line.replace("g.alive[", "alive[")
        .replace("g.role[", "role[")
        .replace("g.team[", "team[")
        .replace("g.marks[", "marks[")
        .replace("g.nteam[", "nteam[")
        for line in out
    ]
    extra = sorted(code.features)
    if extra or code.closures:
        return [], [f"runtime machinery ({', '.join(extra) or 'closures'})"]
    return out, []


def _render(prog, code: _NightCode, night) -> list[str]:  # noqa: C901 - one generator, in order
    out: list[str] = []
    w = out.append
    w("def _night_fast(g, actions, number):")
    w('    """The whole night of this spec, specialised (compiler/nightgen.py); None: not its')
    w('    common legal case, the generic resolver plays it (and names any error)."""')
    if prog.quiet_nights:
        w("    if number in QUIET_NIGHTS:")
        w("        return None")
    w("    n, role, alive, team, marks, nteam = g.n, g.role, g.alive, g.team, g.marks, g.nteam")
    for a in night:
        w(f"    a{a.idx} = 0  # {comment(a.id)}: its actor tonight (0: unused)")
        if a.holders:
            w(f"    h{a.idx} = -1  # {comment(a.id)}: its holder, looked up once")
    w("    for raw in actions:")
    w("        if raw.__class__ is not list and raw.__class__ is not tuple or len(raw) < 2:")
    w("            return None")
    w("        actor = raw[0]")
    w("        name = raw[1]")
    w("        if actor.__class__ is not int or not 0 < actor <= n or not alive[actor] \\")
    w("                or name.__class__ is not str:")
    w("            return None")
    w("        k = _FN_OWN[role[actor]].get(name)")
    w("        if k is None:")
    w("            k = _FN_HELD.get(name)")
    w("            if k is None:")
    w("                return None")
    first = True
    for a in night:
        k = a.idx
        nt, nc = len(a.targets), len(a.choices)
        w(f"        {'if' if first else 'elif'} k == {k}:  # {code.src(a.span)}")
        first = False
        p = _PAD * 3
        checks = [f"a{k}", f"len(raw) != {2 + nt + nc}"]
        if a.from_number > 1:
            checks.append(f"number < {a.from_number}")
        w(f"{p}if {' or '.join(checks)}:")
        w(f"{p}    return None")
        if a.holders:
            w(f"{p}if h{k} < 0:")
            w(f"{p}    h{k} = g.holder({k})")
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
            w(f"{p}if g.uses.get((actor, {k}), 0) >= {a.per_game}:")
            w(f"{p}    return None")
        env = {"self": "actor"}
        for j, t in enumerate(a.targets):
            var = f"t{k}_{j}"
            env[t.name] = var
            w(f"{p}{var} = raw[{2 + j}]")
            w(f"{p}# {code.src(t.span)}")
            w(
                f"{p}if {var}.__class__ is not int or not 0 < {var} <= n or not "
                f"{code.ex(t.filter, env)}:"
            )
            w(f"{p}    return None")
        for j, c in enumerate(a.choices):
            var = f"c{k}_{j}"
            env[c.name] = var
            table = "_FN_ROLE" if c.kind == "role" else "_FN_TEAM"
            w(f"{p}{var} = raw[{2 + nt + j}]")
            w(f"{p}{var} = {table}.get({var}) if {var}.__class__ is str else None")
            w(f"{p}if {var} is None:")
            w(f"{p}    return None")
        if a.when is not None:
            w(f"{p}# {code.src(a.when.span)}")
            w(f"{p}if not {code.ex(a.when, env)}:")
            w(f"{p}    return None")
        if nt and a.self_per_game:
            w(f"{p}if t{k}_0 == actor and g.self_uses.get((actor, {k}), 0) >= {a.self_per_game}:")
            w(f"{p}    return None")
        if nt and a.norepeat == "ever":
            w(f"{p}if t{k}_0 in g.ever.get((actor, {k}), ()):")
            w(f"{p}    return None")
        elif nt and a.norepeat:
            w(f"{p}last = g.last_target.get((actor, {k}))")
            w(f"{p}if last is not None and last[0] == number - 1 and last[1] == t{k}_0:")
            w(f"{p}    return None")
        w(f"{p}a{k} = actor")
    if not night:
        w("        pass")
    w("        else:")
    w("            return None")
    # -- commit: every action valid; charge them all before the first resolves (acted(), used())
    w("    # -- commit: nothing below fails. Every action is charged before the first resolves.")
    w("    uses, self_uses, last = g.uses, g.self_uses, g.last_target")
    for a in night:
        k = a.idx
        w(f"    if a{k}:")
        w(f"        key = (a{k}, {k})")
        w("        uses[key] = uses.get(key, 0) + 1")
        if a.targets:
            w(f"        if t{k}_0 == a{k}:")
            w("            self_uses[key] = self_uses.get(key, 0) + 1")
            w(f"        last[key] = (number, t{k}_0)")
            if a.norepeat == "ever":
                w(f"        g.ever.setdefault(key, []).append(t{k}_0)")
    w("    g.prot = {}")
    w("    g.guards = {}")
    w("    g.level = {}")
    if prog.night_timers:
        w("    timers = _night_timers(g)")
    # -- resolution, in the static night order
    inverting = any(m.inverts for m in prog.marks)
    for a in night:
        k = a.idx
        w(f"    if a{k}:  # {code.src(a.span)}")
        env = {"self": f"a{k}"}
        env.update({t.name: f"t{k}_{j}" for j, t in enumerate(a.targets)})
        env.update({c.name: f"c{k}_{j}" for j, c in enumerate(a.choices)})
        if any(isinstance(s, ir.Trial) for s in _walk(a.body)) or (
            a.inverted and any(isinstance(s, ir.Trial) for s in _walk(a.inverted))
        ):
            w(f"        ability = {const('A', a.id)}")
        if a.inverted is not None and inverting:
            w(f"        if not INVERTING_MARKS.isdisjoint(g.marks[a{k}]):")
            code.block(a.inverted, env, 3, out)
            w("        else:")
            code.block(a.body, env, 3, out)
        else:
            code.block(a.body, env, 2, out)
    # -- dawn
    w("    # -- dawn")
    w("    if g.pending:")
    w("        g._settle()")
    if any(m.lifetime == "dawn" for m in prog.marks):
        w("    for m in marks:")
        w("        if m:")
        w("            m.difference_update(DAWN_MARKS)")
    if any(m.silences for m in prog.marks):
        w("    g._silenced = {s for s in range(1, n + 1)")
        w("                   if alive[s] and not SILENCING_MARKS.isdisjoint(g.marks[s])}")
    w("    g.prot = {}")
    w("    g.guards = {}")
    w("    g.level = {}")
    if prog.calm is not None:
        w("    if not g._deaths:")
        w("        g.announce(CALM)")
    w('    g.phase = "day"')
    w("    g.day += 1")
    w("    g.chaos = _chaos(g)")
    if "dawn" in prog.check_at:
        w("    g._check_wins()")
    elif "death" in prog.check_at:
        w("    if g._deaths:")
        w("        g._check_wins()")
    w(f'    return g._report("night", number, timers={"timers" if prog.night_timers else "{}"})')
    return out


def tables(prog: ir.Program) -> list[str]:
    """The name tables the fast night dispatches on."""
    night = [a for a in prog.abilities if a.phase in ("night", "any")]
    own = []
    for r in prog.roles:
        names = {}
        for a in prog.abilities:
            if a.role == r.idx:
                # -1: the role's own ability of that name is not for the fast night (another
                # phase, or granted): the generic resolver decides
                ok = (
                    a.phase in ("night", "any")
                    and a.granted < 0
                    and getattr(a, "life", "alive") == "alive"
                )  # the dead's: generic
                names[a.name] = a.idx if ok else -1
                names[a.id] = a.idx if ok else -1
        own.append(names)
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
    lines = [
        "# (role) -> {name: ability}: a seat's own night abilities, by short and full name",
        "_FN_OWN = (",
    ]
    lines += [
        f"    {names!r},  # {comment(r.id)}" for names, r in zip(own, prog.roles, strict=True)
    ]
    lines.append(")")
    lines.append("# {name: ability}: abilities passed down (`held by`), whoever holds them now")
    lines.append(f"_FN_HELD = {held_one!r}")
    lines.append("_FN_ROLE = {r: i for i, r in enumerate(ROLES)}")
    lines.append("_FN_TEAM = {t: i for i, t in enumerate(TEAMS)}")
    return lines
