"""The gap between the sampler and the learner (issue 44): measured every iteration, and optionally corrected.

When the sampler decodes with other weights than the learner trains (`rollout.precision=bf16`,
grue/policy/precision.py), the tokens come from pi_sampler while the update's "old" log-probs are the
learner's, pi_learner, recomputed over the same support. Per valid token t, with
delta_t = log pi_sampler(y_t) - log pi_learner(y_t):
    mismatch/abs_mean = mean_t |delta_t|,   mismatch/abs_max = max_t |delta_t|,
    mismatch/kl       = mean_t [exp(-delta_t) + delta_t - 1]
the last being Schulman's k3 estimate of KL(pi_sampler || pi_learner) from the sampler's own tokens (unbiased,
never negative). On the exact path (fp32: the sampler is the learner, `Rollout.sampler_logp` is None) the
update's old log-probs are the sampler's, and all three are exactly 0.

The correction, truncated importance sampling (`ppo.tis_cap` = C): each token's policy-gradient term is
multiplied by w_t = min(pi_learner(y_t) / pi_sampler(y_t), C), no gradient through w (docs/algorithms.md).
"""
from __future__ import annotations

from typing import Any, Optional

import torch

KEYS = ("mismatch/abs_mean", "mismatch/abs_max", "mismatch/kl")


def _global_max(value: float, world: int) -> float:
    if world == 1:
        return value
    import torch.distributed as dist

    tensor = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(tensor, op=dist.ReduceOp.MAX)
    return float(tensor.item())


@torch.no_grad()
def mismatch_stats(rollout: Any, world: int = 1) -> dict[str, float]:
    """This iteration's sampler-vs-learner gap over every valid token of every process (KEYS)."""
    from grue.runtime.distributed import global_sum

    valid = rollout.valid > 0
    if rollout.sampler_logp is None:  # the sampler is the learner: its log-probs are the update's old ones
        delta = torch.zeros_like(rollout.logp)
    else:
        delta = (rollout.sampler_logp.double() - rollout.logp.double()).masked_fill(~valid, 0.0)
    k3 = (torch.exp(-delta) + delta - 1.0).masked_fill(~valid, 0.0)
    abs_sum, k3_sum, count = global_sum([delta.abs().sum().item(), k3.sum().item(), valid.sum().item()], world)
    local_max = delta.abs().max().item() if delta.numel() else 0.0
    count = max(count, 1.0)
    return {"mismatch/abs_mean": abs_sum / count, "mismatch/abs_max": _global_max(local_max, world),
            "mismatch/kl": k3_sum / count}


def truncated_is_weights(learner_logp: torch.Tensor, sampler_logp: Optional[torch.Tensor],
                         cap: Optional[float]) -> Optional[torch.Tensor]:
    """[B, T] min(pi_learner / pi_sampler, cap) per token, without gradient; None when there is nothing to
    correct (no cap set, or the sampler is the learner)."""
    if cap is None or sampler_logp is None:
        return None
    return torch.exp(learner_logp.detach() - sampler_logp).clamp(max=float(cap))


def sampler_weights(cfg: Any, rollout: Any) -> Optional[torch.Tensor]:
    """The run's truncated importance weights for `rollout` (`ppo.tis_cap`; None when off or nothing to correct):
    every RL method's loss multiplies its per-token policy-gradient term by them."""
    ppo = getattr(cfg, "ppo", None)
    return truncated_is_weights(rollout.logp, getattr(rollout, "sampler_logp", None), getattr(ppo, "tis_cap", None))


def mismatch_results(train_log: list[dict]) -> dict:
    """results.json's `sampler_mismatch`, from logs/train.jsonl: the per-iteration figures averaged over the
    RL iterations (the maximum's maximum), and the last iteration's. Empty for a run without them."""
    rows = [r for r in train_log if all(k in r for k in KEYS)]
    if not rows:
        return {}
    n = len(rows)
    return {"sampler_mismatch": {
        "iterations": n,
        "mean_abs_logp": sum(float(r["mismatch/abs_mean"]) for r in rows) / n,
        "max_abs_logp": max(float(r["mismatch/abs_max"]) for r in rows),
        "mean_kl": sum(float(r["mismatch/kl"]) for r in rows) / n,
        "final_abs_logp": float(rows[-1]["mismatch/abs_mean"]),
        "final_kl": float(rows[-1]["mismatch/kl"]),
    }}
