"""The config groups of the critic-free methods: `grpo`, `rloo`, `reinforce_pp`, `reinforce_pp_baseline`.

Kept apart from the trainers so that building a config imports no model code. Each group holds only
what its method adds to the shared `ppo` group (learning rate, budget in tokens, epochs, minibatches,
clip range, entropy bonus, gradient clipping), the `kl` group (the regulariser every RL method reads:
where the KL term sits, its estimator, its controller) and `rollout` (sampling). Defaults are each paper's own; the registry entries' `preset` says
where GRUE differs on every task (grue/train/algorithms.py). docs/algorithms.md explains every field.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from grue.config.constraints import FRACTION, NON_NEGATIVE, POSITIVE, RULE_KEY, OneOf, Range
from grue.config.identity import HASHED_WHEN_SET
from grue.config.schema import added, rule
AT_LEAST_TWO = Range(low=2)
# How the loss averages its per-token terms; grue/train/rl/policy_gradient.py gives each one's weights.
# Named here, not there, so that loading a config never imports torch.
AGGREGATIONS = ("token", "sequence", "constant", "sum")
LOSS_AGGREGATION = OneOf(AGGREGATIONS)
REWARD_NORMALISATIONS = ("total", "per_component")


@dataclass
class LossOptions:
    """The options of the critic-free loss and advantage seam (issue 43; grue/train/rl/loss_options.py holds
    each equation, docs/algorithms.md its paper and reference code). Every critic-free group has them as its
    `loss` sub-group (grpo.loss.clip_high=0.28); `dapo`, `gspo` and `cispo` are presets of them. Added after runs
    existed: each is left out of the hash at its default, which is the loss those runs trained with."""

    # The ratio's clip range below and above 1: unset, ppo.clip_range (symmetric); DAPO's decoupled clip sets
    # clip_low 0.2, clip_high 0.28. With clip=weight an unset clip_low means no lower bound (CISPO).
    clip_low: Optional[float] = added(None, NON_NEGATIVE)
    clip_high: Optional[float] = added(None, NON_NEGATIVE)
    # token: one ratio per token (PPO, GRPO); sequence: the length-normalised sequence ratio (GSPO), which needs
    # whole episodes in a minibatch (ppo.minibatch=episodes).
    ratio: str = added("token", OneOf(("token", "sequence")))
    # ratio: PPO's clipped surrogate min(r A, clip(r) A); weight: CISPO's sg[clip(r)] A log pi (every token
    # keeps its gradient).
    clip: str = added("ratio", OneOf(("ratio", "weight")))
    # DAPO's dynamic sampling: groups whose task rewards are all equal leave the loss (and its averages); the
    # tokens they cost stay spent (the budget counts generated tokens), and how many left is logged.
    dynamic_sampling: bool = added(False)
    # DAPO's soft overlong punishment: the last `overlong_buffer` of the generation budget (a share of
    # rollout.max_new_tokens: DAPO's L_cache / L_max = 4,096 / 20,480 = 0.2) costs up to `overlong_penalty` of
    # reward, linearly (0: off). A share, so one preset fits every task's budget.
    overlong_buffer: float = added(0.0, FRACTION)
    overlong_penalty: float = added(1.0, NON_NEGATIVE)
    # How a reward of several weighted components (a metric mix: reward=meteor_parent, spider, ...) reaches the
    # method's advantage. total: the weighted sum, as every run before this option; per_component: each
    # component standardised within its prompt group first, then the weighted sum (GDPO, Liu et al. 2026,
    # Eqs. 4-5; grue/train/rl/multi_reward.py), so no metric's scale swamps the others.
    reward_normalisation: str = added("total", OneOf(REWARD_NORMALISATIONS))
    # GDPO's last step (Eq. 6): the advantages whitened over every valid token of the iteration (all processes),
    # (A - mean) / std, as REINFORCE++'s global normalisation; off: the method's advantages as they come.
    whiten_advantages: bool = added(False)


@dataclass
class TeacherOptions:
    """On-policy distillation (issue 43; grue/train/rl/teacher.py): a frozen teacher scores the student's own
    samples, and each token's advantage gains coef * (log p_teacher(y_t) - log p_student(y_t)), minus the
    per-token reverse KL (Agarwal et al. 2024; Thinking Machines 2025). Every critic-free group has it as its
    `teacher` sub-group; `distill` is its preset. Added after runs existed: each field is left out of the hash at
    its default (no teacher: the method as before)."""

    # A run directory (its model/), a model directory, `packaged:<name>` or a hub id; its tokenizer must be the
    # student's (refused before training starts otherwise).
    model: Optional[str] = added(None)
    coef: float = added(1.0, NON_NEGATIVE)          # the reverse-KL advantage's weight
    # The weight of the task reward in the method's own advantage beside the teacher's term: 1 keeps the task
    # reward (distillation as a dense auxiliary reward), 0 is pure on-policy distillation (the `distill` preset).
    task_weight: float = added(1.0, NON_NEGATIVE)


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
    loss: LossOptions = field(default_factory=LossOptions)
    teacher: TeacherOptions = field(default_factory=TeacherOptions)


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
    loss: LossOptions = field(default_factory=LossOptions)
    teacher: TeacherOptions = field(default_factory=TeacherOptions)


@dataclass
class ReinforcePPConfig:
    """REINFORCE++ (Hu 2025): per-token KL in the reward (the `kl` group's controller), returns to go,
    advantages normalised over the iteration's whole batch, PPO-clip."""

    gamma: float = rule(1.0, FRACTION)         # discount of the returns: the paper's A_t sums the KL to T undiscounted
    group_size: int = rule(1, POSITIVE)        # samples per prompt: 1 in the paper's REINFORCE++
    loss_aggregation: str = rule("token", LOSS_AGGREGATION)  # PPO's token mean, as the paper keeps PPO's loss
    loss: LossOptions = field(default_factory=LossOptions)
    teacher: TeacherOptions = field(default_factory=TeacherOptions)


@dataclass
class ReinforcePPBaselineConfig(ReinforcePPConfig):
    """REINFORCE++-baseline (Hu 2025): the group mean of each prompt's rewards subtracted first."""

    # The paper's group size varies with the experiment; 4 matches RLOO's k so the two baselines compare
    # at the same samples per prompt.
    group_size: int = rule(4, AT_LEAST_TWO)



def teacher_preflight(cfg) -> list[str]:
    """Distillation cannot start without a teacher (the `distill` preset names the supervised run; a run that sets
    `grpo.teacher.model=null` has none)."""
    group = cfg.get("grpo")
    teacher = group.get("teacher") if group is not None else None
    if teacher is None or not teacher.get("model"):
        return [f"algo={cfg.algo} distils from a teacher: set grpo.teacher.model= to an algorithm's name (supervised: "
                "this task's supervised run, same settings and seed, trained first when absent), a run directory, a "
                "model directory, packaged:<name> or a hub id (its tokenizer must be the student's)"]
    return []  # a teacher named by its algorithm is checked for every method (grue.run.preflight)
