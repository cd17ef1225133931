"""The models the metrics score with (grue/metrics/model_refs.py): `grue fetch` downloads them with the
policy and the data, and a missing one says how to get it (fetch, or the metric's own option), not to
switch to the mini profile, which has no copy of it either."""
import pytest

from grue.config import load_config
from grue.metrics.base import MetricUnavailable
from grue.metrics.model_refs import METRIC_MODELS, metric_models
from grue.metrics.registry import BUILTIN


def fetched(monkeypatch, args):
    """The references `grue fetch ARGS` asks the asset layer for (nothing downloaded: resolution recorded)."""
    import grue.assets
    import grue.run.preflight
    from grue.commands.fetch import fetch_command

    asked = []
    monkeypatch.setattr(grue.assets, "resolve_model", lambda ref, task=None: asked.append(ref) or f"/cache/{ref}")
    monkeypatch.setattr(grue.run.preflight, "resolve_config_dataset", lambda cfg, ref: asked.append(ref) or "/d")
    fetch_command(load_config(args))
    return asked


def test_fetch_downloads_the_models_the_task_s_metrics_score_with(monkeypatch):
    asked = fetched(monkeypatch, ["task=dailydialog", "profile=paper"])
    assert "rajkumarrrk/roberta-daily-dialog-intent-classifier" in asked  # intent accuracy's classifier
    assert "roberta-large" in asked  # BERTScore's model when the task names none
    summarisation = fetched(monkeypatch, ["task=cnn_dailymail", "profile=paper"])
    assert "tals/albert-xlarge-vitaminc-mnli" in summarisation  # SummaC's NLI model


def test_a_metric_model_given_as_a_local_copy_or_a_packaged_one_is_not_fetched(monkeypatch, tmp_path):
    asked = fetched(monkeypatch, ["task=dailydialog", "profile=mini", f"eval.metric_options.intent_model={tmp_path}"])
    assert not any("intent" in ref or ref == "packaged:minilm" for ref in asked)


def test_the_metrics_models_follow_their_options_and_fall_back_to_the_reference_code_s():
    options = {"bertscore_model": "my/bert"}
    assert metric_models(["bertscore", "intent_accuracy", "meteor", "bertscore"], options) == [
        "my/bert", "rajkumarrrk/roberta-daily-dialog-intent-classifier"]
    assert metric_models(["sentiment"], {}) == []  # IMDB's classifier is reward.model, fetched as such
    names = {name for module in BUILTIN.values() for name in module}
    assert set(METRIC_MODELS) <= names  # every entry is a metric a task can name


def test_a_missing_metric_model_names_fetch_and_the_metric_s_option(monkeypatch, tmp_path):
    from grue.metrics.hf_models import resolve_or_unavailable

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(MetricUnavailable) as err:
        resolve_or_unavailable("someone/absent-intent-model", "intent_accuracy")
    text = str(err.value)
    assert text.startswith("intent_accuracy: model 'someone/absent-intent-model' is not available on this machine")
    assert "grue fetch" in text and "eval.metric_options.intent_model=/path/to/dir" in text
    assert "profile=mini" not in text and "model.policy=" not in text  # no help for a metric's model
