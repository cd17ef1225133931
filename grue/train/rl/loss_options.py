"""The options of the critic-free loss and advantage seam, each a pure tensor function (issue 43).

DAPO, GSPO and CISPO are not new trainers: each is a choice among the options below, taken by any
critic-free method through its group's `loss` settings (grue/train/rl/critic_free_config.LossOptions) and
named as a preset in grue/train/algorithms.py. docs/algorithms.md writes every equation beside its paper and
the reference code it was checked against; tests/train/rl/test_loss_options.py checks each on hand-computed
values.

Notation: r_t = pi(y_t) / pi_old(y_t) per token, A_t the advantage, valid the episode's real tokens.
"""
from __future__ import annotations

import torch

RATIO_LEVELS = ("token", "sequence")
CLIP_TARGETS = ("ratio", "weight")
# exp() of a sequence's mean log-ratio is bounded before exponentiating, as the reference code does, so a
# stale sample cannot overflow the ratio (the clip bounds it anyway wherever it enters the loss).
MAX_LOG_RATIO = 10.0


def importance_ratio(new_logp: torch.Tensor, old_logp: torch.Tensor, valid: torch.Tensor,
                     level: str = "token") -> tuple[torch.Tensor, torch.Tensor]:
    """([B, T] ratio, [B, T] its log) at `level`.

    token:    r_t = exp(log pi(y_t) - log pi_old(y_t))                                  (PPO, GRPO, DAPO)
    sequence: s_i = exp((1/|o_i|) sum_t log r_t) on every token of episode i (GSPO, Zheng et al. 2025, Eq. 7),
              written token by token as sg[s_i] * pi(y_t) / sg[pi(y_t)] (GSPO-token, Eq. 13): the value is
              s_i and the gradient is s_i grad log pi(y_t), so with a token mean per sequence the gradient is
              GSPO's s_i (1/|o_i|) sum_t grad log pi(y_t), and a minibatch holding part of an episode still
              weighs it by the whole episode's ratio."""
    log_ratio = new_logp - old_logp
    if level == "token":
        return torch.exp(log_ratio), log_ratio
    if level != "sequence":
        raise ValueError(f"unknown ratio level {level!r}: one of {', '.join(RATIO_LEVELS)}")
    valid = valid.to(log_ratio.dtype)
    mean_log = ((log_ratio * valid).sum(dim=1) / valid.sum(dim=1).clamp(min=1.0)).detach()
    token_log = (new_logp - new_logp.detach() + mean_log[:, None]).clamp(max=MAX_LOG_RATIO)
    return torch.exp(token_log), token_log


def clipped_objective(ratio: torch.Tensor, advantages: torch.Tensor, low: float, high: float) -> torch.Tensor:
    """min(r A, clip(r, 1 - low, 1 + high) A) per token: PPO's surrogate, symmetric when low == high, DAPO's
    decoupled clip ("clip-higher", Yu et al. 2025, Eq. 10: low 0.2, high 0.28) otherwise."""
    return torch.min(ratio * advantages, torch.clamp(ratio, 1 - low, 1 + high) * advantages)


def weight_clipped_objective(ratio: torch.Tensor, advantages: torch.Tensor, new_logp: torch.Tensor,
                             low: float | None, high: float) -> torch.Tensor:
    """sg[clip(r, 1 - low, 1 + high)] A log pi(y_t) per token: CISPO (MiniMax-M1, Chen et al. 2025, Eqs. 4-5).
    The weight is clipped and carries no gradient, so no token's gradient is ever dropped (PPO's clip zeroes
    it outside the range); `low=None` sets no lower bound (the paper sets eps_low^IS large). Its gradient at
    r = 1 is A grad log pi, the same as the clipped surrogate's."""
    weight = torch.clamp(ratio, min=None if low is None else 1 - low, max=1 + high).detach()
    return weight * advantages * new_logp


def clipped_share(ratio: torch.Tensor, mask: torch.Tensor, low: float | None, high: float) -> torch.Tensor:
    """Share of the masked tokens whose ratio lies outside [1 - low, 1 + high] (logged as clip_fraction)."""
    with torch.no_grad():
        outside = ratio > 1 + high
        if low is not None:
            outside = outside | (ratio < 1 - low)
        mask = mask.to(ratio.dtype)
        return (outside.to(ratio.dtype) * mask).sum() / mask.sum().clamp(min=1.0)


def overlong_penalty(lengths: torch.Tensor, max_length: int, buffer: int, factor: float = 1.0) -> torch.Tensor:
    """DAPO's soft overlong punishment (Yu et al. 2025, Eq. 13), [B], added to each episode's reward:
    0 up to L_max - L_cache tokens, then falling linearly to -1 at L_max, times `factor`:
        R_length(y) = 0                                  |y| <= L_max - L_cache
                      ((L_max - L_cache) - |y|) / L_cache  L_max - L_cache < |y| <= L_max
    L_max is the generation budget (rollout.max_new_tokens), so |y| never passes it and the paper's -1 beyond
    it is the -1 of an episode cut at the budget. buffer = L_cache = 0: no shaping."""
    if buffer <= 0:
        return torch.zeros_like(lengths, dtype=torch.float32)
    start = max_length - buffer
    return factor * torch.clamp((start - lengths.float()) / buffer, min=-1.0, max=0.0)


def informative_groups(rewards: torch.Tensor, group_size: int, tolerance: float = 0.0) -> torch.Tensor:
    """[B] 1.0 for the episodes of groups whose rewards differ, 0.0 for a group whose rewards are all equal
    (to `tolerance`) or that holds one sample: DAPO's dynamic sampling filter (Yu et al. 2025, Eq. 11,
    0 < |{o_i correct}| < G), which drops groups whose advantage carries no comparison."""
    groups = rewards.reshape(-1, group_size)
    spread = groups.max(dim=1).values - groups.min(dim=1).values
    keep = (spread > tolerance) & torch.tensor(group_size > 1, device=rewards.device)
    return keep.to(torch.float32).repeat_interleave(group_size)
