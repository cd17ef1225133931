"""The run configuration as typed dataclasses: the single source for defaults, validation and docs.

OmegaConf builds a structured config from these classes, so a key that is not declared here or a
value of the wrong type is refused before any work starts; each numeric or choice field also carries
its range or set (grue/config/constraints.py), checked in the same pass. Defaults are the paper's
shared RL settings (grue_spec.md section 2 preamble); each task file overrides what its tables say.
"""
from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field, make_dataclass
from typing import Any, Iterable, Optional

from grue.config.constraints import (FINITE, FRACTION, NON_NEGATIVE, POSITIVE, PROBABILITY, RULE_KEY, OneOf,
                                     Range, Registered, Rule)
from grue.config.identity import HASHED_WHEN_SET
from grue.policy.stop_strings import NonEmptyTexts
from grue.results.schema import PROFILES


def rule(default: Any, check: Rule) -> Any:
    """A field with a default and the range or set its values must fall in."""
    return field(default=default, metadata={RULE_KEY: check})


# Sets owned by modules that import torch, the task files or plugins: looked up only when a config is checked.
def _algorithm_names() -> Iterable[str]:
    from grue.train.registry import algorithm_names

    return algorithm_names()


def _variant_values(key: str) -> Any:
    def values() -> Iterable[str]:
        from grue.train.variants import INITS, MASKS, NONE

        return (NONE, *{"init": INITS, "mask": MASKS}[key])
    return values


def _task_names() -> Iterable[str]:
    from tasks import task_names

    return task_names()


def _check_task_file(path: str) -> None:
    import os

    if not os.path.isfile(path):
        raise KeyError(f"no task file at {path}")


def _check_code_digests(digests: Any) -> None:
    """code_sha256: python: references mapped to SHA-256 hex digests (grue fills it in; a record read back
    from a results file must still have that shape)."""
    import re

    for ref, digest in dict(digests or {}).items():
        if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
            raise KeyError(f"the digest of {ref} is not a SHA-256 hex digest: {digest!r}")


def _accelerate_presets() -> Iterable[str]:
    from grue.runtime.accelerate_configs import PRESETS

    return PRESETS


def _shard_modes() -> Iterable[str]:
    from grue.runtime.sharding import MODES

    return MODES


def _check_reward(name: str) -> None:
    from grue.rewards.registry import check_reward

    check_reward(name)


def _check_metrics(names: list[str]) -> None:
    from grue.metrics.registry import check_names

    if not names:
        raise KeyError("no metrics: name at least one, e.g. eval.metrics=[meteor,rouge1]")
    check_names(names)


def _check_kl_temperature(value: Any) -> None:
    from grue.train.rl.kl_temperature import check_kl_temperature

    check_kl_temperature(value)


def _schedules() -> Iterable[str]:
    from grue.rewards.learned.schedules import SCHEDULES

    return SCHEDULES


SIDES = OneOf(("left", "right"))
DEVICE = OneOf(("auto", "cpu", "cuda", "mps"), pattern=r"cuda:\d+")
AT_LEAST_TWO = Range(low=2)


