"""K008 setup consistency: every setup adds up to its table size and names defined roles; every
declared `invariant` holds at every size of every setup; roles defined but never in a setup
(and never converted into) are reported as warnings."""

from __future__ import annotations

import z3

from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.model import Finding
from maf.compiler.verify.check.z3x import State, Translator, check, solver
from maf.dsl.codes import Code

CODE = Code.K008
TITLE = "setup consistency"


def run(ctx):
    p = ctx.p
    out = []
    for s in p.setups:
        bad = [r for r, _ in s.counts if not 0 <= r < ctx.nroles]
        if bad:
            out.append(
                Finding(CODE, "error", f"setup names undefined role index(es) {bad}", s.span)
            )
        total = sum(c for _, c in s.counts)
        if total != s.size:
            out.append(
                Finding(
                    CODE,
                    "error",
                    f"setup for {s.size} players has {total} roles",
                    s.span,
                    evidence=[
                        ", ".join(f"{ctx.role_name(r)} x{c}" for r, c in s.counts)
                        + f" = {total} != {s.size}"
                    ],
                    hint="adjust the counts or use `* rest`",
                )
            )
    sizes = set(range(p.min_players, p.max_players + 1))
    missing = sorted(sizes - {s.size for s in p.setups} - set(ctx.custom_sizes))
    if missing:
        out.append(Finding(CODE, "error", f"no setup for table size(s) {missing}", p.span))
    for inv in p.invariants:
        for s in p.setups:
            st = State(ctx, "@inv")
            tr = Translator(st, counts=dict(s.counts))
            e = tr.bool_of(inv)
            so = solver()
            so.add(st.players == s.size, *st.side)
            if check(so, z3.Not(e)) and check(so, e):
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"invariant cannot be evaluated at {s.size} players "
                        "(it uses something the checker does not model)",
                        inv.span,
                    )
                )
                break
            if check(so, z3.Not(e)):
                counts = ", ".join(
                    f"{t.id} {sum(c for r, c in s.counts if ctx.role_team[r] == t.idx)}"
                    for t in p.teams
                )
                out.append(
                    Finding(
                        CODE,
                        "error",
                        f"invariant does not hold at {s.size} players"
                        + (f" (setup {s.label!r})" if s.label else ""),
                        inv.span,
                        evidence=[
                            f"setup line {s.span.line} at {s.size} players: "
                            + ", ".join(f"{ctx.role_name(r)} x{c}" for r, c in s.counts),
                            f"per team: {counts}; players = {s.size}",
                            f"invariant line {inv.span.line}: `{ctx.line_of(inv.span)}` is false",
                        ],
                        notes=(("the setup", s.span),),
                        hint="change the setup or the invariant",
                        witness={"players": s.size, "setup_line": s.span.line},
                    )
                )
                break
    out += _custom_invariants(ctx)
    used = {r for s in p.setups for r, c in s.counts if c}
    from maf.compiler.verify.check.samples import role_allowed

    lines = sorted({s.span.line for s in p.setups} | {c[4].line for c in ctx.custom})
    # a conversion anywhere (a hook, a reaction, `on any death` too) produces its role; a
    # title's role is dealt to no seat by design (its mark is what a seat holds)
    made = sem.convert_dests(p)
    for r in p.roles:
        if r.idx in used or r.idx in made or r.title:
            continue
        if ctx.custom and role_allowed(ctx, r.idx):
            continue  # a custom rule can seat it
        ev = [
            f"fixed setups ({_lines(s.span.line for s in p.setups)}) never seat it"
            if p.setups
            else "there is no fixed setup"
        ]
        if ctx.custom:
            ev.append(
                f"the custom rule(s) ({_lines(c[4].line for c in ctx.custom)}) allow it at no "
                "table size (Z3 over the counts per role)"
            )
        ev.append("no `convert` produces it")
        out.append(
            Finding(
                CODE,
                "warning",
                f"role `{r.id}` is defined but no setup uses it",
                r.span,
                evidence=ev if lines else ["the spec has no setup"],
                hint="add it to a setup or remove it",
            )
        )
    return out


def _custom_invariants(ctx):
    """A custom rule (`any where`) that allows a table breaking an `invariant`."""
    from maf.compiler.verify.check.samples import count_solver

    p = ctx.p
    out = []
    for inv in p.invariants:
        for _label, lo, hi, where, span in ctx.custom:
            for n in range(lo, hi + 1):
                s, counts = count_solver(ctx, where, n)
                st = State(ctx, f"@inv{n}")
                tr = Translator(st, counts={r: counts[r] for r in range(ctx.nroles)})
                e = tr.bool_of(inv)
                s.add(st.players == n, *st.side)
                if not check(s, z3.Not(e)):
                    continue
                m = s.model()
                table = ", ".join(
                    f"{ctx.role_name(r)} x{m.eval(counts[r]).as_long()}"
                    for r in range(ctx.nroles)
                    if m.eval(counts[r], model_completion=True).as_long()
                )
                out.append(
                    Finding(
                        CODE,
                        "error",
                        f"the custom setup allows a table of {n} players that breaks the invariant",
                        inv.span,
                        evidence=[
                            f"custom rule line {span.line} allows at {n} players: {table}",
                            f"invariant line {inv.span.line}: `{ctx.line_of(inv.span)}` is "
                            "false there",
                        ],
                        notes=(("the custom setup", span),),
                        hint="tighten the custom rule's `where` or the invariant",
                        witness={"players": n, "table": table},
                    )
                )
                break
    return out


def _lines(lines) -> str:
    """`line 5` / `lines 5, 9` (each once, in order): never an empty "(lines )"."""
    ns = sorted(set(lines))
    return ("line " if len(ns) == 1 else "lines ") + ", ".join(map(str, ns))
