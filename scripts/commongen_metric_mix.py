"""Summarise issue 43's CommonGen mini metric-mix study: GDPO's per-component normalisation on and off.

    grue sweep task=commongen profile=mini seed=0,1 threads=1 output_dir=docs/studies/commongen_metric_mix \
        algo=zero_shot,gdpo "reward=meteor@1+cider@1" --grid "grpo.loss.reward_normalisation=per_component,total"
    grue sweep task=commongen profile=mini seed=0,1 threads=1 output_dir=docs/studies/commongen_metric_mix \
        algo=gdpo "reward=meteor@1+cider@1" grpo.loss.reward_normalisation=total grpo.scale_rewards=true
    python scripts/commongen_metric_mix.py docs/studies/commongen_metric_mix [--split test]

The reward is METEOR + CIDEr with equal weights; CIDEr's per-sentence values spread about twice as wide as
METEOR's (the script measures it on zero-shot's scores). Three arms, all the gdpo preset otherwise (advantages
whitened over the iteration):
- per_component: each component standardised in its group, (r_i - mean_i) / std_i, then the sum (GDPO, Eq. 4-5);
- total+std: the sum standardised in its group, (R - mean) / std (GRPO's way, GDPO's baseline), so CIDEr's
  wider spread decides more of each advantage;
- total: the sum centred in its group, R - mean, no division (the gdpo preset with the per-component step
  off), so a group's advantages keep its spread (Dr. GRPO's choice) and near-ties are not amplified.
For every seed and arm: METEOR, CIDEr and BERTScore minus zero-shot's, paired per concept set (zero-shot decodes
greedily, so its seeds agree), and each arm against per_component, paired per concept set within a seed.
Reads the finished runs only; trains nothing.
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import yaml

from grue.board.numbers.paired import paired, prompt_scores

METRICS = ("meteor", "cider", "bertscore")
ARMS = ("per_component", "total+std", "total")


def finished(folder: Path) -> dict[tuple[str, int], Path]:
    """(arm, seed) -> run directory for every finished run: arm is zero_shot or the reward normalisation."""
    runs = {}
    for results in sorted(folder.glob("*/results.json")):
        doc = json.loads(results.read_text())
        if doc["algo"] == "zero_shot":
            arm = "zero_shot"
        else:
            config = yaml.safe_load((results.parent / "config.yaml").read_text())
            arm = config["grpo"]["loss"]["reward_normalisation"]
            if arm == "total" and config["grpo"]["scale_rewards"]:
                arm = "total+std"
        runs[(arm, int(doc["seed"]))] = results.parent
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--split", default="val", choices=("val", "test"))
    args = parser.parse_args()
    runs = finished(args.folder)
    seeds = sorted({seed for arm, seed in runs if arm != "zero_shot"})
    base_of = {seed: runs.get(("zero_shot", seed)) or runs[("zero_shot", 0)] for seed in seeds}
    spread = {m: statistics.stdev(prompt_scores(base_of[seeds[0]], args.split, m).values()) for m in METRICS}
    print(f"zero-shot per-sentence spread on {args.split} (std): " + ", ".join(f"{m} {spread[m]:.4f}" for m in METRICS))
    rows = []
    for seed in seeds:
        for arm in ARMS:
            run = runs.get((arm, seed))
            if run is None:
                continue
            doc = json.loads((run / "results.json").read_text())
            row = {"arm": arm, "seed": seed, "run": run.name, "git_commit": doc.get("git_commit"),
                   "tokens": doc["cost"]["train_generated_tokens"], "train_s": doc["cost"].get("train_seconds"),
                   "kl_per_token": doc.get("training_kl", {}).get("mean_per_token")}
            for metric in METRICS:
                _, diff, se = paired(prompt_scores(run, args.split, metric), prompt_scores(base_of[seed], args.split, metric))
                row[metric] = [diff, se]
            rows.append(row)
    print(f"\n{args.split} gains against zero-shot, paired per concept set (SE)")
    print("arm            seed  " + "  ".join(f"{m:>17}" for m in METRICS) + "  tokens  KL/tok  train s")
    for r in rows:
        gains = "  ".join(f"{r[m][0]:+.4f} ({r[m][1]:.4f})" for m in METRICS)
        print(f"{r['arm']:<14} {r['seed']:>4}  {gains}  {r['tokens']:>6}  {r['kl_per_token']:.4f}  {r['train_s']:7.0f}")
    contrasts = []
    for seed in seeds:
        on = runs.get(("per_component", seed))
        for arm in ARMS[1:]:
            off = runs.get((arm, seed))
            if on is None or off is None:
                continue
            row = {"seed": seed, "arm": arm}
            for metric in METRICS:
                _, diff, se = paired(prompt_scores(on, args.split, metric), prompt_scores(off, args.split, metric))
                row[metric] = [diff, se]
            contrasts.append(row)
    if contrasts:
        print("\nper_component - the other arm, paired per concept set (SE)")
        for r in contrasts:
            print(f"seed {r['seed']} vs {r['arm']:<9}: " + "  ".join(f"{m} {r[m][0]:+.4f} ({r[m][1]:.4f})" for m in METRICS))
    out = args.folder / f"summary_{args.split}.json"
    out.write_text(json.dumps({"spread": spread, "runs": rows, "per_component_minus_other": contrasts}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