@dataclass
class GenerationConfig:
    """Decoding settings. `max_new_tokens` is always explicit (a trap in the reference code)."""

    do_sample: bool = True
    top_k: int = rule(50, NON_NEGATIVE)            # 0 disables top-k truncation
    top_p: float = rule(1.0, PROBABILITY)
    temperature: float = rule(1.0, POSITIVE)
    num_beams: int = rule(1, POSITIVE)
    length_penalty: float = rule(1.0, FINITE)
    min_new_tokens: int = rule(0, NON_NEGATIVE)
    max_new_tokens: int = rule(48, POSITIVE)
    # grue: grue's decode loop (grue/policy/decode.py: large batches, noise keyed per episode, so samples do
    # not depend on batching); generate: transformers' generate() at the rollout/evaluation batch, noise from
    # torch's global generator (grue before it). Beam search always uses generate(). Added after runs existed.
    decoder: str = field(default="grue", metadata={RULE_KEY: OneOf(("grue", "generate")), HASHED_WHEN_SET: True})
    # Rows one decode batch may hold (grue decoder); 0: as many as a memory budget allows. Samples do not
    # depend on it.
    max_batch_rows: int = field(default=0, metadata={RULE_KEY: NON_NEGATIVE, HASHED_WHEN_SET: True})
    # The sampler's weights: fp32 (the policy's own), or a bf16/fp16 copy refreshed after every update while the
    # policy, reference, critic and optimizer stay as they are; a rollout's log-probs are then recomputed by the
    # learner over the sampler's support (grue/policy/precision.py). Added after runs existed.
    precision: str = field(default="fp32", metadata={RULE_KEY: OneOf(("fp32", "bf16", "fp16")), HASHED_WHEN_SET: True})
    # Texts a generation ends at: cut before the first of them before any metric or reward reads it, and in
    # RL rollouts no token after it is an action (grue/policy/stop_strings.py). None: no stop string;
    # rollout.stop None follows generation.stop. Added after runs existed.
    stop: Optional[list[str]] = field(default=None, metadata={RULE_KEY: NonEmptyTexts(), HASHED_WHEN_SET: True})


def added(default: Any, check: Optional[Rule] = None) -> Any:
    """A field added to a group existing runs already read: left out of the hash while it holds its
    default (grue/config/identity.py), so configs from before it existed keep their hash."""
    return field(default=default, metadata={HASHED_WHEN_SET: True, **({RULE_KEY: check} if check else {})})


@dataclass
class LoraConfig:
    """LoRA adapters on the policy (grue/policy/lora.py): only they train, on a frozen base that the
    reference and NLPO's masking model share. rank 0: no adapters, the whole model trains."""

    rank: int = added(0, NON_NEGATIVE)
    alpha: Optional[float] = added(None, POSITIVE)     # lora_alpha; None: 2 x rank
    dropout: float = added(0.0, FRACTION)             # must stay 0: grue keeps dropout off (spec 3.9)
    target_modules: Optional[list[str]] = added(None)  # None: the backbone's preset (grue.policy.lora.PRESETS)
    # A separate critic (model.value_model=separate): full (its own copy of the base trunk, all trained, as
    # without LoRA) or lora (its own frozen copy of the base trunk with adapters of its own: only they and
    # the value head train). A shared critic's head reads the policy's adapted trunk either way.
    critic: str = added("full", OneOf(("full", "lora")))


@dataclass
class ModelConfig:
    """The policy and how prompts are tokenised for it."""

    policy: str = "gpt2"             # hub id, local directory, or packaged:<name>
    kind: str = rule("causal", OneOf(("causal", "seq2seq")))             # causal | seq2seq
    value_model: str = rule("separate", OneOf(("separate", "shared")))    # separate (paper, section B.2) | shared (value head on the policy trunk)
    max_prompt_length: int = rule(64, POSITIVE)
    padding_side: str = rule("left", SIDES)
    truncation_side: str = rule("left", SIDES)
    supervised_init: Optional[str] = None  # paper profile: published supervised checkpoint for supervised_* algos
    # Weights (and optimizer state) while training: float32 unless asked otherwise, whatever the checkpoint
    # stores (a bf16 checkpoint trained in pure bf16 barely moves at small learning rates); `checkpoint`
    # keeps the checkpoint's own dtype.
    dtype: str = rule("float32", OneOf(("float32", "bfloat16", "float16", "checkpoint")))
    # Memory levers (docs/speed.md, "Models of today on one GPU"; `grue plan` estimates their effect).
    lora: LoraConfig = field(default_factory=LoraConfig)
    # Recompute each transformer block's activations in the backward pass (policy and critic) instead of keeping them.
    gradient_checkpointing: bool = added(False)
    # Autocast through accelerate with fp32 master weights (model.dtype stays float32): bf16, or fp16 with loss
    # scaling (GPU only). Not the same as model.dtype=bfloat16, which makes the weights themselves bf16.
    mixed_precision: str = added("no", OneOf(("no", "bf16", "fp16")))


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
    split_seed: int = rule(42, NON_NEGATIVE)              # fixed shuffle for the train/val split (reference code: 42)
    max_train: Optional[int] = rule(None, POSITIVE)   # caps, mainly for the mini profile
    max_val: Optional[int] = rule(None, POSITIVE)
    max_test: Optional[int] = rule(None, POSITIVE)


