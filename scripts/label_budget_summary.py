"""The label-budget study's table (scripts/label_budget_experiment.sh): oracle sentiment, perplexity, KL,
labels used and reward-model accuracy per arm, and what each arm gains over zero-shot against direct RL's gain.

    python scripts/label_budget_summary.py runs/label_budget [split]

Arms: zero-shot; RL on the oracle, as P(positive) (`sentiment`) and at a learned reward's scale
(`sentiment_normalised`: standardised to std 1 over the initial policy's samples, as a learned reward
is); RL on learned rewards, keyed by schedule and the labels the final reward model actually used
(an online schedule labels less than its budget; the budget is its own column). Each RL arm shows its
mean KL over the RL iterations, per token and per episode, and the final beta (results.json
`training_kl`): arms are only comparable at similar KL (Ziegler compares at controlled KL).

Gains are paired: each run is compared prompt by prompt with the zero-shot run of its own seed (same
prompts, same evaluation seed), so the standard error leaves out how hard the prompts were, and an arm's
share of direct RL's gain uses only the seeds both arms have. The share is against the direct arm at
the learned reward's scale when the study has one (column "share of direct gain (scaled)"), and
against direct RL on P(positive) (column "(P)"). Prints a markdown table and writes
<dir>/label_budget_summary.json.
"""
from __future__ import annotations

import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Optional

from grue.board.numbers.paired import paired, prompt_scores

METRIC = "sentiment"
SCALED_ORACLE = "sentiment_normalised"


def arm(doc: dict) -> tuple:
    """Which arm of the study a run belongs to: (kind, schedule, labels used)."""
    reward = doc["config"]["reward"]
    if doc["algo"] == "zero_shot":
        return ("zero-shot", "", 0)
    if doc["reward"] != "learned":
        return (f"RL on the oracle ({doc['reward']})", "", 0)
    used = (doc.get("reward_learning") or {}).get("labels_used", reward["labels"])
    schedule = reward["schedule"] if reward["schedule"] == "offline" else f"{reward['schedule']} ({reward['rounds']} rounds)"
    return ("RL on a learned reward", schedule, used)


def seed_gains(runs: list[tuple[dict, Path]], zero_shot: dict[int, dict[str, float]],
               split: str) -> dict[int, tuple[float, float]]:
    """seed -> (mean per-prompt gain over that seed's zero-shot run, its standard error)."""
    return {doc["seed"]: paired(prompt_scores(path, split, METRIC), zero_shot[doc["seed"]])[1:]
            for doc, path in runs if doc["seed"] in zero_shot}


def share(gains: dict[int, tuple[float, float]], direct: dict[int, tuple[float, float]]) -> Optional[float]:
    both = sorted(set(gains) & set(direct))
    if not both:
        return None
    direct_gain = statistics.fmean(direct[s][0] for s in both)
    return statistics.fmean(gains[s][0] for s in both) / direct_gain if direct_gain else None


def _mean(values: list) -> Optional[float]:
    values = [v for v in values if v is not None]
    return statistics.fmean(values) if values else None


def main(root: Path, split: str = "test") -> None:
    arms: dict[tuple, list[tuple[dict, Path]]] = defaultdict(list)
    for path in sorted(root.glob("*/results.json")):
        doc = json.loads(path.read_text())
        arms[arm(doc)].append((doc, path.parent))
    zero_shot = {doc["seed"]: prompt_scores(path, split, METRIC) for doc, path in arms.get(("zero-shot", "", 0), [])}
    oracle = {key[0]: seed_gains(runs, zero_shot, split) for key, runs in arms.items()
              if key[0].startswith("RL on the oracle")}
    direct_p = oracle.get(f"RL on the oracle ({METRIC})", {})
    direct_scaled = oracle.get(f"RL on the oracle ({SCALED_ORACLE})", {})
    rows = []
    for key in sorted(arms, key=lambda k: (k[0] != "zero-shot", not k[0].startswith("RL on the oracle"), k[0], k[1], k[2])):
        runs = arms[key]
        docs = [doc for doc, _ in runs]
        mean = lambda f: statistics.fmean(f(d) for d in docs)  # noqa: E731
        gains = seed_gains(runs, zero_shot, split) if key[0] != "zero-shot" else {}
        gain = statistics.fmean(g for g, _ in gains.values()) if gains else None
        gain_se = math.sqrt(sum(se ** 2 for _, se in gains.values())) / len(gains) if gains else None
        learned = key[0].startswith("RL on a learned")
        learning = [d["reward_learning"] for d in docs if "reward_learning" in d]
        last_rounds = [r["rounds"][-1] for r in learning]
        kl = [d.get("training_kl") or {} for d in docs]
        rows.append({
            "arm": key[0], "schedule": key[1] or None, "labels_used": key[2] or None,
            "labels_budget": _mean([d["config"]["reward"]["labels"] for d in docs]) if learned else None,
            "seeds": sorted(d["seed"] for d in docs),
            "sentiment": mean(lambda d: d["metrics"][split][METRIC]),
            "gain_over_zero_shot": gain, "gain_se": gain_se,
            "perplexity": mean(lambda d: d["metrics"][split]["perplexity"]),
            "kl_per_token": _mean([k.get("mean_per_token") for k in kl]),
            "kl_per_episode": _mean([k.get("mean_per_episode") for k in kl]),
            "final_beta": _mean([k.get("final_beta") for k in kl]),
            "rm_heldout_accuracy": _mean([r["heldout_accuracy"] for r in last_rounds]),
            "rm_heldout_auc": _mean([r["heldout_auc"] for r in last_rounds]),
            "share_of_direct_gain_scaled": share(gains, direct_scaled) if learned else None,
            "share_of_direct_gain_probability": share(gains, direct_p) if learned else None,
            "wall_time_s": mean(lambda d: d["wall_time_s"]),
        })
    fmt = lambda v, spec: "—" if v is None else format(v, spec)  # noqa: E731
    print(f"| arm | schedule | labels used (budget) | seeds | {split} sentiment | gain over zero-shot (SE) | "
          f"{split} perplexity | KL/token | KL/episode | final beta | RM held-out acc. / AUC | "
          "share of direct gain (scaled) | (P) | wall time (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        gain = "—" if r["gain_over_zero_shot"] is None else f"{r['gain_over_zero_shot']:+.3f} ({r['gain_se']:.3f})"
        rm = "—" if r["rm_heldout_accuracy"] is None else f"{r['rm_heldout_accuracy']:.3f} / {r['rm_heldout_auc']:.3f}"
        labels = "—" if r["labels_used"] is None else f"{r['labels_used']} ({r['labels_budget']:.0f})"
        print(f"| {r['arm']} | {r['schedule'] or '—'} | {labels} | {','.join(map(str, r['seeds']))} | "
              f"{r['sentiment']:.3f} | {gain} | {r['perplexity']:.1f} | {fmt(r['kl_per_token'], '.3f')} | "
              f"{fmt(r['kl_per_episode'], '.2f')} | {fmt(r['final_beta'], '.3g')} | {rm} | "
              f"{fmt(r['share_of_direct_gain_scaled'], '.2f')} | {fmt(r['share_of_direct_gain_probability'], '.2f')} | "
              f"{r['wall_time_s']:.0f} |")
    (root / "label_budget_summary.json").write_text(json.dumps({"split": split, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]), *(sys.argv[2:3]))
