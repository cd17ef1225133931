"""TRL 1.12's PPO (`trl.experimental.ppo`, separate value model) on the benchmark setting.

Runs under the `trl-1.12` environment (scripts/bench/trl_envs.py). TRL's `train()` is one loop with
no phase hooks, so the phases are read off two clocks: a trainer callback at the end of each
iteration, and the first minibatch shuffle (`np.random.permutation`) that starts the PPO epochs;
rollout = iteration start -> first shuffle, update = first shuffle -> iteration end.

    python run_trl_1_12.py <prompts.json> <model_dir> <iterations>
"""
from __future__ import annotations

import sys
import tempfile
import time

import numpy as np
import torch

from common import MINIBATCH_EPISODES, NEW_TOKENS, PROMPTS, THREADS, Iteration, read_prompts, report


class _ShuffleClock:
    """numpy as TRL's trainer module sees it, noting when each iteration's first shuffle happens."""

    def __init__(self) -> None:
        self.first_shuffle: float | None = None
        self.random = self

    def permutation(self, n):
        if self.first_shuffle is None:
            self.first_shuffle = time.perf_counter()
        return np.random.permutation(n)

    def __getattr__(self, name):
        return getattr(np, name)


def tiny_reward_model(vocab_size: int):
    """A reward model whose cost is negligible (TRL 1.12 takes only a model as reward, not a function)."""
    from transformers import LlamaConfig, LlamaForSequenceClassification

    config = LlamaConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=2, num_labels=1, pad_token_id=0)
    return LlamaForSequenceClassification(config).eval()


def main() -> None:
    from datasets import Dataset
    from transformers import (AutoModelForCausalLM, AutoModelForSequenceClassification, AutoTokenizer,
                              TrainerCallback)
    from trl.experimental.ppo import PPOConfig, PPOTrainer
    from trl.experimental.ppo import ppo_trainer as trainer_module

    prompts_path, model_dir, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(model_dir, padding_side="left")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    policy = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    ref = AutoModelForCausalLM.from_pretrained(model_dir, dtype=torch.float32)
    value = AutoModelForSequenceClassification.from_pretrained(model_dir, num_labels=1, dtype=torch.float32)
    for model in (policy, ref, value):
        model.config.pad_token_id = tok.pad_token_id
    dataset = Dataset.from_dict({"input_ids": read_prompts(prompts_path)})

    clock = _ShuffleClock()
    trainer_module.np = clock
    ends: list[float] = []

    class IterationEnd(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            ends.append(time.perf_counter())

    args = PPOConfig(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=PROMPTS,
                     gradient_accumulation_steps=1, num_mini_batches=PROMPTS // MINIBATCH_EPISODES,
                     num_ppo_epochs=1, total_episodes=PROMPTS * (iterations + 1), response_length=NEW_TOKENS,
                     local_rollout_forward_batch_size=PROMPTS, stop_token=None, temperature=1.0,
                     report_to=[], save_strategy="no", logging_steps=10**9, seed=0, use_cpu=True,
                     dataloader_drop_last=True)
    trainer = PPOTrainer(args=args, processing_class=tok, model=policy, ref_model=ref,
                         reward_model=tiny_reward_model(len(tok)), train_dataset=dataset, value_model=value,
                         callbacks=[IterationEnd()])
    starts: list[float] = []
    shuffles: list[float] = []

    class IterationStart(TrainerCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            starts.append(time.perf_counter())

        def on_step_end(self, args, state, control, **kwargs):
            shuffles.append(clock.first_shuffle)
            clock.first_shuffle = None
            starts.append(time.perf_counter())

    trainer.add_callback(IterationStart())
    trainer.train()
    measured = [Iteration(rollout_s=shuffles[i] - starts[i], update_s=ends[i] - shuffles[i])
                for i in range(1, len(ends))]
    report("trl-1.12", measured)


if __name__ == "__main__":
    main()
