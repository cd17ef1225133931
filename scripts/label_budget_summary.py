"""The label-budget study's table (scripts/label_budget_experiment.sh): oracle sentiment, perplexity and
reward-model accuracy per label budget, and the share of direct RL's gain over zero-shot each recovers.

    python scripts/label_budget_summary.py runs/label_budget [split]

Means over the seeds present; prints a markdown table and writes <dir>/label_budget_summary.json.
"""
from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def arm(doc: dict) -> tuple:
    """Which arm of the study a run belongs to: (kind, schedule, labels)."""
    reward = doc["config"]["reward"]
    if doc["algo"] == "zero_shot":
        return ("zero-shot", "", 0)
    if doc["reward"] != "learned":
        return (f"RL on the oracle ({doc['reward']})", "", 0)
    return ("RL on a learned reward", reward["schedule"], reward["labels"])


def main(root: Path, split: str = "test") -> None:
    arms: dict[tuple, list[dict]] = defaultdict(list)
    for path in sorted(root.glob("*/results.json")):
        doc = json.loads(path.read_text())
        arms[arm(doc)].append(doc)
    mean = lambda docs, f: statistics.fmean(f(d) for d in docs)  # noqa: E731
    base = next((d for k, d in arms.items() if k[0] == "zero-shot"), None)
    direct = next((d for k, d in arms.items() if k[0].startswith("RL on the oracle")), None)
    zs = mean(base, lambda d: d["metrics"][split]["sentiment"]) if base else None
    gain = mean(direct, lambda d: d["metrics"][split]["sentiment"]) - zs if direct and base else None
    rows = []
    for key in sorted(arms, key=lambda k: (k[0] != "zero-shot", not k[0].startswith("RL on the oracle"), k[1], k[2])):
        docs = arms[key]
        sentiment = mean(docs, lambda d: d["metrics"][split]["sentiment"])
        learning = [d["reward_learning"]["rounds"][-1] for d in docs if "reward_learning" in d]
        rows.append({
            "arm": key[0], "schedule": key[1] or None, "labels": key[2] or None, "seeds": sorted(d["seed"] for d in docs),
            "sentiment": sentiment, "perplexity": mean(docs, lambda d: d["metrics"][split]["perplexity"]),
            "rm_heldout_accuracy": statistics.fmean(r["heldout_accuracy"] for r in learning) if learning else None,
            "share_of_direct_gain": (sentiment - zs) / gain if gain and key[0].startswith("RL on a learned") else None,
            "wall_time_s": mean(docs, lambda d: d["wall_time_s"]),
        })
    fmt = lambda v, spec: "—" if v is None else format(v, spec)  # noqa: E731
    print(f"| arm | schedule | labels | seeds | {split} sentiment | {split} perplexity | RM held-out acc. | "
          "share of direct gain | wall time (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['arm']} | {r['schedule'] or '—'} | {fmt(r['labels'], 'd')} | {','.join(map(str, r['seeds']))} | "
              f"{r['sentiment']:.3f} | {r['perplexity']:.1f} | {fmt(r['rm_heldout_accuracy'], '.3f')} | "
              f"{fmt(r['share_of_direct_gain'], '.2f')} | {r['wall_time_s']:.0f} |")
    (root / "label_budget_summary.json").write_text(json.dumps({"split": split, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), *(sys.argv[2:3]))
