"""The NLPO action mask on the critic-free methods: each method with NLPOTrainer's hooks mixed in.

The mask is a sampling constraint, not a PPO feature (paper section 3.8): NLPOTrainer only fills
RLTrainer's hooks (a masking model, the rollout's and evaluation's logits processors, its statistics,
the refresh), and the critic-free trainers only replace the seams (group sampling, advantages, the loss),
so a class that inherits both runs the method through the mask with no code of its own. The recorded
action mask reaches the loss through the rollout, as in NLPO, so both log-probs of the ratio are masked.
Each is a registered algorithm (`grpo_mask`, ...) reading the `nlpo` group, so its mask settings are
part of its config hash and "mask or no mask" is two rows of the board.
"""
from __future__ import annotations

from grue.train.rl.grpo import GRPOTrainer
from grue.train.rl.nlpo import NLPOTrainer
from grue.train.rl.reinforce_pp import ReinforcePPBaselineTrainer, ReinforcePPTrainer
from grue.train.rl.rloo import RLOOTrainer


class MaskedGRPOTrainer(GRPOTrainer, NLPOTrainer):
    """GRPO sampling and learning through the NLPO mask."""


class MaskedRLOOTrainer(RLOOTrainer, NLPOTrainer):
    """RLOO sampling and learning through the NLPO mask."""


class MaskedReinforcePPTrainer(ReinforcePPTrainer, NLPOTrainer):
    """REINFORCE++ sampling and learning through the NLPO mask."""


class MaskedReinforcePPBaselineTrainer(ReinforcePPBaselineTrainer, NLPOTrainer):
    """REINFORCE++-baseline sampling and learning through the NLPO mask."""
