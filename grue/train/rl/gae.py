"""Generalised advantage estimation over padded token sequences (Eqs. 4-5 with the discount put back)."""
from __future__ import annotations

import torch


def gae(rewards: torch.Tensor, values: torch.Tensor, valid: torch.Tensor, gamma: float,
        lam: float) -> tuple[torch.Tensor, torch.Tensor]:
    """delta_t = r_t + gamma V(s_{t+1}) (1 - done_t) - V(s_t);  A_t = sum_l (gamma lam)^l delta_{t+l}.

    Each row is one episode; `valid` marks its real tokens (a prefix). The episode ends at its last
    valid token (EOS or the horizon), after which nothing is bootstrapped. Returns (advantages,
    returns = advantages + values), zero on padding.
    """
    valid = valid.to(values.dtype)
    rewards, values = rewards * valid, values * valid
    advantages = torch.zeros_like(values)
    running = torch.zeros_like(values[:, 0])
    next_value = torch.zeros_like(values[:, 0])
    for t in reversed(range(values.shape[1])):
        not_last = valid[:, t + 1] if t + 1 < values.shape[1] else torch.zeros_like(running)
        delta = rewards[:, t] + gamma * next_value * not_last - values[:, t]
        running = delta + gamma * lam * not_last * running
        advantages[:, t] = running * valid[:, t]
        next_value = values[:, t]
    return advantages, (advantages + values) * valid
