"""The results-file schema (docs/results_schema.md): validation shared by runs and the leaderboard.

Task and algorithm names are checked against the task catalogue (tasks/) and the algorithm registry
(grue/train/registry.py), so a task file or an algorithm added there is valid here with no edit.
"""
from __future__ import annotations

import math
from typing import Any

SCHEMA_VERSION = 1
PROFILES = ("paper", "mini")
SPLITS = ("val", "test")

_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "schema_version": int,
    "status": str,
    "task": str,
    "algo": str,
    "profile": str,
    "seed": int,
    "config_hash": str,
    "versions": dict,
    "metrics": dict,
}


def validate_results(doc: Any) -> list[str]:
    """Return every problem found in a loaded results document; an empty list means valid."""
    if not isinstance(doc, dict):
        return ["results file is not a JSON object"]
    problems = []
    for key, kind in _REQUIRED.items():
        if key not in doc:
            problems.append(f"missing key {key!r}")
        elif not isinstance(doc[key], kind) or isinstance(doc[key], bool):
            problems.append(f"{key!r} should be {getattr(kind, '__name__', kind)}")
    if problems:
        return problems
    if doc["schema_version"] != SCHEMA_VERSION:
        problems.append(f"schema_version {doc['schema_version']} is not {SCHEMA_VERSION}")
    if doc["status"] != "complete":
        problems.append(f"status is {doc['status']!r}, not 'complete'")
    for split, cover in (doc.get("coverage") or {}).items():  # written by `grue score` (docs/results_schema.md)
        if isinstance(cover, dict) and isinstance(cover.get("total"), int) and cover.get("scored") != cover["total"]:
            problems.append(f"covers {cover.get('scored')} of the {cover['total']} ids of its {split} split "
                            "(a partial predictions file)")
    from grue.train.registry import algorithm_names
    from tasks import task_names

    where = {"task": "a task here (tasks/ or a plugin; a task from a file: set GRUE_TASKS_PATH to its folder)", "algo": "a registered algorithm (grue/train/ or a plugin)"}
    for key, allowed in (("task", task_names()), ("algo", algorithm_names()), ("profile", PROFILES)):
        if doc[key] not in allowed:
            known = f"{', '.join(allowed)}; not {where[key]}" if key in where else ", ".join(allowed)
            problems.append(f"{key} {doc[key]!r} is not one of {known}")
    problems += _cost_problems(doc.get("cost"))
    problems += _digest_problems(doc.get("data_sha256"))
    if "reward" in doc and doc["reward"] is not None and not isinstance(doc["reward"], str):
        problems.append("'reward' should be a string or null")
    for split, values in doc["metrics"].items():
        if split not in SPLITS:
            problems.append(f"unknown split {split!r} in metrics")
            continue
        if not isinstance(values, dict):
            problems.append(f"metrics[{split!r}] is not an object")
            continue
        for name, value in values.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                problems.append(f"metrics[{split!r}][{name!r}] is not a finite number")
    return problems


def _count_problem(where: str, value: Any) -> list[str]:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
        return [f"{where} is not a finite, non-negative number"]
    return []


def _cost_problems(cost: Any) -> list[str]:
    """`cost` (grue/results/cost.py) is optional: files written before it existed have none."""
    if cost is None:
        return []
    if not isinstance(cost, dict):
        return ["'cost' is not an object"]
    problems = []
    for key in ("train_generated_tokens", "train_seconds"):
        if key in cost:
            problems += _count_problem(f"cost[{key!r}]", cost[key])
    sampled = cost.get("eval_generated_tokens", {})
    if not isinstance(sampled, dict):
        return problems + ["cost['eval_generated_tokens'] is not an object"]
    for split, value in sampled.items():
        problems += _count_problem(f"cost['eval_generated_tokens'][{split!r}]", value)
    return problems


def _digest_problems(digests: Any) -> list[str]:
    """`data_sha256` (grue/results/digests.py) is optional: files written before it existed have none."""
    if digests is None:
        return []
    if not isinstance(digests, dict):
        return ["'data_sha256' is not an object"]
    return [f"data_sha256[{split!r}] is not a SHA-256 (64 hex digits) of a known split" for split, value in digests.items()
            if split not in SPLITS or not (isinstance(value, str) and len(value) == 64
                                           and all(c in "0123456789abcdef" for c in value))]
