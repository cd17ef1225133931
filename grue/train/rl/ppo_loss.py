"""The PPO-clip objective with value loss and entropy bonus, averaged over real tokens."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch


def masked_mean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (x * mask).sum() / mask.sum().clamp(min=1)


def normalise(x: torch.Tensor, mask: torch.Tensor, eps: float = 1e-8) -> torch.Tensor:
    mean = masked_mean(x, mask)
    var = masked_mean((x - mean) ** 2, mask)
    return (x - mean) / (var.sqrt() + eps) * mask


@dataclass
class PPOLosses:
    total: torch.Tensor
    policy: torch.Tensor
    value: torch.Tensor
    entropy: torch.Tensor
    approx_kl: torch.Tensor
    clip_fraction: torch.Tensor


@dataclass
class PolicyTerms:
    """The policy's part of the objective: its loss (-surrogate - ent_coef H) and what is logged."""
    loss: torch.Tensor
    policy: torch.Tensor
    entropy: torch.Tensor
    approx_kl: torch.Tensor
    clip_fraction: torch.Tensor


def clipped_surrogate(new_logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor,
                      clip_range: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(r, log r, min(r A, clip(r, 1-eps, 1+eps) A)) per token: PPO's and NLPO's clipped objective (the
    critic-free methods' is grue/train/rl/loss_options.py's, the same at its defaults)."""
    log_ratio = new_logp - old_logp
    ratio = torch.exp(log_ratio)
    surrogate = torch.min(ratio * advantages, torch.clamp(ratio, 1 - clip_range, 1 + clip_range) * advantages)
    return ratio, log_ratio, surrogate


@torch.no_grad()
def ratio_diagnostics(ratio: torch.Tensor, log_ratio: torch.Tensor, mask: torch.Tensor,
                      clip_range: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(approximate KL (r - 1) - log r, share of clipped ratios), token means over the mask."""
    approx_kl = masked_mean((ratio - 1) - log_ratio, mask)
    clip_fraction = masked_mean(((ratio - 1).abs() > clip_range).to(mask.dtype), mask)
    return approx_kl, clip_fraction


def policy_terms(new_logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, entropy: torch.Tensor,
                 mask: torch.Tensor, clip_range: float, ent_coef: float,
                 normalise_advantages: bool = True, is_weights: Optional[torch.Tensor] = None) -> PolicyTerms:
    """-min(r A, clip(r, 1-eps, 1+eps) A) - ent_coef H, token means over the mask; with `is_weights` [B, T]
    (truncated importance weights for a sampler apart from the learner: grue/train/rl/mismatch.py) each
    token's surrogate is multiplied by its weight."""
    mask = mask.to(new_logp.dtype)
    if normalise_advantages:
        advantages = normalise(advantages, mask)
    ratio, log_ratio, surrogate = clipped_surrogate(new_logp, old_logp, advantages, clip_range)
    if is_weights is not None:
        surrogate = surrogate * is_weights.to(surrogate.dtype)
    policy_loss = -masked_mean(surrogate, mask)
    entropy_mean = masked_mean(entropy, mask)
    approx_kl, clip_fraction = ratio_diagnostics(ratio, log_ratio, mask, clip_range)
    return PolicyTerms(policy_loss - ent_coef * entropy_mean, policy_loss, entropy_mean, approx_kl, clip_fraction)


def value_term(values: torch.Tensor, returns: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """(V - R)^2, token mean over the mask (no value clipping)."""
    return masked_mean((values - returns) ** 2, mask.to(values.dtype))


def combined(policy: PolicyTerms, value_loss: torch.Tensor, vf_coef: float, ent_coef: float) -> PPOLosses:
    """The whole objective from its parts, summed in the order ppo_loss always used."""
    total = policy.policy + vf_coef * value_loss - ent_coef * policy.entropy
    return PPOLosses(total, policy.policy, value_loss, policy.entropy, policy.approx_kl, policy.clip_fraction)


def ppo_loss(new_logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, values: torch.Tensor,
             returns: torch.Tensor, entropy: torch.Tensor, mask: torch.Tensor, clip_range: float,
             vf_coef: float, ent_coef: float, normalise_advantages: bool = True) -> PPOLosses:
    """loss = -min(r A, clip(r, 1-eps, 1+eps) A) + vf_coef (V - R)^2 - ent_coef H (SB3's form, no value clipping)."""
    policy = policy_terms(new_logp, old_logp, advantages, entropy, mask, clip_range, ent_coef, normalise_advantages)
    return combined(policy, value_term(values, returns, mask), vf_coef, ent_coef)
