"""K010 vote outcomes not covered: a vote that can end in a state the spec states no outcome
for (the engine then eliminates nobody, silently).

* **skip tokens without a majority**: with `skips N` (single round) a day ends on a skip only
  when the skippers reach the threshold, and a seat leaves only with the threshold; with a
  threshold of 2 or more both can fail at once (the votes split, too few skip); `split none`
  states the outcome (nobody leaves, no token is spent) and settles it;
* **a tied runoff**: `tie runoff` sends the tied seats to a runoff, and a runoff can tie again;
  `runoff tie none` states the outcome (nobody leaves) and settles it;
* **a threshold above the voters**: the day vote needs more votes than there are living players
  (no `weight` in the spec), so nobody can be voted out at that table;
* **a tie that names a role with no living seat**: `tie ROLE` sends that role's living seat out
  on a tie; at a table that deals no such seat, or once it is dead, a tie eliminates nobody. The
  witness is a state some game reaches (K004's walk from the setups) with no living seat of the
  role and a tie possible; a `RULING(K010)` that states it settles it.

Z3 looks for a table size and number of living players where the vote applies and the
uncovered outcome is possible; the witness is that table and a ballot split.
"""

from __future__ import annotations

import z3

from maf.compiler.verify.check.model import Finding
from maf.compiler.verify.check.votes import (
    has_weights,
    tie_configs,
    vote_solver,
    vote_witness,
    voters,
)
from maf.compiler.verify.check.z3x import Translator, check
from maf.dsl.codes import Code

CODE = Code.K010
TITLE = "vote outcomes not covered"


def run(ctx):
    out = []
    for label, vote, when, _thr, ballot, negate, chaos in tie_configs(ctx):
        thr1 = vote.threshold
        weights = has_weights(ctx)
        if not chaos and not weights:
            st, s, tt = vote_solver(ctx, when, thr1, negate)
            if check(s, tt > voters(st, vote)):  # (the dead vote too, with ghost votes)
                w = vote_witness(st, s, tt)
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"the {label} can never eliminate anyone at {w['alive']} alive: it needs "
                        f"{w['threshold']} votes",
                        vote.span,
                        evidence=[
                            f"witness: {w['players']} players, {w['alive']} alive, threshold "
                            f"{w['threshold']}: even a unanimous vote falls short"
                        ],
                        hint="cap the threshold at the number of living players "
                        "(`min(..., alive)`)",
                        witness=w,
                    )
                )
        if not chaos and not weights and vote.rounds != 1 and vote.defense is not None:
            f = _defense_above(ctx, label, vote, when, negate)
            if f is not None:
                out.append(f)
        if not chaos and vote.skips and vote.rounds == 1 and not vote.split:
            st, s, tt = vote_solver(ctx, when, thr1, negate)
            # some tokens left (the built-in `skips`, if the threshold reads it)
            sk = st.fresh.get("i:skips@tie")
            extra = [sk >= 1] if sk is not None else []
            if check(s, tt >= 2, st.alive >= 3, *extra):
                w = vote_witness(st, s, tt)
                a, t = w["alive"], w["threshold"]
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"the {label} states no outcome when neither a player nor skip reaches the "
                        "threshold",
                        vote.span,
                        evidence=[
                            f"witness: {w['players']} players, {a} alive, threshold {t}, "
                            "skip tokens left",
                            f"  {t - 1} player(s) skip (short of {t}), the other {a - t + 1} "
                            f"vote for different players ({1} vote each, short of {t})",
                            "  -> no rule of the spec applies; the engine eliminates nobody "
                            "and spends no token",
                        ],
                        hint="state the outcome: `split none` in the vote (nobody leaves, no token "
                        "is spent: what the engine does), or lower the threshold",
                        witness=w,
                    )
                )
        if vote.tie.startswith("role:"):
            f = _tie_role(ctx, label, vote)
            if f is not None:
                out.append(f)
        if vote.tie == "runoff" and not vote.runoff_tie:
            st, s, tt = vote_solver(ctx, when, thr1, negate)
            cond = [2 * tt <= voters(st, vote)] if ballot == "single" and not weights else []
            if check(s, *cond):
                w = vote_witness(st, s, tt)
                a = w["alive"]
                out.append(
                    Finding(
                        CODE,
                        "warning",
                        f"the {label}'s runoff can tie again, and the spec states no outcome "
                        "for it",
                        vote.span,
                        evidence=[
                            f"witness: {w['players']} players, {a} alive: two seats tie with "
                            f"{max(w['threshold'], 1)} vote(s) each -> runoff",
                            f"  the runoff splits {a // 2}-{a // 2}"
                            + (" (one player abstains)" if a % 2 else "")
                            + " -> no rule applies; the engine eliminates nobody",
                        ],
                        hint="state the outcome: `runoff tie none` in the vote (a tied runoff "
                        "eliminates nobody: what the engine does), or use `tie lottery`",
                        witness=w,
                    )
                )
    return out


