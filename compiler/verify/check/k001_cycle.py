"""K001 ordering cycle: an implied ordering contradicts the declared one.

Implied edges: an ability that sets/removes a mark that only lives within the night (`until dawn`
or `until dusk`) must resolve before any ability that reads it with has(). If the declared order
(tiers, before/after, `order`) puts the reader first, the two orderings form a cycle. (A `steal`
implies no edge: a stolen ability whose turn has passed is used again by the taker at once.)
A `block` implies blocker before blocked: a block stops only abilities still to resolve (two
abilities that both block are ordered by their declaration: that is the spec's ruling).
"""

from __future__ import annotations

import re

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.effects import before_closure, describe, effects, flows, forced
from maf.compiler.verify.check.model import Finding, bodies
from maf.dsl.codes import Code
from maf.dsl.diagnostics import Span

CODE = Code.K001
TITLE = "ordering cycle"

_TIER = re.compile(r"\s*tier\s+-?\d+")


def _line_span(ctx, ab, ln: int, text: str) -> Span:
    col = len(text) - len(text.lstrip()) + 1
    return Span(ab.span.file, ln, col, ln, len(text.rstrip()) + 1)


def tier_span(ctx, ab) -> Span:
    """Where an ability's place in the night is written, the line an ordering finding asks to
    change: its `tier N` line, else its header (where a `tier` would go)."""
    end = max(ab.span.end_line, ab.span.line)
    for ln in range(ab.span.line, min(end, len(ctx.lines)) + 1):
        text = ctx.lines[ln - 1]
        if _TIER.match(text):
            return _line_span(ctx, ab, ln, text)
    return _line_span(ctx, ab, ab.span.line, ctx.lines[ab.span.line - 1])


def order_span(ctx, first, then) -> Span:
    """The declaration that puts `first` before `then`: `before THEN` in first's block, `after
    FIRST` in then's, a top-level `order` naming both; else first's tier line."""
    for ab, word, other in ((first, "before", then), (then, "after", first)):
        end = max(ab.span.end_line, ab.span.line)
        pat = re.compile(rf"\s*{word}\b.*\b({re.escape(other.id)}|{re.escape(other.name)})\b")
        for ln in range(ab.span.line, min(end, len(ctx.lines)) + 1):
            if pat.match(ctx.lines[ln - 1]):
                return _line_span(ctx, ab, ln, ctx.lines[ln - 1])
    for ln, text in enumerate(ctx.lines, 1):
        if text.lstrip().startswith("order ") and first.id in text and then.id in text:
            return Span(first.span.file, ln, 1, ln, len(text.rstrip()) + 1)
    return tier_span(ctx, first)


def _blind(p, reader, night, eff, early_kills, key=("doom",)) -> bool:
    """Does a read of the night so far (`doomed`: the kills; `visitors`/`visits`: the visits)
    always come too early: every other writer of the night resolves after the reader (and none
    writes before the actions)? Then it never sees one, and what it guards never happens. A
    reader that some writer precedes sees the night so far on purpose (a witch who heals the
    wolves' victim before her own poison resolves): no edge. A reader's own kill counts; its
    own visit does not (every targeted ability visits: a lookout sees himself)."""
    if early_kills or (key == ("doom",) and key in eff[reader.idx].writes):
        return False
    return not any(
        key in eff[w.idx].writes and w.rank < reader.rank for w in night if w is not reader
    )


def _too_late(p, saver, killer) -> bool:
    """Is every protection of `saver` made for causes only kills `at once` use, one of them
    `killer`'s? Resolving after that kill it then saves from nothing (a protection also from a
    cause some kill settles at dawn by keeps a purpose: no edge)."""
    covered = {
        c
        for s, _ in sem.walk(bodies(saver), now_only=True)
        if sem.fact(s).saves
        for c in getattr(s, "causes", ())
    }
    if not covered:
        return False
    at_once: set[int] = set()
    at_dawn: set[int] = set()
    for site in sem.sites(p):
        for s, _ in sem.walk(site.body):
            k = sem.kill_of(s)
            if k is not None:
                (at_once if getattr(s, "at_once", False) else at_dawn).add(k.cause)
    mine = {
        k.cause
        for s, _ in sem.walk(bodies(killer), now_only=True)
        if (k := sem.kill_of(s)) is not None and getattr(s, "at_once", False)
    }
    return not covered & at_dawn and bool(covered & mine)


