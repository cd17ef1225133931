"""The config groups of the critic-free methods: `grpo`, `rloo`, `reinforce_pp`, `reinforce_pp_baseline`.

Kept apart from the trainers so that building a config imports no model code. Each group holds only
what its method adds to the shared `ppo` group (learning rate, budget in tokens, epochs, minibatches,
clip range, entropy bonus, gradient clipping), the `kl` group (the controller of a KL penalty in the
reward) and `rollout` (sampling). Defaults are each paper's own; the registry entries' `preset` says
where GRUE differs on every task (grue/train/algorithms.py). docs/algorithms.md explains every field.
"""
from __future__ import annotations

from dataclasses import dataclass

from grue.config.constraints import FRACTION, NON_NEGATIVE, POSITIVE, OneOf, Range
from grue.config.schema import rule
AT_LEAST_TWO = Range(low=2)
# How the loss averages its per-token terms; grue/train/rl/policy_gradient.py gives each one's weights.
# Named here, not there, so that loading a config never imports torch.
AGGREGATIONS = ("token", "sequence", "constant", "sum")
LOSS_AGGREGATION = OneOf(AGGREGATIONS)


@dataclass
class GRPOConfig:
    """Group Relative Policy Optimization (Shao et al. 2024, DeepSeekMath section 4.1)."""

    group_size: int = rule(64, AT_LEAST_TWO)   # G: section 4.2, "we sample 64 outputs" per question
    beta: float = rule(0.04, NON_NEGATIVE)     # KL coefficient: section 4.2, 0.04
    # loss: beta * k3 KL in the loss (Eq. 3-4, the paper's); reward: the `kl` group's controller
    # subtracts beta * sum_t KL_t from each sequence's reward before the group statistics (as PPO's penalty)
    kl: str = rule("loss", OneOf(("loss", "reward")))
    # true: divide by the group's std (Eq. 3's outcome advantage); false: Dr. GRPO (Liu et al. 2025, 3.2)
    scale_rewards: bool = True
    # sequence: token mean per sequence, then the mean over sequences (Eq. 3's 1/|o_i|); constant: Dr. GRPO
    loss_aggregation: str = rule("sequence", LOSS_AGGREGATION)


@dataclass
class RLOOConfig:
    """REINFORCE Leave-One-Out (Ahmadian et al. 2024); its KL penalty is the `kl` group's, in the reward."""

    k: int = rule(4, AT_LEAST_TWO)             # samples per prompt: the paper compares k = 2 and k = 4
    # sum: the loss is each sequence's log-prob times its advantage (REINFORCE on whole sequences, as the
    # paper models the completion as one action); token/sequence/constant as for GRPO
    loss_aggregation: str = rule("sum", LOSS_AGGREGATION)


@dataclass
class ReinforcePPConfig:
    """REINFORCE++ (Hu 2025): per-token KL in the reward (the `kl` group's controller), returns to go,
    advantages normalised over the iteration's whole batch, PPO-clip."""

    gamma: float = rule(1.0, FRACTION)         # discount of the returns: the paper's A_t sums the KL to T undiscounted
    group_size: int = rule(1, POSITIVE)        # samples per prompt: 1 in the paper's REINFORCE++
    loss_aggregation: str = rule("token", LOSS_AGGREGATION)  # PPO's token mean, as the paper keeps PPO's loss


@dataclass
class ReinforcePPBaselineConfig(ReinforcePPConfig):
    """REINFORCE++-baseline (Hu 2025): the group mean of each prompt's rewards subtracted first."""

    # The paper's group size varies with the experiment; 4 matches RLOO's k so the two baselines compare
    # at the same samples per prompt.
    group_size: int = rule(4, AT_LEAST_TWO)

