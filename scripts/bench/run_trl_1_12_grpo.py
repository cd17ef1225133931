"""TRL 1.12's `GRPOTrainer` on the GRPO pair's setting (scripts/bench/grpo_setting.py; docs/speed.md).

Runs under the `trl-1.12` environment (scripts/bench/trl_envs.py). One grue iteration (16 episodes, two
optimizer steps of 8) is TRL's generation batch of 16 (`steps_per_generation=2`) and the two training
steps that consume it. TRL generates inside the first step's `_prepare_inputs`, so the phases are read
off `_generate_and_score_completions` (generation, the sampling policy's and the reference's log-prob
passes, the reward, the advantages) and a callback at the end of each step: rollout = that call, update =
the rest of the iteration's two steps.

    [BENCH_PROFILE=OUT.json] python run_trl_1_12_grpo.py <prompts.json> <model_dir> <iterations> [--gradient-checkpointing]

GRPOConfig turns gradient checkpointing on by default; here it is off unless asked for, as on grue's side.
With BENCH_PROFILE the last iteration runs under torch.profiler, its update's parts labelled as on grue's side
(scripts/bench/update_profile.py; scripts/bench_grpo.py --profile).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import torch

import grpo_setting as setting
from common import MINIBATCH_EPISODES, NEW_TOKENS, PROMPTS, THREADS, Iteration, read_prompts, report

STEPS_PER_ITERATION = setting.GROUP * setting.PROMPTS_PER_ITERATION // MINIBATCH_EPISODES


def length_reward(prompts, completions, **kwargs):
    """TRL's reward-function interface around the pair's shared text reward."""
    return [setting.text_reward(text) for text in completions]


def main() -> None:
    from datasets import Dataset
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    prompts_path, model_dir, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
    checkpointing = sys.argv[4:] == ["--gradient-checkpointing"]
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
            return out

    profile = None
    if os.environ.get("BENCH_PROFILE"):
        from update_profile import UpdateProfile, label

        profile = UpdateProfile(os.environ["BENCH_PROFILE"], "trl-1.12-grpo-ckpt" if checkpointing else "trl-1.12-grpo")
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

    args = GRPOConfig(
        output_dir=tempfile.mkdtemp(), use_cpu=True, bf16=False, fp16=False, seed=0, report_to=[],
        save_strategy="no", logging_steps=10**9, disable_tqdm=True, dataloader_drop_last=True,
        model_init_kwargs={"dtype": torch.float32}, gradient_checkpointing=checkpointing,
        num_generations=setting.GROUP, per_device_train_batch_size=MINIBATCH_EPISODES,
        gradient_accumulation_steps=1, steps_per_generation=STEPS_PER_ITERATION, num_iterations=1,
        max_steps=STEPS_PER_ITERATION * (iterations + 1),
        max_completion_length=NEW_TOKENS, generation_kwargs={"min_new_tokens": NEW_TOKENS},
        temperature=1.0, top_k=0, top_p=1.0, use_vllm=False,
        beta=setting.BETA, use_bias_correction_kl=False, epsilon=setting.CLIP, loss_type="grpo", scale_rewards="group",
        learning_rate=setting.LEARNING_RATE, max_grad_norm=setting.MAX_GRAD_NORM, weight_decay=setting.WEIGHT_DECAY,
        lr_scheduler_type="constant", warmup_steps=0, disable_dropout=True, log_completions=False,
    )
    trainer = TimedGRPO(model=model_dir, reward_funcs=[length_reward], args=args, train_dataset=dataset,
                        processing_class=tok, callbacks=[Clock()])
    if profile is not None:
        label(trainer.accelerator, "backward", "backward")
        label(trainer.accelerator, "clip_grad_norm_", "clip")
    trainer.train()
    if len(spans) != iterations + 1 or len(step_ends) != STEPS_PER_ITERATION * (iterations + 1):
        raise SystemExit(f"run_trl_1_12_grpo: {len(spans)} generations and {len(step_ends)} steps, "
                         f"expected {iterations + 1} and {STEPS_PER_ITERATION * (iterations + 1)}")
    boundaries = train_start + step_ends[STEPS_PER_ITERATION - 1::STEPS_PER_ITERATION]
    measured = []
    for i in range(1, iterations + 1):
        total = boundaries[i + 1] - boundaries[i]
        rollout = spans[i][1] - spans[i][0]
        measured.append(Iteration(rollout_s=rollout, update_s=total - rollout))
    if profile is not None:
        profile.write(measured[-1].update_s)
    report("trl-1.12-grpo-ckpt" if checkpointing else "trl-1.12-grpo", measured)


if __name__ == "__main__":
    main()
