"""The timed run shared by the TRL GRPOTrainer sides of the GRPO pair (run_trl_1_12_grpo.py, run_trl_1_16_grpo.py).

One grue iteration (16 episodes, two optimizer steps of 8) is TRL's generation batch of 16
(`steps_per_generation=2`) and the two training steps that consume it. TRL generates inside the first step's
`_prepare_inputs`, so the phases are read off `_generate_and_score_completions` (generation, the sampling
policy's and the reference's log-prob passes, the reward, the advantages) and a callback at the end of each
step: rollout = that call, update = the rest of the iteration's two steps. Each release's runner gives only
its GRPOConfig. With BENCH_PROFILE=OUT.json the last iteration runs under torch.profiler, its update's parts
labelled as on grue's side (scripts/bench/update_profile.py).
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

import torch

import grpo_setting as setting
from common import MINIBATCH_EPISODES, NEW_TOKENS, PROMPTS, THREADS, Iteration, read_prompts, report

STEPS_PER_ITERATION = setting.GROUP * setting.PROMPTS_PER_ITERATION // MINIBATCH_EPISODES


def length_reward(prompts, completions, **kwargs):
    """TRL's reward-function interface around the pair's shared text reward."""
    return [setting.text_reward(text) for text in completions]


def run(side: str, config: Callable[[bool, int], Any], prompts_unpadded: bool) -> None:
    """Time one TRL GRPOTrainer side from its command line (<prompts.json> <model_dir> <iterations>
    [--gradient-checkpointing]): `config(checkpointing, iterations)` is its release's GRPOConfig; with
    `prompts_unpadded` the prompts must reach generation without padding (asserted)."""
    from datasets import Dataset
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOTrainer

    prompts_path, model_dir, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
    checkpointing = sys.argv[4:] == ["--gradient-checkpointing"]
    name = f"{side}-ckpt" if checkpointing else side
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    expected_ids = sorted(read_prompts(prompts_path))
    texts = json.loads(Path(prompts_path).read_text())["texts"]
    assert len(texts) == PROMPTS
    tok = AutoTokenizer.from_pretrained(model_dir, padding_side="left")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    dataset = Dataset.from_dict({"prompt": texts})

    spans: list[tuple[float, float]] = []  # each _generate_and_score_completions call
    step_ends: list[float] = []
    train_start: list[float] = []

    class TimedGRPO(GRPOTrainer):
        def _tokenize_prompts(self, prompts):
            prompt_ids, images, fields = super()._tokenize_prompts(prompts)
            # every side must decode from the same 13 token ids per prompt
            assert all(list(ids) in expected_ids for ids in prompt_ids), "TRL tokenised the prompts differently"
            return prompt_ids, images, fields

        def _generate_and_score_completions(self, inputs):
            start = time.perf_counter()
            out = super()._generate_and_score_completions(inputs)
            spans.append((start, time.perf_counter()))
            assert out["completion_mask"].sum().item() == len(inputs) * NEW_TOKENS, "a completion ended early"
            if prompts_unpadded:
                assert out["prompt_ids"].shape[1] == len(expected_ids[0]), "TRL padded the prompts"
            return out

    profile = None
    if os.environ.get("BENCH_PROFILE"):
        from update_profile import UpdateProfile, label

        profile = UpdateProfile(os.environ["BENCH_PROFILE"], name)
        label(TimedGRPO, "_generate_and_score_completions", "rollout")
        label(TimedGRPO, "_get_per_token_logps_and_entropies", "forward")
    first_profiled = STEPS_PER_ITERATION * iterations  # the last iteration's first step

    class Clock(TrainerCallback):
        def on_train_begin(self, args, state, control, **kwargs):
            train_start.append(time.perf_counter())
            if profile is not None:
                label(kwargs["optimizer"], "step", "optimizer")

        def on_step_begin(self, args, state, control, **kwargs):
            if profile is not None and len(step_ends) == first_profiled:
                profile.start()

        def on_step_end(self, args, state, control, **kwargs):
            step_ends.append(time.perf_counter())
            if profile is not None and len(step_ends) == STEPS_PER_ITERATION * (iterations + 1):
                profile.stop()

    trainer = TimedGRPO(model=model_dir, reward_funcs=[length_reward], args=config(checkpointing, iterations),
                        train_dataset=dataset, processing_class=tok, callbacks=[Clock()])
    if profile is not None:
        label(trainer.accelerator, "backward", "backward")
        label(trainer.accelerator, "clip_grad_norm_", "clip")
    trainer.train()
    if len(spans) != iterations + 1 or len(step_ends) != STEPS_PER_ITERATION * (iterations + 1):
        raise SystemExit(f"{name}: {len(spans)} generations and {len(step_ends)} steps, "
                         f"expected {iterations + 1} and {STEPS_PER_ITERATION * (iterations + 1)}")
    boundaries = train_start + step_ends[STEPS_PER_ITERATION - 1::STEPS_PER_ITERATION]
    measured = []
    for i in range(1, iterations + 1):
        total = boundaries[i + 1] - boundaries[i]
        rollout = spans[i][1] - spans[i][0]
        measured.append(Iteration(rollout_s=rollout, update_s=total - rollout))
    if profile is not None:
        profile.write(measured[-1].update_s)
    report(name, measured)

