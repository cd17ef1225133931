"""Presets of the critic-free methods (GRPO, RLOO, REINFORCE++, REINFORCE++-baseline) for any task.

Each method reads the `ppo` group for what it shares with PPO (learning rate, budget in generated
tokens, epochs, minibatches, clip range) and the `kl` group for a penalty in the reward. On both profiles
it takes the task's own PPO preset unchanged (its NLPO preset for the masked variants, its Supervised+PPO
preset for the warm-started ones), so a method is compared with PPO at the same generated tokens, the same
optimizer steps and the same KL controller, and only its advantage estimator and loss differ
(docs/algorithms.md). Its own group keeps its paper's defaults (grue/train/rl/critic_free_config.py)
except where GRUE's budget forbids them (below).
"""
from __future__ import annotations

from typing import Any, Mapping

# Samples per prompt. GRPO's paper draws 64 per question in batches of 1,024 samples (Shao et al. 2024,
# section 4.2); a GRUE iteration holds tens of episodes (IMDB paper: 1,280 tokens = 27 reviews of 48
# tokens; mini: 32), where 64 would make an iteration a single prompt. 4 per prompt is RLOO's k (its
# paper's larger setting) and REINFORCE++-baseline's default, so the three group methods compare at the
# same group size (IMDB mini: 8 prompts x 4 samples an iteration).
GROUP = 4
OWN: Mapping[str, Mapping[str, Any]] = {
    "grpo": {"grpo": {"group_size": GROUP}},
    "rloo": {"rloo": {"k": GROUP}},
    "reinforce_pp": {},           # one sample per prompt, as the paper's REINFORCE++
    "reinforce_pp_baseline": {"reinforce_pp_baseline": {"group_size": GROUP}},
}


def presets(ppo: Mapping[str, Any], nlpo: Mapping[str, Any], supervised_ppo: Mapping[str, Any]) -> dict[str, dict]:
    """The twelve critic-free entries of one profile's `algos`, from the task's PPO, NLPO and
    Supervised+PPO presets of that profile."""
    out: dict[str, dict] = {}
    for name, own in OWN.items():
        out[name] = {**ppo, **own}
        out[f"supervised_{name}"] = {**supervised_ppo, **own}
        out[f"{name}_mask"] = {**nlpo, **own}
    return out
