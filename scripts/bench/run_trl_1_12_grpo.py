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

import tempfile

import torch

import grpo_setting as setting
from common import MINIBATCH_EPISODES, NEW_TOKENS
from trl_grpo_timed import STEPS_PER_ITERATION, run


def config(checkpointing: bool, iterations: int):
    """The pair's GRPOConfig for TRL 1.12."""
    from trl import GRPOConfig

    return GRPOConfig(
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


def main() -> None:
    run("trl-1.12-grpo", config, prompts_unpadded=False)


if __name__ == "__main__":
    main()
