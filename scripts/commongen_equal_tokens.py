"""Summarise issue 40's CommonGen mini pair: GRPO and PPO at equal generated tokens, paired against zero-shot.

    grue sweep task=commongen profile=mini seed=0,1 algo=zero_shot,ppo,grpo threads=1 \
        output_dir=docs/studies/commongen_equal_tokens
    python scripts/commongen_equal_tokens.py docs/studies/commongen_equal_tokens [--split val]

For every seed and RL algorithm: the tokens its policy generated while training and their ratio to the PPO
run of the same seed (the board's equal-token check admits 2 %), and METEOR (the reward), CIDEr and BERTScore
minus zero-shot's, paired per concept set (same prompts; zero-shot decodes greedily, so its seeds agree).
Reads the finished runs only; trains nothing.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from grue.board.numbers.paired import paired, prompt_scores
from grue.board.numbers.budget import TOKEN_TOLERANCE

METRICS = ("meteor", "cider", "bertscore")


def finished(folder: Path) -> dict[tuple[str, int], Path]:
    """(algo, seed) -> run directory, for every run with a results.json."""
    runs = {}
    for results in sorted(folder.glob("*/results.json")):
        doc = json.loads(results.read_text())
        runs[(doc["algo"], int(doc["seed"]))] = results.parent
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--split", default="val", choices=("val", "test"))
    args = parser.parse_args()
    runs = finished(args.folder)
    rows = []
    for (algo, seed), run in sorted(runs.items()):
        if algo == "zero_shot":
            continue
        base = runs.get(("zero_shot", seed)) or runs.get(("zero_shot", 0))
        doc = json.loads((run / "results.json").read_text())
        tokens = doc["cost"]["train_generated_tokens"]
        ppo = runs.get(("ppo", seed))
        ppo_tokens = json.loads((ppo / "results.json").read_text())["cost"]["train_generated_tokens"] if ppo else None
        row = {"algo": algo, "seed": seed, "run": run.name, "git_commit": doc.get("git_commit"), "tokens": tokens,
               "tokens_vs_ppo": tokens / ppo_tokens if ppo_tokens else None,
               "kl_per_token": doc.get("training_kl", {}).get("mean_per_token"),
               "train_s": doc["cost"].get("train_seconds")}
        for metric in METRICS:
            if base is not None:
                _, diff, se = paired(prompt_scores(run, args.split, metric), prompt_scores(base, args.split, metric))
                row[metric] = (diff, se)
        rows.append(row)
    print(f"{args.split} gains against zero-shot, paired per concept set (SE); tokens within "
          f"{TOKEN_TOLERANCE:.0%} of PPO's pass the board's equal-token check")
    print("algo  seed  " + "  ".join(f"{m:>17}" for m in METRICS) + "  tokens  x PPO  KL/tok  train s")
    for r in rows:
        gains = "  ".join(f"{r[m][0]:+.4f} ({r[m][1]:.4f})" if m in r else " " * 17 for m in METRICS)
        ratio = f"{r['tokens_vs_ppo']:.3f}" if r["tokens_vs_ppo"] else "  -  "
        print(f"{r['algo']:<5} {r['seed']:>4}  {gains}  {r['tokens']:>6}  {ratio}  {r['kl_per_token']:.4f}  "
              f"{r['train_s']:7.0f}")
    out = args.folder / f"summary_{args.split}.json"
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
