"""When two runs' metrics are the same: equal to the digits a scorer repeats.

Runs that decode the same text on every prompt can still differ in a model-based score's last digits when
they are scored in different processes or at different commits: in the board study, CommonGen's Supervised
seed 0 trained again for its weights decoded its recorded texts on every prompt, and its BERTScore moved by
3e-10 to 4e-9; the remade NLPO seed 0 decoded PPO's texts, and its BERTScore was 2.5e-9 from PPO's. A run whose
decoding drifts by one token moves a score by far more than SAME_SCORE.
"""
from __future__ import annotations

import math

SAME_SCORE = 1e-7  # relative and absolute


def same_metrics(a: object, b: object) -> bool:
    """Equal metric trees: the same splits and metric names, every number within SAME_SCORE (NaN equals NaN)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_metrics(a[k], b[k]) for k in a)
    if _number(a) and _number(b):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=SAME_SCORE, abs_tol=SAME_SCORE)
    return a == b


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
