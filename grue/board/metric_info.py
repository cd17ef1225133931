"""What the board knows about metrics on its own: direction and GRUE Table 1 grouping.

Runs carry a `higher_is_better` map in results.json and that always wins; this table is the
fallback for metric names from DESIGN.md section 4 (and for the paper's reference rows, which
carry no map). The task/naturalness split is GRUE Table 1 (grue_spec.md section 1.1): the
leaderboard's task-preference and naturalness scores average exactly these metrics.
"""
from __future__ import annotations

from typing import Mapping

# Lower is better only for perplexity and TER; everything else in DESIGN.md section 4 rises.
LOWER_IS_BETTER: frozenset[str] = frozenset({"perplexity", "ter"})
# A length is neither better long nor short (the paper tabulates MeanOutputLength as a description).
UNDIRECTED: frozenset[str] = frozenset({"mean_output_length"})
# Corpus counts (n-grams seen once in the whole output): they grow with the number of samples scored,
# so they print as integers and compare only between equally sized evaluations.
COUNT_METRICS: frozenset[str] = frozenset({"unique_1", "unique_2"})

KNOWN_METRICS: tuple[str, ...] = (
    "sentiment", "perplexity", "meteor", "rouge1", "rouge2", "rougeL", "rougeLsum", "rougeL_max",
    "bleu", "bleu3", "bleu4", "sacrebleu", "chrf", "ter", "bertscore", "bleurt", "cider", "spice",
    "coverage", "parent", "summaczs", "intent_accuracy", "msttr", "distinct_1", "distinct_2",
    "entropy_1", "entropy_2", "unique_1", "unique_2",
)

# GRUE Table 1: task-preference metrics and naturalness metrics per task.
TASK_METRICS: dict[str, tuple[str, ...]] = {
    "imdb": ("sentiment",),
    "commongen": ("cider", "rouge2", "rougeL", "bleu3", "bleu4", "meteor", "coverage"),
    "cnn_dailymail": ("summaczs", "rouge1", "rouge2", "rougeL", "rougeLsum", "meteor", "bleu"),
    "totto": ("sacrebleu", "parent"),
    "wmt16": ("ter", "chrf", "rouge1", "rouge2", "rougeL", "rougeLsum", "meteor", "sacrebleu", "bleu"),
    "narrativeqa": ("rouge1", "rouge2", "rougeL", "rougeLsum", "rougeL_max", "meteor", "bleu", "sacrebleu"),
    "dailydialog": ("meteor", "intent_accuracy"),
}
NATURALNESS_METRICS: dict[str, tuple[str, ...]] = {
    "imdb": ("perplexity",),
    "commongen": ("spice",),
    "cnn_dailymail": ("bertscore",),
    "totto": ("bleurt",),
    "wmt16": ("bertscore",),
    "narrativeqa": ("bertscore",),
    "dailydialog": ("bertscore",),
}


def higher_is_better(metric: str, declared: Mapping[str, bool] | None = None) -> bool:
    """Direction of a metric: the run's own declaration first, then this module's table."""
    if declared and metric in declared:
        return bool(declared[metric])
    return metric not in LOWER_IS_BETTER


def direction(metric: str, declared: Mapping[str, bool] | None = None) -> bool | None:
    """What the tables mark: True (↑), False (↓), or None for a metric with no better direction."""
    return None if metric in UNDIRECTED else higher_is_better(metric, declared)


def metric_order(task: str, metrics: list[str] | set[str]) -> list[str]:
    """Table 1 metrics first (task, then naturalness), then the rest in DESIGN.md order, then any others."""
    present = set(metrics)
    head = [m for m in TASK_METRICS.get(task, ()) + NATURALNESS_METRICS.get(task, ()) if m in present]
    known = [m for m in KNOWN_METRICS if m in present and m not in head]
    rest = sorted(present - set(head) - set(known))
    return head + known + rest
