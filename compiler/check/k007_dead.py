"""K007 dead or shadowed ability (warnings).

* Target filters that no table size can satisfy (jointly); evidence: an unsat core of the
  filter's conjuncts and the setup facts.
* An `if`/`elif` branch no target can reach (its condition contradicts the filter and the
  earlier branches).
* A kill every possible victim of which is immune to its cause (and it is not piercing).
"""
from __future__ import annotations

import z3

from .. import ir
from .abq import AbilityQuery, kill_victims
from .model import bodies, Finding, immune_causes, immunity_span, walk
from .z3x import check, conjuncts

CODE = "K007"
TITLE = "dead or shadowed ability"


def _filter_core(ctx, ab, q):
    s = q.s
    s.push()
    labels = {}
    try:
        for t in ab.targets:
            for i, part in enumerate(conjuncts(t.filter)):
                lab = z3.Bool(f"core:{t.name}:{i}")
                labels[lab.get_id()] = (part, t)
                s.add(z3.Implies(lab, q.translate_bool(part)))
        lits = [z3.Bool(f"core:{t.name}:{i}") for t in ab.targets
                for i, _ in enumerate(conjuncts(t.filter))]
        if check(s, *lits):
            return None
        core = s.unsat_core()
        return [labels[c.get_id()] for c in core if c.get_id() in labels]
    finally:
        s.pop()


def run(ctx):
    out = []
    p = ctx.p
    for ab in p.abilities:
        q = ctx.query(ab)
        core = None
        if ab.targets and not q.sat():
            core = _filter_core(ctx, ab, AbilityQuery(ctx, ab, with_filters=False))
        if core is not None:
            first = core[0][1] if core else ab.targets[0]
            sizes = ", ".join(map(str, ctx.sizes))
            out.append(Finding(
                CODE, "warning",
                f"`{ab.id}` can never be used: no player satisfies its target filter at any "
                f"table size ({sizes})", first.span,
                evidence=["unsat core (these conditions cannot hold together):"]
                + [f"  line {part.span.line}: `{_src(ctx, part.span)}`" for part, _ in core]
                + [f"  setups: the roles at each size (lines "
                   f"{', '.join(str(l) for l in sorted({s.span.line for s in p.setups}))})"],
                notes=tuple(("part of the contradiction", part.span) for part, _ in core[1:]),
                hint="relax the filter or add the roles it needs to a setup"))
            continue
        if ab.targets and not q.sat():
            continue
        for s, path in walk(bodies(ab)):
            if isinstance(s, ir.If):
                negs = []
                for cond, _ in s.branches:
                    g = q.guard(path) + negs + [q.translate_bool(cond)]
                    if not q.sat(*g):
                        out.append(Finding(
                            CODE, "warning",
                            f"this branch of `{ab.id}` can never apply", cond.span,
                            evidence=[f"line {cond.span.line}: `{_src(ctx, cond.span)}` "
                                      "contradicts the target filter"
                                      + (" and the earlier branches" if negs else "")
                                      + " at every table size"],
                            hint="remove the branch or fix its condition"))
                    negs.append(z3.Not(q.translate_bool(cond)))
            elif isinstance(s, ir.Kill) and not s.piercing:
                victims = kill_victims(ctx, q, s, path)
                if victims is None or not victims:
                    continue
                if all(s.cause in immune_causes(p.roles[r]) for r in victims):
                    out.append(Finding(
                        CODE, "warning",
                        f"this kill by `{ctx.cause_name(s.cause)}` can never succeed: every "
                        "player it can target is immune", s.span,
                        evidence=[f"possible victims: "
                                  + ", ".join(ctx.role_name(r) for r in victims)
                                  + f"; all are immune to {ctx.cause_name(s.cause)}"],
                        notes=tuple((f"`{ctx.role_name(r)}` is immune here", immunity_span(p.roles[r], s.cause))
                                    for r in victims[:3]),
                        hint="make the kill piercing or target other roles"))
    return out


def _src(ctx, span):
    if 0 < span.line <= len(ctx.lines):
        line = ctx.lines[span.line - 1]
        if span.end_line == span.line:
            return line[span.col - 1:span.end_col - 1]
        return line[span.col - 1:].strip()
    return ""
