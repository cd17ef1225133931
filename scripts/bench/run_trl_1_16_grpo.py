"""TRL 1.16's `GRPOTrainer` on the GRPO pair's setting (scripts/bench/grpo_setting.py; docs/speed.md).

Runs under the `trl-1.16` environment (scripts/bench/trl_envs.py). As the 1.12 runner: one grue iteration
(16 episodes, two optimizer steps of 8) is TRL's generation batch of 16 (`steps_per_generation=2`) and the
two training steps that consume it; rollout = `_generate_and_score_completions` (generation, the sampling
policy's and the reference's log-prob passes, the reward, the advantages), update = the rest of the
iteration's two steps.

TRL 1.16 changed defaults that 1.12 had, so every knob that decides the update's math or work is spelled
out below, even where the default already matches grue's side (docs/speed.md lists each):
- `use_bias_correction_kl` defaults to True (the k3 term multiplied by the importance ratio, which changes
  the KL gradient even on-policy); grue's k3 term is not multiplied, so False here.
- `pad_to_multiple_of` defaults to "auto" (padding only on Neuron); None here, no padding.
- `loss_type` defaults to "dapo" (a token sum over the generation batch); "grpo" here, grue's
  `grpo.loss_aggregation=sequence`.
- `beta` defaults to 0.0 (and then no reference is loaded); 0.04 here, as on grue's side.
TRL 1.16 computes its log-probs through its own chunked head (`add_fused_lm_head`: the head a vocabulary tile
at a time, recomputed in the backward pass); on a CPU it scores every position of the sequence, the prompt's
included, and keeps only the completion's.

    [BENCH_PROFILE=OUT.json] python run_trl_1_16_grpo.py <prompts.json> <model_dir> <iterations> [--gradient-checkpointing]

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
    """The pair's GRPOConfig for TRL 1.16 (every knob that differs from its default, or whose default moved)."""
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=tempfile.mkdtemp(), use_cpu=True, bf16=False, fp16=False, seed=0, report_to=[],
        save_strategy="no", logging_steps=10**9, disable_tqdm=True, dataloader_drop_last=True,
        model_init_kwargs={"dtype": torch.float32}, cast_lm_head_to_fp32=False,
        gradient_checkpointing=checkpointing,
        # 16 episodes per generation, two optimizer steps of 8, one pass over them
        num_generations=setting.GROUP, per_device_train_batch_size=MINIBATCH_EPISODES,
        gradient_accumulation_steps=1, steps_per_generation=STEPS_PER_ITERATION, num_iterations=1,
        max_steps=STEPS_PER_ITERATION * (iterations + 1),
        # sampling: transformers' generate, 48 tokens each, no truncation of the distribution, no padding
        max_completion_length=NEW_TOKENS, generation_kwargs={"min_new_tokens": NEW_TOKENS},
        temperature=1.0, top_k=0, top_p=1.0, min_p=None, repetition_penalty=1.0, pad_to_multiple_of=None,
        use_vllm=False, use_transformers_continuous_batching=False, vllm_importance_sampling_correction=False,
        # the loss: PPO-clip on token ratios, k3 KL at 0.04 not weighted by the ratio, token mean per sequence
        beta=setting.BETA, use_bias_correction_kl=False, epsilon=setting.CLIP, epsilon_high=None, delta=None,
        importance_sampling_level="token", loss_type="grpo", scale_rewards="group", mask_truncated_completions=False,
        off_policy_mask_threshold=None, top_entropy_quantile=1.0, entropy_coef=0.0, use_adaptive_entropy=False,
        sync_ref_model=False,
        learning_rate=setting.LEARNING_RATE, max_grad_norm=setting.MAX_GRAD_NORM, weight_decay=setting.WEIGHT_DECAY,
        lr_scheduler_type="constant", warmup_steps=0, disable_dropout=True, log_completions=False,
    )


def main() -> None:
    run("trl-1.16-grpo", config, prompts_unpadded=True)


if __name__ == "__main__":
    main()
