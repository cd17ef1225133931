"""Measure what PPO and NLPO gain on the IMDB mini preset, paired per prompt against zero-shot.

For every seed: zero-shot, then each RL algorithm (PPO, NLPO, PPO without KL penalty by default) on
the mini profile (PPO with the LLM critic's dense rewards on request); each RL run's validation sentiment is compared prompt by prompt with the zero-shot
run of the same seed (same prompts, same evaluation seed), so the difference's standard error
excludes prompt difficulty. Runs go through `grue run` itself and resume when interrupted: running
the script again reuses the finished runs and finishes the others.

    .venv/bin/python scripts/measure_imdb_mini.py --seeds 0 1 2 [--algos ppo nlpo ppo_nokl]
        [--set ppo.total_steps=3072 ...] [--output-dir runs/measure] [--threads 2]
    .venv/bin/python scripts/measure_imdb_mini.py --seeds 0 --algos grpo ppo rloo reinforce_pp   # issue 25
    # issue 40: every critic-free method beside PPO (shared and separate critic) under PPO's regulariser
    .venv/bin/python scripts/measure_imdb_mini.py --seeds 0 1 2 --threads 1 \
        --algos ppo ppo_separate grpo rloo reinforce_pp reinforce_pp_baseline \
        --output-dir docs/studies/imdb_shared_regulariser --summary docs/studies/imdb_shared_regulariser/summary.json
    # issue 43: GDPO and distillation (teacher: the DAPO run of the same seed) beside them
    .venv/bin/python scripts/measure_imdb_mini.py --seeds 0 1 2 --threads 1 --complete-only \
        --algos ppo grpo dapo gspo cispo gdpo distill_dapo --output-dir docs/studies/imdb_shared_regulariser \
        --summary docs/studies/imdb_shared_regulariser/summary_new_methods.json
    # issue 44: learning parity of the bf16 sampler (zero-shot runs copied in from imdb_shared_regulariser)
    .venv/bin/python scripts/measure_imdb_mini.py --seeds 0 1 2 --threads 1 --complete-only \
        --algos ppo_bf16 grpo_bf16 --output-dir docs/studies/imdb_sampler_precision \
        --summary docs/studies/imdb_sampler_precision/summary.json
    # issue 43: the 2025-26 methods beside GRPO and PPO on the same runs (--complete-only while the sweep runs)
    .venv/bin/python scripts/measure_imdb_mini.py --seeds 0 1 2 --threads 1 --complete-only \
        --algos ppo grpo dapo gspo cispo --output-dir docs/studies/imdb_shared_regulariser \
        --summary docs/studies/imdb_shared_regulariser/summary_new_methods.json

Each row reports the validation and the test split's gain (the board reports test), the run's mean
per-token KL to the reference over training, its generated tokens and its training seconds.
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
         "ppo_drlc": ["algo=ppo", "reward.dense=critic", "critic.model=packaged:smollm2-135m"],
         # issue 40: PPO with a value model of its own, so the critic's loss never reaches the policy's trunk
         "ppo_separate": ["algo=ppo", "model.value_model=separate"],
         # issue 44's parity study: the bf16 sampler beside the fp32 learner (docs/speed.md)
         "ppo_bf16": ["algo=ppo", "rollout.precision=bf16"], "grpo_bf16": ["algo=grpo", "rollout.precision=bf16"],
         # issue 43: on-policy distillation from the DAPO run of the same seed in the same folder (a teacher
         # trained at the same budget; its own cost is not counted in the student's tokens)
         "distill_dapo": lambda seed, out: ["algo=distill", f"grpo.teacher.model={teacher_run(out, 'dapo', seed)}"]}
METRIC = "sentiment"


def teacher_run(output_dir: str, algo: str, seed: int) -> str:
    """The one finished run of `algo` and `seed` in the study folder (a distillation's teacher)."""
    found = sorted(Path(output_dir).glob(f"imdb-mini-{algo}-seed{seed}-*/results.json"))
    if len(found) != 1:
        raise SystemExit(f"distill_dapo: expected one finished {algo} run of seed {seed} in {output_dir}, "
                         f"found {len(found)}")
    return str(found[0].parent)


def recipe_args(algo: str, seed: int, output_dir: str) -> list[str]:
    """The `grue run` settings a recipe (or a registered algorithm) names for one seed."""
    recipe = ALGOS.get(algo, [f"algo={algo}"])
    return recipe(seed, output_dir) if callable(recipe) else list(recipe)


def run_args(algo_args: list[str], seed: int, extra: list[str], output_dir: str, threads: int) -> list[str]:
    return ["task=imdb", "profile=mini", f"seed={seed}", *algo_args, *extra, f"output_dir={output_dir}",
            f"threads={threads}"]


def val_scores(run_dir: Path) -> dict[str, float]:
    """Per-prompt validation sentiment, by sample id."""
    return prompt_scores(run_dir, "val", METRIC)


def split_scores(run_dir: Path) -> dict[str, dict[str, float]]:
    """Per-prompt sentiment of each split the run predicted (val, and test where present)."""
    return {split: prompt_scores(run_dir, split, METRIC) for split in ("val", "test")
            if (run_dir / "predictions" / f"{split}.jsonl").is_file()}


def over_seeds(values: list[float]) -> tuple[float, float]:
    """Mean and standard error over seeds (NaN SE for one seed)."""
    se = statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")
    return statistics.mean(values), se


def complete(args: list[str]) -> bool:
    """Whether the run these arguments name has finished (its results.json is valid)."""
    from grue.config import config_hash
    from grue.run.run_dir import RunDir

    cfg = load_config(args)
    return RunDir.for_config(cfg, config_hash(cfg)).complete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--algos", nargs="+", default=["ppo", "nlpo", "ppo_nokl"],
                        help=f"recipes ({', '.join(sorted(ALGOS))}) or any registered algorithm (grue algos)")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE",
                        help="overrides for the RL runs (e.g. a reduced ppo.total_steps; say so when reporting)")
    parser.add_argument("--output-dir", default="runs/measure_imdb_mini")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--summary", default="", help="write every row and the means over seeds to this JSON file")
    parser.add_argument("--complete-only", action="store_true",
                        help="train nothing: summarise the runs already complete (a study still running elsewhere)")
    args = parser.parse_args()
    for algo in args.algos:
        if algo not in ALGOS and find_algorithm(algo) is None:
            parser.error(f"unknown algorithm {algo!r}: choose a recipe ({', '.join(sorted(ALGOS))}) "
                         f"or a registered algorithm ({', '.join(algorithm_names())})")

    results = []
    for seed in args.seeds:
        zs_args = run_args(["algo=zero_shot"], seed, [], args.output_dir, args.threads)
        if args.complete_only and not complete(zs_args):
            continue
        print(f"[measure] seed {seed}: zero_shot", flush=True)
        bases = split_scores(Run(load_config(zs_args), zs_args).execute())
        base = bases["val"]
        print(f"[measure] seed {seed}: zero_shot val {METRIC} {statistics.mean(base.values()):.4f}", flush=True)
        for algo in args.algos:
            rl_args = run_args(recipe_args(algo, seed, args.output_dir), seed, args.set, args.output_dir, args.threads)
            if args.complete_only and not complete(rl_args):
                print(f"[measure] seed {seed}: {algo} not complete yet (skipped)", flush=True)
                continue
            print(f"[measure] seed {seed}: {algo}", flush=True)
            run_dir = Run(load_config(rl_args), rl_args).execute()
            mean, diff, se = paired(val_scores(run_dir), base)
            recorded = json.loads((run_dir / "results.json").read_text())
            cost, kl = recorded.get("cost", {}), recorded.get("training_kl", {})
            row = {"seed": seed, "algo": algo, "run": run_dir.name, "git_commit": recorded.get("git_commit"),
                   "val_mean": mean, "paired_diff": diff, "paired_se": se,
                   "perplexity": recorded["metrics"]["val"].get("perplexity", float("nan")),
                   "wall_s": recorded.get("wall_time_s", float("nan")),
                   "kl_per_token": kl.get("mean_per_token", float("nan")),
                   "train_tokens": cost.get("train_generated_tokens", float("nan")),
                   "train_s": cost.get("train_seconds", float("nan"))}
            scores = split_scores(run_dir)
            if "test" in scores and "test" in bases:
                row["test_mean"], row["test_diff"], row["test_se"] = paired(scores["test"], bases["test"])
                row["test_perplexity"] = recorded["metrics"]["test"].get("perplexity", float("nan"))
            results.append(row)
            print(f"[measure] seed {seed}: {algo} val {METRIC} {mean:.4f}, vs zero-shot {diff:+.4f} "
                  f"(SE {se:.4f}, {diff / se if se else float('nan'):+.1f} SE)", flush=True)
    print("\nseed  algo                   val     diff     SE    | test    diff     SE    |  ppl   KL/tok  tokens  train s")
    for r in results:
        test = (f"{r['test_mean']:.4f} {r['test_diff']:+.4f} {r['test_se']:.4f}" if "test_mean" in r
                else " " * 22)
        print(f"{r['seed']:>4}  {r['algo']:<21} {r['val_mean']:.4f} {r['paired_diff']:+.4f} {r['paired_se']:.4f} | "
              f"{test} | {r['perplexity']:6.2f} {r['kl_per_token']:.4f} {r['train_tokens']:7.0f} {r['train_s']:7.0f}")
    summary = {}
    for algo in args.algos:
        mine = [r for r in results if r["algo"] == algo]
        if not mine:
            continue
        summary[algo] = {"seeds": [r["seed"] for r in mine], "val_gain": over_seeds([r["paired_diff"] for r in mine])}
        line = f"{algo}: mean val gain over {len(mine)} seed(s) {summary[algo]['val_gain'][0]:+.4f} (SE {summary[algo]['val_gain'][1]:.4f})"
        if all("test_diff" in r for r in mine):
            summary[algo]["test_gain"] = over_seeds([r["test_diff"] for r in mine])
            line += f", test {summary[algo]['test_gain'][0]:+.4f} (SE {summary[algo]['test_gain'][1]:.4f})"
        print(line)
    if args.summary:
        Path(args.summary).write_text(json.dumps({"runs": results, "by_algo": summary, "overrides": args.set},
                                                 indent=1) + "\n")
    if args.set:
        print(f"(RL runs with overrides: {' '.join(args.set)})")


if __name__ == "__main__":
    main()
