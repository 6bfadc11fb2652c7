"""IR -> Python source, through the Jinja2 template ``templates/engine.py.j2``.

The template receives a view model whose code fragments are already rendered here, by
``pycode.PyCode`` (the printer this module shares with the compiled night, ``nightgen``).
Nothing from a spec reaches the output except through ``ident()`` (names) and ``repr()``
(literals); source lines quoted in comments go through ``comment()``.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from typing import Any

import jinja2

from maf.compiler import runtime, version
from maf.compiler.backend import nightgen
from maf.compiler.backend.layout import wrap
from maf.compiler.backend.pycode import (
    PyCode,
    any_deaths_in_order,
    comment,
    const,
    hooks_in_order,
    ident,
    walk,
)
from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.dsl.diagnostics import source_lines


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


def _trial_cancel(code: PyCode, prog: ir.Program) -> list[dict]:
    """Trial cancel conditions, one function per ability that schedules a trial."""
    out = []
    for ab in prog.abilities:
        for st in walk(ab.body):
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


def _votes_with(code: PyCode, prog: ir.Program, role: ir.Role) -> dict:
    """`votes only with`: the role's voter may raise a hand only beside the seat he follows."""
    vw = role.votes_with
    assert vw is not None
    if vw.mark >= 0:
        m = prog.marks[vw.mark]
        expr = f"any(g.marks[h] >> {m.idx} & 1 for h in hands if h != seat)"
        desc = f"a seat marked {m.id}"
    else:
        assert vw.seat is not None
        expr = f"({code.ex(vw.seat, {'self': 'seat'})}) in hands"
        line = code.lines[vw.seat.span.line - 1] if 0 < vw.seat.span.line <= len(code.lines) else ""
        same = vw.seat.span.line == vw.seat.span.end_line
        desc = line[vw.seat.span.col - 1 : vw.seat.span.end_col - 1] if same else "another seat"
    return {
        "fn": f"_votes_with_{ident(role.id)}",
        "role": role.idx,
        "expr": expr,
        "desc": desc or "another seat",
        "src": code.src(vw.span),
    }


def _fn_block(code: PyCode, body, env) -> list[str]:
    out: list[str] = []
    code.stmts(body, env, 1, out)
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


def _registrations(prog: ir.Program) -> list[tuple[tuple[int, ...], ...]]:
    """Per role, `registers as`: (the teams, the roles, the kinds) information reads may see
    its seats as (REG_TEAMS, REG_ROLES, REG_KINDS; semantics.registrations, which the checker
    reads too)."""
    return list(sem.registrations(prog))


