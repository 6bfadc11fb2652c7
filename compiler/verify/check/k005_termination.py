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
is possible. Voters are the living players, and the dead too with `ghost votes` (weights, if
the spec has `weight`, lift the limits).
"""

from __future__ import annotations

from maf.compiler.ir import semantics as sem
from maf.compiler.verify.check.model import Finding, walk
from maf.compiler.verify.check.votes import (
    has_weights,
    tie_configs,
    vote_solver,
    vote_witness,
    voters,
)
from maf.compiler.verify.check.z3x import check
from maf.dsl.codes import Code

CODE = Code.K005
TITLE = "termination"


def tie_witness(ctx, when, thr, ballot, negate_when, chaos=False, vote=None):
    """A (players, alive, threshold) where this vote can go to its tie rule, else None."""
    st, s, tt = vote_solver(ctx, when, thr, negate_when)
    if not has_weights(ctx) and not chaos:  # a chaos split below the threshold repeats too
        # the day vote repeats only on a tie at the top among seats with enough votes (the
        # voters: the living, and the dead with ghost votes)
        n = voters(st, vote)
        s.add(2 * tt <= n if ballot == "single" else tt <= n)
    if not check(s):
        return None
    return vote_witness(st, s, tt)


def unreachable_threshold(ctx, when, thr, negate_when):
    """A (players, alive, threshold) where the threshold exceeds the voters, else None."""
    if has_weights(ctx):
        return None
    st, s, tt = vote_solver(ctx, when, thr, negate_when)
    s.add(tt > st.alive)
    if not check(s):
        return None
    return vote_witness(st, s, tt)


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
        w = tie_witness(ctx, when, thr, ballot, negate, chaos, vote)
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
            if sem.tie_rule(s) == "repeat":  # a vote of its own (a trial) that repeats on a tie
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
