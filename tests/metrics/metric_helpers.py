"""Independent, unbatched computations the batched model-based scorers are checked against."""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import torch


@lru_cache(maxsize=8)
def _load(path: str) -> tuple[Any, Any]:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    return AutoTokenizer.from_pretrained(path), AutoModelForSequenceClassification.from_pretrained(path).eval()


def direct_probs(path: str, first: str, second: str | None = None) -> torch.Tensor:
    """Logits of one unbatched forward pass."""
    tokenizer, model = _load(path)
    with torch.no_grad():
        return model(**tokenizer(first, second, return_tensors="pt", truncation=True)).logits[0]
