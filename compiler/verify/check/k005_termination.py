"""K005 termination: a `tie repeat` rule that can actually fire replays the same day with the
same living players; nothing forces a different vote, so the game can loop forever.

When the engine repeats a day (compiler/runtime/core.py, `_vote`, `_single_round`,
`_tie`):
* a **chaos** vote goes to its tie rule whenever no single seat comes out on top with at least
  the threshold: a tie at the top, or nobody reaching the threshold (the votes split). With a
  threshold above the number of voters (and no vote weights) *every* chaos vote repeats, even a
  unanimous one: an error.
* the **day vote** goes to its tie rule only on a tie at the top among seats that reached the
  threshold (single round), or on a tie of the defense round; nobody reaching the threshold
  ends the day without an elimination, it does not repeat. With single ballots two seats can
  tie with `t` votes each only when `2 x max(t, 1) <= voters`; with multi ballots when
  `max(t, 1) <= voters`.
Z3 looks for a table size and number of living players where the vote applies and the outcome
is possible. Voters are the living players (weights, if the spec has `weight`, lift the limits).
"""

from __future__ import annotations

import z3

from maf.compiler.ir import nodes as ir
from maf.compiler.verify.check.model import Finding, walk
from maf.compiler.verify.check.z3x import State, Translator, check, solver

CODE = "K005"
TITLE = "termination"


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


def _weights(ctx):
    return any(isinstance(x, ir.Weight) for a in ctx.p.abilities for x, _ in walk(a.body))


def _base(ctx, when, thr, negate_when):
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


def _model(st, s, tt):
    m = s.model()
    return {
        "players": m.eval(st.players, model_completion=True).as_long(),
        "alive": m.eval(st.alive, model_completion=True).as_long(),
        "threshold": m.eval(tt, model_completion=True).as_long(),
    }


def tie_witness(ctx, when, thr, ballot, negate_when, chaos=False):
    """A (players, alive, threshold) where this vote can go to its tie rule, else None."""
    st, s, tt = _base(ctx, when, thr, negate_when)
    if not _weights(ctx) and not chaos:  # a chaos split below the threshold repeats too
        # the day vote repeats only on a tie at the top among seats with enough votes
        s.add(2 * tt <= st.alive if ballot == "single" else tt <= st.alive)
    if not check(s):
        return None
    return _model(st, s, tt)


def unreachable_threshold(ctx, when, thr, negate_when):
    """A (players, alive, threshold) where the threshold exceeds the voters, else None."""
    if _weights(ctx):
        return None
    st, s, tt = _base(ctx, when, thr, negate_when)
    s.add(tt > st.alive)
    if not check(s):
        return None
    return _model(st, s, tt)


def run(ctx):
    out = []
    for label, vote, when, thr, ballot, negate, chaos in tie_configs(ctx):
        if vote.tie != "repeat":
            continue
        if chaos:
            w = unreachable_threshold(ctx, when, thr, negate)
            if w is not None:
                a, t = w["alive"], w["threshold"]
                out.append(
                    Finding(
                        CODE,
                        "error",
                        f"the {label} repeats forever: it needs {t} votes but only {a} players "
                        "vote",
                        vote.span,
                        evidence=[
                            f"looping trace: {w['players']} players, {a} alive, threshold {t}",
                            f"  day k: even a unanimous vote gives {a} < {t} -> nobody is "
                            "voted out; a chaos vote below the threshold goes to the tie rule",
                            "  `tie repeat`: day k is played again with the same players -> ...",
                        ],
                        hint="lower the threshold to at most the number of living players, or use "
                        "`tie none` / `tie lottery`",
                        witness=w,
                    )
                )
                continue
        w = tie_witness(ctx, when, thr, ballot, negate, chaos)
        if w is None:
            continue
        a, t = w["alive"], w["threshold"]
        split = chaos and t >= 2
        out.append(
            Finding(
                CODE,
                "warning",
                f"the {label} can repeat forever: `tie repeat` replays the same day with the same "
                "players",
                vote.span,
                evidence=[
                    f"looping trace: {w['players']} players, {a} alive, threshold {t}",
                    (
                        f"  day k: the {a} votes split so that nobody gets {t} -> the chaos vote "
                        "goes to the tie rule"
                        if split
                        else f"  day k: two candidates get {max(t, 1)} vote(s) each "
                        f"({ballot} ballot) -> tie"
                    ),
                    "  `tie repeat`: day k is played again, nobody left, nothing changed",
                    "  day k again: the same ballots give the same tie -> ... (no progress)",
                ],
                hint="if a repeated day should end otherwise, state it: `tie none` (nobody "
                "leaves) or `tie lottery`",
                witness=w,
            )
        )
    # trials with a repeating tie
    for ab in ctx.p.abilities:
        for s, _ in walk(ab.body):
            if isinstance(s, ir.Trial) and s.tie == "repeat":
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"the trial of `{ab.id}` can repeat forever on a tie",
                        s.span,
                        evidence=[
                            "looping trace: the two defendants get equal votes -> "
                            "the trial repeats with the same players -> ..."
                        ],
                        hint="state what a tied trial does instead: `tie none` or `tie lottery`",
                    )
                )
    return out
