"""Per-prompt scores of a run and their paired difference to a baseline run on the same prompts (the demo's
closing figure and the measurement scripts, e.g. scripts/measure_imdb_mini.py): pairing by prompt leaves
out how hard the prompts were, so the standard error is that of the method's effect."""
from __future__ import annotations

import math
import statistics
from pathlib import Path

from grue.storage.run_layout import predictions_file, read_jsonl


def prompt_scores(run_dir: Path, split: str, metric: str) -> dict[str, float]:
    """Per-prompt `metric` of one split's predictions, by sample id."""
    path = predictions_file(run_dir, split)
    if not path.is_file():  # a difference over no prompts means nothing: name the file that is missing
        raise FileNotFoundError(f"{path}: no predictions of the {split} split")
    rows = read_jsonl(path)
    return {row["id"]: float(row["scores"][metric]) for row in rows}


def paired(scores: dict[str, float], base: dict[str, float]) -> tuple[float, float, float]:
    """(mean score, mean difference to the baseline, standard error of that difference)."""
    diffs = [scores[i] - base[i] for i in base]
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else float("nan")
    return statistics.mean(scores.values()), statistics.mean(diffs), se