def _defense_above(ctx, label, vote, when, negate):
    """The defense round needs more votes than its voters can give to a lone defender (one
    seat reached the threshold): the living (the dead too, with ghost votes), less him where
    the defenders do not vote (`defenders vote when`; the builtin `defenders` is 1)."""
    st, s, dt = vote_solver(ctx, when, vote.defense, negate)
    tr = Translator(st)
    d = st.int_("defenders", 0)  # (the name the translator gives the builtin)
    excluded = z3.IntVal(0)
    if vote.defenders_vote is not None:
        excluded = z3.If(tr.bool_of(vote.defenders_vote), z3.IntVal(0), d)
    thr = tr.int_of(vote.threshold) if vote.threshold is not None else z3.IntVal(1)
    s.add(*st.side)
    if not check(s, d == 1, thr <= voters(st, vote), dt > voters(st, vote) - excluded):
        return None
    w = vote_witness(st, s, dt)
    return Finding(
        CODE,
        "warning",
        f"the {label}'s defense round can never send anyone out at {w['alive']} alive: it needs "
        f"{w['threshold']} votes",
        vote.span,
        evidence=[
            f"witness: {w['players']} players, {w['alive']} alive, one defender, defense "
            f"threshold {w['threshold']}"
            + (": the defenders do not vote" if vote.defenders_vote is not None else ""),
            "  even every other voter's hand falls short; the engine eliminates nobody",
        ],
        hint="cap the defense threshold at the voters (`min(..., alive - defenders)`), or let "
        "the defenders vote (`defenders vote when true`)",
        witness=w,
    )


def _tie_role(ctx, label, vote):
    """`tie ROLE` where a game reaches a state, not over, with no living seat of ROLE and at
    least two living players (a tie is possible): the spec states no outcome there (the engine
    eliminates nobody)."""
    from maf.compiler.verify.check.k004_reach import reachable, winner

    rid = vote.tie.split(":", 1)[1]
    r = next((x.idx for x in ctx.p.roles if x.id == rid), None)
    if r is None:
        return None

    def bare(counts, n):
        return counts[r] == 0 and sum(counts) >= 2 and winner(ctx, counts, n)[0] is None

    got = reachable(ctx, bare)
    if got is None:
        return None
    setup, counts, steps = got
    return Finding(
        CODE,
        "warning",
        f"the {label}'s `tie {rid}` names a role with no living seat in a state the game "
        "reaches; the spec states no outcome for a tie there",
        vote.span,
        evidence=[
            f"reachable witness: setup line {setup.span.line} at {setup.size} players, after "
            + (f"{len(steps)} step(s)" if steps else "no step (the start)")
            + f": alive = {sum(counts)}, no living `{rid}`",
        ]
        + [f"  {k}. {x}" for k, x in enumerate(steps, 1)]
        + ["  -> a tie there eliminates nobody (the engine's rule for a tie rule with no seat)"],
        hint=f"deal `{rid}` at every table, or state the outcome (a tie with no living "
        f"`{rid}` eliminates nobody)",
    )