@dataclass
class RewardConfig:
    """The one reward an RL run optimises (the paper runs one experiment per reward)."""

    name: str = rule("sentiment", Registered(_check_reward))
    model: Optional[str] = None       # classifier reference for learned rewards
    batch_size: int = rule(64, POSITIVE)
    # Learned rewards (reward=learned | commongen_preference; docs/learned_rewards.md). reward.model is then
    # a reward-model directory, unless a schedule trains one inside the run from the labeler's answers.
    schedule: Optional[str] = rule(None, OneOf(_schedules))     # offline (all labels from rho before RL) | batched (reward.rounds rounds)
    labels: int = rule(1000, AT_LEAST_TWO)                 # label budget of a schedule: answered comparisons in all
    rounds: int = rule(2, POSITIVE)                    # batched: collect, train, RL with the reward frozen; repeated
    initial_labels: Optional[int] = rule(None, AT_LEAST_TWO)  # online: labels before RL (Ziegler's N0); None: labels / rounds
    k: int = rule(4, AT_LEAST_TWO)                         # candidates per query (Ziegler: 4-way; 2 is pairwise)
    labeler: Optional[str] = rule(None, Registered(_check_reward))      # mock labeler: a registered reward as the oracle (e.g. sentiment)
    labeler_temperature: float = rule(0.0, NON_NEGATIVE)   # mock noise: Boltzmann choice at this temperature (0: none)
    labeler_error_rate: float = rule(0.0, FRACTION)    # mock noise: share of answers replaced by a random other candidate
    backbone: Optional[str] = None     # reward-model backbone; None: the policy's initial model rho (Ziegler)
    rm_learning_rate: float = rule(1.77e-5, POSITIVE)  # Ziegler section 2.2: Adam, one epoch, batch 8 (style tasks)
    rm_batch_size: int = rule(8, POSITIVE)
    rm_heldout: float = rule(0.1, Range(low=0, high=1, high_open=True))            # share of queries held out for accuracy / ROC AUC
    rm_max_length: int = rule(128, POSITIVE)           # tokens of prompt + continuation the reward model reads
    # "critic": add per-token rewards from an LLM critic's span judgements (DRLC; settings under critic.*)
    # Added after runs existed: left out of the hash while unset (grue/config/identity.py).
    dense: Optional[str] = field(default=None, metadata={RULE_KEY: OneOf(("critic",)), HASHED_WHEN_SET: True})


@dataclass
class PPOConfig:
    """PPO hyperparameters. Steps are token-level transitions, as in every table of the paper."""

    learning_rate: float = rule(1e-6, POSITIVE)
    total_steps: int = rule(64000, POSITIVE)
    steps_per_update: int = rule(1280, POSITIVE)      # transitions collected per iteration
    batch_size: int = rule(64, POSITIVE)  # PPO minibatch, in transitions
    epochs: int = rule(5, POSITIVE)                   # passes over the rollout buffer per iteration
    gamma: float = rule(0.99, FRACTION)               # tables say 0.99; section 5.4's text says 0.95 (spec 3.6)
    gae_lambda: float = rule(0.95, FRACTION)
    clip_range: float = rule(0.2, POSITIVE)
    vf_coef: float = rule(0.5, NON_NEGATIVE)
    ent_coef: float = rule(0.0, NON_NEGATIVE)
    max_grad_norm: float = rule(0.5, POSITIVE)
    weight_decay: float = rule(1e-6, NON_NEGATIVE)
    rollout_batch_size: int = rule(64, POSITIVE)      # prompts generated together
    # Advantages are normalised over the whole iteration's rollout (all processes); `minibatch` does it
    # per minibatch as SB3 does (with token-level minibatches, nearly the same), `none` not at all.
    normalise_advantages: str = rule("rollout", OneOf(("rollout", "minibatch", "none")))
    # What a minibatch is cut from: random transitions of the whole rollout (the reference code), or
    # whole episodes of about batch_size transitions (TRL's way; one pass over the rollout an epoch).
    minibatch: str = rule("transitions", OneOf(("transitions", "episodes")))
    # Truncated importance sampling for a sampler apart from the learner (rollout.precision): each token's
    # policy-gradient term times min(pi_learner / pi_sampler, C), C this cap (docs/algorithms.md). None: off.
    tis_cap: Optional[float] = added(None, Range(low=1.0))


