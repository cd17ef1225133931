"""Seeds to leaderboard rows: mean, standard deviation, seed count and a t-based 95% CI.

Everything downstream (tables, scores, tests, site) starts from the two frames built here:
the long per-seed frame (one row per run, split and metric) and its aggregate (one row per
leaderboard row, split and metric). Profiles and settings are part of the row key, so a mini run
and a paper run, or two values of `kl.target`, can never share a mean.
"""
from __future__ import annotations

import math

import pandas as pd
from scipy import stats

from grue.board.numbers.collect import Run
from grue.board.numbers.run_facts import comparisons_parts, critic_of, regulariser_text
from grue.board.metric_info import higher_is_better
from grue.board.submit.shown import CLAIM_KEYS, aggregate_columns, findings_of, seed_columns

# What sets apart the entries of one algorithm on one task: the optimised reward, the initial model and
# the setting (the config without the seed; `setting_label` names the keys that differ, see setting.py).
VARIANT_KEYS: list[str] = ["reward", "init_model", "setting", "setting_label"]
ROW_KEYS: list[str] = ["task", "algo", "reward", "init_model", "profile", "setting", "setting_label"]
# What a run spent (results.json `cost`, grue/results/cost.py), beside its metrics; NaN where a run does not say.
COST_KEYS: list[str] = ["train_generated_tokens", "train_seconds", "eval_generated_tokens"]
# What a run trained with, read from its recorded config (run_facts.py): its critic (shared | separate | none),
# its KL regulariser in words and, for DPO, its comparisons (where from, how many, by whom) and their file's
# digest. One value per row for the first three, since every seed of a row shares one setting; the digests are
# one per seed where grue made each seed's file (dpo.comparisons=auto).
FACT_KEYS: list[str] = ["critic", "regulariser", "comparisons", "comparisons_sha256"]
SEED_COLUMNS: list[str] = ROW_KEYS + ["seed", "split", "metric", "value", "higher_is_better", "n_samples", "run_dir",
                                    "verified"] + COST_KEYS + FACT_KEYS + CLAIM_KEYS
AGG_COLUMNS: list[str] = ROW_KEYS + ["split", "metric", "higher_is_better", "n", "mean", "std", "sem",
                                     "ci_low", "ci_high", "seeds", "n_samples", "verified"] \
    + COST_KEYS + [f"{k}_std" for k in COST_KEYS] + FACT_KEYS + CLAIM_KEYS
CONFIDENCE = 0.95


def run_cost(run: Run, split: str) -> dict[str, float]:
    """The run's recorded cost; its evaluation tokens are the split's (NaN where the file records none)."""
    cost = run.doc.get("cost") if isinstance(run.doc.get("cost"), dict) else {}
    sampled = cost.get("eval_generated_tokens") if isinstance(cost.get("eval_generated_tokens"), dict) else {}
    values = {**{k: cost.get(k) for k in COST_KEYS[:2]}, "eval_generated_tokens": sampled.get(split)}
    return {k: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan for k, v in values.items()}


def seed_frame(runs: list[Run]) -> pd.DataFrame:
    """One row per (run, split, metric), with the direction each run declared."""
    rows = []
    for run in runs:
        declared = run.higher_is_better
        labels = dict(zip(ROW_KEYS, run.key))
        source, digest = comparisons_parts(run.doc)
        facts = {"critic": critic_of(run.doc), "regulariser": regulariser_text(run.doc),
                 "comparisons": source, "comparisons_sha256": digest}
        found = findings_of(run.path)  # what the board's verification record says (submit/shown.py)
        for split in run.doc["metrics"]:
            cost = run_cost(run, split)
            for metric, value in run.metrics(split).items():
                rows.append({
                    **labels, "seed": run.seed, "split": split, "metric": metric,
                    "value": value, "higher_is_better": higher_is_better(metric, declared),
                    "n_samples": run.n_samples(split), "run_dir": str(run.path), "verified": run.verified, **cost, **facts,
                    **seed_columns(found, split, metric),
                })
    return pd.DataFrame(rows, columns=SEED_COLUMNS)


def t_interval(mean: float, std: float, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Student-t interval for a mean of n seeds; undefined (NaN) below two seeds."""
    if n < 2 or not math.isfinite(std):
        return (math.nan, math.nan)
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * std / math.sqrt(n)
    return (mean - half, mean + half)


def _summarise(values: pd.Series) -> dict[str, float]:
    n = int(values.size)
    mean = float(values.mean())
    std = float(values.std(ddof=1)) if n > 1 else math.nan
    low, high = t_interval(mean, std, n)
    return {"n": n, "mean": mean, "std": std, "sem": std / math.sqrt(n) if n > 1 else math.nan,
            "ci_low": low, "ci_high": high}


def aggregate(seeds: pd.DataFrame) -> pd.DataFrame:
    """Mean, sample std (ddof=1), n, SEM and 95% t-interval per row, split and metric."""
    if seeds.empty:
        return pd.DataFrame(columns=AGG_COLUMNS)
    out = []
    for key, group in seeds.groupby(ROW_KEYS + ["split", "metric"], sort=True):
        row = dict(zip(ROW_KEYS + ["split", "metric"], key))
        # A metric's direction is the same across seeds unless runs disagree; the majority wins.
        row["higher_is_better"] = bool(group["higher_is_better"].mean() >= 0.5)
        row.update(_summarise(group["value"]))
        row["seeds"] = ",".join(str(s) for s in sorted(group["seed"]))
        sizes = set(group["n_samples"].dropna())
        # Corpus-size statistics (unique n-gram counts) depend on how many samples were scored.
        row["n_samples"] = float(sizes.pop()) if len(sizes) == 1 else math.nan
        # Seeds a board verified (grue leaderboard add re-scored their predictions): the tables' Verified mark.
        row["verified"] = int(group["verified"].sum()) if "verified" in group else 0
        for key in COST_KEYS:  # one value per seed (every metric row of a run repeats it)
            spent = group[key].dropna() if key in group else pd.Series(dtype=float)
            row[key] = float(spent.mean()) if len(spent) else math.nan
            row[f"{key}_std"] = float(spent.std(ddof=1)) if len(spent) > 1 else math.nan
        for key in FACT_KEYS:  # one setting, one value; seeds without a recorded config may share a row
            row[key] = "; ".join(sorted({str(v) for v in group[key].dropna() if v})) if key in group else ""
        row.update(aggregate_columns(group))  # reported values, row labels, off the headline (submit/shown.py)
        out.append(row)
    return pd.DataFrame(out, columns=AGG_COLUMNS + ["flag"])  # flag: a reported value (shown.py)


def report_split(agg: pd.DataFrame, task: str, preferred: str = "test") -> str:
    """The split a task's table reports: `preferred` when any run has it, else validation."""
    splits = set(agg.loc[agg["task"] == task, "split"])
    return preferred if preferred in splits or not splits else sorted(splits)[-1]
