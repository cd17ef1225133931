"""Per-token KL penalty (Eq. 1, standard sign) and the adaptive KL controller (Eqs. 2-3).

KL units. The penalty is per token: r_hat_t = r_t - beta * (log pi - log pi_0) at every token. The
controller's target is compared with the rollout's KL in `kl.target_unit`:
- `token` (default; RL4LMs and every GRUE table): the mean per-token log-ratio over the rollout's
  generated tokens (logged as `kl`).
- `episode` (Ziegler et al. 2019, DRLC): the per-episode sum of the log-ratios, averaged over episodes
  (logged as `kl_per_episode`; Ziegler's `objective/kl`). Ziegler's targets (6 nats descriptiveness,
  10 nats sentiment) and DRLC's target KL 6.0 are in this unit.
The two differ by the mean episode length: KL per episode = KL per token x generated tokens per
episode (both logged: `tokens` / `episodes`). A paper's per-episode number typed as a per-token target
is that many times too large (20-48x at 20-48 new tokens); `kl.target=6 kl.target_unit=episode` is
Ziegler's 6 nats as he meant it.
"""
from __future__ import annotations

from typing import Optional

import torch

KL_UNITS = ("token", "episode")
KL_ESTIMATORS = ("k1", "k3")  # the `kl.estimator` values (grue/config/schema.py KLConfig)


def kl_estimate(logp: torch.Tensor, ref_logp: torch.Tensor, estimator: str = "k1") -> torch.Tensor:
    """Per sampled token, an estimate of KL(pi || pi_ref): `k1` = log pi - log pi_ref (unbiased, can be
    negative; PPO's penalty), `k3` = pi_ref/pi - log(pi_ref/pi) - 1 (unbiased, never negative; GRPO's Eq. 4)."""
    if estimator == "k1":
        return logp - ref_logp
    if estimator == "k3":
        log_ratio = ref_logp - logp
        return torch.exp(log_ratio) - log_ratio - 1
    raise ValueError(f"kl.estimator must be one of {', '.join(KL_ESTIMATORS)}, not {estimator!r}")


def kl_penalised_rewards(task_reward: torch.Tensor, logp: torch.Tensor, ref_logp: torch.Tensor,
                         valid: torch.Tensor, last_index: torch.Tensor, beta: float,
                         estimator: str = "k1") -> tuple[torch.Tensor, torch.Tensor]:
    """r_hat_t = r_t - beta * (log pi(a_t|s_t) - log pi_0(a_t|s_t)); r_t is the task reward at the last token,
    or, when `task_reward` is [B, T], that per-token reward. `estimator=k3` subtracts beta times the k3
    estimate instead of the log-ratio.

    The paper prints the KL with the opposite sign (spec 3.3), which would reward divergence; this is
    the sign the reference code and Ziegler et al. use. `logp` is the unmasked policy log-prob.
    Returns (rewards [B, T], per-token kl [B, T]); both are zero on padding. The returned kl is always the
    log-ratio (k1), what the controller steps on and the logs report, whatever the penalty's estimator.
    """
    kl = (logp - ref_logp) * valid
    penalty = kl if estimator == "k1" else kl_estimate(logp, ref_logp, estimator) * valid
    rewards = -beta * penalty
    if task_reward.dim() == 2:  # a dense reward (reward.dense) already spread over the tokens: [B, T]
        rewards = rewards + task_reward.to(rewards.dtype)
    else:
        rows = torch.arange(rewards.shape[0], device=rewards.device)
        rewards[rows, last_index] += task_reward.to(rewards.dtype)
    return rewards * valid, kl


class AdaptiveKLController:
    """beta_{t+1} = beta_t (1 + K_beta * clip((KL - target) / target, -0.2, 0.2)).

    Stepped once per iteration with the rollout's KL in `unit`: the mean per-token KL (`token`, as
    the reference code does) or the mean per-episode summed KL (`episode`, Ziegler's). `target=None`
    is the paper's "inf" target KL (Table 5's PPO/NLPO without a KL constraint): beta is 0 throughout,
    so no penalty at all, while the KL itself is still measured and logged. A constant nonzero beta
    (the reference code's `target_kl=None`) is `k_beta=0`.
    """

    def __init__(self, init_coef: float, target: Optional[float], k_beta: float = 0.2, unit: str = "token") -> None:
        if unit not in KL_UNITS:
            raise ValueError(f"kl.target_unit must be one of {', '.join(KL_UNITS)}, not {unit!r}")
        self.value = float(init_coef) if target is not None else 0.0
        self.target = target
        self.k_beta = k_beta
        self.unit = unit

    def update(self, mean_kl: float, kl_per_episode: Optional[float] = None) -> float:
        """Step on this iteration's KL: `mean_kl` per token; `kl_per_episode` (needed with unit
        `episode`) the mean over episodes of each episode's summed KL."""
        if self.target is not None:
            if self.unit == "episode" and kl_per_episode is None:
                raise ValueError("a per-episode KL target needs the rollout's KL per episode")
            measured = kl_per_episode if self.unit == "episode" else mean_kl
            error = max(-0.2, min(0.2, (measured - self.target) / self.target))
            self.value *= 1.0 + self.k_beta * error
        return self.value

    def state_dict(self) -> dict:
        return {"value": self.value, "target": self.target, "k_beta": self.k_beta, "unit": self.unit}

    def load_state_dict(self, state: dict) -> None:
        self.value, self.target, self.k_beta = state["value"], state["target"], state["k_beta"]
        self.unit = state.get("unit", "token")  # checkpoints from before kl.target_unit were per token


def kl_results(train_log: list[dict]) -> dict:
    """What results.json records of the RL phase's KL (`training_kl`), from logs/train.jsonl: the mean
    over iterations and the last iteration's KL, per token and per episode, and the final beta (the
    coefficient the controller ended on). Empty for a run without RL iterations."""
    rows = [r for r in train_log if "kl" in r and "kl_coef" in r]
    if not rows:
        return {}

    def per_episode(row: dict) -> float:
        if "kl_per_episode" in row:
            return float(row["kl_per_episode"])
        return float(row["kl"]) * float(row.get("tokens", 0)) / max(float(row.get("episodes", 0)), 1.0)

    episode = [per_episode(r) for r in rows]
    return {"training_kl": {
        "iterations": len(rows),
        "mean_per_token": sum(float(r["kl"]) for r in rows) / len(rows),
        "mean_per_episode": sum(episode) / len(rows),
        "final_per_token": float(rows[-1]["kl"]),
        "final_per_episode": episode[-1],
        "tokens_per_episode": sum(float(r.get("tokens", 0)) for r in rows) / max(sum(float(r.get("episodes", 0))
                                                                                    for r in rows), 1.0),
        "final_beta": float(rows[-1].get("next_kl_coef", rows[-1]["kl_coef"])),
    }}