@dataclass
class KLConfig:
    """The KL regulariser against the frozen reference every RL method runs under: its adaptive controller
    (Eqs. 2-3), where the term sits and its estimator. One group for every method, so two methods compare
    under the same regulariser unless a setting says otherwise."""

    init_coef: float = rule(0.1, NON_NEGATIVE)
    target: Optional[float] = rule(0.1, POSITIVE)     # null: the paper's "inf" target, no KL penalty (beta 0)
    k_beta: float = rule(0.2, NON_NEGATIVE)               # paper's rate; the reference code hard-codes 0.1; 0 keeps beta constant
    # The unit of `target` (grue/train/rl/kl.py): `token`, the rollout's mean per-token KL (RL4LMs and every
    # GRUE table), or `episode`, each episode's summed KL averaged over episodes (Ziegler's 6 and 10 nats,
    # DRLC's 6.0). Per episode = per token x generated tokens per episode. Added after runs existed: left out
    # of the hash while `token` (grue/config/identity.py).
    target_unit: str = field(default="token", metadata={RULE_KEY: OneOf(("token", "episode")), HASHED_WHEN_SET: True})
    # The temperature both sides of the KL are measured at (grue/train/rl/kl_temperature.py): null = 1, as every
    # run before it; `sampling` = the rollout's sampling temperature, Ziegler et al.'s tempered policy and
    # reference; or a positive number. Units stay nats per token / per episode. Added after runs existed.
    temperature: Any = added(None, Registered(_check_kl_temperature))
    # Where the penalty sits and how KL(pi || pi_ref) is estimated per sampled token, read by every RL method
    # (grue/train/regulariser.py): `reward`, subtracted from each token's reward (PPO's Eq. 1), or `loss`, a
    # term of the policy loss (GRPO's Eq. 3; the critic-free methods only); `k1` = log pi - log pi_ref, or
    # `k3` = pi_ref/pi - log(pi_ref/pi) - 1 (GRPO's Eq. 4). The coefficient is the controller's above either
    # way (k_beta=0: fixed at init_coef). Added after runs existed: left out of the hash at reward/k1.
    placement: str = added("reward", OneOf(("reward", "loss")))
    estimator: str = added("k1", OneOf(("k1", "k3")))


@dataclass
class NLPOConfig:
    """The masking policy: top-p of a copy of the policy refreshed every `update_every` iterations."""

    top_p: float = rule(0.9, PROBABILITY)
    min_tokens_to_keep: int = rule(100, POSITIVE)
    update_every: int = rule(20, POSITIVE)            # mu
    # paper: refresh the masking model every `update_every` iterations (Algorithm 1); never: keep the
    # initial policy as masking model throughout, as the reference code effectively does (its sampling
    # logits processor holds the first copy), which is how the paper's NLPO numbers were produced.
    refresh: str = rule("paper", OneOf(("paper", "never")))
    mask_at_eval: bool = True         # NLPO runs evaluate with the mask, as the reference code does


@dataclass
class SupervisedConfig:
    learning_rate: float = rule(1e-5, POSITIVE)
    epochs: int = rule(10, POSITIVE)
    batch_size: int = rule(64, POSITIVE)
    lr_scheduler: str = rule("constant", OneOf(("constant", "cosine", "constant_with_warmup")))    # constant | cosine | constant_with_warmup
    warmup_ratio: float = rule(0.0, FRACTION)
    weight_decay: float = rule(0.0, NON_NEGATIVE)
    max_length: int = rule(64, POSITIVE)              # target tokens; the prompt is cut as in RL (model.max_prompt_length)


