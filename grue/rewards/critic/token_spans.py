"""Spans the critic quoted, located in the decoded generation and mapped to the policy's tokens.

Character offsets come from the tokens the policy actually sampled (the text decoded from the first
i tokens ends where token i ends), not from re-tokenising the text: a sampled sequence need not be the
tokenizer's canonical split of its own text, and the rewards must land on the sampled actions.
A token earns a span's reward when its characters overlap the span. A quoted span that occurs nowhere
is counted as unmatched and earns nothing; one that occurs several times marks every occurrence (the
critic judged the words, wherever they are) and is counted as repeated.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from grue.rewards.critic.parse import Critique


def token_char_offsets(tokenizer: Any, ids: Sequence[int]) -> tuple[str, list[tuple[int, int]]]:
    """The decoded text and each token's [start, end) in it; special tokens decode to empty ranges."""
    offsets, previous = [], 0
    for i in range(1, len(ids) + 1):
        end = max(previous, len(tokenizer.decode(list(ids[:i]), skip_special_tokens=True)))
        offsets.append((previous, end))
        previous = end
    text = tokenizer.decode(list(ids), skip_special_tokens=True)
    # a clean-up of spaces can make a prefix decode longer than its share of the whole text
    return text, [(min(s, len(text)), min(e, len(text))) for s, e in offsets]


def locate(text: str, span: str) -> list[tuple[int, int]]:
    """Every occurrence of `span` in `text`: exact matches, else case-insensitive ones."""
    for flags in (0, re.IGNORECASE):
        found = [(m.start(), m.end()) for m in re.finditer(re.escape(span), text, flags)]
        if found:
            return found
    return []


@dataclass
class SpanCounts:
    marked: int = 0      # spans the critic quoted
    matched: int = 0     # found exactly once
    repeated: int = 0    # found more than once (every occurrence marked)
    unmatched: int = 0   # found nowhere in the generation

    def add(self, other: "SpanCounts") -> None:
        for name in ("marked", "matched", "repeated", "unmatched"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def span_token_rewards(text: str, offsets: Sequence[tuple[int, int]], critique: Critique,
                       signs: dict[str, float], magnitude: float) -> tuple[list[float], SpanCounts]:
    """r_in for each token: the signed magnitude of every span it overlaps, summed and clipped to
    [-magnitude, magnitude] (a token inside both a positive and a negative span nets out)."""
    rewards = [0.0] * len(offsets)
    counts = SpanCounts()
    for label, span in critique.spans:
        counts.marked += 1
        places = locate(text, span)
        if not places:
            counts.unmatched += 1
            continue
        if len(places) == 1:
            counts.matched += 1
        else:
            counts.repeated += 1
        for start, end in places:
            for t, (tok_start, tok_end) in enumerate(offsets):
                if tok_start < end and start < tok_end:
                    rewards[t] += signs[label] * magnitude
    return [max(-magnitude, min(magnitude, r)) for r in rewards], counts
