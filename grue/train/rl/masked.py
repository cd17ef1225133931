"""The NLPO action mask on any RL method: the method's trainer with NLPOTrainer's hooks mixed in.

The mask is a sampling constraint, not a PPO feature (paper section 3.8): NLPOTrainer only fills
RLTrainer's hooks (a masking model, the rollout's and evaluation's logits processors, its statistics,
the refresh), and the critic-free trainers only replace the seams (group sampling, advantages, the loss),
so a class that inherits both runs the method through the mask with no code of its own. The recorded
action mask reaches the loss through the rollout, as in NLPO, so both log-probs of the ratio are masked.
A masked form (`grpo_mask`, `supervised_dapo_mask`, ...) is composed by the registry
(grue/train/variants.py); it reads the `nlpo` group, so its mask settings are part of its config hash.
"""
from __future__ import annotations

import functools


@functools.lru_cache(maxsize=None)
def with_mask(trainer: type, mask: type) -> type:
    """`trainer` sampling and learning through `mask`'s hooks (one class per pair, so checkpoints, pickles
    and `isinstance` see the same class every time). A trainer that already is one (NLPO) is itself."""
    if issubclass(trainer, mask):
        return trainer
    return type(f"Masked{trainer.__name__}", (trainer, mask), {"__module__": __name__,
                                                               "__doc__": f"{trainer.__name__} through the {mask.__name__} mask."})
