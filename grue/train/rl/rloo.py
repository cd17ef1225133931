"""RLOO (Ahmadian et al. 2024, "Back to Basics"): REINFORCE with a leave-one-out baseline, no critic.

k samples per prompt; each sequence is one action whose reward is the task reward minus beta times its
summed per-token log-ratio against the reference (the `kl` group's controller, exactly PPO's penalty,
summed over the sequence); its advantage is that reward minus the mean of the other k - 1 samples' rewards,
on every token. The loss is the sequence's log-prob times its advantage, a mean over sequences
(`rloo.loss_aggregation=sum`); PPO's clipped ratio only matters when an iteration takes more than one
optimizer step (on the first step the ratio is 1 and the loss is the paper's REINFORCE estimator).
"""
from __future__ import annotations

import torch

from grue.train.rl.critic_free import CriticFreeTrainer
from grue.train.rl.policy_gradient import leave_one_out, sequence_total
from grue.train.rl.rollout import Episodes


class RLOOTrainer(CriticFreeTrainer):
    def group_size(self) -> int:
        return int(self.cfg.rloo.k)

    def aggregation(self) -> str:
        return str(self.cfg.rloo.loss_aggregation)

    def token_advantages(self, episodes: Episodes) -> torch.Tensor:
        advantage = leave_one_out(sequence_total(self.kl_penalised(episodes)), self.group_size())
        return advantage[:, None].expand_as(episodes.rollout.valid)
