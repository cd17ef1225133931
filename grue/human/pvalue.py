"""How a p-value is printed: with a floor, because scipy's exact tests underflow to 0.0 for strong
effects, and "p = 0.000" reads as an impossible certainty. Shared by the human report and win rates."""
from __future__ import annotations

import math

P_FLOOR = 1e-16  # below double precision's resolution near 1: scipy returns 0.0 or noise there


def format_p(value: float, digits: int = 3) -> str:
    """`< 1e-16` below the floor, scientific below 0.001, else `digits` decimals; NaN as an em dash."""
    if math.isnan(value):
        return "—"
    if value < P_FLOOR:
        return f"< {P_FLOOR:.0e}"
    return f"{value:.1e}" if value < 0.001 else f"{value:.{digits}f}"
