"""DPO against a reward model + PPO on the same labels (issue 25), on IMDB mini by default.

One comparisons file is made once: `labels` queries of k candidates sampled from the initial policy (rho) on
train prompts, answered by the label-budget study's mock labeler (the task's sentiment classifier,
docs/learned_rewards.md). From it:
- RM+PPO: `grue label train` fits a reward model (the study's settings: MiniLM backbone, Adam 5e-5, batch 8,
  64 tokens), then `algo=ppo reward=learned reward.model=<it>` per seed, on the mini PPO preset;
- DPO: `algo=dpo dpo.comparisons=<the file>` per seed, on the mini DPO preset (sized to mini PPO's training
  seconds: 8 steps of 16, 128 of the 900 training answers; `--dpo-set dpo.max_steps=null` trains one epoch on
  all of them, 6-7x the seconds, docs/algorithms.md);
- zero-shot per seed, against which every run's sentiment is paired prompt by prompt.
Both arms hold out the same queries (the reward model's rm_heldout and dpo.heldout share their hash rule).
Everything goes through grue's own commands and runs, so the same command again reuses what is finished.

    .venv/bin/python scripts/dpo_vs_rm_ppo.py --labels 1000 --seeds 0 1 2          # the issue's comparison
    .venv/bin/python scripts/dpo_vs_rm_ppo.py --labels 16 --seeds 0 --eval-n 8 \\
        --set ppo.total_steps=96 ppo.steps_per_update=96 ppo.batch_size=48 --dpo-set dpo.batch_size=8  # a check

Prints a markdown table (test sentiment by the oracle classifier, paired gain over zero-shot with its
standard error, perplexity, the implicit or learned reward's held-out accuracy, generated tokens and seconds
of training, wall seconds), then DPO minus RM+PPO paired per test prompt for each seed, and writes <output-dir>/dpo_vs_rm_ppo.json, or, with overrides, a file named by
them (dpo_vs_rm_ppo-dpo.max_steps=null.json), so one arm's figures never overwrite another's.

A study that spans sessions: `--complete-only` runs nothing and tabulates the seeds whose runs are all
complete (the table says which seeds those are).
"""
from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from grue.board.numbers.paired import paired, prompt_scores
from grue.config import load_config
from grue.run.runner import Run

METRIC = "sentiment"
RM_SETTINGS = ["reward.rm_learning_rate=5e-5", "reward.rm_batch_size=8", "reward.rm_max_length=64"]
CLASSIFIER = "eval.metric_options.sentiment_model=packaged:minilm-sentiment-split42"  # the oracle, as a metric


def grue(*args: str) -> None:
    """A `grue` command, as a user types it (printed first)."""
    exe = shutil.which("grue") or str(Path(sys.executable).parent / "grue")
    print("[dpo-vs-rm] grue " + " ".join(args), flush=True)
    subprocess.run([exe, *args], check=True)


def make_labels(out: Path, common: list[str], labels: int, k: int, model: str | None) -> tuple[Path, float]:
    """The comparisons file (queries from rho, the mock labeler's answers); resumes a file cut short."""
    path = out / "labels" / "comparisons.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    rho = model or load_config(common).model.policy
    grue("label", "queries", *common, f"model={rho}", f"n={labels}", f"k={k}", f"out={path}")
    grue("label", "mock", *common, f"queries={path}", "labeler=sentiment")
    return path, time.time() - started


def train_reward_model(out: Path, common: list[str], labels: Path, backbone: str) -> tuple[Path, float]:
    model = out / "reward_model"
    started = time.time()
    if not (model / "reward_model.json").exists():
        grue("label", "train", *common, f"comparisons={labels}", f"out={model}", f"backbone={backbone}", *RM_SETTINGS)
    return model, time.time() - started


def run(args: list[str]) -> Path:
    print("[dpo-vs-rm] grue run " + " ".join(args), flush=True)
    return Run(load_config(args), args).execute()


def complete_run(args: list[str]) -> Path | None:
    """The run directory of `args` if that run is complete, else None (nothing is run)."""
    from grue.config.identity import config_hash
    from grue.run.run_dir import RunDir

    cfg = load_config(args)
    run_dir = RunDir.for_config(cfg, config_hash(cfg))
    return run_dir.path if run_dir.complete() else None


def summary_name(args: argparse.Namespace) -> str:
    """dpo_vs_rm_ppo.json for the preset arms, else a name carrying the overrides."""
    overrides = [*args.set, *args.dpo_set] + ([f"eval_n={args.eval_n}"] if args.eval_n else [])
    return "-".join(["dpo_vs_rm_ppo", *overrides]).replace("/", "_") + ".json"


