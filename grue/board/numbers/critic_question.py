"""The board's question beside the paper's Table 2: "Is the critic worth its cost?"

PPO keeps a value model (its memory, its value passes, its value loss); the critic-free methods (GRPO, RLOO,
REINFORCE++ and REINFORCE++-baseline: the registry's `critic_free` entries) spend the same generated tokens
without one. The question pits PPO against the best critic-free method of the same start (Supervised+PPO
against the best Supervised+ critic-free one) at equal generated tokens: only methods whose mean training
tokens (results.json `cost.train_generated_tokens`) lie within TOKEN_TOLERANCE of PPO's are candidates, and
the best of them by mean score faces PPO in a one-sided claim "PPO beats it", tested as the Table 2 claims
are (Welch over seeds, Holm over the task's family). Picking the best candidate on the same data favours
the critic-free side, so a "yes" (PPO significantly better) is conservative. The detail names the
candidates left out for spending different tokens, and gives both sides' training seconds: the cost the
critic adds at equal tokens.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from grue.board.numbers.aggregate import VARIANT_KEYS
from grue.board.task_info import algo_label

QUESTION_ID = "critic_worth_cost"
QUESTION = "Is the critic worth its cost? (PPO vs the best critic-free method at equal generated tokens)"
TOKEN_TOLERANCE = 0.10  # a group method may overshoot an iteration's tokens by less than one group (docs/algorithms.md)
SIDES = (("ppo", None), ("supervised_ppo", "supervised"))  # the critic's side and the warm start it shares


@dataclass(frozen=True)
class CostlyClaim:
    """`better` (the critic's side) beats `worse` (the best critic-free method) on the score."""

    better: str
    worse: str
    measure: str = "score"


def _critic_free(warm_start: str | None) -> set[str]:
    """The unmasked critic-free methods with this warm start (their masked variants face NLPO, not PPO)."""
    from grue.train.registry import algorithm_names, get_algorithm

    algos = [get_algorithm(name) for name in algorithm_names()]
    return {a.name for a in algos if a.critic_free and a.warm_start == warm_start and "nlpo" not in a.reads}


def seed_costs(raw: pd.DataFrame) -> pd.DataFrame:
    """Per run (algo, variant, seed): its recorded training tokens and seconds (NaN where not recorded)."""
    keys = ["algo"] + VARIANT_KEYS + ["seed"]
    cost = [c for c in ("train_generated_tokens", "train_seconds") if c in raw]
    out = raw.drop_duplicates(keys)[keys + cost]
    for column in ("train_generated_tokens", "train_seconds"):
        if column not in out:
            out[column] = math.nan
    return out


def _mean_cost(group: pd.DataFrame, costs: pd.DataFrame, algo: str, column: str) -> float:
    keys = ["algo"] + VARIANT_KEYS + ["seed"]
    rows = group[group["algo"] == algo][keys].merge(costs, on=keys, how="left")
    values = rows[column].dropna()
    return float(values.mean()) if len(values) else math.nan


def critic_claims(group: pd.DataFrame, raw: pd.DataFrame) -> tuple[list[CostlyClaim], list[str]]:
    """The claims to test on one task (per-seed scores `group`, its per-run metric rows `raw`) and what the
    answer's detail should add (the best candidate, the ones left out, both sides' seconds)."""
    costs = seed_costs(raw)
    present = set(group["algo"])
    claims, notes = [], []
    for critic, warm_start in SIDES:
        rivals = sorted(_critic_free(warm_start) & present)
        if critic not in present and not rivals:
            continue
        tokens = _mean_cost(group, costs, critic, "train_generated_tokens")
        at_equal, left_out = [], []
        for rival in rivals:
            theirs = _mean_cost(group, costs, rival, "train_generated_tokens")
            if math.isfinite(tokens) and math.isfinite(theirs) and abs(theirs - tokens) <= TOKEN_TOLERANCE * tokens:
                at_equal.append(rival)
            else:
                left_out.append(f"{algo_label(rival)} ({theirs / tokens:.2f}x {algo_label(critic)}'s tokens)"
                                if math.isfinite(theirs) and math.isfinite(tokens) and tokens > 0
                                else f"{algo_label(rival)} (generated tokens not recorded)")
        if left_out:
            notes.append("not at equal generated tokens: " + ", ".join(left_out))
        if critic not in present or not at_equal:
            continue
        scores = {r: group.loc[group["algo"] == r, "score"].dropna() for r in at_equal}
        best = max(at_equal, key=lambda r: (len(scores[r]) >= 2, scores[r].mean() if len(scores[r]) else -math.inf))
        seconds = [_mean_cost(group, costs, a, "train_seconds") for a in (critic, best)]
        notes.append(f"best critic-free at {tokens:.0f} tokens: {algo_label(best)}; training seconds "
                     f"{algo_label(critic)} {seconds[0]:.0f} vs {algo_label(best)} {seconds[1]:.0f}")
        claims.append(CostlyClaim(critic, best))
    return claims, notes


def needs_text() -> str:
    """What an untestable answer lacks."""
    names = ", ".join(algo_label(a) for a in sorted(_critic_free(None)))
    return (f"needs PPO and a critic-free method ({names}) at equal generated tokens (results.json "
            "cost.train_generated_tokens), 2+ seeds each")
