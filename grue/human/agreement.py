"""Inter-annotator agreement: Krippendorff's alpha (the `krippendorff` package), per system and axis.

Interval level by default, treating the Likert points as equally spaced as the paper's means do;
`level="ordinal"` is there for those who prefer not to. Alpha is undefined (NaN) when no item has
two ratings or every rating is the same value.
"""
from __future__ import annotations

import math

import krippendorff
import numpy as np
import pandas as pd

LEVELS = ("interval", "ordinal", "nominal", "ratio")


def reliability_matrix(ratings: pd.DataFrame) -> np.ndarray:
    """Raters x items, NaN where a rater did not rate an item (columns: rater, item, value)."""
    table = ratings.pivot_table(index="rater", columns="item", values="value", aggfunc="first")
    return table.to_numpy(dtype=float)


def alpha(ratings: pd.DataFrame, level: str = "interval", scale: tuple[int, int] = (1, 5)) -> float:
    """Krippendorff's alpha of one system's ratings on one axis."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, got {level!r}")
    data = reliability_matrix(ratings)
    pairable = (np.sum(~np.isnan(data), axis=0) >= 2).any() if data.size else False
    if not pairable or np.unique(data[~np.isnan(data)]).size < 2:
        return math.nan
    domain = np.arange(scale[0], scale[1] + 1) if level == "ordinal" else None
    with np.errstate(invalid="ignore", divide="ignore"):  # 0/0 when the pairable values never differ: NaN
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level, value_domain=domain))
