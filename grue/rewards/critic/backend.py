"""What every critic backend offers: answer a batch of prompts, and say who answered (for the cache)."""
from __future__ import annotations

from typing import Optional, Protocol, Sequence


class CriticBackend(Protocol):
    # Which model answered and how it decoded: part of every cache key, so a different critic re-asks.
    identity: str

    def judge(self, prompts: Sequence[str]) -> list[Optional[str]]:
        """One answer per prompt, in order; None where no answer could be had (counted as `failed`)."""
        ...
