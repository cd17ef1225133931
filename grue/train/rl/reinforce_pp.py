"""REINFORCE++ and REINFORCE++-baseline (Hu 2025): token-level returns, a global baseline, no critic.

Each token's reward is minus beta times its log-ratio against the reference, plus the task reward at the
last token (PPO's per-token penalty and its `kl` controller, grue/train/rl/kl.py); a token's advantage is
its return to go, A_t = r - beta sum_{i >= t} KL_i at the default gamma 1 (GAE with no critic and
lambda 1: grue/train/rl/gae.py). The advantages are then normalised over every token of the iteration's
batch on every process, the paper's global normalisation that replaces per-prompt statistics. The loss
is PPO-clip with PPO's token mean.

REINFORCE++-baseline draws a group of samples per prompt and subtracts the group's mean reward from each
sample's task reward first (before the KL penalty and the global normalisation).
"""
from __future__ import annotations

from typing import Any

import torch

from grue.train.rl.critic_free import CriticFreeTrainer
from grue.train.rl.gae import gae
from grue.train.rl.policy_gradient import group_centred, minus_baseline, sequence_total
from grue.train.rl.rollout import Episodes


def returns_to_go(rewards: torch.Tensor, valid: torch.Tensor, gamma: float) -> torch.Tensor:
    """G_t = sum_{i >= t} gamma^(i - t) r_i within each episode: GAE with zero values and lambda 1."""
    advantages, _ = gae(rewards, torch.zeros_like(rewards), valid, gamma, 1.0)
    return advantages


class ReinforcePPTrainer(CriticFreeTrainer):
    advantage_normalisation = "rollout"  # the paper's: over the iteration's whole batch (every process)
    config_group = "reinforce_pp"  # the config group it reads (the -baseline variant has its own)

    def settings(self) -> Any:
        return self.cfg[self.config_group]

    def group_size(self) -> int:
        return int(self.settings().group_size)

    def aggregation(self) -> str:
        return str(self.settings().loss_aggregation)

    def task_reward(self, episodes: Episodes) -> torch.Tensor:
        """The reward the returns start from: the task's own here."""
        return episodes.token_reward

    def token_advantages(self, episodes: Episodes) -> torch.Tensor:
        rewards = self.kl_penalised(episodes, self.task_reward(episodes))
        return returns_to_go(rewards, episodes.rollout.valid, float(self.settings().gamma))


class ReinforcePPBaselineTrainer(ReinforcePPTrainer):
    config_group = "reinforce_pp_baseline"

    def task_reward(self, episodes: Episodes) -> torch.Tensor:
        """Each sample's task reward minus its prompt group's mean."""
        reward = episodes.token_reward
        totals = sequence_total(reward)
        group_mean = totals - self.by_group(group_centred, totals)
        return minus_baseline(reward, group_mean, episodes.rollout.last_index)
