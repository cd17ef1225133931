"""The paper's published numbers as reference rows, shaped like the board's own aggregate.

They come from `leaderboard/paper_results.json` (copied from the paper, never recomputed) and keep
their provenance: table number, split and the number of seeds the paper states (None where it
reports a std without saying over how many seeds). They are always marked as the paper's, and
sit in their own pool: never averaged with, normalised with or ranked among a user's runs.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from typing import Any

import pandas as pd

from grue.board.aggregate import AGG_COLUMNS
from grue.board.metric_info import higher_is_better
from grue.results.schema import TASKS

PAPER = "paper"  # the `source` of reference rows; runs have source "runs"
PAPER_MODELS = {"imdb": "gpt2", "dailydialog": "gpt2"}  # every other GRUE task used t5-base
REFERENCE_COLUMNS: list[str] = AGG_COLUMNS + ["source", "table", "setting", "main"]


@lru_cache(maxsize=None)
def _load(name: str) -> dict[str, Any]:
    return json.loads(resources.files("leaderboard").joinpath(name).read_text(encoding="utf-8"))


def paper_results() -> dict[str, Any]:
    """The raw reference document (rows, per-table provenance, notes)."""
    return _load("paper_results.json")


def paper_table2() -> dict[str, Any]:
    """The paper's Table 2 answers: question -> task -> True / False / None (no human study)."""
    return _load("paper_table2.json")


def reference_frame(main_only: bool = True, grue_tasks_only: bool = True) -> pd.DataFrame:
    """Reference rows in the aggregate's columns (std/n as published; no CI: the paper gives none)."""
    rows = []
    for entry in paper_results()["rows"]:
        if (main_only and not entry["main"]) or (grue_tasks_only and entry["task"] not in TASKS):
            continue
        n = entry["n_seeds"]
        for metric, value in entry["metrics"].items():
            std = value["std"] if value["std"] is not None else math.nan
            rows.append({
                "task": entry["task"], "algo": entry["algo"], "reward": entry["reward"] or "",
                "init_model": PAPER_MODELS.get(entry["task"], "t5-base"), "profile": "paper",
                "split": entry["split"], "metric": metric, "higher_is_better": higher_is_better(metric),
                "n": n if n is not None else math.nan, "mean": value["mean"], "std": std,
                "sem": std / math.sqrt(n) if n and n > 1 else math.nan, "ci_low": math.nan, "ci_high": math.nan,
                "seeds": "", "source": PAPER, "table": entry["table"],
                "setting": ",".join(f"{k}={v}" for k, v in sorted(entry["setting"].items())),
                "main": entry["main"],
            })
    return pd.DataFrame(rows, columns=REFERENCE_COLUMNS)


def provenance(table: str) -> str:
    """A one-line citation for a reference table, e.g. 'paper Table 5 (imdb, val, 5 seeds)'."""
    parts = table.split("+")
    info = paper_results()["tables"][parts[0]]
    seeds = {None: "seed count not stated", 1: "point estimate"}.get(info["n_seeds"], f"{info['n_seeds']} seeds")
    return f"paper Table {table} ({info['task']}, {info['split']}, {seeds})"
