"""Measure what PPO and NLPO gain on the IMDB mini preset, paired per prompt against zero-shot.

For every seed: zero-shot, then each RL algorithm (PPO, NLPO, PPO without KL penalty by default) on
the mini profile (PPO with the LLM critic's dense rewards on request); each RL run's validation sentiment is compared prompt by prompt with the zero-shot
run of the same seed (same prompts, same evaluation seed), so the difference's standard error
excludes prompt difficulty. Runs go through `grue run` itself and resume when interrupted: running
the script again reuses the finished runs and finishes the others.

    .venv/bin/python scripts/measure_imdb_mini.py --seeds 0 1 2 [--algos ppo nlpo ppo_nokl]
        [--set ppo.total_steps=3072 ...] [--output-dir runs/measure] [--threads 2]
    .venv/bin/python scripts/measure_imdb_mini.py --seeds 0 --algos grpo ppo rloo reinforce_pp   # issue 25
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from grue.board.numbers.paired import paired, prompt_scores
from grue.config import load_config
from grue.run.runner import Run
from grue.train.registry import algorithm_names, find_algorithm

ALGOS = {"ppo": ["algo=ppo"], "nlpo": ["algo=nlpo"], "ppo_nokl": ["algo=ppo", "kl.target=null"],
         # issue 15's acceptance arm: PPO plus the critic's per-token rewards, the packaged instruct model
         # as critic, everything else the preset's, so it pairs with the "ppo" runs of the same seeds
         "ppo_drlc": ["algo=ppo", "reward.dense=critic", "critic.model=packaged:smollm2-135m"]}
METRIC = "sentiment"


def run_args(algo_args: list[str], seed: int, extra: list[str], output_dir: str, threads: int) -> list[str]:
    return ["task=imdb", "profile=mini", f"seed={seed}", *algo_args, *extra, f"output_dir={output_dir}",
            f"threads={threads}"]


def val_scores(run_dir: Path) -> dict[str, float]:
    """Per-prompt validation sentiment, by sample id."""
    return prompt_scores(run_dir, "val", METRIC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--algos", nargs="+", default=["ppo", "nlpo", "ppo_nokl"],
                        help=f"recipes ({', '.join(sorted(ALGOS))}) or any registered algorithm (grue algos)")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="overrides for the RL runs (e.g. a reduced ppo.total_steps; say so when reporting)")
    parser.add_argument("--output-dir", default="runs/measure_imdb_mini")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    for algo in args.algos:
        if algo not in ALGOS and find_algorithm(algo) is None:
            parser.error(f"unknown algorithm {algo!r}: choose a recipe ({', '.join(sorted(ALGOS))}) "
                         f"or a registered algorithm ({', '.join(algorithm_names())})")

    results = []
    for seed in args.seeds:
        zs_args = run_args(["algo=zero_shot"], seed, [], args.output_dir, args.threads)
        print(f"[measure] seed {seed}: zero_shot", flush=True)
        base = val_scores(Run(load_config(zs_args), zs_args).execute())
        print(f"[measure] seed {seed}: zero_shot val {METRIC} {statistics.mean(base.values()):.4f}", flush=True)
        for algo in args.algos:
            rl_args = run_args(ALGOS.get(algo, [f"algo={algo}"]), seed, args.set, args.output_dir, args.threads)
            print(f"[measure] seed {seed}: {algo}", flush=True)
            run_dir = Run(load_config(rl_args), rl_args).execute()
            mean, diff, se = paired(val_scores(run_dir), base)
            recorded = json.loads((run_dir / "results.json").read_text())
            results.append({"seed": seed, "algo": algo, "val_mean": mean, "paired_diff": diff, "paired_se": se,
                            "perplexity": recorded["metrics"]["val"].get("perplexity", float("nan")),
                            "wall_s": recorded.get("wall_time_s", float("nan"))})
            print(f"[measure] seed {seed}: {algo} val {METRIC} {mean:.4f}, vs zero-shot {diff:+.4f} "
                  f"(SE {se:.4f}, {diff / se if se else float('nan'):+.1f} SE)", flush=True)
    print("\nseed  algo           val      diff     SE      ppl    wall s")
    for r in results:
        print(f"{r['seed']:>4}  {r['algo']:<13} {r['val_mean']:.4f} {r['paired_diff']:+.4f} {r['paired_se']:.4f} "
              f"{r['perplexity']:6.2f} {r['wall_s']:7.0f}")
    for algo in args.algos:
        diffs = [r["paired_diff"] for r in results if r["algo"] == algo]
        if diffs:
            print(f"{algo}: mean paired gain over {len(diffs)} seed(s) {statistics.mean(diffs):+.4f}")
    if args.set:
        print(f"(RL runs with overrides: {' '.join(args.set)})")


if __name__ == "__main__":
    main()
