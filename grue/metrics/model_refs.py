"""The models the metrics load, named without importing a scorer: what `grue fetch` downloads beside the
policy and the data, so that a compute node given a fetching machine's hub cache scores every metric of
its task, and the one setting that points a metric at a local copy.

A metric's model is a metric option (eval.metric_options.<option>); when the option is not set, the default
here is the model the paper's reference code scored with. The scorer modules read their model through
`metric_model`, so this table is the only place a default is written.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

# metric -> (the metric option naming its model, the model used when the option is unset)
METRIC_MODELS: dict[str, tuple[str, Optional[str]]] = {
    "bertscore": ("bertscore_model", "roberta-large"),
    "bleurt": ("bleurt_checkpoint", "Elron/bleurt-large-512"),
    "intent_accuracy": ("intent_model", "rajkumarrrk/roberta-daily-dialog-intent-classifier"),
    "summaczs": ("summac_model", "tals/albert-xlarge-vitaminc-mnli"),
    "sentiment": ("sentiment_model", None),  # IMDB's reward classifier (reward.model) unless the option names one
}


def metric_model(metric: str, options: Mapping[str, Any]) -> Optional[str]:
    """The model `metric` loads under these metric options (None: it loads none, or none is configured)."""
    option, default = METRIC_MODELS[metric]
    ref = options.get(option) or default
    return str(ref) if ref else None


def metric_models(metrics: Iterable[str], options: Mapping[str, Any]) -> list[str]:
    """The models a run's metrics load, in the order of its metrics, each once."""
    refs = (metric_model(name, options) for name in metrics if name in METRIC_MODELS)
    return list(dict.fromkeys(ref for ref in refs if ref))
