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

from grue.board.numbers.aggregate import AGG_COLUMNS
from grue.board.metric_info import higher_is_better
from grue.board.task_info import grue_tasks

PAPER = "paper"  # the `source` of reference rows; runs have source "runs"
PAPER_MODELS = {"imdb": "gpt2", "dailydialog": "gpt2"}  # every other GRUE task used t5-base
HIDDEN_TEST = "hidden_test"  # the official test of CommonGen/ToTTo: its references are hidden, grue cannot score it
REFERENCE_COLUMNS: list[str] = AGG_COLUMNS + ["source", "table", "main", "paper_split", "scale", "flag"]


@lru_cache(maxsize=None)
def _load(name: str) -> dict[str, Any]:
    return json.loads(resources.files("leaderboard").joinpath(name).read_text(encoding="utf-8"))


def paper_results() -> dict[str, Any]:
    """The raw reference document (rows, per-table provenance, notes)."""
    return _load("paper_results.json")


def paper_table2() -> dict[str, Any]:
    """The paper's Table 2 answers: question -> task -> True / False / None (no human study)."""
    return _load("paper_table2.json")


@lru_cache(maxsize=None)
def _test_is_validation(task: str) -> bool:
    from tasks import find_task  # late import: the task files import grue modules

    spec = find_task(task)
    return bool(spec is not None and spec.test_references_hidden)


def grue_split(task: str, paper_split: str) -> str:
    """The grue split a paper table reports on.

    CommonGen and ToTTo keep their test references hidden, so grue's "test" is the official validation
    split: the paper's dev tables (13, 24) are what a grue test number reproduces, and its test tables
    (12, 23) are the hidden test, a split apart that grue cannot score.
    """
    if not _test_is_validation(task):
        return paper_split
    return {"val": "test", "test": HIDDEN_TEST}.get(paper_split, paper_split)


def setting_text(setting: dict[str, str]) -> str:
    """A paper row's setting as the board labels settings ('target_kl=0.1'; '' for none)."""
    return ", ".join(f"{k}={v}" for k, v in sorted(setting.items()))


def reference_frame(main_only: bool = True, grue_tasks_only: bool = True) -> pd.DataFrame:
    """Reference rows in the aggregate's columns (std/n as published; no CI: the paper gives none).

    Values are put on grue's scale: a table that prints a metric `factor` times larger (T12's CIDEr
    on the official x10 scale, its coverage in percent) is divided by the factor, kept in `scale`.
    `flag` says why a cell is doubtful (garbled in extraction, or contradicted by the paper itself).
    """
    tables = paper_results()["tables"]
    rows = []
    for entry in paper_results()["rows"]:
        if (main_only and not entry["main"]) or (grue_tasks_only and entry["task"] not in grue_tasks()):
            continue
        n = entry["n_seeds"]
        scales = tables.get(entry["table"].split("+")[0], {}).get("scales", {})
        setting = setting_text(entry["setting"])
        for metric, value in entry["metrics"].items():
            factor = float(scales.get(metric, 1))
            mean = value["mean"] / factor
            std = value["std"] / factor if value["std"] is not None else math.nan
            rows.append({
                "task": entry["task"], "algo": entry["algo"], "reward": entry["reward"] or "",
                "init_model": PAPER_MODELS.get(entry["task"], "t5-base"), "profile": "paper",
                "setting": setting, "setting_label": setting,
                "split": grue_split(entry["task"], entry["split"]), "metric": metric,
                "higher_is_better": higher_is_better(metric),
                "n": n if n is not None else math.nan, "mean": mean, "std": std,
                "sem": std / math.sqrt(n) if n and n > 1 else math.nan, "ci_low": math.nan, "ci_high": math.nan,
                "seeds": "", "n_samples": math.nan, "source": PAPER, "table": entry["table"], "main": entry["main"],
                "paper_split": entry["split"], "scale": factor, "flag": entry.get("flags", {}).get(metric, ""),
            })
    return pd.DataFrame(rows, columns=REFERENCE_COLUMNS)


def _split_words(task: str, paper_split: str) -> str:
    ours = grue_split(task, paper_split)
    if ours == paper_split:
        return paper_split
    return "official hidden test" if ours == HIDDEN_TEST else f"{paper_split} = grue's {ours}"


def provenance(table: str) -> str:
    """A one-line citation for a reference table, e.g. 'paper Table 5 (imdb, val, 5 seeds)'."""
    info = paper_results()["tables"][table.split("+")[0]]
    seeds = {None: "seed count not stated", 1: "point estimate"}.get(info["n_seeds"], f"{info['n_seeds']} seeds")
    scales = "".join(f"; {m} printed x{f:g}, shown /{f:g}" for m, f in sorted(info.get("scales", {}).items()))
    return f"paper Table {table} ({info['task']}, {_split_words(info['task'], info['split'])}, {seeds}{scales})"
