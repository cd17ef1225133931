"""Human-study scores for the leaderboard, beside the automatic ones: per task, algorithm and axis
the mean rating with its 95% interval, the number of ratings and raters, and Krippendorff's alpha
(Figure 2 c-d: the "task" role is the task's own axis, "naturalness" is coherence); and the
paper's published human-study numbers in the same shape, as reference rows.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pandas as pd
import yaml

from grue.human.protocol import NATURALNESS_AXIS
from grue.human.report import build_report
from grue.human.study import Study, load_study

SCORE_COLUMNS = ["source", "task", "algo", "axis", "role", "mean", "ci_low", "ci_high", "n", "raters", "alpha",
                 "study"]


def _role(axis: str) -> str:
    return "naturalness" if axis == NATURALNESS_AXIS else "task"


def study_scores(study: Study, qualify: bool = False) -> pd.DataFrame:
    """One row per algorithm and axis of a ratings study (empty for comparisons studies)."""
    if study.kind != "ratings":
        return pd.DataFrame(columns=SCORE_COLUMNS)
    algo_of = {study.system_label(s): info["algo"] for s, info in study.systems.items()}
    summary = build_report(study, qualify=qualify).summary
    rows = [["study", study.task, algo_of[r.label], r.axis, _role(r.axis), r.mean, r.ci_low, r.ci_high, r.n,
             r.raters, r.alpha, str(study.root)] for r in summary.itertuples(index=False)]
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def human_scores(study_dirs: Iterable[Path | str], qualify: bool = False) -> pd.DataFrame:
    """Every ratings study's scores, one table (a study directory that is not one is an error)."""
    frames = [study_scores(load_study(d), qualify) for d in study_dirs]
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=SCORE_COLUMNS)


@lru_cache(maxsize=1)
def paper_studies() -> dict:
    return yaml.safe_load(resources.files("grue.human").joinpath("paper_studies.yaml").read_text(encoding="utf-8"))


def paper_human_scores() -> pd.DataFrame:
    """The paper's human-study rows (Tables 9, 14, 20, 25, 34) shaped like `human_scores`.
    Rows of the paper's variants without a grue algorithm keep the paper's name as `algo`."""
    rows = []
    for task, table in paper_studies().items():
        for row in table["rows"]:
            for role, axis in (("task", table["task_axis"]), ("naturalness", NATURALNESS_AXIS)):
                mean, alpha = row[role if role == "task" else "coherence"]
                rows.append([f"paper (Table {table['table']})", task, row["algo"] or row["paper"], axis, role, mean,
                             math.nan, math.nan, table["samples"] * 3, row["raters"], alpha, ""])
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)
