"""One task example, the unit every loader produces and every metric consumes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Sample:
    id: str
    prompt: str
    references: tuple[str, ...]          # all references kept (several for CommonGen, NarrativeQA, ToTTo)
    meta: dict[str, Any] = field(default_factory=dict)  # label, concepts, table, intent, ...