def run(ctx):
    p = ctx.p
    night = [a for a in p.abilities if a.at_night]
    eff = {a.idx: effects(p, a) for a in night}
    closure = before_closure(p)
    # kills that can be pending before any action resolves, or while they resolve (delayed
    # blocks, `on night start` hooks, reactions): a `doomed` read may see those
    early_kills = any(
        sem.fact(s).kills
        for site in sem.sites(p)
        if site.what == "reaction" or (site.what == "hook" and site.event == "night_start")
        for s, _ in sem.walk(site.body)
    ) or any(
        sem.fact(x).kills
        for site in sem.sites(p)
        for s, _ in sem.walk(site.body)
        if isinstance(s, ir.Delayed)
        for x, _ in sem.walk(s.body)
    )
    # visits made before any action resolves (a `visit` in a reaction or a night-start hook)
    early_visits = any(
        "visit" in sem.fact(s).writes
        for site in sem.sites(p)
        if site.what == "reaction" or (site.what == "hook" and site.event == "night_start")
        for s, _ in sem.walk(site.body)
    )
    out = []
    # (writer, write key) -> findings: one defect, however many readers
    groups: dict[tuple, list] = {}
    for a in night:
        for b in night:
            if a.idx == b.idx or a.rank < b.rank:
                continue
            # a resolves after b; does a write something b must see?
            for wk, ws, rs in flows(eff[a.idx], eff[b.idx]):
                strong = (
                    (wk[0] == "mark" and p.marks[wk[1]].lifetime in ("dawn", "dusk"))
                    or (wk[0] == "block" and ("block",) not in eff[b.idx].writes)
                    or (wk[0] == "doom" and _blind(p, b, night, eff, early_kills))
                    or (wk[0] == "visit" and _blind(p, b, night, eff, early_visits, ("visit",)))
                    # only a kill `at once` reads protections while resolving
                    # (semantics.stmt_reads): one made after it is too late
                    or (wk[0] == "save" and _too_late(p, a, b))
                )
                if not strong or not forced(p, a, b, closure):
                    continue
                why = (
                    f"tier {b.tier} < tier {a.tier}"
                    if b.tier < a.tier
                    else "a before/after/order declaration"
                )
                what = (
                    f"`{a.id}` can steal it, which works only on abilities that have not "
                    "resolved yet"
                    if wk[0] == "targets"
                    else f"it reads the kills so far (`doomed`), and `{a.id}` kills"
                    if wk[0] == "doom"
                    else f"it reads the visits so far (`visitors`/`visits`), and `{a.id}` visits"
                    if wk[0] == "visit"
                    else f"its kill at once settles against the protections made so far, and "
                    f"`{a.id}` protects"
                    if wk[0] == "save"
                    else f"`{a.id}` can block it, which stops only abilities that have not "
                    "resolved yet"
                    if wk[0] == "block"
                    else f"it reads what `{a.id}` {describe(p, wk)}"
                )
                groups.setdefault((a.idx, wk), []).append(
                    Finding(
                        CODE,
                        "error",
                        f"ordering cycle: `{b.id}` must resolve after `{a.id}` ({what}), but the "
                        "declared order puts it first",
                        # at the line to change: the writer's tier (one line for all its
                        # readers; a reader of the kills so far: its own), or the declaration
                        (tier_span(ctx, b if wk[0] in ("doom", "visit") else a))
                        if b.tier < a.tier
                        else order_span(ctx, b, a),
                        evidence=[
                            f"declared: {b.id} (line {b.span.line}) before {a.id} "
                            f"(line {a.span.line}) by {why}",
                            f"implied:  {a.id} before {b.id}: line {ws.line} `{ctx.line_of(ws)}` "
                            f"affects line {rs.line} `{ctx.line_of(rs)}` in the same night "
                            + (
                                "(the mark is gone by the next night)"
                                if wk[0] == "mark"
                                else "(a block only stops abilities still to resolve)"
                                if wk[0] == "block"
                                else "(a kill is pending only once it has resolved, and "
                                "settles at dawn)"
                                if wk[0] == "doom"
                                else "(a visit is seen only once it has resolved)"
                                if wk[0] == "visit"
                                else "(a protection made after a kill at once is too late)"
                                if wk[0] == "save"
                                else "(a steal only takes abilities still to resolve)"
                            ),
                            f"cycle: {b.id} -> {a.id} -> {b.id}",
                        ],
                        notes=(
                            (f"`{b.id}` reads it here", rs),
                            ("written here", ws),
                            (f"`{b.id}` is declared here", b.span),
                            (f"`{a.id}` is declared here", a.span),
                        ),
                        hint=(
                            f"raise `{b.id}`'s tier above {a.tier} (this line)"
                            if b.tier < a.tier and wk[0] in ("doom", "visit")
                            else f"lower `{a.id}`'s tier below {b.tier} (this line), or declare "
                            f"`before {b.id}` in it"
                            if b.tier < a.tier
                            else f"drop or reverse this declaration: `{a.id}` must resolve "
                            f"before `{b.id}`"
                        )
                        + (
                            ", or read the mark on the next night with a longer-lived mark"
                            if wk[0] == "mark"
                            else ""
                        ),
                        witness={
                            "cycle": [b.id, a.id, b.id],
                            "lines": [b.span.line, ws.line, rs.line, a.span.line],
                        },
                    )
                )
    for fs in groups.values():
        fs.sort(key=lambda f: (f.span.line, f.span.col))
        f = fs[0]
        if len(fs) > 1:
            names = [x.witness["cycle"][0] for x in fs]
            f.message = f.message.replace(
                f"`{names[0]}` must", f"`{names[0]}` and {len(fs) - 1} other abilities must", 1
            )
            f.evidence = f.evidence + [
                f"the same for {len(fs) - 1} other reader(s): "
                + ", ".join(
                    f"{n} (line {x.span.line})" for n, x in zip(names[1:11], fs[1:11], strict=True)
                )
                + (" ..." if len(fs) > 11 else "")
            ]
            f.notes = f.notes + tuple(
                (f"`{n}` reads it too", x.span) for n, x in zip(names[1:4], fs[1:4], strict=True)
            )
            f.witness = dict(f.witness, readers=names)
        out.append(f)
    return out
