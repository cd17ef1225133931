"""PPO against PPO + DRLC (reward.dense=critic, the packaged SmolLM2-135M-Instruct as critic) on a mini task.

Both arms get the same budget, seeds and settings; the only difference is the critic's per-token
rewards (the task's own template: sentiment for IMDB, summarisation for CNN/DailyMail). Prints and
writes (<out>/summary.json) per arm: the validation metrics, the learning curve (training reward r_ex
per iteration), training wall time, the critic's time and the wall-time ratio DRLC / PPO (the paper
reports 2.3x with an API critic). The defaults are a REDUCED budget sized for a shared 2-core
machine; IMDB's full mini preset is `--iterations 8 --episodes 32 --eval-prompts 200`, seeds 0 1 2.

    .venv/bin/python scripts/drlc_mini.py --task imdb --seeds 0 --iterations 4 --episodes 8 --eval-prompts 50
    .venv/bin/python scripts/drlc_mini.py --task cnn_dailymail --arms ppo+drlc --iterations 2 --episodes 8
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from grue.config import load_config
from grue.rewards.critic.overhead import iteration_overhead, run_overhead
from grue.run.runner import Run
from grue.storage.atomic import atomic_write_json, read_jsonl


ARMS = {"ppo": False, "ppo+drlc": True}  # arm -> with the critic


def arm_args(seed: int, args: argparse.Namespace, dense: bool) -> list[str]:
    task = [f"task={args.task}", "profile=mini", "algo=ppo"]
    steps = args.episodes * load_config(task).rollout.max_new_tokens  # an iteration of `episodes` full episodes
    common = [*task, f"seed={seed}", f"threads={args.threads}",
              f"output_dir={args.out}", f"ppo.steps_per_update={steps}", f"ppo.total_steps={steps * args.iterations}",
              f"ppo.rollout_batch_size={min(args.episodes, 16)}", f"ppo.batch_size={steps}",
              f"data.max_val={args.eval_prompts}", f"data.max_test={args.eval_prompts}",
              f"eval.eval_every={args.iterations + 1}", "eval.save_every=1"]
    critic = ["reward.dense=critic", "critic.backend=local", f"critic.model={args.critic}",
              f"critic.max_new_tokens={args.critic_tokens}"]
    return common + (critic if dense else [])


def summarise(path: Path) -> dict:
    results = json.loads((path / "results.json").read_text())
    log = read_jsonl(path / "logs" / "train.jsonl")
    overhead = run_overhead(log)
    return {"run": str(path), "val": results["metrics"]["val"],
            "curve": [r["reward_mean"] for r in log], "train_s": overhead["train_s"], "critic_s": overhead["critic_s"],
            "overhead_per_iteration": [round(iteration_overhead(r), 3) for r in log],
            "critic_outcomes": {k.split("/")[1]: sum(r.get(k, 0) for r in log)
                                for k in ("critic/spans", "critic/none", "critic/refusal", "critic/malformed",
                                          "critic/failed")} if "critic/asked" in log[0] else None,
            "spans": {k.split("_")[1]: sum(r.get(k, 0) for r in log)
                      for k in ("critic/spans_marked", "critic/spans_matched", "critic/spans_repeated",
                                "critic/spans_unmatched")} if "critic/asked" in log[0] else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="imdb")
    parser.add_argument("--arms", nargs="+", default=list(ARMS), choices=list(ARMS))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=8, help="episodes per iteration")
    parser.add_argument("--eval-prompts", type=int, default=50)
    parser.add_argument("--critic", default="packaged:smollm2-135m")
    parser.add_argument("--critic-tokens", type=int, default=32)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default="runs/drlc_mini")
    args = parser.parse_args()
    arms: dict[str, list[dict]] = {name: [] for name in args.arms}
    for seed in args.seeds:
        for name in args.arms:
            argv = arm_args(seed, args, ARMS[name])
            arms[name].append(summarise(Run(load_config(argv), argv).execute()))
    summary = {"settings": vars(args), "arms": arms}
    for name, runs in arms.items():
        summary[name] = {**{f"val_{m}": statistics.mean(r["val"][m] for r in runs) for m in runs[0]["val"]},
                         **{key: statistics.mean(r[key] for r in runs) for key in ("train_s", "critic_s")}}
    if len(arms) == 2:
        summary["wall_ratio"] = summary["ppo+drlc"]["train_s"] / summary["ppo"]["train_s"]
    atomic_write_json(Path(args.out) / "summary.json", summary)
    print(json.dumps({k: v for k, v in summary.items() if k not in ("settings", "arms")}, indent=2))
    for name, runs in arms.items():
        for run in runs:
            print(name, "curve", [round(v, 4) for v in run["curve"]], "critic", run["critic_outcomes"], run["spans"])


if __name__ == "__main__":
    main()
