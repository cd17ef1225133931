"""grue's GRPO iteration on the setting of docs/speed.md, "GRPO against TRL 1.16" (scripts/bench/grpo_setting.py).

SmolLM2-135M, the 16 benchmark prompts of 13 tokens (scripts/bench/prompts.py), 4 prompts x 4 samples an
iteration, 48 sampled tokens (top-k 0, temperature 1, no early EOS), fp32, one epoch in two minibatches
of 8 whole episodes, k3 KL in the loss at beta 0.04, the text-length reward, activations kept (or
recomputed in the backward pass with `--gradient-checkpointing`, TRL GRPOConfig's default). Prints seconds per phase of
each iteration (one warm-up, then `--iters` measured) and ends with the result line that
scripts/bench_vs_trl.py reads (side `grue-grpo`, or `grue-grpo-ckpt`).

    .venv/bin/python scripts/bench_grpo.py --prompts FILE [--iters 3] [--threads 2] [--gradient-checkpointing]
        [--profile OUT.json]

With `--profile` the last iteration runs under torch.profiler (its times are then the profiled ones).
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "bench"))

import grpo_setting as setting  # noqa: E402
from common import MINIBATCH_EPISODES, NEW_TOKENS, THREADS, Iteration, report  # noqa: E402


class TextReward:
    """grue's reward interface around the pair's shared text reward."""

    name = "text_length"

    def __call__(self, samples, generations):
        return [setting.text_reward(text) for text in generations]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", required=True, help="a prompts file of scripts/bench/prompts.py")
    parser.add_argument("--iters", type=int, default=3, help="measured iterations (after one warm-up)")
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--gradient-checkpointing", action="store_true",
                        help="recompute each block's activations in the backward pass (TRL GRPOConfig's default)")
    parser.add_argument("--profile", metavar="OUT.json",
                        help="profile the last iteration's update (scripts/bench/update_profile.py) into this file")
    args = parser.parse_args()
    if args.iters < 1 or args.threads < 1:
        parser.error("--iters and --threads must be at least 1")

    import torch
    from accelerate import Accelerator

    from grue.config import load_config
    from grue.data.sample import Sample
    from grue.policy.load import frozen_copy, load_policy
    from grue.train.rl.grpo import GRPOTrainer

    torch.set_num_threads(args.threads)
    episodes = setting.GROUP * setting.PROMPTS_PER_ITERATION
    tokens = episodes * NEW_TOKENS
    cfg = load_config([
        "task=imdb", "profile=mini", "algo=grpo", "seed=0", "model.dtype=float32",
        f"model.gradient_checkpointing={str(args.gradient_checkpointing).lower()}",
        "rollout.top_k=0", "rollout.top_p=1.0", "rollout.temperature=1.0",
        f"rollout.min_new_tokens={NEW_TOKENS}", f"rollout.max_new_tokens={NEW_TOKENS}",
        f"grpo.group_size={setting.GROUP}", f"kl.init_coef={setting.BETA}", "kl.k_beta=0", "kl.placement=loss",
        "kl.estimator=k3",
        "grpo.scale_rewards=true", "grpo.loss_aggregation=sequence",
        f"ppo.steps_per_update={tokens}", f"ppo.total_steps={tokens * (args.iters + 1)}",
        f"ppo.batch_size={MINIBATCH_EPISODES * NEW_TOKENS}", "ppo.epochs=1", "ppo.minibatch=episodes",
        f"ppo.rollout_batch_size={episodes}", f"ppo.clip_range={setting.CLIP}",
        f"ppo.learning_rate={setting.LEARNING_RATE}", f"ppo.max_grad_norm={setting.MAX_GRAD_NORM}",
        f"ppo.weight_decay={setting.WEIGHT_DECAY}", "ppo.ent_coef=0.0",
    ])
    if cfg.model.mixed_precision != "no" or cfg.model.lora.rank:
        raise SystemExit("bench_grpo: the pair runs full fp32 weights without autocast")
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    texts = json.loads(Path(args.prompts).read_text())["texts"]
    train = [Sample(f"bench-{i}", text, (text,)) for i, text in enumerate(texts)]
    trainer = GRPOTrainer(cfg, policy, frozen_copy(policy.model), None, TextReward(), train, Accelerator(cpu=True))
    profile = None
    if args.profile:  # the update's parts labelled as on TRL's side (scripts/bench/update_profile.py)
        from update_profile import UpdateProfile, label

        profile = UpdateProfile(args.profile, "grue-grpo-ckpt" if args.gradient_checkpointing else "grue-grpo")
        label(trainer, "collect", "rollout")
        label(trainer.policy, "action_and_raw_stats", "forward")
        label(trainer, "_backward", "backward")
        label(trainer.accelerator, "clip_grad_norm_", "clip")
        label(trainer.optimizer, "step", "optimizer")
    measured = []
    for i in range(args.iters + 1):
        if profile is not None and i == args.iters:
            profile.start()
        start = time.perf_counter()
        stats = trainer.step()
        total = time.perf_counter() - start
        if profile is not None and i == args.iters:
            profile.stop()
            profile.write(stats["update_s"])
        if stats["episodes"] != episodes or stats["tokens"] != tokens or stats["optimizer_steps"] != 2:
            raise SystemExit(f"bench_grpo: the iteration left the setting: {stats}")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"iteration {i}: {total:.2f} s (rollout {stats['rollout_s']:.2f}, update {stats['update_s']:.2f}); "
              f"peak RSS so far {peak:.0f} MiB", file=sys.stderr)
        if i:
            measured.append(Iteration(rollout_s=stats["rollout_s"], update_s=stats["update_s"]))
    report("grue-grpo-ckpt" if args.gradient_checkpointing else "grue-grpo", measured)


if __name__ == "__main__":
    main()
