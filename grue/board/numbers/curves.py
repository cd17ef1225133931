"""Learning curves and checkpoint choice from each run's logs (logs/train.jsonl, logs/eval.jsonl).

Train lines carry `iteration`, `tokens`, `reward_mean`, `kl`, `kl_coef`; eval lines carry
`iteration`, `split` and `metrics` {name: value}. Curves are averaged over seeds per iteration with
a ±1 std band, as in the paper's Figure 4. A log line that does not parse (a run killed mid-write)
is skipped, never fatal (grue/storage/run_layout.py's reader): the logs are evidence, not the results.
"""
from __future__ import annotations

import math
from typing import Any

import pandas as pd

from grue.board.numbers.aggregate import ROW_KEYS
from grue.board.numbers.collect import Run
from grue.board.metric_info import higher_is_better
from grue.board.task_info import task_metrics
from grue.storage.run_layout import eval_log, read_jsonl, train_log

TRAIN_FIELDS: tuple[str, ...] = ("tokens", "reward_mean", "kl", "kl_coef")  # `tokens`: generated this iteration
CHECKPOINT_COLUMNS: list[str] = ROW_KEYS + ["seed", "metric", "last_iteration", "last_value", "best_iteration",
                                            "best_value", "reported", "results_value", "agrees", "run_dir"]
AGREEMENT = 1e-6  # relative: the final eval line and results.json hold the same number, printed twice


def _labels(run: Run) -> dict[str, Any]:
    return {**dict(zip(ROW_KEYS, run.key)), "seed": run.seed}


def train_frame(runs: list[Run]) -> pd.DataFrame:
    """One row per train iteration: the run's labels, the logged fields and cumulative `steps` (tokens)."""
    frames = []
    for run in runs:
        lines = {line["iteration"]: line for line in read_jsonl(train_log(run.path)) if "iteration" in line}
        rows = [{**_labels(run), "iteration": it,
                 **{f: float(line[f]) for f in TRAIN_FIELDS if isinstance(line.get(f), (int, float))}}
                for it, line in sorted(lines.items())]  # a resumed run rewrote some iterations: the last line wins
        if not rows:
            continue
        frame = pd.DataFrame(rows, columns=ROW_KEYS + ["seed", "iteration", *TRAIN_FIELDS])
        frame[list(TRAIN_FIELDS)] = frame[list(TRAIN_FIELDS)].astype(float)
        frame["steps"] = frame["tokens"].fillna(0).cumsum()  # the paper's x axis: env steps = tokens so far
        frames.append(frame)
    columns = ROW_KEYS + ["seed", "iteration", *TRAIN_FIELDS, "steps"]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)


def eval_frame(runs: list[Run]) -> pd.DataFrame:
    """One row per (eval line, metric)."""
    rows = []
    for run in runs:
        for line in read_jsonl(eval_log(run.path)):
            metrics = line.get("metrics")
            if "iteration" not in line or not isinstance(metrics, dict):
                continue
            for metric, value in metrics.items():
                if isinstance(value, (int, float)) and math.isfinite(value):
                    rows.append({**_labels(run), "iteration": line["iteration"], "split": line.get("split", "val"),
                                 "metric": metric, "value": float(value)})
    return pd.DataFrame(rows, columns=ROW_KEYS + ["seed", "iteration", "split", "metric", "value"])


def band(frame: pd.DataFrame, x: str, y: str, keys: list[str]) -> pd.DataFrame:
    """Mean and std over seeds of `y` at each `x`, per `keys` (the Figure 4 line and shade)."""
    if frame.empty or y not in frame:
        return pd.DataFrame(columns=keys + [x, "mean", "std", "n"])
    data = frame.dropna(subset=[y])
    out = data.groupby(keys + [x], sort=True)[y].agg(["mean", "std", "count"]).reset_index()
    return out.rename(columns={"count": "n"})


def primary_metric(task: str, metrics: set[str]) -> str | None:
    """The metric a checkpoint is judged by: the task's first Table 1 task metric that was logged."""
    for metric in task_metrics(task):
        if metric in metrics:
            return metric
    return sorted(metrics)[0] if metrics else None


def checkpoint_report(runs: list[Run]) -> pd.DataFrame:
    """Per run: the validation curve's best iteration beside the last one, and what results.json reports.

    A run reports its final policy unless its results say otherwise (a `checkpoint` entry); showing
    the best validation iteration next to it makes any gap visible instead of silently picked.
    `agrees` is False when results.json's validation value is not the log's last one (a resumed or
    re-scored run): the page says so rather than letting the curve and the table quietly differ.
    """
    rows = []
    for run in runs:
        curve = [l for l in read_jsonl(eval_log(run.path))
                 if l.get("split", "val") == "val" and isinstance(l.get("metrics"), dict) and "iteration" in l]
        metric = primary_metric(run.task, {m for l in curve for m in l["metrics"]})
        points = [(l["iteration"], float(l["metrics"][metric])) for l in curve if metric in l["metrics"]]
        if not points:
            continue
        higher = higher_is_better(metric, run.higher_is_better)
        best = (max if higher else min)(points, key=lambda p: p[1])
        chosen = run.doc.get("checkpoint")
        reported = (f"iteration {chosen.get('iteration')} by {chosen.get('selected_by', '?')}"
                    if isinstance(chosen, dict) else "final policy")
        result = run.metrics("val").get(metric, math.nan)
        agrees = not math.isfinite(result) or math.isclose(result, points[-1][1], rel_tol=AGREEMENT, abs_tol=1e-12)
        rows.append({**_labels(run), "metric": metric, "last_iteration": points[-1][0], "last_value": points[-1][1],
                     "best_iteration": best[0], "best_value": best[1], "reported": reported, "results_value": result,
                     "agrees": agrees, "run_dir": str(run.path)})
    return pd.DataFrame(rows, columns=CHECKPOINT_COLUMNS)
