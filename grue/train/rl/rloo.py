"""RLOO (Ahmadian et al. 2024, "Back to Basics"): REINFORCE with a leave-one-out baseline, no critic.

k samples per prompt; each sequence is one action whose reward is the task reward minus beta times its
summed per-token log-ratio against the reference (the `kl` group's controller, exactly PPO's penalty,
summed over the sequence); its advantage is that reward minus the mean of the other k - 1 samples' rewards,
on every token. The loss is the sequence's log-prob times its advantage, a mean over sequences
(`rloo.loss_aggregation=sum`). With `rloo.steps=ppo` (the default) an iteration takes the `ppo` group's
epochs of clipped minibatch steps, and the clipped ratio matters from the second step on (on the first
the ratio is 1 and the loss is the paper's REINFORCE estimator); `rloo.steps=single` (the `rloo_paper`
algorithm) takes the paper's one unclipped step on the whole rollout, so every step is REINFORCE's.
"""
from __future__ import annotations

import math

import torch

from grue.train.rl.critic_free import CriticFreeTrainer
from grue.train.rl.policy_gradient import leave_one_out, sequence_total
from grue.train.rl.rollout import Episodes


class RLOOTrainer(CriticFreeTrainer):
    config_group = "rloo"  # its settings, and its loss options (rloo.loss)
    def single_step(self) -> bool:
        """`rloo.steps=single`: the paper's one unclipped REINFORCE step on each whole rollout."""
        return self.cfg.rloo.get("steps", "ppo") == "single"

    def update_epochs(self) -> int:
        return 1 if self.single_step() else super().update_epochs()

    def minibatch_parts(self, transitions: int) -> int:
        return 1 if self.single_step() else super().minibatch_parts(transitions)

    def clip_range(self) -> float:
        return math.inf if self.single_step() else super().clip_range()

    def group_size(self) -> int:
        return int(self.cfg.rloo.k)

    def aggregation(self) -> str:
        return str(self.cfg.rloo.loss_aggregation)

    def token_advantages(self, episodes: Episodes) -> torch.Tensor:
        advantage = self.by_group(leave_one_out, sequence_total(self.kl_penalised(episodes)))
        return advantage[:, None].expand_as(episodes.rollout.valid)
