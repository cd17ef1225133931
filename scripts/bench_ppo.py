"""Benchmark one PPO iteration on the setting of docs/speed.md, "Training speed against TRL".

SmolLM2-135M, 16 prompts x 48 sampled tokens (top-k 0, no early EOS), 1 PPO epoch, minibatches of
384 transitions (2 an epoch; each mixes tokens of all 16 episodes, so each runs all of them up to
its last selected step), separate critic (or shared with `--shared`). Prints seconds per phase over measured
iterations (after one warm-up), tokens per second and peak RSS. Compare as ratios on one machine.

    .venv/bin/python scripts/bench_ppo.py [--iters 3] [--shared] [--nlpo] [--threads 2] [--batch-size 384]
                                          [--minibatch transitions|episodes] [--prompts FILE]

`--prompts` takes the token-identical prompts `make bench` gives every side (scripts/bench/prompts.py)
and ends with the side's result line for scripts/bench_vs_trl.py; without it the prompts are mini-IMDB's.

`--batch-size 768` (the whole rollout in one minibatch) costs one forward and backward pass over the
episodes per epoch, what cutting minibatches out of whole episodes cost before transitions were drawn
from the whole rollout; its update time against the default's is the price of mixing episodes.

`--profile` runs the last measured iteration under torch.profiler and prints its top operators by own
CPU time and the share of that time spent in matrix products (forward and backward) and attention:
what bounds an iteration, and so what any speed-up has to remove.

`--minibatch episodes` (ppo.minibatch=episodes) cuts the 2 minibatches out of whole episodes, 8 each:
TRL's setting, which `make bench` compares against.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import torch
from accelerate import Accelerator

from grue.config import load_config
from grue.data.imdb import load_imdb_splits
from grue.data.sample import Sample
from grue.policy.load import build_value, frozen_copy, load_policy
from grue.train.rl.nlpo import NLPOTrainer
from grue.train.rl.trainer import RLTrainer


class LengthReward:
    """A cheap Python reward (TRL's anchor used a small reward module); its cost is not what is measured."""

    name = "length"

    def __call__(self, samples, generations):
        return [len(g) / 200 for g in generations]


# Operators whose own time is dense linear algebra: the matrix products of every Linear layer (forward and,
# through MmBackward, backward) and the fused attention kernel.
MATRIX_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_scaled_dot_product_flash_attention_for_cpu",
              "aten::_scaled_dot_product_flash_attention_for_cpu_backward")


def print_profile(profiler) -> None:
    events = profiler.key_averages()
    total = sum(e.self_cpu_time_total for e in events)
    matrix = sum(e.self_cpu_time_total for e in events if e.key in MATRIX_OPS)
    print(events.table(sort_by="self_cpu_time_total", row_limit=12))
    print(f"matrix products and attention: {100 * matrix / max(total, 1):.1f} % of the iteration's operator time "
          f"({matrix / 1e6:.1f} of {total / 1e6:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=3)
    parser.add_argument("--shared", action="store_true")
    parser.add_argument("--nlpo", action="store_true")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=384, help="PPO minibatch, in transitions")
    parser.add_argument("--minibatch", choices=("transitions", "episodes"), default="transitions",
                        help="what a minibatch is cut from (ppo.minibatch)")
    parser.add_argument("--prompts", help="a prompts file of scripts/bench/prompts.py (make bench)")
    parser.add_argument("--profile", action="store_true", help="profile the last iteration's operators")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    cfg = load_config([
        "task=imdb", "profile=mini", f"algo={'nlpo' if args.nlpo else 'ppo'}", "seed=0",
        f"model.value_model={'shared' if args.shared else 'separate'}",
        "rollout.top_k=0", "rollout.min_new_tokens=48", "rollout.max_new_tokens=48",
        "ppo.steps_per_update=768", f"ppo.total_steps={768 * (args.iters + 1)}", f"ppo.batch_size={args.batch_size}",
        "ppo.epochs=1", "ppo.rollout_batch_size=16", f"ppo.minibatch={args.minibatch}",
    ])
    policy = load_policy(cfg, cfg.model.policy, "cpu")
    if args.prompts:
        texts = json.loads(Path(args.prompts).read_text())["texts"]
        train = [Sample(f"bench-{i}", text, (text,)) for i, text in enumerate(texts)]
    else:
        train = load_imdb_splits(cfg)["train"]
    trainer_class = NLPOTrainer if args.nlpo else RLTrainer
    trainer = trainer_class(cfg, policy, frozen_copy(policy.model), build_value(cfg, policy), LengthReward(), train,
                            Accelerator(cpu=True))
    rows = []
    for i in range(args.iters + 1):
        profiler = (torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
                    if args.profile and i == args.iters else None)
        start = time.perf_counter()
        with profiler if profiler is not None else nullcontext():
            stats = trainer.step()
        total = time.perf_counter() - start
        if profiler is not None:
            print_profile(profiler)
        peak_so_far = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"iteration {i}: {total:.2f} s (rollout {stats['rollout_s']:.2f}, update {stats['update_s']:.2f}); "
              f"peak RSS so far {peak_so_far:.0f} MiB")
        if i:
            rows.append((total, stats["rollout_s"], stats["update_s"], stats["tokens"]))
    mean = [statistics.mean(r[k] for r in rows) for k in range(4)]
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"mean s/iteration {mean[0]:.2f} (rollout {mean[1]:.2f}, update {mean[2]:.2f}); "
          f"{mean[3] / mean[0]:.1f} trained tokens/s; peak RSS {peak_mib:.0f} MiB")
    if args.prompts:
        sys.path.insert(0, str(Path(__file__).resolve().parent / "bench"))
        from common import Iteration, report

        side = "grue-nlpo" if args.nlpo else "grue-shared" if args.shared else "grue-separate"
        report(side, [Iteration(rollout_s=r[1], update_s=r[2]) for r in rows])


if __name__ == "__main__":
    main()
