"""Loading the metric models (classifiers, NLI, BLEURT) once per process, and scoring in batches.

A model reference goes through grue.assets (packaged name, local directory or hub id). When it cannot
be had here, the metric is unavailable (MetricUnavailable, with the asset layer's ways out), so a run
learns it at preflight instead of after training. Models are shared between scorers and runs of one
process, kept in eval mode and used under inference_mode.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Sequence

import torch

from grue.metrics.base import MetricUnavailable


def resolve_or_unavailable(ref: str, metric: str) -> str:
    """A local directory for ``ref``, or MetricUnavailable saying why not and what to do: `grue fetch` (which
    downloads metric models, grue.metrics.model_refs) or the metric's own option. The asset layer's ways out
    name the policy's and the data's settings and the mini profile, none of which helps a metric model: no
    packaged copy of one exists, so a mini run lacks it too."""
    from grue.assets import resolve_model
    from grue.assets.errors import AssetMissing
    from grue.metrics.model_refs import METRIC_MODELS

    option = METRIC_MODELS[metric][0]

    try:
        return resolve_model(ref)
    except AssetMissing as err:
        raise MetricUnavailable(
            f"{metric}: {err.kind} {ref!r} is not available on this machine ({err.why}). Ways out: on a machine "
            "with hub access run `grue fetch task=<task>` and copy the hub cache here (HF_HOME / HF_HUB_CACHE), "
            f"or point the metric at a local copy with `eval.metric_options.{option}=/path/to/dir`") from None


@lru_cache(maxsize=8)
def load_classifier(ref: str, device: str, metric: str) -> tuple[Any, Any]:
    """(tokenizer, sequence-classification model) for ``ref``, loaded once per process."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    path = resolve_or_unavailable(ref, metric)
    try:
        tokenizer = AutoTokenizer.from_pretrained(path)
        # right padding whatever the saved tokenizer says: an encoder with absolute positions (BERT, RoBERTa) scores a
        # left-padded text at shifted positions, so its score would depend on the longest text in its batch, and a
        # tokenizer saved after left-padded calls keeps that side in its tokenizer.json
        tokenizer.padding_side = "right"
        model = AutoModelForSequenceClassification.from_pretrained(path).to(device).eval()
    except (OSError, ValueError) as err:
        raise MetricUnavailable(f"{metric}: could not load {ref!r} as a classifier: {err}") from None
    return tokenizer, model


@torch.inference_mode()
def classifier_logits(tokenizer: Any, model: Any, first: Sequence[str], second: Sequence[str] | None = None,
                      batch_size: int = 32, max_length: int = 512) -> torch.Tensor:
    """Logits for texts (or text pairs), in batches; inputs longer than the model allows are truncated."""
    limit = min(max_length, getattr(tokenizer, "model_max_length", max_length) or max_length)
    out = []
    for start in range(0, len(first), batch_size):
        a = list(first[start : start + batch_size])
        b = list(second[start : start + batch_size]) if second is not None else None
        enc = tokenizer(a, b, padding=True, truncation=True, max_length=limit, return_tensors="pt")
        out.append(model(**enc.to(model.device)).logits.float().cpu())
    if not out:
        return torch.zeros((0, model.config.num_labels))
    return torch.cat(out)


def label_index(model: Any, prefix: str) -> int:
    """Index of the label whose name starts with ``prefix`` (case-insensitive), e.g. "entail"."""
    for index, name in model.config.id2label.items():
        if str(name).lower().startswith(prefix):
            return int(index)
    raise MetricUnavailable(f"model labels {dict(model.config.id2label)} have none starting with {prefix!r}")
