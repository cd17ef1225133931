"""PPO against PPO + DRLC (reward.dense=critic, the packaged SmolLM2-135M-Instruct as critic) on a mini task.

Both arms get the same budget, seeds, reward and settings; the only difference is the critic's per-token
rewards (the task's own template: sentiment for IMDB, summarisation for CNN/DailyMail). Prints and
writes (<out>/summary.json) per arm: the validation and test metrics, the learning curve (training
reward r_ex per iteration), the mean KL per token and per episode and the final beta, training wall
time, the critic's time, the critic's outcomes and span statistics (spans marked / matched / repeated /
unmatched, headings answered "None identified"), and DRLC minus PPO paired per prompt (same seed, same
prompts) on the task metric, per seed and over seeds.

At the paper's balance (docs/dense_rewards.md): DRLC's extrinsic reward on IMDB is the classifier's
positive-class logit, so the IMDB default here is `--reward sentiment_logit` with alpha 1.0 / 0.2.
`--reward sentiment` is the earlier measurement's P(positive), under which the same alphas weigh the
critic several times more (`--scales` measures by how much on this machine's initial policy).

    # the issue's re-run: IMDB mini preset (8 iterations of 32 episodes), 200 evaluation prompts, 3 seeds
    .venv/bin/python scripts/drlc_mini.py --task imdb --seeds 0 1 2 --iterations 8 --episodes 32 \
        --eval-prompts 200 --out runs/drlc_imdb_paper_balance
    # the spread of P(positive), the logit and the log-odds over the initial policy's samples
    .venv/bin/python scripts/drlc_mini.py --task imdb --scales
    .venv/bin/python scripts/drlc_mini.py --task cnn_dailymail --arms ppo+drlc --iterations 2 --episodes 8
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path

from grue.board.numbers.paired import paired, prompt_scores
from grue.config import load_config
from grue.rewards.critic.overhead import iteration_overhead, run_overhead
from grue.run.runner import Run
from grue.storage.atomic import atomic_write_json, read_jsonl

ARMS = {"ppo": False, "ppo+drlc": True}  # arm -> with the critic
OUTCOMES = ("spans", "none", "refusal", "malformed", "failed")
SPAN_COUNTS = ("marked", "matched", "repeated", "unmatched")
TASK_METRIC = {"imdb": "sentiment", "cnn_dailymail": "meteor"}
PAPER_REWARD = {"imdb": "sentiment_logit"}  # DRLC's extrinsic reward where it differs from the task's


def arm_args(seed: int, args: argparse.Namespace, dense: bool) -> list[str]:
    task = [f"task={args.task}", "profile=mini", "algo=ppo"]
    steps = args.episodes * load_config(task).rollout.max_new_tokens  # an iteration of `episodes` full episodes
    common = [*task, f"seed={seed}", f"threads={args.threads}",
              f"output_dir={args.out}", f"ppo.steps_per_update={steps}", f"ppo.total_steps={steps * args.iterations}",
              f"ppo.rollout_batch_size={min(args.episodes, 16)}", f"ppo.batch_size={steps}",
              f"data.max_val={args.eval_prompts}", f"data.max_test={args.eval_prompts}",
              f"eval.eval_every={args.iterations + 1}", "eval.save_every=1"]
    if args.reward:
        common.append(f"reward={args.reward}")
    critic = ["reward.dense=critic", "critic.backend=local", f"critic.model={args.critic}",
              f"critic.max_new_tokens={args.critic_tokens}",
              f"critic.alpha_extrinsic={args.alpha_extrinsic}", f"critic.alpha_intrinsic={args.alpha_intrinsic}"]
    return common + (critic if dense else [])


def summarise(path: Path) -> dict:
    results = json.loads((path / "results.json").read_text())
    log = read_jsonl(path / "logs" / "train.jsonl")
    overhead = run_overhead(log)
    dense = "critic/asked" in log[0]
    return {"run": str(path), "seed": results["seed"], "val": results["metrics"]["val"],
            "test": results["metrics"]["test"], "training_kl": results.get("training_kl"),
            "curve": [r["reward_mean"] for r in log], "train_s": overhead["train_s"], "critic_s": overhead["critic_s"],
            "overhead_per_iteration": [round(iteration_overhead(r), 3) for r in log],
            "critic_outcomes": {k: sum(r.get(f"critic/{k}", 0) for r in log) for k in OUTCOMES} if dense else None,
            "none_under_heading": sum(r.get("critic/none_under_heading", 0) for r in log) if dense else None,
            "spans": {k: sum(r.get(f"critic/spans_{k}", 0) for r in log) for k in SPAN_COUNTS} if dense else None,
            "intrinsic_sum_mean": [r.get("reward/intrinsic_sum_mean") for r in log] if dense else None}


def paired_difference(arms: dict[str, list[dict]], metric: str, split: str) -> dict | None:
    """DRLC minus PPO on `metric`, paired per prompt within each seed; over seeds the mean of the seeds'
    mean differences with the standard error sqrt(sum se^2) / seeds."""
    if set(arms) != set(ARMS):
        return None
    ppo = {r["seed"]: r for r in arms["ppo"]}
    per_seed = {}
    for run in arms["ppo+drlc"]:
        if run["seed"] in ppo:
            _, diff, se = paired(prompt_scores(Path(run["run"]), split, metric),
                                 prompt_scores(Path(ppo[run["seed"]]["run"]), split, metric))
            per_seed[run["seed"]] = {"difference": diff, "se": se}
    if not per_seed:
        return None
    n = len(per_seed)
    return {"metric": metric, "split": split, "per_seed": per_seed,
            "difference": statistics.fmean(v["difference"] for v in per_seed.values()),
            "se": math.sqrt(sum(v["se"] ** 2 for v in per_seed.values())) / n}


def measure_scales(args: argparse.Namespace) -> None:
    """The spread (std) of each sentiment scale over the initial policy's samples (the same 256 samples a
    normalised reward is standardised over), and the alpha_2 that gives P(positive) the logit's balance."""
    from grue.policy.load import load_policy
    from grue.rewards.learned.normalised import RhoNormalisedReward, initial_policy_samples
    from grue.rewards.registry import build_named_reward
    from grue.runtime.process import device_of, seed_everything
    from tasks import get_task

    argv = [f"task={args.task}", "profile=mini", "algo=ppo", f"threads={args.threads}", "seed=0"]
    cfg = load_config(argv)
    import torch

    torch.set_num_threads(args.threads)
    seed_everything(0)
    policy = load_policy(cfg, cfg.model.policy, device_of(cfg))
    train = get_task(args.task).loader(cfg)["train"]
    stats = {}
    samples, texts = initial_policy_samples(cfg, policy, train)
    for name in ("sentiment", "sentiment_logit", "sentiment_logodds"):
        record = RhoNormalisedReward(build_named_reward(cfg, name), name).standardise(samples, texts)
        stats[name] = {"mean": record["mean"], "std": record["std"], "samples": len(record["samples"])}
    ratio = stats["sentiment_logit"]["std"] / stats["sentiment"]["std"]
    stats["logit_std_over_probability_std"] = ratio
    stats["alpha_intrinsic_for_probability_at_the_paper_balance"] = 0.2 / ratio
    stats["logodds_std_over_probability_std"] = stats["sentiment_logodds"]["std"] / stats["sentiment"]["std"]
    print(json.dumps(stats, indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="imdb")
    parser.add_argument("--arms", nargs="+", default=list(ARMS), choices=list(ARMS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=8, help="episodes per iteration")
    parser.add_argument("--eval-prompts", type=int, default=50)
    parser.add_argument("--reward", default=None,
                        help="the extrinsic reward of both arms (default: DRLC's, sentiment_logit on IMDB; the task's elsewhere)")
    parser.add_argument("--alpha-extrinsic", type=float, default=1.0)
    parser.add_argument("--alpha-intrinsic", type=float, default=0.2)
    parser.add_argument("--critic", default="packaged:smollm2-135m")
    parser.add_argument("--critic-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--scales", action="store_true", help="only measure the reward scales over rho's samples")
    parser.add_argument("--out", default="runs/drlc_mini")
    args = parser.parse_args()
    if args.scales:
        measure_scales(args)
        return
    args.reward = args.reward or PAPER_REWARD.get(args.task)
    arms: dict[str, list[dict]] = {name: [] for name in args.arms}
    for seed in args.seeds:
        for name in args.arms:
            argv = arm_args(seed, args, ARMS[name])
            arms[name].append(summarise(Run(load_config(argv), argv).execute()))
    summary: dict = {"settings": vars(args), "arms": arms}
    for name, runs in arms.items():
        summary[name] = {**{f"val_{m}": statistics.mean(r["val"][m] for r in runs) for m in runs[0]["val"]},
                         **{f"test_{m}": statistics.mean(r["test"][m] for r in runs) for m in runs[0]["test"]},
                         **{key: statistics.mean(r[key] for r in runs) for key in ("train_s", "critic_s")},
                         **({f"kl_{k}": statistics.mean(r["training_kl"][k] for r in runs)
                             for k in ("mean_per_token", "mean_per_episode", "final_beta")}
                            if all(r["training_kl"] for r in runs) else {})}
    if len(arms) == 2:
        summary["wall_ratio"] = summary["ppo+drlc"]["train_s"] / summary["ppo"]["train_s"]
    metric = TASK_METRIC.get(args.task)
    if metric:
        summary["drlc_minus_ppo"] = {split: paired_difference(arms, metric, split) for split in ("val", "test")}
    atomic_write_json(Path(args.out) / "summary.json", summary)
    print(json.dumps({k: v for k, v in summary.items() if k not in ("settings", "arms")}, indent=2))
    for name, runs in arms.items():
        for run in runs:
            print(name, "seed", run["seed"], "curve", [round(v, 4) for v in run["curve"]], "critic",
                  run["critic_outcomes"], "none under a heading", run["none_under_heading"], "spans", run["spans"])


if __name__ == "__main__":
    main()
