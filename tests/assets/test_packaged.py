"""The packaged real assets of the mini profile: SmolLM2 conversion and the sentiment classifier."""
import json

import pytest

from grue.assets import packaged
from grue.assets.rotten_tomatoes import rotten_tomatoes_splits


def test_sentiment_classifier_trains_on_the_train_split_only(monkeypatch, tmp_path):
    monkeypatch.setenv("GRUE_CACHE", str(tmp_path))
    seen = {}

    def fake_train(texts, labels, out_dir, seed=0):
        seen["texts"], seen["labels"] = texts, labels
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "config.json").write_text("{}")
        return out_dir

    from grue.assets import sentiment_classifier

    monkeypatch.setattr(sentiment_classifier, "train_classifier", fake_train)
    path = packaged.packaged_model("minilm-sentiment-split7")
    assert path.name == "minilm-sentiment-split7"
    splits = rotten_tomatoes_splits(7)
    held_out = {text for text, _ in splits["val"] + splits["test"]}
    assert seen["texts"] and not (set(seen["texts"]) & held_out)
    assert set(seen["labels"]) == {0, 1}
    assert packaged.packaged_model("minilm-sentiment-split7") == path  # cached: not trained twice


def test_classifier_training_produces_a_loadable_model(tmp_path):
    from grue.assets.sentiment_classifier import train_classifier
    from grue.rewards.sentiment import SentimentClassifier

    texts = ["a wonderful, moving film", "a tedious, boring mess"] * 8
    out = train_classifier(texts, [1, 0] * 8, tmp_path / "clf")
    probs = SentimentClassifier(str(out)).positive_probability(["a wonderful film", "a boring mess"])
    assert len(probs) == 2 and all(0.0 <= p <= 1.0 for p in probs)


def test_unknown_packaged_model_lists_the_known_ones():
    from grue.assets import AssetMissing

    with pytest.raises(AssetMissing, match="smollm2-135m"):
        packaged.packaged_model("gpt2")


@pytest.mark.slow
def test_smollm2_converts_once_and_a_zero_shot_run_scores_it(tmp_path, monkeypatch, tiny_model_dirs):
    """End to end on the real packaged causal LM (GGUF -> cached safetensors); tiny classifier for speed."""
    monkeypatch.setenv("GRUE_CACHE", str(tmp_path / "cache"))
    from grue.config import load_config
    from grue.run.runner import Run

    args = ["task=imdb", "profile=mini", "algo=zero_shot", f"reward.model={tiny_model_dirs.classifier}",
            "data.max_val=4", "data.max_test=4", "generation.max_new_tokens=8", "generation.min_new_tokens=8",
            f"output_dir={tmp_path / 'runs'}", "threads=2"]
    path = Run(load_config(args), args).execute()
    doc = json.loads((path / "results.json").read_text())
    converted = tmp_path / "cache" / "models" / "smollm2-135m"
    assert (converted / "model.safetensors").exists() and (converted / "tokenizer.json").exists()
    assert 1.0 < doc["metrics"]["val"]["perplexity"] < 1000.0  # a real LM, not random weights (~50k vocab)
    generations = [json.loads(l)["generation"] for l in (path / "predictions" / "val.jsonl").read_text().splitlines()]
    assert all(g.strip() for g in generations)


def test_an_asset_asked_for_by_two_runs_at_once_is_built_once(tmp_path):
    import threading
    import time

    from grue.assets.build_once import build_once

    calls = []

    def slow_build(out):
        calls.append(1)
        time.sleep(0.3)
        (out / "config.json").write_text("{}")

    threads = [threading.Thread(target=build_once, args=(tmp_path / "asset", slow_build)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and (tmp_path / "asset" / "config.json").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".asset.") and p.is_dir()] == []
