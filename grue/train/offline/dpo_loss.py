"""The DPO loss on k-way answers: the Plackett-Luce likelihood of the labeler's choices under DPO's implicit
reward (Rafailov et al. 2023, Eq. 7 for pairs, Appendix A.3 Eq. 18 for rankings).

The implicit reward of candidate y for prompt x is s(y) = beta * (log pi(y|x) - log pi_ref(y|x)), with
log pi(y|x) the summed log-probability of y's tokens. A labeler who ranks y_t1 > y_t2 > ... > y_tk is
explained by Plackett-Luce: candidates are picked best first, each with probability proportional to
exp s among those left, so the loss is

    -sum_{j < observed} [ s(y_tj) - log sum_{l >= j} exp s(y_tl) ].

grue's comparisons say which candidate was chosen (and, when a labeler ranked them, the whole order): a
chosen-only answer observes the first place only (observed = 1), a full ranking all k - 1 choices. With
k = 2 both are DPO's pairwise loss -log sigmoid(s(y_w) - s(y_l)). The chosen-only k-way loss is the softmax
cross-entropy grue's reward models are trained with (grue/rewards/learned/loss.py, Ziegler et al. 2019),
so DPO and a reward model fit the same preference model to the same labels. docs/algorithms.md says why
this rather than splitting each answer into k - 1 pairs.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

ABSENT = -1e9  # the score of a padding slot (fewer candidates than the batch's widest query): exp() is 0


@dataclass
class PreferenceLoss:
    loss: torch.Tensor        # mean over queries of the Plackett-Luce negative log-likelihood
    per_query: torch.Tensor   # [N]
    scores: torch.Tensor      # [N, k] implicit rewards beta * (log pi - log pi_ref), ABSENT where no candidate


def implicit_rewards(policy_logps: torch.Tensor, ref_logps: torch.Tensor, beta: float) -> torch.Tensor:
    """s = beta * (log pi(y|x) - log pi_ref(y|x)) per candidate (Eq. 5's reward, up to the prompt's constant)."""
    return beta * (policy_logps - ref_logps)


def plackett_luce_nll(scores: torch.Tensor, order: torch.Tensor, observed: torch.Tensor,
                      present: torch.Tensor | None = None) -> torch.Tensor:
    """Per query: -log P(the first `observed` places of `order`) under Plackett-Luce with `scores`.

    scores [N, k]; order [N, k], candidate indices best first (every index once, absent slots last);
    observed [N], how many leading places were chosen by the labeler (1 <= observed < k); present [N, k]
    marks real candidates (default: all).
    """
    if present is not None:
        scores = scores.masked_fill(~present, ABSENT)
    ranked = scores.gather(1, order)
    tails = torch.logcumsumexp(ranked.flip(1), dim=1).flip(1)  # log sum_{l >= j} exp s(y_tl)
    places = torch.arange(scores.shape[1], device=scores.device)[None, :] < observed[:, None]
    return -torch.where(places, ranked - tails, torch.zeros_like(ranked)).sum(1)


def dpo_loss(policy_logps: torch.Tensor, ref_logps: torch.Tensor, order: torch.Tensor, observed: torch.Tensor,
             beta: float, present: torch.Tensor | None = None) -> PreferenceLoss:
    """DPO's loss over a batch of answers, log-probs [N, k] summed over each candidate's tokens."""
    scores = implicit_rewards(policy_logps, ref_logps, beta)
    if present is not None:
        scores = scores.masked_fill(~present, ABSENT)
    per_query = plackett_luce_nll(scores, order, observed)
    return PreferenceLoss(per_query.mean(), per_query, scores)


def choice_stats(scores: torch.Tensor, chosen: torch.Tensor, present: torch.Tensor) -> dict[str, float]:
    """How the implicit reward reads the answers: accuracy (the chosen candidate scores strictly highest, as
    a reward model's accuracy counts ties as misses), the chosen and the others' mean reward, their margin."""
    scores = scores.detach().float()
    best = scores.gather(1, chosen[:, None]).squeeze(1)
    others = present.clone()
    others[torch.arange(len(chosen)), chosen] = False
    rivals = scores.masked_fill(~others, float("-inf")).max(1).values
    mean_others = (scores * others).sum(1) / others.sum(1).clamp(min=1)
    return {"accuracy": (best > rivals).float().mean().item(), "reward_chosen": best.mean().item(),
            "reward_others": mean_others.mean().item(), "margin": (best - mean_others).mean().item()}
