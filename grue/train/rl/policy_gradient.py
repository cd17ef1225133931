"""The formulas critic-free policy-gradient methods share, each written once as a pure tensor function.

GRPO, RLOO and REINFORCE++ differ in how they turn rewards into advantages and in how they average
their loss; everything here is one of those choices. Each function is checked against its paper's
equation on hand-computed values (tests/train/rl/test_policy_gradient_math.py), so a sign or a
normalisation slip fails a test rather than a week of training.

Shapes: B episodes, T steps. A group is G consecutive episodes of one prompt (the critic-free trainer
samples them that way, grue/train/rl/critic_free.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from grue.train.rl.kl import kl_estimate
from grue.train.rl.loss_options import (CLIP_TARGETS, clipped_objective, clipped_share, importance_ratio,
                                        weight_clipped_objective)
from grue.train.rl.ppo_loss import masked_mean, ratio_diagnostics
from grue.train.rl.critic_free_config import AGGREGATIONS  # noqa: F401  (the names; weights below)

# How the loss averages its per-token terms (the weight each token of episode i gets, before the
# minibatch scaling; N sequences and N_tok valid tokens in the iteration's rollout, |o_i| tokens in
# episode i, L the generation budget `rollout.max_new_tokens`):
#   token:    1 / N_tok              every token alike (PPO's token mean; REINFORCE++)
#   sequence: 1 / (N |o_i|)          a token mean per sequence, then the mean over sequences (GRPO, Eq. 3)
#   constant: 1 / (N L)              a token sum per sequence over a constant, then the mean (Dr. GRPO)
#   sum:      1 / N                  the sequence's log-prob, then the mean over sequences (RLOO's REINFORCE)
GROUP_STD_EPS = 1e-4  # keeps a group whose rewards are all equal at advantage 0 (0 / eps), never NaN


def grouped(values: torch.Tensor, group_size: int) -> torch.Tensor:
    """[B] -> [B / G, G]: one row per prompt's group of consecutive samples."""
    if values.shape[0] % group_size:
        raise ValueError(f"{values.shape[0]} episodes do not split into groups of {group_size}")
    return values.reshape(-1, group_size)


def group_normalised(rewards: torch.Tensor, group_size: int, scale: bool = True) -> torch.Tensor:
    """GRPO's outcome advantage (Shao et al. 2024, section 4.1.2): (r_i - mean(r)) / std(r) over the G
    samples of one prompt. std is the sample standard deviation (divisor G - 1), plus GROUP_STD_EPS.
    `scale=False` is Dr. GRPO (Liu et al. 2025, section 3.2): r_i - mean(r), no division, because
    dividing by the group's std up-weights prompts that are too easy or too hard."""
    groups = grouped(rewards, group_size)
    centred = groups - groups.mean(dim=1, keepdim=True)
    if scale:
        centred = centred / (groups.std(dim=1, keepdim=True) + GROUP_STD_EPS)
    return centred.reshape(-1)


