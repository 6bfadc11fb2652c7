"""K005 termination: a `tie repeat` rule that can actually fire replays the same day with the
same living players; nothing forces a different vote, so the game can loop forever.

The engine repeats a `tie repeat` day whenever its vote eliminates nobody: a tie at the top, or
nobody reaching the threshold (a 1-1-1 split of three voters when two votes are needed). With
single ballots that is possible when the threshold is at least 2 or two candidates can share a
winning count (2 x max(threshold, 1) <= voters); with multi ballots when max(threshold, 1) <=
voters (weights, if the spec has `weight`, lift the limit). Z3 looks for a table size and number
of living players where the vote applies and such an outcome exists.
"""
from __future__ import annotations

import z3

from .. import ir
from .model import Finding, walk
from .z3x import State, Translator, check, solver

CODE = "K005"
TITLE = "termination"


def tie_configs(ctx):
    """(label, vote, when expr or None, threshold expr or None, ballot, span)."""
    d = ctx.p.day
    out = []
    if d is None:
        return out
    if d.vote is not None:
        thr = d.vote.defense or d.vote.threshold
        out.append(("day vote", d.vote, d.chaos_when, thr, "single" if d.vote.defense else
                    d.vote.ballot, True))
    if d.chaos is not None:
        out.append(("chaos day vote", d.chaos, d.chaos_when, d.chaos.threshold, d.chaos.ballot,
                    False))
    return out


def tie_witness(ctx, when, thr, ballot, negate_when):
    """A (players, alive, threshold) where a tie of this vote is possible, else None."""
    st = State(ctx, "@tie")
    tr = Translator(st)
    s = solver()
    s.add(*st.constraints(), st.alive >= 2)
    if when is not None:
        w = tr.bool_of(when)
        s.add(z3.Not(w) if negate_when else w)
    t = tr.int_of(thr) if thr is not None else z3.IntVal(1)
    weights = any(isinstance(x, ir.Weight) for a in ctx.p.abilities for x, _ in walk(a.body))
    tt = z3.If(t >= 1, t, 1)
    if not weights:
        s.add(z3.Or(tt >= 2, 2 * tt <= st.alive) if ballot == "single" else tt <= st.alive)
    s.add(*st.side)
    if not check(s):
        return None
    m = s.model()
    return {"players": m.eval(st.players, model_completion=True).as_long(),
            "alive": m.eval(st.alive, model_completion=True).as_long(),
            "threshold": m.eval(tt, model_completion=True).as_long()}


def run(ctx):
    out = []
    for label, vote, when, thr, ballot, negate in tie_configs(ctx):
        if vote.tie != "repeat":
            continue
        w = tie_witness(ctx, when, thr, ballot, negate)
        if w is None:
            continue
        a, t = w["alive"], w["threshold"]
        out.append(Finding(
            CODE, "warning",
            f"the {label} can repeat forever: `tie repeat` replays the same day with the same "
            "players", vote.span,
            evidence=[f"looping trace: {w['players']} players, {a} alive, threshold {t}",
                      (f"  day k: the {a} votes split so that nobody gets {t} -> no elimination"
                       if t >= 2 and ballot == "single" else
                       f"  day k: two candidates get {t} vote(s) each ({ballot} ballot) -> tie"),
                      "  `tie repeat`: day k is played again, nobody left, nothing changed",
                      "  day k again: the same ballots give the same tie -> ... (no progress)"],
            hint="use `tie none` or `tie lottery`, or bound the repeats in the rules",
            witness=w))
    # trials with a repeating tie
    for ab in ctx.p.abilities:
        for s, _ in walk(ab.body):
            if isinstance(s, ir.Trial) and s.tie == "repeat":
                out.append(Finding(
                    CODE, "warning", f"the trial of `{ab.id}` can repeat forever on a tie",
                    s.span, evidence=["looping trace: the two defendants get equal votes -> "
                                      "the trial repeats with the same players -> ..."],
                    hint="use `tie none` or `tie lottery`"))
    return out
