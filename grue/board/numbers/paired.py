"""Per-prompt scores of a run and their paired difference to a baseline run on the same prompts (the demo's
closing figure and the measurement scripts, e.g. scripts/measure_imdb_mini.py): pairing by prompt leaves
out how hard the prompts were, so the standard error is that of the method's effect."""
from __future__ import annotations

import json
import math
import statistics
from pathlib import Path


def prompt_scores(run_dir: Path, split: str, metric: str) -> dict[str, float]:
    """Per-prompt `metric` of one split's predictions, by sample id."""
    rows = [json.loads(line) for line in (Path(run_dir) / "predictions" / f"{split}.jsonl").open()]
    return {row["id"]: float(row["scores"][metric]) for row in rows}


def paired(scores: dict[str, float], base: dict[str, float]) -> tuple[float, float, float]:
    """(mean score, mean difference to the baseline, standard error of that difference)."""
    diffs = [scores[i] - base[i] for i in base]
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
    return statistics.mean(scores.values()), statistics.mean(diffs), se