@dataclass
class EvalConfig:
    eval_every: int = rule(10, POSITIVE)              # iterations between validation evaluations
    save_every: int = rule(10, POSITIVE)              # iterations between checkpoints
    batch_size: int = rule(64, POSITIVE)
    metrics: list[str] = field(default_factory=list, metadata={RULE_KEY: Registered(_check_metrics)})
    # Per-metric settings handed to the scorers (e.g. bertscore_model, sacrebleu_tokenize; each metric
    # module documents its own). Task files set them per profile.
    metric_options: dict[str, Any] = field(default_factory=dict)
    perplexity_stride: int = rule(512, POSITIVE)
    perplexity_max_length: int = rule(1024, POSITIVE)


@dataclass
class CriticConfig:
    """The LLM critic of `reward.dense=critic` (grue/rewards/critic, docs/dense_rewards.md; spec 8.1)."""

    backend: str = rule("local", OneOf(("local", "http", "self")))  # self: a frozen copy of the initial policy
    model: Optional[str] = None       # local: model reference; http: the endpoint's model name
    template: Optional[str] = None    # built-in name or a template file; None: the task's own
    alpha_extrinsic: float = rule(1.0, FINITE)   # alpha_1, on the task reward at the last token
    alpha_intrinsic: float = rule(0.2, FINITE)   # alpha_2, on the critic's per-token rewards
    span_reward: float = rule(1.0, POSITIVE)     # |r_in| of a token inside a marked span
    score_scale: float = rule(10.0, POSITIVE)    # the critic is shown the task reward times this ("7.5/10")
    max_new_tokens: int = rule(96, POSITIVE)     # length of the critic's answer
    batch_size: int = rule(8, POSITIVE)          # local: prompts answered together
    device: Optional[str] = rule(None, DEVICE)  # local: None runs the critic on the run's device
    base_url: Optional[str] = None    # http: the OpenAI-compatible endpoint's root (ending in /v1)
    api_key_env: Optional[str] = None  # http: the environment variable holding the key (None: no key)
    concurrency: int = rule(4, POSITIVE)         # http: requests in flight at once
    timeout_s: float = rule(60.0, POSITIVE)      # http: per request
    max_retries: int = rule(4, NON_NEGATIVE)     # http: after time-outs, 429 and 5xx, with doubling backoff
    backoff_s: float = rule(1.0, NON_NEGATIVE)   # http: the first retry's wait
    requests_per_minute: Optional[float] = rule(None, POSITIVE)  # http: None for no limit


@dataclass
class TrackingConfig:
    """Live tracking (grue/run/tracking.py): where a run's curves and sample tables go. Never part of the
    config hash (grue/config/identity.py)."""

    tensorboard: bool = True          # event files in <run>/tensorboard/
    wandb: bool = False               # W&B through accelerate (pip install 'grue[wandb]'; project: WANDB_PROJECT)
    wandb_mode: str = rule("online", OneOf(("online", "offline")))  # offline: <run>/wandb/, uploaded by `wandb sync`
    samples: int = rule(4, NON_NEGATIVE)  # validation prompts in the sample table at each intermediate evaluation


