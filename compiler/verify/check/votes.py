"""What the vote checks share (K005 termination, K010 vote outcomes): the votes a day plays, and
a Z3 solver over the day one of them is played on."""

from __future__ import annotations

import z3

from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.model import walk
from maf.compiler.verify.check.z3x import State, Translator, solver


def tie_configs(ctx):
    """(label, vote, when expr or None, threshold expr or None, ballot, negate_when, chaos)."""
    d = ctx.p.day
    out: list[tuple] = []
    if d is None:
        return out
    if d.vote is not None:
        thr = d.vote.defense or d.vote.threshold
        out.append(
            (
                "day vote",
                d.vote,
                d.chaos_when,
                thr,
                "single" if d.vote.defense else d.vote.ballot,
                True,
                False,
            )
        )
    if d.chaos is not None:
        out.append(
            (
                "chaos day vote",
                d.chaos,
                d.chaos_when,
                d.chaos.threshold,
                d.chaos.ballot,
                False,
                True,
            )
        )
    return out


def has_weights(ctx) -> bool:
    """Can a vote count some voter more than once: a `weight` statement anywhere, or a lasting
    `weighs N` mark (N >= 2)? Then voters are no longer seats."""
    return any(m.weighs >= 2 for m in ctx.p.marks) or any(
        sem.fact(x).weighs for site in sem.sites(ctx.p) for x, _ in walk(site.body)
    )


def voters(st, vote):
    """How many can vote in the day vote: the living, and the dead too with `ghost votes`
    (each dead player keeps a vote; semantics FIELDS Vote.ghost)."""
    if vote is not None and vote.ghost:
        return st.players
    return st.alive


def vote_solver(ctx, when, thr, negate_when):
    """A solver over one vote's day: the state, the vote's `when` (negated for the day vote
    of a spec with a chaos day), the game still on; returns (state, solver, threshold)."""
    st = State(ctx, "@tie")
    tr = Translator(st)
    s = solver()
    s.add(*st.constraints(), st.alive >= 2)
    if when is not None:
        w = tr.bool_of(when)
        s.add(z3.Not(w) if negate_when else w)
    t = tr.int_of(thr) if thr is not None else z3.IntVal(1)
    tt = z3.If(t >= 1, t, 1)
    # the game is still on: no win condition holds (a day is played only then)
    s.add(*[z3.Not(tr.bool_of(w.cond)) for w in ctx.p.wins])
    s.add(*st.side)
    return st, s, tt


def vote_witness(st, s, tt) -> dict[str, int]:
    """The players, living and threshold of the solver's model."""
    m = s.model()
    return {
        "players": m.eval(st.players, model_completion=True).as_long(),
        "alive": m.eval(st.alive, model_completion=True).as_long(),
        "threshold": m.eval(tt, model_completion=True).as_long(),
    }