def view_model(prog: ir.Program, source_text: str) -> dict:

    code = PyCode(prog, source_lines(source_text))
    abilities = []
    for ab in prog.abilities:
        params = [f"v_{ident(t.name)}" for t in ab.targets] + [
            f"v_{ident(c.name)}" for c in ab.choices
        ]
        env = {"self": "actor"}
        env.update({t.name: f"v_{ident(t.name)}" for t in ab.targets})
        env.update({c.name: f"v_{ident(c.name)}" for c in ab.choices})
        body: list[str] = []
        code.stmts(ab.body, env, 1, body)
        inv: list[str] = []
        if ab.inverted is not None:
            code.stmts(ab.inverted, env, 1, inv)
        stl: list[str] = []
        if ab.stolen is not None:
            code.stmts(ab.stolen, env, 1, stl)
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
            and not sem.read_at_wake(ab, prog)  # its filters wait for its wake (Game._at_wake)
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
    if any(sem.read_at_wake(ab, prog) for ab in prog.abilities):
        code.features.add("at_wake")  # filters read at the wake: Game._at_wake
    # `instead of death`, per role in spec order
    replacements = []
    for role in prog.roles:
        for k, rp in enumerate(role.replacements):
            replacements.append(
                {
                    "role": role,
                    "fn": f"{ident(role.id)}_{k}",
                    "causes": [const("C", prog.causes[c]) for c in rp.causes],
                    "when": code.ex(rp.when, death_env) if rp.when is not None else None,
                    "when_src": code.src(rp.when.span) if rp.when is not None else "",
                    "body": _fn_block(code, rp.body, death_env),
                    "src": code.src(rp.span),
                }
            )
    if replacements:
        code.features.add("replacements")
    if any(m.powerless or m.malfunctions for m in prog.marks):
        code.features.add("statuses")
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
    any_saves: list[dict[str, Any]] = []
    for k, tr in enumerate(prog.any_saves):
        env = dict(death_env, victim="victim")
        del env["self"]
        any_saves.append(
            {
                "fn": f"_any_save_{k}",
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
    sides = [
        {
            "const": const("T", t.id),
            "fn": f"_members_{ident(t.id)}",
            "expr": code.ex(t.members, {t.var: "seat"}),
            "src": code.src(t.members.span),
        }
        for t in prog.teams
        if t.members is not None
    ]
    start_hooks: list[dict[str, Any]] = []
    for k, stmts in enumerate(prog.start):
        out: list[str] = []
        code.stmts(stmts, {}, 1, out)
        start_hooks.append({"fn": f"_start_{k}", "role": None, "body": out})
    for r in prog.roles:
        for k, stmts in enumerate(r.start):
            out = []
            code.stmts(stmts, {"self": "seat"}, 1, out)
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
            # the rules as the runtime reads them (VOTE, CHAOS); the kinds of vote added since
            # appear only when used (the runtime reads them with .get)
            "table": {
                "tie": v.tie,
                "ballot": v.ballot,
                "exempt": v.exempt,
                "forced": v.forced,
                "rounds": v.rounds,
                "skips": v.skips,
                **({"nominations": True} if v.nominations else {}),
                **({"ghost": v.ghost} if v.ghost else {}),
                **({"judgement": True} if v.judgement else {}),
            },
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
        "replacements": replacements,
        "wins": wins,
        "draws": draws,
        "cowinners": cowinners,
        "at_wake": {ab.idx for ab in prog.abilities if sem.read_at_wake(ab, prog)},
        "sides": sides,
        "start_hooks": start_hooks,
        "votes_read": any(isinstance(x, ir.Call) and x.func == "voted" for x in _exprs(prog)),
        "trial_cancels": _trial_cancel(code, prog),
        "trial_judgement": [
            const("A", ab.id)
            for ab in prog.abilities
            if any(isinstance(st, ir.Trial) and st.judgement for st in walk(ab.body))
        ],
        "nominated": [
            {
                "fn": f"_nominated_{ident(role.id)}",
                "role": role.idx,
                "body": [
                    line
                    for r in role.reactions
                    if r.kind == "nominated"
                    for line in _fn_block(code, r.body, {"self": "seat", "nominator": "nominator"})
                ],
                "src": "; ".join(code.src(r.span) for r in role.reactions if r.kind == "nominated"),
            }
            for role in prog.roles
            if any(r.kind == "nominated" for r in role.reactions)
        ],
        "votes_with": [_votes_with(code, prog, role) for role in prog.roles if role.votes_with],
        "registrations": _registrations(prog),
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
        "steals": any(isinstance(s, ir.Steal) for ab in prog.abilities for s in walk(ab.body)),
        "day_timers": [(n, code.ex(x, {})) for n, x in day.timers] if day else [],
        "night_timers": [(n, code.ex(x, {})) for n, x in prog.night_timers],
        "setups": sorted(setups.items()),
        "setup_middle": {
            **{(s.size, s.label): s.middle for s in prog.setups if s.middle},
            # a custom table's cards, by its sizes and label (a fixed setup of that key wins)
            **dict(
                sorted(
                    {
                        (size, c[0]): m
                        for c, m in reversed(
                            list(zip(prog.custom_setups, prog.custom_middle, strict=False))
                        )
                        if m
                        for size in range(c[1], c[2] + 1)
                        if not any(
                            s.size == size and s.label == c[0] and s.middle for s in prog.setups
                        )
                    }.items(),
                    key=lambda kv: (kv[0][0], kv[0][1] or ""),
                )
            ),
        },
        "custom_setups": [
            {"label": lab, "lo": lo, "hi": hi, "expr": code.ex(w, {}), "src": code.src(sp)}
            for lab, lo, hi, w, sp in prog.custom_setups
        ],
        "names": dict(prog.names),
        "reactions": reactions,
        "hooks": hooks,
        "any_deaths": any_deaths,
        "any_saves": any_saves,
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
    vm["fast_day"] = nightgen.render_day(prog, vm, features)
    vm["draw_lines"] = nightgen.render_draws(
        prog, bool(fast_night), code.lines, nightgen.commit_args(fast_night)
    )
    vm["runtime_source"] = runtime.source(features)
    vm["stamp"] = (version(), spec_sha256(source_text))  # saved states carry it (to_json)
    return vm


def spec_sha256(source_text: str) -> str:
    """The spec's hash as an engine names it: sha256 of the text with a BOM dropped, every line
    end read as \\n (as the compiler does), trailing blanks and blank lines at the end removed."""
    text = source_text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    norm = "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n") + "\n"
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


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