def group_centred(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    """r_i - mean(r) over the prompt's group: REINFORCE++-baseline's first step (Hu 2025)."""
    return group_normalised(rewards, group_size, scale=False)


def leave_one_out(rewards: torch.Tensor, k: int) -> torch.Tensor:
    """RLOO's advantage (Ahmadian et al. 2024, the leave-one-out REINFORCE estimator):
    r_i - (1 / (k - 1)) sum_{j != i} r_j, the other k - 1 samples of the same prompt as the baseline, so
    the baseline is independent of sample i (unlike the group mean, which includes it)."""
    if k < 2:
        raise ValueError("a leave-one-out baseline needs at least 2 samples per prompt")
    groups = grouped(rewards, k)
    others = (groups.sum(dim=1, keepdim=True) - groups) / (k - 1)
    return (groups - others).reshape(-1)


def sequence_total(token_reward: torch.Tensor) -> torch.Tensor:
    """An episode's whole reward: the [B] reward itself, or the sum of a dense [B, T] reward."""
    return token_reward.sum(dim=1) if token_reward.dim() == 2 else token_reward


def minus_baseline(token_reward: torch.Tensor, baseline: torch.Tensor, last_index: torch.Tensor) -> torch.Tensor:
    """The reward with a per-episode baseline [B] subtracted: from the [B] reward, or, for a dense
    [B, T] reward, at the episode's last token (where a terminal reward would sit)."""
    if token_reward.dim() == 1:
        return token_reward - baseline
    out = token_reward.clone()
    out[torch.arange(out.shape[0], device=out.device), last_index] -= baseline.to(out.dtype)
    return out


def k3_kl(logp: torch.Tensor, ref_logp: torch.Tensor) -> torch.Tensor:
    """The k3 estimator of KL(pi || pi_ref) per sampled token (GRPO's Eq. 4, Schulman's k3):
    pi_ref/pi - log(pi_ref/pi) - 1, always >= 0, 0 where the two agree."""
    return kl_estimate(logp, ref_logp, "k3")


def episode_weights(valid: torch.Tensor, aggregation: str, sequences: float, tokens: float,
                    horizon: int) -> torch.Tensor:
    """[B] the loss weight of each token of each episode for `aggregation` (AGGREGATIONS says which);
    `sequences` and `tokens` count the whole iteration's rollout over every process, so a group or an
    episode split across minibatches keeps its weight."""
    lengths = valid.sum(dim=1)
    if aggregation == "token":
        return torch.full_like(lengths, 1.0 / max(tokens, 1.0))
    if aggregation == "sequence":
        return 1.0 / (max(sequences, 1.0) * lengths.clamp(min=1.0))
    if aggregation == "constant":
        return torch.full_like(lengths, 1.0 / (max(sequences, 1.0) * horizon))
    if aggregation == "sum":
        return torch.full_like(lengths, 1.0 / max(sequences, 1.0))
    raise ValueError(f"unknown loss aggregation {aggregation!r}: one of {', '.join(AGGREGATIONS)}")


@dataclass
class WeightedLoss:
    """One minibatch's loss and what is logged of it (token means over the minibatch, as PPO's logs)."""
    loss: torch.Tensor          # what is back-propagated
    policy: torch.Tensor        # -surrogate, weighted as the loss
    kl: torch.Tensor            # the KL term before its coefficient, weighted as the loss (0 without one)
    entropy: torch.Tensor       # token mean
    approx_kl: torch.Tensor     # token mean of (r - 1) - log r against the behaviour policy
    clip_fraction: torch.Tensor


def weighted_clipped_loss(new_logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor,
                          weights: torch.Tensor, clip_range: float, entropy: torch.Tensor, ent_coef: float,
                          kl: Optional[torch.Tensor] = None, kl_coef: float = 0.0, *, clip_high: Optional[float] = None,
                          ratio_level: str = "token", clip_target: str = "ratio",
                          valid: Optional[torch.Tensor] = None, is_weights: Optional[torch.Tensor] = None) -> WeightedLoss:
    """sum_t w_t [-J_t + kl_coef KL_t - ent_coef H_t], J_t the per-token objective the options choose
    (grue/train/rl/loss_options.py):
      clip_target=ratio:  J_t = min(r_t A_t, clip(r_t, 1 - clip_range, 1 + clip_high) A_t)   (PPO-clip; DAPO's
                          decoupled clip when clip_high != clip_range)
      clip_target=weight: J_t = sg[clip(r_t, 1 - clip_range, 1 + clip_high)] A_t log pi(y_t)   (CISPO; clip_range
                          None: no lower bound)
    with r_t the token ratio, or GSPO's length-normalised sequence ratio with ratio_level=sequence (over
    `valid`, the episodes' real tokens). clip_high None: clip_range. With the defaults this is the PPO-clip
    surrogate every method here always used (on the first minibatch of an iteration r = 1 and it is plain
    REINFORCE); `weights` [B, T] are zero off the minibatch's transitions and carry the aggregation
    (episode_weights). `kl` is a per-token KL in the loss (GRPO's k3), or None. `is_weights` [B, T]: truncated
    importance weights for a sampler apart from the learner (grue/train/rl/mismatch.py), multiplying J_t only."""
    weights = weights.to(new_logp.dtype)
    selected = (weights != 0).to(new_logp.dtype)
    high = clip_range if clip_high is None else clip_high
    ratio, log_ratio = importance_ratio(new_logp, old_logp, selected if valid is None else valid, ratio_level)
    if clip_target == "weight":
        objective = weight_clipped_objective(ratio, advantages, new_logp, clip_range, high)
    elif clip_target == "ratio":
        objective = clipped_objective(ratio, advantages, clip_range, high)
    else:
        raise ValueError(f"unknown clip target {clip_target!r}: one of {', '.join(CLIP_TARGETS)}")
    if is_weights is not None:
        objective = objective * is_weights.to(objective.dtype)
    policy = -(objective * weights).sum()
    kl_term = (kl * weights).sum() if kl is not None else torch.zeros((), device=new_logp.device)
    loss = policy + kl_coef * kl_term - ent_coef * (entropy * weights).sum()
    approx_kl, _ = ratio_diagnostics(ratio, log_ratio, selected, high)
    clip_fraction = clipped_share(ratio, selected, clip_range, high)
    with torch.no_grad():
        entropy_mean = masked_mean(entropy, selected)
    return WeightedLoss(loss, policy, kl_term, entropy_mean, approx_kl, clip_fraction)
