"""`maf check --matrix SPEC`: the spec's interaction table ("jinx list"), derived, not written.

For every pair of night abilities that can act on the same seat in the same night (their actors
can sit at one table, they can be used on one night, and some role passes a target filter of
each), one row says:
* whether they interact at all (one writes what the other reads, both write the same thing, a
  kill meets a protection, guard or immunity of the same cause, a steal takes the other);
* whether their order matters (they do not commute), and what decides it (tiers, a declared
  order, or only definition order: then K002 reports it);
* which one wins (the one resolving first or last, the protection, the kill...);
* the witness: a table size and the role of the shared target.
"""

from __future__ import annotations

import itertools
import json

from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.effects import (
    before_closure,
    clashes,
    describe,
    effects,
    flows,
    forced,
)
from maf.compiler.verify.check.model import Context, bodies, walk


def _stmts(ab, pred):
    """The ability's statements whose semantics entry satisfies `pred` (what they can do)."""
    return [s for s, _ in walk(bodies(ab)) if pred(sem.fact(s))]


def _target_roles(ctx, ab):
    """Roles some target of the ability can have (per table size where both exist)."""
    if not ab.targets:
        return set()
    q = ctx.query(ab)
    if not q.sat():
        return set()
    out = set()
    for rv in q.target_roles.values():
        out |= set(q.possible_roles(rv))
    return out


def _coexist(ctx, a, b):
    for s in ctx.all_setups():
        seated = {r for r, c in s.counts if c} | set(ctx.convert_dest)
        if seated & set(ctx.actor_roles(a)) and seated & set(ctx.actor_roles(b)):
            return s
    return None


def _kill_vs(ctx, killer, other):
    """Interactions of a's kills with b's protections/guards (same cause)."""
    out = []
    for k in _stmts(killer, lambda f: f.kills):
        for pr in _stmts(other, lambda f: f.saves and "save" in f.writes):
            level = getattr(pr, "level", -1)
            if k.cause in pr.causes:
                out.append(("protect", k, pr))
            elif level >= 0:  # a defence level for the night against the kill's attack
                out.append(
                    ("defence" if level >= getattr(k, "attack", 1) else "weak defence", k, pr)
                )
        for g in _stmts(other, lambda f: f.saves and "guard" in f.writes):
            if k.cause in g.causes:
                out.append(("guard", k, g))
    return out


def rows(ctx):
    p = ctx.p
    night = [a for a in p.abilities if a.at_night and a.targets]
    eff = {a.idx: effects(p, a) for a in night}
    closure = before_closure(p)
    troles = {a.idx: _target_roles(ctx, a) for a in night}
    from maf.compiler.verify.check.k002_ambiguous import shared_night

    out = []
    for a, b in itertools.combinations(sorted(night, key=lambda x: x.rank), 2):
        common = troles[a.idx] & troles[b.idx]
        if not common:
            continue
        setup = _coexist(ctx, a, b)
        if setup is None:
            continue
        nightno = shared_night(ctx, a, b)
        if nightno is None:
            continue
        kinds, wins = [], []
        order_matters = False
        first, second = (a, b) if a.rank < b.rank else (b, a)
        for x, y in ((a, b), (b, a)):
            for wk, ws, rs in flows(eff[x.idx], eff[y.idx]):
                kinds.append(
                    f"`{x.id}` {describe(p, wk)} (line {ws.line}), `{y.id}` reads it "
                    f"(line {rs.line})"
                )
                order_matters = True
                wins.append(
                    f"`{x.id}` (`{y.id}` sees its effect)"
                    if x is first
                    else f"`{y.id}` (it resolves first and does not see `{x.id}`'s effect)"
                )
        for ka, _, kb, _ in clashes(eff[a.idx], eff[b.idx]):
            kinds.append(f"both write: {describe(p, ka)} / {describe(p, kb)}")
            order_matters = True
            wins.append(f"`{second.id}` (it resolves last)")
        for x, y in ((a, b), (b, a)):
            for kind, k, pr in _kill_vs(ctx, x, y):
                cause = ctx.cause_name(k.cause)
                if k.piercing:
                    kinds.append(f"`{x.id}` kills by {cause} piercing through `{y.id}`'s {kind}")
                    wins.append(f"`{x.id}` (piercing)")
                elif kind in ("defence", "weak defence"):
                    lv, at = getattr(pr, "level", -1), getattr(k, "attack", 1)
                    kinds.append(f"`{y.id}` grants defence {lv} against `{x.id}`'s attack {at}")
                    wins.append(
                        f"`{y.id}` (saved: defence {lv} >= attack {at})"
                        if kind == "defence"
                        else f"`{x.id}` (attack {at} > defence {lv})"
                    )
                else:
                    kinds.append(f"`{y.id}` {kind}s from `{x.id}`'s {cause}")
                    wins.append(
                        f"`{y.id}` ({'the guard dies instead' if kind == 'guard' else 'saved'})"
                    )
        if not kinds:
            continue
        if order_matters:
            if forced(p, a, b, closure):
                how = "tiers" if a.tier != b.tier else "a declared order"
            else:
                how = "definition order only (K002)"
        else:
            how = "-"
        r = min(common)
        out.append(
            {
                "a": a.id,
                "b": b.id,
                "interact": True,
                "order_matters": order_matters,
                "decided_by": how,
                "wins": "; ".join(dict.fromkeys(wins)) or "both apply",
                "how": kinds,
                "witness": {
                    "players": setup.size,
                    "night": nightno,
                    "shared_target_role": ctx.role_name(r),
                },
            }
        )
    return out


def render(ctx, fmt="text"):
    rs = rows(ctx)
    if fmt == "json":
        return json.dumps({"spec": ctx.p.id, "pairs": rs}, ensure_ascii=False, indent=1)
    if fmt == "markdown":
        lines = [
            f"# Interactions of `{ctx.p.id}`",
            "",
            "| A | B | order matters | decided by | wins | how | witness |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rs:
            w = r["witness"]
            lines.append(
                f"| `{r['a']}` | `{r['b']}` | {'yes' if r['order_matters'] else 'no'} "
                f"| {r['decided_by']} | {r['wins']} | {'; '.join(r['how'])} | "
                f"{w['players']} players, night {w['night']}, both on a "
                f"{w['shared_target_role']} |"
            )
        if not rs:
            lines.append("| (no two abilities interact) | | | | | | |")
        return "\n".join(lines)
    lines = [f"interactions of {ctx.p.id}: {len(rs)} pair(s)"]
    for r in rs:
        w = r["witness"]
        lines.append(
            f"{r['a']} x {r['b']}: order {'matters' if r['order_matters'] else 'does not matter'}"
            + (f" ({r['decided_by']})" if r["order_matters"] else "")
            + f"; wins: {r['wins']}"
        )
        for h in r["how"]:
            lines.append(f"    {h}")
        lines.append(
            f"    witness: {w['players']} players, night {w['night']}, both target a "
            f"{w['shared_target_role']}"
        )
    return "\n".join(lines)


def run_matrix(spec, fmt="text", root=None) -> int:
    import sys
    from pathlib import Path

    from maf.compiler.driver import compile_source
    from maf.dsl.diagnostics import CompileError

    path = Path(spec)
    if not path.is_absolute() and root is not None and not path.exists():
        path = Path(root) / spec
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        print(f"maf check: cannot read {spec}: {e}", file=sys.stderr)
        return 2
    try:
        c = compile_source(text, spec)
    except CompileError as e:
        print(e.render(), file=sys.stderr)
        return 1
    print(render(Context(c.program, text, c.python), fmt))
    return 0
