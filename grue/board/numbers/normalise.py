"""Direction-aware normalisation: every metric mapped to [0, 1] with 1 = best, before averaging.

The paper averages "all the respective metrics seen in Table 1" for Figure 2 without saying how
(grue_spec.md section 4.2); perplexity (~33) and TER (lower is better) cannot enter a mean raw.
The formulas are documented in docs/leaderboard.md. Normalisation is fitted per *pool*: the rows
of one task and split that share a source and a profile, so a mini run never moves a paper-profile
score and the paper's rows never move ours.

Modes:
- fixed (default): bounded metrics as they are (a value above 1 read as a percentage), TER as
  1 - TER, perplexity as anchor / perplexity (anchor = the pool's zero-shot perplexity, else its
  lowest), and the two unbounded metrics (CIDEr, BLEURT) min-max over the pool.
- minmax: every metric min-max over the pool, direction-aware.
- rank: every metric as the share of the pool's other rows it beats (ties count half).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Mapping

if TYPE_CHECKING:
    import pandas as pd

MODES: tuple[str, ...] = ("fixed", "minmax", "rank")
UNBOUNDED: frozenset[str] = frozenset({"cider", "bleurt"})
# Bounded metrics that toolkits commonly report on a 0-100 scale (sacreBLEU, chrF, coverage %).
PERCENT_CAPABLE: frozenset[str] = frozenset({"sacrebleu", "chrf", "coverage", "bleu", "bleu3", "bleu4", "ter"})
CONSTANT_COLUMN = 0.5  # every row ties: no row is better, none is worse


def _clip(x: float) -> float:
    return min(1.0, max(0.0, x))


def _unpercent(metric: str, x: float) -> float:
    limit = 2.0 if metric == "ter" else 1.0  # TER may exceed 1 as a fraction; beyond 2 it is a percentage
    return x / 100.0 if metric in PERCENT_CAPABLE and x > limit else x


@dataclass
class Transform:
    """A fitted per-metric mapping to [0, 1]; `describe` says in words what it did, and `forced` what it
    sets by construction (so a bar at exactly 1.0 or 0.5 is not read as a result)."""

    apply: Callable[[float], float]
    describe: str
    forced: str = ""


@dataclass
class PoolFit:
    """The transforms fitted on one pool, by metric."""

    transforms: dict[str, Transform] = field(default_factory=dict)

    def __call__(self, metric: str, value: float) -> float:
        transform = self.transforms.get(metric)
        if transform is None or value is None or not math.isfinite(value):
            return math.nan
        return transform.apply(value)


def _minmax(values: list[float], higher: bool) -> Transform:
    low, high = min(values), max(values)
    if high - low <= 1e-12:
        return Transform(lambda x: CONSTANT_COLUMN, "constant over the pool -> 0.5",
                         "every row ties (or the pool has one row), so all get 0.5")
    extremes = "the pool's best row is 1 and its worst 0 by construction"
    if higher:
        return Transform(lambda x: _clip((x - low) / (high - low)), f"min-max over the pool [{low:.4g}, {high:.4g}]",
                         extremes)
    return Transform(lambda x: _clip((high - x) / (high - low)), f"reversed min-max over the pool [{low:.4g}, {high:.4g}]",
                     extremes)


def _rank(values: list[float], higher: bool) -> Transform:
    others = len(values) - 1

    def share(x: float) -> float:
        if others == 0:
            return CONSTANT_COLUMN
        better = sum(1.0 if (x > v if higher else x < v) else 0.5 if x == v else 0.0 for v in values)
        return (better - 0.5) / others  # the row itself counts as a tie: remove it

    return Transform(share, "share of the pool's other rows beaten")


def _fixed(metric: str, values: list[float], higher: bool, anchor: float | None) -> Transform:
    if metric == "perplexity":
        ref = anchor if anchor is not None else min(values)
        origin = "zero-shot" if anchor is not None else "lowest in pool"
        forced = ("the zero-shot row is 1.0 by construction" if anchor is not None
                  else "the pool's least perplexed row is 1.0 by construction")
        return Transform(lambda x: _clip(ref / x) if x > 0 else math.nan, f"{ref:.4g} / perplexity ({origin} anchor)",
                         forced)
    if metric in UNBOUNDED:
        return _minmax(values, higher)
    if metric == "ter":
        return Transform(lambda x: _clip(1.0 - _unpercent("ter", x)), "1 - TER")
    if higher:
        return Transform(lambda x: _clip(_unpercent(metric, x)), "as is (percent / 100)" if metric in PERCENT_CAPABLE else "as is")
    # A lower-is-better metric the table does not know: only the pool can say what is good.
    return _minmax(values, higher)


def fit_pool(means: Mapping[str, Mapping[str, float]], directions: Mapping[str, bool], mode: str = "fixed",
             anchors: Mapping[str, float] | None = None) -> PoolFit:
    """Fit transforms on a pool: `means[row_id][metric]` are the pool rows' means.

    `anchors` carries the zero-shot mean per metric (used for perplexity in fixed mode).
    """
    if mode not in MODES:
        raise ValueError(f"normalisation {mode!r} is not one of {', '.join(MODES)}")
    fit = PoolFit()
    metrics = {m for row in means.values() for m in row}
    for metric in sorted(metrics):
        values = [row[metric] for row in means.values() if metric in row and math.isfinite(row[metric])]
        if not values:
            continue
        higher = bool(directions.get(metric, True))
        if mode == "minmax":
            fit.transforms[metric] = _minmax(values, higher)
        elif mode == "rank":
            fit.transforms[metric] = _rank(values, higher)
        else:
            fit.transforms[metric] = _fixed(metric, values, higher, (anchors or {}).get(metric))
    return fit


def anchoring(rows: "pd.DataFrame") -> "pd.DataFrame":
    """The aggregate rows a pool may be fitted on: every row but values taken as reported.

    A value a board could not re-compute (perplexity claimed without weights; submit/shown.py) is the
    submitter's word: fitted into the pool it could set the zero-shot anchor or the pool's extremes, so a
    second zero-shot setting claiming perplexity 1.01 would drag every honest row's naturalness down.
    It still shows, flagged "reported", and is normalised with the fit the other rows make."""
    if "reported" not in rows:
        return rows
    return rows[~rows["reported"].fillna(0).astype(bool)]


def ranked(metric_values: Mapping[str, float], reported: "set[str] | frozenset[str]") -> dict[str, float]:
    """The metric values that may enter a row's score: every one but those taken as reported."""
    return {m: v for m, v in metric_values.items() if m not in reported}
