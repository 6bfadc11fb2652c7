"""K009 branch order decides (warning): two conditions of one `if`/`elif` chain can hold
together and their branches do different things, so the order of the branches is itself a
ruling (a rule "a marked player reads guilty" next to "this role always reads innocent": which
wins for a marked player of that role?).

Not reported: a chain with a `// RULING` comment on its `if` line or in the comment block right
above it (the order is then a stated ruling), a branch whose condition implies the later one's
(a special case written before the general case: the usual intent), branches with the same
statements, and conditions that
cannot hold together for any target the filter allows (Z3 over the ability's query; marks and
`acted` are free, so "framed" may hold for any seat). The witness is a table size and the
roles of the actor and the targets where both conditions hold.
"""

from __future__ import annotations

import dataclasses

import z3

from maf.compiler.ir import nodes as ir
from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.abq import block_query, moved_query
from maf.compiler.verify.check.effects import written_before
from maf.compiler.verify.check.model import Finding, walk
from maf.dsl.codes import Code

CODE = Code.K009
TITLE = "branch order decides"


def shape(x):
    """A node without its spans (to compare what two branches do)."""
    if isinstance(x, tuple):
        return tuple(shape(y) for y in x)
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__,) + tuple(
            shape(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name != "span"
        )
    return x


def _chains(ctx):
    """(query factory, if statement, guard path, owner label) for every chain the program can
    run (semantics.sites: abilities and their reactions, death triggers, role reactions and
    hooks, `on any death`, top-level hooks); not lowering's per-role dispatch chains."""
    for site in sem.sites(ctx.p):
        for s, path in walk(site.body):
            if not isinstance(s, ir.If) or len(s.branches) < 2 or sem.is_dispatch(s):
                continue
            if site.ability is not None:
                ab = site.ability
                conds = [c for c, _ in s.branches] + [c for c, _ in path]
                if site.what == "ability" and any(sem.reads_resource(c, "role") for c in conds):
                    cache = ctx.__dict__.setdefault("_k007_wb", {})
                    if written_before(ctx.p, ab, "role", cache):
                        # a card can move before the body: its role tests see the table only
                        yield (lambda ab=ab: moved_query(ctx, ab)), s, path, site.label
                        continue
                yield (lambda ab=ab: ctx.query(ab)), s, path, site.label
            else:
                role = site.role.idx if site.role is not None else None
                yield (
                    (lambda role=role: block_query(ctx, role)),
                    s,
                    path,
                    site.label,
                )


def _src(ctx, span):
    if 0 < span.line <= len(ctx.lines) and span.end_line == span.line:
        return ctx.lines[span.line - 1][span.col - 1 : span.end_col - 1]
    return ctx.line_of(span)


def ruled(ctx, line):
    """Does a `// RULING` comment sit on the line, or in the comment block right above it?"""
    if 0 < line <= len(ctx.lines) and "RULING" in ctx.lines[line - 1]:
        return True
    i = line - 2
    while i >= 0 and ctx.lines[i].strip().startswith("//"):
        if "RULING" in ctx.lines[i]:
            return True
        i -= 1
    return False


def run(ctx):
    out = []
    for qf, s, path, owner in _chains(ctx):
        if ruled(ctx, s.span.line):
            continue  # the order is a stated ruling
        q = None
        for i, (c1, b1) in enumerate(s.branches):
            for c2, b2 in s.branches[i + 1 :]:
                if shape(b1) == shape(b2):
                    continue
                if q is None:
                    q = qf()
                g = q.guard(path)
                x1, x2 = q.translate_bool(c1), q.translate_bool(c2)
                if not q.sat(*g, x1, x2):
                    continue
                if not q.sat(*g, x1, z3.Not(x2)):
                    continue  # the first is a special case of the second: the usual order
                wit = q.model_text(g + [x1, x2])
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"branch order decides in {owner}: `{_src(ctx, c1.span)}` and "
                        f"`{_src(ctx, c2.span)}` can both hold, and the earlier branch wins "
                        "silently",
                        c2.span,
                        evidence=[
                            f"line {c1.span.line}: `{_src(ctx, c1.span)}`",
                            f"line {c2.span.line}: `{_src(ctx, c2.span)}`",
                            "witness (both hold): " + ", ".join(wit),
                            f"the branches do different things; with both conditions true "
                            f"only line {c1.span.line}'s branch runs",
                        ],
                        notes=(("the earlier condition", c1.span),),
                        hint="make the conditions exclusive (`... and not ...`) or put the case "
                        "that should win first, with a RULING comment",
                        witness={"first": c1.span.line, "second": c2.span.line, "state": wit},
                    )
                )
    return out
