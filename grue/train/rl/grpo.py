"""GRPO (Shao et al. 2024, DeepSeekMath section 4.1): group-relative advantages, no critic.

G samples per prompt; each sample's advantage is its sequence reward standardised within its group,
(r_i - mean(r)) / std(r), on every one of its tokens (outcome supervision, section 4.1.2). The loss is
PPO's clipped surrogate, averaged as a token mean per sequence and then a mean over sequences (Eq. 3's
1/|o_i|).

The KL regulariser is the `kl` group's, as every RL method's (grue/train/regulariser.py): on the board's
presets the task's PPO regulariser, a per-token penalty in the reward whose sequence sum enters the
group statistics. The paper's own, beta = 0.04 times the k3 estimate in the loss (Eqs. 3-4), is
`kl.placement=loss kl.estimator=k3 kl.init_coef=0.04 kl.k_beta=0`, registered as `grpo_paper`.
`grpo.scale_rewards=false grpo.loss_aggregation=constant` is Dr. GRPO (Liu et al. 2025, section 3.2: no
division by the group's std, a constant instead of each sequence's length), registered with its
recipe's `--beta 0` (no KL term) as `dr_grpo`.
"""
from __future__ import annotations

import torch

from grue.train.rl.critic_free import CriticFreeTrainer
from grue.train.rl.policy_gradient import group_normalised, sequence_total
from grue.train.rl.rollout import Episodes


class GRPOTrainer(CriticFreeTrainer):
    config_group = "grpo"  # its settings, and its loss options (grpo.loss)
    def group_size(self) -> int:
        return int(self.cfg.grpo.group_size)

    def aggregation(self) -> str:
        return str(self.cfg.grpo.loss_aggregation)

    def token_advantages(self, episodes: Episodes) -> torch.Tensor:
        scale = bool(self.cfg.grpo.scale_rewards)
        advantage = self.by_group(lambda rewards, size: group_normalised(rewards, size, scale=scale),
                                  sequence_total(self.kl_penalised(episodes)))
        return advantage[:, None].expand_as(episodes.rollout.valid)
