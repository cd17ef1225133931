"""Settings the mini profile of the six non-IMDB tasks shares: model, metric models, RL budget.

The mini profile is CPU-sized (2 cores, minutes) and not comparable to the paper: the packaged causal
LM SmolLM2-135M stands in for T5-base and GPT-2 on every task, MiniLM stands in for BERTScore's
RoBERTa, and a run is a handful of PPO iterations on a few hundred prompts. Task files merge these
into their own `mini` presets.
"""
from __future__ import annotations

from typing import Any


# A causal LM reads its prompt to the end: left truncation keeps the zero-shot cue (data.prompt_suffix)
# that tells it where to answer. Mini prompts are sized to fit whole anyway.
MODEL = {"policy": "packaged:smollm2-135m", "kind": "causal", "padding_side": "left", "truncation_side": "left"}
# BERTScore on MiniLM's 6th (last) layer: the packaged encoder (grue.metrics.bertscore).
METRIC_OPTIONS = {"bertscore_model": "packaged:minilm", "bertscore_num_layers": 6}
SIZES = {"max_train": 200, "max_val": 24, "max_test": 24}
EVAL = {"batch_size": 8}
SUPERVISED = {"learning_rate": 2e-5, "epochs": 1, "batch_size": 8}


def rl(max_new_tokens: int, iterations: int = 8) -> dict[str, Any]:
    """PPO/NLPO for 2 cores: 16 episodes per iteration (steps are tokens), 2 epochs, 4 minibatches.

    Minibatches are cut out of whole episodes (ppo.minibatch=episodes): random transitions of the whole
    rollout, the paper profile's choice, would make each of the 4 run every episode (IMDB's preset says
    what that costs)."""
    steps = 16 * max_new_tokens
    return {
        "ppo": {"learning_rate": 5e-6, "total_steps": iterations * steps, "steps_per_update": steps,
                "batch_size": steps // 4, "epochs": 2, "rollout_batch_size": 16, "minibatch": "episodes"},
        "kl": {"init_coef": 0.05, "target": 0.5},  # per token: x max_new_tokens for nats an episode
        # One trunk for policy and critic halves the update's forward/backward passes on CPU (as IMDB's
        # mini preset); the paper's separate critic stays one override away (model.value_model=separate).
        "model": {"value_model": "shared"},
        "eval": {"eval_every": 4, "save_every": 2},
    }


def nlpo(max_new_tokens: int) -> dict[str, Any]:
    return {**rl(max_new_tokens), "nlpo": {"top_p": 0.9, "min_tokens_to_keep": 100, "update_every": 2}}


def algos(max_new_tokens: int) -> dict[str, dict[str, Any]]:
    """The mini presets of the RL algorithms (supervised and zero-shot need none)."""
    return {"ppo": rl(max_new_tokens), "nlpo": nlpo(max_new_tokens),
            "supervised_ppo": rl(max_new_tokens), "supervised_nlpo": nlpo(max_new_tokens)}
