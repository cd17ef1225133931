"""Per-token KL penalty (Eq. 1, standard sign) and the adaptive KL controller (Eqs. 2-3)."""
from __future__ import annotations

from typing import Optional

import torch


def kl_penalised_rewards(task_reward: torch.Tensor, logp: torch.Tensor, ref_logp: torch.Tensor,
                         valid: torch.Tensor, last_index: torch.Tensor, beta: float) -> tuple[torch.Tensor, torch.Tensor]:
    """r_hat_t = r_t - beta * (log pi(a_t|s_t) - log pi_0(a_t|s_t)); r_t is the task reward at the last token,
    or, when `task_reward` is [B, T], that per-token reward.

    The paper prints the KL with the opposite sign (spec 3.3), which would reward divergence; this is
    the sign the reference code and Ziegler et al. use. `logp` is the unmasked policy log-prob.
    Returns (rewards [B, T], per-token kl [B, T]); both are zero on padding.
    """
    kl = (logp - ref_logp) * valid
    rewards = -beta * kl
    if task_reward.dim() == 2:  # a dense reward (reward.dense) already spread over the tokens: [B, T]
        rewards = rewards + task_reward.to(rewards.dtype)
    else:
        rows = torch.arange(rewards.shape[0], device=rewards.device)
        rewards[rows, last_index] += task_reward.to(rewards.dtype)
    return rewards * valid, kl


class AdaptiveKLController:
    """beta_{t+1} = beta_t (1 + K_beta * clip((KL - target) / target, -0.2, 0.2)).

    Stepped once per iteration with the mean per-token KL of the rollout (as the reference code
    does). `target=None` is the paper's "inf" target KL (Table 5's PPO/NLPO without a KL
    constraint): beta is 0 throughout, so no penalty at all, while the KL itself is still measured
    and logged. A constant nonzero beta (the reference code's `target_kl=None`) is `k_beta=0`.
    """

    def __init__(self, init_coef: float, target: Optional[float], k_beta: float = 0.2) -> None:
        self.value = float(init_coef) if target is not None else 0.0
        self.target = target
        self.k_beta = k_beta

    def update(self, mean_kl: float) -> float:
        if self.target is not None:
            error = max(-0.2, min(0.2, (mean_kl - self.target) / self.target))
            self.value *= 1.0 + self.k_beta * error
        return self.value

    def state_dict(self) -> dict:
        return {"value": self.value, "target": self.target, "k_beta": self.k_beta}

    def load_state_dict(self, state: dict) -> None:
        self.value, self.target, self.k_beta = state["value"], state["target"], state["k_beta"]
