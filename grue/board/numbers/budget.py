"""Equal generated tokens: when two rows count as spending the same training budget, and how a row that
does not is named.

The comparison contract (DESIGN.md section 4) calls two rows comparable when their policies generated the
same tokens while training within 2 %: a run stops at its task's token budget within one episode's length
(a few tens of tokens on a budget of thousands), so 2 % admits that and nothing a method gains by sampling
more. Tokens are each row's mean of results.json `cost.train_generated_tokens` over its seeds. Every place
that compares rows at equal tokens (the critic question, `grue compare --rows`, the task tables' note)
uses these two functions, so they cannot disagree on which rows fail.
"""
from __future__ import annotations

import math

TOKEN_TOLERANCE = 0.02  # |tokens - reference| <= 2 % of the reference's tokens


def at_equal_tokens(tokens: float, reference: float, tolerance: float = TOKEN_TOLERANCE) -> bool:
    """Whether `tokens` lies within `tolerance` of `reference` (False when either is not recorded)."""
    if not (math.isfinite(tokens) and math.isfinite(reference)) or reference <= 0:
        return False
    return abs(tokens - reference) <= tolerance * reference


def tokens_ratio_text(tokens: float, reference: float, reference_name: str) -> str:
    """How a row's tokens read beside the reference's: "1.11x PPO's tokens", or why no ratio exists."""
    if not math.isfinite(tokens):
        return "generated tokens not recorded"
    if not math.isfinite(reference) or reference <= 0:
        return f"{reference_name}'s generated tokens not recorded"
    return f"{tokens / reference:.3f}x {reference_name}'s tokens"
