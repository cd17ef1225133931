"""The label-budget study's table (scripts/label_budget_experiment.sh): oracle sentiment, perplexity and
reward-model accuracy per label budget, and what each arm gains over zero-shot against direct RL's gain.

    python scripts/label_budget_summary.py runs/label_budget [split]

Gains are paired: each run is compared prompt by prompt with the zero-shot run of its own seed (same
prompts, same evaluation seed), so the standard error leaves out how hard the prompts were, and an arm's
share of direct RL's gain uses only the seeds both arms have (an arm still missing a seed is not compared
with a mean over seeds it lacks). Prints a markdown table and writes <dir>/label_budget_summary.json.
"""
from __future__ import annotations

import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from grue.board.numbers.paired import paired, prompt_scores

METRIC = "sentiment"


def arm(doc: dict) -> tuple:
    """Which arm of the study a run belongs to: (kind, schedule, labels)."""
    reward = doc["config"]["reward"]
    if doc["algo"] == "zero_shot":
        return ("zero-shot", "", 0)
    if doc["reward"] != "learned":
        return (f"RL on the oracle ({doc['reward']})", "", 0)
    return ("RL on a learned reward", reward["schedule"], reward["labels"])


def seed_gains(runs: list[tuple[dict, Path]], zero_shot: dict[int, dict[str, float]],
               split: str) -> dict[int, tuple[float, float]]:
    """seed -> (mean per-prompt gain over that seed's zero-shot run, its standard error)."""
    return {doc["seed"]: paired(prompt_scores(path, split, METRIC), zero_shot[doc["seed"]])[1:]
            for doc, path in runs if doc["seed"] in zero_shot}


def main(root: Path, split: str = "test") -> None:
    arms: dict[tuple, list[tuple[dict, Path]]] = defaultdict(list)
    for path in sorted(root.glob("*/results.json")):
        doc = json.loads(path.read_text())
        arms[arm(doc)].append((doc, path.parent))
    zero_shot = {doc["seed"]: prompt_scores(path, split, METRIC) for doc, path in arms.get(("zero-shot", "", 0), [])}
    direct_key = next((k for k in arms if k[0].startswith("RL on the oracle")), None)
    direct = seed_gains(arms[direct_key], zero_shot, split) if direct_key else {}
    rows = []
    for key in sorted(arms, key=lambda k: (k[0] != "zero-shot", not k[0].startswith("RL on the oracle"), k[1], k[2])):
        runs = arms[key]
        docs = [doc for doc, _ in runs]
        mean = lambda f: statistics.fmean(f(d) for d in docs)  # noqa: E731
        gains = seed_gains(runs, zero_shot, split) if key[0] != "zero-shot" else {}
        gain = statistics.fmean(g for g, _ in gains.values()) if gains else None
        gain_se = math.sqrt(sum(se ** 2 for _, se in gains.values())) / len(gains) if gains else None
        both = sorted(set(gains) & set(direct))
        share = None
        if key[0].startswith("RL on a learned") and both:
            direct_gain = statistics.fmean(direct[s][0] for s in both)
            share = statistics.fmean(gains[s][0] for s in both) / direct_gain if direct_gain else None
        learning = [d["reward_learning"]["rounds"][-1] for d in docs if "reward_learning" in d]
        rows.append({
            "arm": key[0], "schedule": key[1] or None, "labels": key[2] or None, "seeds": sorted(d["seed"] for d in docs),
            "sentiment": mean(lambda d: d["metrics"][split][METRIC]),
            "gain_over_zero_shot": gain, "gain_se": gain_se,
            "perplexity": mean(lambda d: d["metrics"][split]["perplexity"]),
            "rm_heldout_accuracy": statistics.fmean(r["heldout_accuracy"] for r in learning) if learning else None,
            "rm_heldout_auc": statistics.fmean(r["heldout_auc"] for r in learning) if learning else None,
            "share_of_direct_gain": share, "share_seeds": both if share is not None else None,
            "wall_time_s": mean(lambda d: d["wall_time_s"]),
        })
    fmt = lambda v, spec: "—" if v is None else format(v, spec)  # noqa: E731
    print(f"| arm | schedule | labels | seeds | {split} sentiment | gain over zero-shot (SE) | {split} perplexity | "
          "RM held-out acc. / AUC | share of direct gain | wall time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        gain = "—" if r["gain_over_zero_shot"] is None else f"{r['gain_over_zero_shot']:+.3f} ({r['gain_se']:.3f})"
        rm = "—" if r["rm_heldout_accuracy"] is None else f"{r['rm_heldout_accuracy']:.3f} / {r['rm_heldout_auc']:.3f}"
        print(f"| {r['arm']} | {r['schedule'] or '—'} | {fmt(r['labels'], 'd')} | {','.join(map(str, r['seeds']))} | "
              f"{r['sentiment']:.3f} | {gain} | {r['perplexity']:.1f} | {rm} | {fmt(r['share_of_direct_gain'], '.2f')} | "
              f"{r['wall_time_s']:.0f} |")
    (root / "label_budget_summary.json").write_text(json.dumps({"split": split, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), *(sys.argv[2:3]))
