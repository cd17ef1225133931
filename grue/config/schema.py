"""The run configuration as typed dataclasses: the single source for defaults, validation and docs.

OmegaConf builds a structured config from these classes, so a key that is not declared here or a
value of the wrong type is refused before any work starts. Defaults are the paper's shared RL
settings (grue_spec.md section 2 preamble); each task file overrides what its tables say.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class GenerationConfig:
    """Decoding settings. `max_new_tokens` is always explicit (a trap in the reference code)."""

    do_sample: bool = True
    top_k: int = 50            # 0 disables top-k truncation
    top_p: float = 1.0
    temperature: float = 1.0
    num_beams: int = 1
    length_penalty: float = 1.0
    min_new_tokens: int = 0
    max_new_tokens: int = 48


@dataclass
class ModelConfig:
    """The policy and how prompts are tokenised for it."""

    policy: str = "gpt2"             # hub id, local directory, or packaged:<name>
    kind: str = "causal"             # causal | seq2seq
    value_model: str = "separate"    # separate (paper, section B.2) | shared (value head on the policy trunk)
    max_prompt_length: int = 64
    padding_side: str = "left"
    truncation_side: str = "left"
    supervised_init: Optional[str] = None  # paper profile: published supervised checkpoint for supervised_* algos


@dataclass
class DataConfig:
    """Where the task's samples come from and how much of each split a run uses."""

    source: str = ""                  # dataset reference: hub id, local directory, or packaged:<name>
    # The hub dataset's subset, i.e. its parquet directory ("3.0.0", "de-en", "iwslt2017-en-de"); only
    # that subset is downloaded. None: the repository's single layout (data/ or <split>-*.parquet).
    config: Optional[str] = None
    # Hub revision to read. Repositories whose main branch is a loading script serve parquet from the
    # hub's automatic conversion, "refs/convert/parquet". None: main.
    revision: Optional[str] = None
    # Text appended to every prompt: a causal LM needs a cue where its answer starts ("\nSummary:");
    # the paper's T5 prompts (task prefixes) need none.
    prompt_suffix: str = ""
    split_seed: int = 42              # fixed shuffle for the train/val split (reference code: 42)
    max_train: Optional[int] = None   # caps, mainly for the mini profile
    max_val: Optional[int] = None
    max_test: Optional[int] = None


@dataclass
class RewardConfig:
    """The one reward an RL run optimises (the paper runs one experiment per reward)."""

    name: str = "sentiment"
    model: Optional[str] = None       # classifier reference for learned rewards
    batch_size: int = 64
    # Learned rewards (reward=learned | commongen_preference; docs/learned_rewards.md). reward.model is then
    # a reward-model directory, unless a schedule trains one inside the run from the labeler's answers.
    schedule: Optional[str] = None     # offline (all labels from rho before RL) | batched (reward.rounds rounds)
    labels: int = 1000                 # label budget of a schedule: answered comparisons in all
    rounds: int = 2                    # batched: collect, train, RL with the reward frozen; repeated
    k: int = 4                         # candidates per query (Ziegler: 4-way; 2 is pairwise)
    labeler: Optional[str] = None      # mock labeler: a registered reward as the oracle (e.g. sentiment)
    labeler_temperature: float = 0.0   # mock noise: Boltzmann choice at this temperature (0: none)
    labeler_error_rate: float = 0.0    # mock noise: share of answers replaced by a random other candidate
    backbone: Optional[str] = None     # reward-model backbone; None: the policy's initial model rho (Ziegler)
    rm_learning_rate: float = 1.77e-5  # Ziegler section 2.2: Adam, one epoch, batch 8 (style tasks)
    rm_batch_size: int = 8
    rm_heldout: float = 0.1            # share of queries held out for accuracy / ROC AUC
    rm_max_length: int = 128           # tokens of prompt + continuation the reward model reads


