"""Seconds of mini DPO against mini PPO, measured side by side: what sizes the mini DPO preset (issue 25).

Runs `--steps` optimizer steps of the mini DPO preset (task=imdb profile=mini algo=dpo, SmolLM2-135M) on a
comparisons file, capped by dpo.max_steps so the reference scores only the answers those steps read, then
`--ppo-iters` iterations of the mini PPO preset (32 episodes of 24 tokens, 2 epochs of 4 episode minibatches,
the task's sentiment reward) in the same process, so the two share the machine's load and their ratio is what
to read. Prints seconds per DPO step and per comparison (the policy's forward and backward pass, the
reference's one forward pass), seconds per PPO iteration, and how many comparisons and steps cost what
mini PPO's 8 iterations cost.

    grue label queries task=imdb profile=mini model=packaged:smollm2-135m n=64 k=4 out=labels.jsonl threads=1
    grue label mock task=imdb profile=mini queries=labels.jsonl labeler=sentiment threads=1
    .venv/bin/python scripts/bench_dpo.py --comparisons labels.jsonl --steps 3 --threads 1

The file's candidates should be the study's (scripts/dpo_vs_rm_ppo.py: k=4, the mini rollout's 24 tokens):
a step's cost is its candidates' tokens.
"""
from __future__ import annotations

import argparse
import statistics
import time

import torch
from accelerate import Accelerator

from grue.config import load_config
from grue.data.imdb import load_imdb_splits
from grue.policy.load import build_value, frozen_copy, load_policy
from grue.rewards.registry import build_reward
from grue.train.offline.dpo import DPOTrainer
from grue.train.rl.trainer import RLTrainer

PPO_ITERATIONS = 8  # the mini PPO preset's (tasks/imdb.py: 6,144 steps of 768)


def dpo_seconds(comparisons: str, steps: int, threads: int, extra: list[str]) -> dict[str, float]:
    cfg = load_config(["task=imdb", "profile=mini", "algo=dpo", "seed=0", f"threads={threads}",
                       f"dpo.comparisons={comparisons}", *extra, f"dpo.max_steps={steps}"])
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    trainer = DPOTrainer(cfg, policy, frozen_copy(policy.model), Accelerator(cpu=True))
    lines = [trainer.train_step() for _ in range(trainer.total_steps)]
    for line in lines:
        print(f"DPO step {line['step']}: {line['seconds']:.2f} s ({line['comparisons']} comparisons"
              + (f", of which the reference's pass {line['reference_seconds']:.2f} s" if "reference_seconds" in line
                 else "") + ")", flush=True)
    scored = sum(p.reference is not None for p in trainer.train)
    candidates = sum(len(p.candidates) for p in trainer.train if p.reference is not None)
    first = lines[0]["seconds"] - lines[0]["reference_seconds"]
    later = [line["seconds"] for line in lines[1:]] or [first]  # the first step also warms the allocator up
    step_s = statistics.fmean(later)
    return {"batch": cfg.dpo.batch_size, "step_s": step_s, "per_comparison_s": step_s / cfg.dpo.batch_size,
            "reference_per_comparison_s": lines[0]["reference_seconds"] / scored, "candidates_per_comparison":
            candidates / scored, "heldout": cfg.dpo.heldout}


def ppo_seconds(iterations: int, threads: int) -> float:
    cfg = load_config(["task=imdb", "profile=mini", "algo=ppo", "seed=0", f"threads={threads}"])
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    trainer = RLTrainer(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), build_reward(cfg),
                        load_imdb_splits(cfg)["train"], Accelerator(cpu=True))
    totals = []
    for i in range(iterations):
        start = time.perf_counter()
        stats = trainer.step()
        totals.append(time.perf_counter() - start)
        print(f"PPO iteration {i + 1}: {totals[-1]:.2f} s (rollout {stats['rollout_s']:.2f}, update "
              f"{stats['update_s']:.2f}; {stats['tokens']} tokens)", flush=True)
    return statistics.fmean(totals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--comparisons", required=True, help="an answered comparisons file for IMDB mini")
    parser.add_argument("--steps", type=int, default=3, help="DPO steps measured (the first warms up)")
    parser.add_argument("--ppo-iters", type=int, default=1, help="mini PPO iterations measured")
    parser.add_argument("--labels", type=int, default=1000, help="the study's labelled queries, for the last line")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="overrides for the DPO run")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    dpo = dpo_seconds(args.comparisons, args.steps, args.threads, args.set)
    ppo = ppo_seconds(args.ppo_iters, args.threads)
    budget = PPO_ITERATIONS * ppo
    per_comparison = dpo["per_comparison_s"] + dpo["reference_per_comparison_s"]
    fits = budget / per_comparison
    train = int(args.labels * (1 - dpo["heldout"]))
    print(f"\nDPO: {dpo['step_s']:.2f} s per step of {dpo['batch']} ({dpo['per_comparison_s']:.3f} s per comparison "
          f"of {dpo['candidates_per_comparison']:.1f} candidates) + the reference's "
          f"{dpo['reference_per_comparison_s']:.3f} s per comparison, once")
    print(f"PPO: {ppo:.2f} s per mini iteration; {PPO_ITERATIONS} iterations = {budget:.0f} s here")
    print(f"ratio: one DPO comparison = {per_comparison / ppo:.4f} PPO iterations; mini PPO's budget = {fits:.0f} "
          f"comparisons = {fits / dpo['batch']:.1f} steps of {dpo['batch']}; one epoch over {args.labels} labels' "
          f"{train} training answers = {train * per_comparison / budget:.1f}x mini PPO")


if __name__ == "__main__":
    main()
