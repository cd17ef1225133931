"""The config groups of the critic-free methods: `grpo`, `rloo`, `reinforce_pp`, `reinforce_pp_baseline`.

Kept apart from the trainers so that building a config imports no model code. Each group holds only
what its method adds to the shared `ppo` group (learning rate, budget in tokens, epochs, minibatches,
clip range, entropy bonus, gradient clipping), the `kl` group (the regulariser every RL method reads:
where the KL term sits, its estimator, its controller) and `rollout` (sampling). Defaults are each paper's own; the registry entries' `preset` says
where GRUE differs on every task (grue/train/algorithms.py). docs/algorithms.md explains every field.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from grue.config.constraints import FRACTION, POSITIVE, RULE_KEY, OneOf, Range
from grue.config.identity import HASHED_WHEN_SET
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
    # The KL term is the `kl` group's, as every RL method's (grue/train/regulariser.py). GRPO's own fields
    # `grpo.kl` and `grpo.beta` (k3 in the loss at 0.04) were removed for it: that is now the `grpo_paper`
    # algorithm (kl.placement=loss kl.estimator=k3 kl.init_coef=0.04 kl.k_beta=0).
    # true: divide by the group's std (Eq. 3's outcome advantage); false: Dr. GRPO (Liu et al. 2025, 3.2)
    scale_rewards: bool = True
    # sequence: token mean per sequence, then the mean over sequences (Eq. 3's 1/|o_i|); constant: Dr. GRPO
    loss_aggregation: str = rule("sequence", LOSS_AGGREGATION)


@dataclass
class RLOOConfig:
    """REINFORCE Leave-One-Out (Ahmadian et al. 2024); its KL penalty is the `kl` group's, in the reward."""

    k: int = rule(4, AT_LEAST_TWO)             # samples per prompt: the paper compares k = 2 and k = 4
    # ppo: the `ppo` group's epochs of clipped minibatch steps over each rollout (grue's RLOO before this
    # field); single: the paper's update, one unclipped REINFORCE step on the whole rollout per iteration
    # (ppo.epochs, ppo.batch_size and ppo.clip_range are not read). Added after runs existed: left out of the
    # hash at `ppo` (grue/config/identity.py).
    steps: str = field(default="ppo", metadata={RULE_KEY: OneOf(("ppo", "single")), HASHED_WHEN_SET: True})
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

