"""GDPO-style multi-reward normalisation: each component of a metric mix standardised within its prompt group
before the weighted sum (`<group>.loss.reward_normalisation=per_component`).

GDPO (Liu et al. 2026, "Group reward-Decoupled Normalization Policy Optimization", Eqs. 4-6): with K reward
components r_1..r_K on the G samples of one prompt,
    A_k,i   = (r_k,i - mean_g(r_k)) / (std_g(r_k) + eps)          each component in its own group (Eq. 4)
    A_sum,i = sum_k w_k A_k,i                                    the weighted sum (Eq. 5; the paper's w_k = 1)
    A_i     = (A_sum,i - mean_batch(A_sum)) / (std_batch(A_sum) + eps)   whitened over the batch (Eq. 6)
GRPO on the weighted total instead standardises sum_k w_k r_k once, so a component on a larger scale (CIDEr's
0-10 beside METEOR's 0-1) decides the advantage alone. Here Eqs. 4-5 replace the task reward the method's
own advantage starts from (so the option composes with every critic-free method and with the `kl` group's
penalty), and Eq. 6 is `loss.whiten_advantages` (grue/train/rl/critic_free.py). std is the sample standard
deviation (divisor G - 1) and eps GRPO's 1e-4, as for the total (grue/train/rl/policy_gradient.py).
"""
from __future__ import annotations

import torch

from typing import Callable

from grue.train.rl.policy_gradient import group_normalised


def per_component_normalised(values: torch.Tensor, weights: torch.Tensor,
                             normalise: Callable[[torch.Tensor], torch.Tensor]) -> torch.Tensor:
    """[B] sum_k w_k normalise(r_k) for `values` [B, K] (component k of episode i) and `weights` [K]:
    Eqs. 4-5 with `normalise` the group standardisation of one component's column [B] -> [B]
    (`in_groups_of`, or the critic-free trainer's `by_group`, which also handles a group cut by the budget)."""
    columns = [normalise(values[:, k]) for k in range(values.shape[1])]
    return (torch.stack(columns, dim=1) * weights.to(values.dtype)[None, :]).sum(dim=1)


def in_groups_of(group_size: int) -> Callable[[torch.Tensor], torch.Tensor]:
    """(r - mean_g r) / (std_g r + 1e-4) over consecutive groups of `group_size` (GRPO's own standardisation)."""
    return lambda column: group_normalised(column, group_size)
