"""The numbers on an RL run's progress bar."""
from __future__ import annotations


def rl_status(stats: dict, last_val: dict | None, headline: str | None = None) -> str:
    """The RL bar's numbers; `headline` is the metric of the last evaluation shown (the task's first, when
    the last evaluation lacks it)."""
    text = (f"reward {stats['reward_mean']:.3f}  KL {stats['kl']:.3f}  beta {stats['next_kl_coef']:.3g}")
    if last_val:
        key = headline if headline in last_val else next(iter(last_val))
        text += f"  val {key} {last_val[key]:.3f}"
    return text