@dataclass
class RunConfig:
    task: str = rule("imdb", OneOf(_task_names))
    algo: str = rule("nlpo", OneOf(_algorithm_names))
    profile: str = rule("paper", OneOf(PROFILES))
    seed: int = rule(0, NON_NEGATIVE)
    # Variants any RL method takes (grue/train/variants.py): a warm start (init=supervised) and the NLPO action
    # mask (mask=nlpo). Folded into `algo` when the config is loaded (algo=grpo init=supervised is
    # algo=supervised_grpo, the same run and hash), then recorded as the algorithm's parts; never hashed
    # themselves. Unset keeps what `algo` names; none removes it (algo=grpo_mask mask=none is grpo).
    init: Optional[str] = field(default=None, metadata={RULE_KEY: OneOf(_variant_values("init")), HASHED_WHEN_SET: True})
    mask: Optional[str] = field(default=None, metadata={RULE_KEY: OneOf(_variant_values("mask")), HASHED_WHEN_SET: True})
    output_dir: str = "runs"
    device: str = rule("auto", DEVICE)  # auto | cpu | cuda | cuda:<index> | mps
    threads: Optional[int] = rule(None, POSITIVE)     # torch intra-op threads; None keeps torch's default
    # Processes for one run (data parallel: rollouts sharded, gradients averaged, one evaluation). >1 starts
    # the run again under torchrun, or under `accelerate launch` with a preset (docs/distributed.md).
    num_processes: int = rule(1, POSITIVE)
    accelerate: Optional[str] = rule(None, OneOf(_accelerate_presets))  # preset name: ddp | fsdp | zero2 | zero3 | multi_node (grue/runtime/accelerate_configs)
    # Parameter sharding over the processes (grue/runtime/sharding.py): full (FSDP FULL_SHARD, ZeRO-3) or
    # grad_op (SHARD_GRAD_OP, about ZeRO-2); the fsdp/zero3 presets mean full, zero2 grad_op.
    shard: Optional[str] = rule(None, OneOf(_shard_modes))
    # A task from a file the user owns (grue/task_files/): the file it was read from (not hashed: the
    # folder may move) and the SHA-256 of its content (hashed: editing the file is a new setting). Set from
    # the task, never by hand; built-in tasks leave both unset, so their hashes are unchanged.
    task_file: Optional[str] = field(default=None, metadata={RULE_KEY: Registered(_check_task_file), HASHED_WHEN_SET: True})
    task_sha256: Optional[str] = field(default=None, metadata={RULE_KEY: OneOf((), pattern=r"[0-9a-f]{64}"),
                                                               HASHED_WHEN_SET: True})
    # The SHA-256 of every python: file the run names (reference -> digest; grue/extend/code_digests.py):
    # hashed, so an edited metric or reward is a new setting. Set by grue, never by hand; None (no python:
    # code) keeps every other run's hash.
    code_sha256: Optional[dict[str, str]] = field(default=None, metadata={RULE_KEY: Registered(_check_code_digests),
                                                                          HASHED_WHEN_SET: True})
    model: ModelConfig = field(default_factory=ModelConfig)
    data: DataConfig = field(default_factory=DataConfig)
    reward: RewardConfig = field(default_factory=RewardConfig)
    critic: CriticConfig = field(default_factory=CriticConfig)  # read only when reward.dense=critic
    rollout: GenerationConfig = field(default_factory=GenerationConfig)
    generation: GenerationConfig = field(default_factory=GenerationConfig)  # evaluation decoding
    ppo: PPOConfig = field(default_factory=PPOConfig)
    kl: KLConfig = field(default_factory=KLConfig)
    nlpo: NLPOConfig = field(default_factory=NLPOConfig)
    supervised: SupervisedConfig = field(default_factory=SupervisedConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    tracking: TrackingConfig = field(default_factory=TrackingConfig)


def run_schema() -> type:
    """RunConfig plus the config groups registered algorithms add (grue/train/registry.py): the schema a
    run's config is built from and checked against. Plain RunConfig when no algorithm adds a group."""
    from grue.train.registry import plugin_config_groups

    return _schema_with(tuple(sorted(plugin_config_groups().items())))


def schema_config() -> Any:
    """A new, writable OmegaConf config of run_schema() at its defaults. Building one from the dataclasses is
    most of what loading a config costs, and a command loads many (a sweep: one per cell; a board: one per
    run), so the first built per schema is kept and each call returns a deep copy of it, which is far
    cheaper (`python scripts/time_config_load.py` prints both)."""
    return copy.deepcopy(_schema_template(run_schema()))


@functools.lru_cache(maxsize=8)
def _schema_template(schema: type) -> Any:
    from omegaconf import OmegaConf

    return OmegaConf.structured(schema)


@functools.lru_cache(maxsize=8)
def _schema_with(groups: tuple[tuple[str, str], ...]) -> type:
    if not groups:
        return RunConfig
    from grue.train.registry import load_attribute

    taken = set(RunConfig.__dataclass_fields__)
    extra = []
    for name, target in groups:
        if name in taken:
            raise ValueError(f"an algorithm's config group {name!r} ({target}) clashes with grue's own {name!r}")
        group = load_attribute(target)
        extra.append((name, group, field(default_factory=group)))
    return make_dataclass("RunConfig", extra, bases=(RunConfig,))