@dataclass
class PPOConfig:
    """PPO hyperparameters. Steps are token-level transitions, as in every table of the paper."""

    learning_rate: float = 1e-6
    total_steps: int = 64000
    steps_per_update: int = 1280      # transitions collected per iteration
    batch_size: int = 64              # PPO minibatch, in transitions
    epochs: int = 5                   # passes over the rollout buffer per iteration
    gamma: float = 0.99               # tables say 0.99; section 5.4's text says 0.95 (spec 3.6)
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.0
    max_grad_norm: float = 0.5
    weight_decay: float = 1e-6
    rollout_batch_size: int = 64      # prompts generated together


@dataclass
class KLConfig:
    """Per-token KL penalty against the frozen reference and its adaptive controller (Eqs. 2-3)."""

    init_coef: float = 0.1
    target: Optional[float] = 0.1     # null: the paper's "inf" target, no KL penalty (beta 0)
    k_beta: float = 0.2               # paper's rate; the reference code hard-codes 0.1; 0 keeps beta constant


@dataclass
class NLPOConfig:
    """The masking policy: top-p of a copy of the policy refreshed every `update_every` iterations."""

    top_p: float = 0.9
    min_tokens_to_keep: int = 100
    update_every: int = 20            # mu


@dataclass
class SupervisedConfig:
    learning_rate: float = 1e-5
    epochs: int = 10
    batch_size: int = 64
    lr_scheduler: str = "constant"    # constant | cosine | constant_with_warmup
    warmup_ratio: float = 0.0
    weight_decay: float = 0.0
    max_length: int = 64              # causal: tokens of prompt+target; seq2seq: tokens of the target


@dataclass
class EvalConfig:
    eval_every: int = 10              # iterations between validation evaluations
    save_every: int = 10              # iterations between checkpoints
    batch_size: int = 64
    metrics: list[str] = field(default_factory=list)
    # Per-metric settings handed to the scorers (e.g. bertscore_model, sacrebleu_tokenize; each metric
    # module documents its own). Task files set them per profile.
    metric_options: dict[str, Any] = field(default_factory=dict)
    perplexity_stride: int = 512
    perplexity_max_length: int = 1024


@dataclass
class RunConfig:
    task: str = "imdb"
    algo: str = "nlpo"
    profile: str = "paper"
    seed: int = 0
    output_dir: str = "runs"
    device: str = "auto"              # auto | cpu | cuda
    threads: Optional[int] = None     # torch intra-op threads; None keeps torch's default
    # Processes for one run (data parallel: rollouts sharded, gradients averaged, one evaluation). >1 starts
    # the run again under torchrun, or under `accelerate launch` with a preset (docs/distributed.md).
    num_processes: int = 1
    accelerate: Optional[str] = None  # preset name: ddp | fsdp | zero2 | zero3 | multi_node (grue/runtime/accelerate_configs)
    # Parameter sharding over the processes (grue/runtime/sharding.py): full (FSDP FULL_SHARD, ZeRO-3) or
    # grad_op (SHARD_GRAD_OP, about ZeRO-2); the fsdp/zero3 presets mean full, zero2 grad_op.
    shard: Optional[str] = None
    model: ModelConfig = field(default_factory=ModelConfig)
    data: DataConfig = field(default_factory=DataConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    rollout: GenerationConfig = field(default_factory=GenerationConfig)
    generation: GenerationConfig = field(default_factory=GenerationConfig)  # evaluation decoding
    ppo: PPOConfig = field(default_factory=PPOConfig)
    kl: KLConfig = field(default_factory=KLConfig)
    nlpo: NLPOConfig = field(default_factory=NLPOConfig)
    supervised: SupervisedConfig = field(default_factory=SupervisedConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)


# Keys that change where or how fast a run goes, not what it computes: excluded from the hash.
NON_SEMANTIC_KEYS = ("output_dir", "device", "threads", "num_processes", "accelerate", "shard")
