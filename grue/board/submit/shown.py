"""What a board shows of one run's verification record beyond the mark: labels, and which values are reported.

A value `grue leaderboard add` took "as reported" (perplexity without weights, a metric whose scorer this
board lacks) is shown flagged "reported" and never ranks a row nor anchors the normalisation of other rows
(normalise.py `anchoring`, overall.py); the claims findings (claims.py) give the row its labels, and a
non-standard or degenerate seed keeps its row out of the headline (the overall board).

A run without a valid record for its current results (a user's own runs, or a run the board did not add)
has no findings: it is shown as it always was, and the Verified column says it is not verified.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grue.board.submit.claims import claims_of, headline_excluded, row_labels

REPORTED_FLAG = "reported: the submitter's value, not re-computed by the board (not ranked, anchors nothing)"
CLAIM_KEYS: list[str] = ["reported", "labels", "off_headline"]  # columns of the board's seed and aggregate frames


@dataclass(frozen=True)
class Findings:
    """One run's findings as the board shows them."""

    reported: dict[str, frozenset[str]] = field(default_factory=dict)  # split -> metrics taken as reported
    labels: str = ""            # " · "-joined row labels (claims.row_labels)
    off_headline: bool = False  # kept out of the overall board


def findings_of(run_dir: Path) -> Findings:
    """The findings of the verification record the board holds for `run_dir` (none when it holds no valid one)."""
    from grue.board.submit.record import is_verified, read_record
    from grue.board.submit.verify import AS_REPORTED

    if not is_verified(run_dir):
        return Findings()
    record = read_record(run_dir) or {}
    metrics = record.get("metrics") if isinstance(record.get("metrics"), dict) else {}
    reported = {split: frozenset(m for m, r in values.items() if isinstance(r, dict) and r.get("status") == AS_REPORTED)
                for split, values in metrics.items() if isinstance(values, dict)}
    found = claims_of(record)
    return Findings(reported, " · ".join(row_labels(found)), headline_excluded(found))


def seed_columns(findings: Findings, split: str, metric: str) -> dict[str, Any]:
    """The claim columns of one (run, split, metric) row of the seed frame."""
    return {"reported": metric in findings.reported.get(split, frozenset()), "labels": findings.labels,
            "off_headline": findings.off_headline}


def flags(column: Any) -> Any:
    """A frame column of flags as booleans, a missing value (NaN, None) as False: a column that only ever held
    missing values is float, where fillna(False) is deprecated in pandas."""
    return column.map(lambda v: bool(v) if v is not None and v == v else False).astype(bool)


def aggregate_columns(group: Any) -> dict[str, Any]:
    """The claim columns of one aggregate row from its seeds' rows (a pandas frame)."""
    if "reported" not in group:
        return {"reported": 0, "labels": "", "off_headline": False, "flag": ""}
    reported = int(flags(group["reported"]).sum())
    labels = list(dict.fromkeys(str(v) for v in group["labels"].dropna() if v))
    return {"reported": reported, "labels": " | ".join(labels), "off_headline": bool(flags(group["off_headline"]).any()),
            "flag": REPORTED_FLAG if reported else ""}


def with_labels(mark: str, group: Any) -> str:
    """A row's Verified mark followed by its labels ("✓ verified · non-standard (data.max_test) · ..."):
    `group` is the row's aggregate rows (a pandas frame)."""
    if not mark or "labels" not in group:
        return mark
    labels = [str(v) for v in group["labels"].dropna() if v]
    return " · ".join([mark, labels[0]]) if labels else mark


def what_was_checked(frame: Any, label: Any) -> list[str]:
    """One line per verified row of a task table saying in words what its mark covers: which metrics were
    re-scored from the predictions on the board's data with the board's scorers, which were taken as
    reported, and whether the generations were tied to weights. `frame` is the table's aggregate rows (one
    split), `label(row)` names a row as the table does."""
    if "verified" not in frame or "reported" not in frame:
        return []
    ours = frame[(frame.get("source", "runs") == "runs") & (frame["verified"].fillna(0) > 0)]
    lines = []
    keys = [k for k in ("algo", "reward", "init_model", "profile", "setting", "setting_label") if k in ours]
    for _, group in ours.groupby(keys, sort=False):
        reported = group["reported"].fillna(0).astype(bool)
        rescored = ", ".join(group.loc[~reported, "metric"])
        taken = ", ".join(group.loc[reported, "metric"])
        labels = next((str(v) for v in group["labels"].dropna() if v), "") if "labels" in group else ""
        tied = next((part for part in labels.split(" · ") if "generations" in part and "tied" in part),
                    "generations not tied to a model")
        lines.append(f"Verified {label(group.iloc[0])}: predictions re-scored on the board's data with the board's "
                     f"scorers ({rescored or 'none'})" + (f"; taken as reported, not re-computed: {taken}" if taken else "")
                     + f"; {tied}.")
    return lines