def heldout_accuracy(arm: str, run_dir: Path, reward_model: Path) -> float:
    """DPO: its implicit reward's on the held-out answers (last log line); RM+PPO: the reward model's."""
    if arm == "dpo":
        log = [json.loads(line) for line in (run_dir / "logs" / "train.jsonl").read_text().splitlines()]
        return float(log[-1].get("heldout_accuracy", math.nan))
    record = reward_model / "reward_model.json"  # not kept with a study's runs (weights): absent on a new machine
    return float(json.loads(record.read_text()).get("heldout_accuracy", math.nan)) if record.exists() else math.nan


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="imdb")
    parser.add_argument("--labels", type=int, default=1000, help="answered comparisons (queries) to label")
    parser.add_argument("--k", type=int, default=4, help="candidates per query (Ziegler's 4)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--eval-n", type=int, default=None, help="val/test prompts (default: the preset's)")
    parser.add_argument("--backbone", default="packaged:minilm", help="the reward model's backbone")
    parser.add_argument("--label-model", default=None, help="model the queries are sampled from (default: rho)")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="overrides for the PPO runs")
    parser.add_argument("--dpo-set", nargs="*", default=[], metavar="KEY=VALUE", help="overrides for the DPO runs")
    parser.add_argument("--output-dir", default="runs/dpo_vs_rm_ppo")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--complete-only", action="store_true",
                        help="run nothing; tabulate the seeds whose runs are all complete")
    args = parser.parse_args()

    out = Path(args.output_dir)
    common = [f"task={args.task}", "profile=mini", f"threads={args.threads}"]
    evals = [f"data.max_val={args.eval_n}", f"data.max_test={args.eval_n}"] if args.eval_n else []
    if args.complete_only:
        labels, label_s, reward_model, rm_s = out / "labels" / "comparisons.jsonl", math.nan, out / "reward_model", math.nan
    else:
        labels, label_s = make_labels(out, common, args.labels, args.k, args.label_model)
        reward_model, rm_s = train_reward_model(out, common, labels, args.backbone)
    arms = {"rm_ppo": ["algo=ppo", "reward=learned", f"reward.model={reward_model}", CLASSIFIER, *args.set],
            "dpo": ["algo=dpo", f"dpo.comparisons={labels}", *args.dpo_set]}
    rows, head_to_head = [], []
    for seed in args.seeds:
        base = [*common, f"seed={seed}", f"output_dir={out}", *evals]
        if args.complete_only:
            dirs = {arm: complete_run([*base, *arm_args])
                    for arm, arm_args in {"zero_shot": ["algo=zero_shot"], **arms}.items()}
            if None in dirs.values():
                print(f"[dpo-vs-rm] seed {seed}: not complete ({', '.join(a for a, d in dirs.items() if d is None)})")
                continue
        else:
            dirs = {"zero_shot": run([*base, "algo=zero_shot"])}
        zero = prompt_scores(dirs["zero_shot"], "test", METRIC)
        scores = {}
        for arm, arm_args in arms.items():
            run_dir = dirs[arm] if args.complete_only else run([*base, *arm_args])
            doc = json.loads((run_dir / "results.json").read_text())
            scores[arm] = prompt_scores(run_dir, "test", METRIC)
            mean, gain, se = paired(scores[arm], zero)
            cost = doc.get("cost", {})
            rows.append({"arm": arm, "seed": seed, "test_sentiment": mean, "gain": gain, "gain_se": se,
                         "perplexity": doc["metrics"]["test"].get("perplexity", math.nan),
                         "heldout_accuracy": heldout_accuracy(arm, run_dir, reward_model),
                         "train_generated_tokens": cost.get("train_generated_tokens", math.nan),
                         "train_seconds": cost.get("train_seconds", math.nan), "wall_s": doc.get("wall_time_s"),
                         "run_dir": str(run_dir)})
        _, diff, diff_se = paired(scores["dpo"], scores["rm_ppo"])  # the same test prompts, prompt by prompt
        head_to_head.append({"seed": seed, "dpo_minus_rm_ppo": diff, "se": diff_se})
    print(f"\nlabels: {args.labels} {args.k}-way comparisons ({label_s:.0f} s to sample and label), reward model "
          f"{rm_s:.0f} s; test {METRIC} by the oracle classifier, gains paired per prompt against zero-shot\n")
    print("| arm | seeds | test sentiment | gain over zero-shot (SE) | test ppl | held-out acc. | train tokens | train s |")
    print("|---|---|---|---|---|---|---|---|")
    for arm in arms:
        mine = [r for r in rows if r["arm"] == arm]
        mean = lambda key: statistics.fmean(r[key] for r in mine)  # noqa: E731
        se = math.sqrt(sum(r["gain_se"] ** 2 for r in mine)) / len(mine)
        print(f"| {'RM+PPO' if arm == 'rm_ppo' else 'DPO'} | {','.join(str(r['seed']) for r in mine)} | "
              f"{mean('test_sentiment'):.3f} | {mean('gain'):+.3f} ({se:.3f}) | {mean('perplexity'):.1f} | "
              f"{mean('heldout_accuracy'):.3f} | {mean('train_generated_tokens'):.0f} | {mean('train_seconds'):.0f} |")
    if head_to_head:
        each = ", ".join(f"seed {h['seed']} {h['dpo_minus_rm_ppo']:+.3f} ({h['se']:.3f})" for h in head_to_head)
        mean = statistics.fmean(h["dpo_minus_rm_ppo"] for h in head_to_head)
        se = math.sqrt(sum(h["se"] ** 2 for h in head_to_head)) / len(head_to_head)
        print(f"\nDPO minus RM+PPO, paired per test prompt: {each}; mean {mean:+.3f} ({se:.3f})")
    if args.complete_only:
        return  # a partial table: the summary file is written by the whole study only
    (out / summary_name(args)).write_text(json.dumps({"labels": args.labels, "k": args.k, "label_seconds": label_s,
                                                        "reward_model_seconds": rm_s, "runs": rows,
                                                        "dpo_minus_rm_ppo": head_to_head}, indent=1))
    if args.set or args.dpo_set or args.eval_n:
        print(f"(overrides: PPO {' '.join(args.set) or '-'}; DPO {' '.join(args.dpo_set) or '-'}; "
              f"eval prompts {args.eval_n or 'preset'})")


if __name__ == "__main__":
    main()
