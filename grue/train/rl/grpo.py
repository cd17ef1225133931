"""GRPO (Shao et al. 2024, DeepSeekMath section 4.1): group-relative advantages, no critic.

G samples per prompt; each sample's advantage is its sequence reward standardised within its group,
(r_i - mean(r)) / std(r), on every one of its tokens (outcome supervision, section 4.1.2). The loss is
PPO's clipped surrogate plus beta times the k3 estimate of KL(pi || pi_ref) per token (Eqs. 3-4),
averaged as a token mean per sequence and then a mean over sequences.

Options (`grpo` group, grue/train/rl/critic_free_config.py): `kl=reward` moves the KL into the reward
instead (the `kl` group's controller, as PPO; the sequence's summed penalty enters the group statistics);
`scale_rewards=false` and `loss_aggregation=constant` together are Dr. GRPO (Liu et al. 2025, section
3.2: no division by the group's std, and a constant instead of each sequence's length in the loss).
"""
from __future__ import annotations

import torch

from grue.train.rl.critic_free import CriticFreeTrainer
from grue.train.rl.kl import AdaptiveKLController
from grue.train.rl.policy_gradient import group_normalised, sequence_total
from grue.train.rl.rollout import Episodes


class GRPOTrainer(CriticFreeTrainer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.cfg.grpo.kl == "loss":
            # the coefficient is the loss's constant beta: logged as kl_coef, never adapted
            self.kl_ctl = AdaptiveKLController(self.cfg.grpo.beta, target=1.0, k_beta=0.0)

    def group_size(self) -> int:
        return int(self.cfg.grpo.group_size)

    def aggregation(self) -> str:
        return str(self.cfg.grpo.loss_aggregation)

    def loss_kl_coef(self) -> float:
        return float(self.cfg.grpo.beta) if self.cfg.grpo.kl == "loss" else 0.0

    def token_advantages(self, episodes: Episodes) -> torch.Tensor:
        rewards = self.kl_penalised(episodes) if self.cfg.grpo.kl == "reward" else episodes.token_reward
        scale = bool(self.cfg.grpo.scale_rewards)
        advantage = group_normalised(sequence_total(rewards), self.group_size(), scale=scale)
        return advantage[:, None].expand_as(episodes.rollout.valid)
