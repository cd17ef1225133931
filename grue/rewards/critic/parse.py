"""The critic's answer to labelled spans. Never raises: every answer gets an outcome that is counted.

Outcomes: `spans` (at least one labelled span), `none` ("None identified"), `refusal` (the model
declined), `malformed` (anything else, e.g. free prose or labels without text), `failed` (no answer
at all: the backend gave up). Lines look like `Label: "span"` (several quoted spans per line are
allowed); an unquoted remainder counts as one span. Bullets and numbering before the label are ignored.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

OUTCOMES = ("spans", "none", "refusal", "malformed", "failed")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_NONE = re.compile(r"\bnone identified\b|^\s*none\.?\s*$", re.IGNORECASE | re.MULTILINE)
_REFUSAL = re.compile(r"\b(i can(?:no|')t|i am unable|i'm unable|i won't|i will not|as an ai|i'm sorry|i apologi[sz]e)\b",
                      re.IGNORECASE)


@dataclass(frozen=True)
class Critique:
    outcome: str
    spans: tuple[tuple[str, str], ...] = field(default=())  # (label, quoted text)


def _label_pattern(labels: list[str]) -> re.Pattern:
    names = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    return re.compile(rf"^[\s\-*•\d.)]*\**({names})\**\s*[:\-–]\s*(.*)$", re.IGNORECASE)


def _span_texts(rest: str) -> list[str]:
    quoted = [a or b for a, b in _QUOTED.findall(rest)]
    if quoted:
        return [q.strip() for q in quoted if q.strip()]
    bare = rest.strip().strip("'\"`.,;")
    return [] if not bare or _NONE.search(bare) else [bare]


def parse_critique(answer: Optional[str], labels: list[str]) -> Critique:
    if answer is None:
        return Critique("failed")
    canonical = {label.lower(): label for label in labels}
    pattern = _label_pattern(labels)
    spans = []
    for line in answer.splitlines():
        match = pattern.match(line)
        if match:
            label = canonical[match.group(1).lower()]
            spans.extend((label, text) for text in _span_texts(match.group(2)))
    if spans:
        return Critique("spans", tuple(spans))
    if _NONE.search(answer):
        return Critique("none")
    if _REFUSAL.search(answer):
        return Critique("refusal")
    return Critique("malformed")
