"""Model and dataset references resolve from local directories and from a hub cache laid out the way
huggingface_hub writes it; a missing hub asset fails early with the three ways out."""
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from grue.assets import AssetMissing, resolve_dataset, resolve_model
from grue.config import load_config
from grue.data.imdb import load_imdb_splits

REVISION = "0123456789abcdef0123456789abcdef01234567"


def hub_cache_entry(cache: Path, kind: str, repo_id: str) -> Path:
    """models--org--name/{refs/main, snapshots/<rev>/...}: the hub cache layout."""
    root = cache / f"{kind}s--{repo_id.replace('/', '--')}"
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(REVISION)
    snapshot = root / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    return snapshot


def imdb_parquet(root: Path, n_train: int = 20, n_test: int = 12) -> None:
    """The hub's IMDB layout: plain_text/<split>-00000-of-00001.parquet with text/label columns."""
    (root / "plain_text").mkdir(parents=True, exist_ok=True)
    for split, n in (("train", n_train), ("test", n_test), ("unsupervised", 3)):
        rows = [{"text": f"review {split} {i} " + "good fun " * (i % 5 + 2), "label": i % 2} for i in range(n)]
        pd.DataFrame(rows).to_parquet(root / "plain_text" / f"{split}-00000-of-00001.parquet")


@pytest.fixture
def offline_hub(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def test_local_model_directory_resolves_and_loads(tiny_model_dirs):
    from transformers import AutoModelForCausalLM

    path = resolve_model(tiny_model_dirs.policy)
    assert AutoModelForCausalLM.from_pretrained(path).config.n_layer == 2


def test_directory_without_config_is_refused(tmp_path):
    with pytest.raises(AssetMissing, match="no config.json"):
        resolve_model(str(tmp_path))


def test_model_from_the_hub_cache_offline(offline_hub, tiny_model_dirs):
    snapshot = hub_cache_entry(offline_hub, "model", "someone/tiny-gpt2")
    for f in Path(tiny_model_dirs.policy).iterdir():
        shutil.copy(f, snapshot / f.name)
    assert Path(resolve_model("someone/tiny-gpt2")) == snapshot


def test_missing_hub_model_names_the_three_ways_out(offline_hub):
    with pytest.raises(AssetMissing) as err:
        resolve_model("lvwerra/gpt2-imdb", task="imdb")
    text = str(err.value)
    assert "lvwerra/gpt2-imdb" in text and "grue fetch task=imdb" in text
    assert "model.policy=" in text and "profile=mini" in text


def test_imdb_paper_recipe_from_a_hub_layout_directory(tmp_path):
    imdb_parquet(tmp_path / "imdb")
    cfg = load_config(["task=imdb", "algo=zero_shot", f"data.source={tmp_path / 'imdb'}", "data.max_test=5"])
    splits = load_imdb_splits(cfg)
    assert (len(splits["train"]), len(splits["val"]), len(splits["test"])) == (16, 4, 5)  # 80/20, first 5 of test
    sample = splits["train"][0]
    words = sample.references[0].split()
    assert sample.prompt == " ".join(words[: len(words) // 2])
    assert splits == load_imdb_splits(cfg)  # the seeded shuffle is deterministic
    texts = {s.references[0] for s in splits["train"] + splits["val"]}
    assert len(texts) == 20  # train and val partition the hub train split


def test_imdb_dataset_from_the_hub_cache_offline(offline_hub):
    snapshot = hub_cache_entry(offline_hub, "dataset", "stanfordnlp/imdb")
    imdb_parquet(snapshot)
    assert resolve_dataset("stanfordnlp/imdb") == snapshot
    cfg = load_config(["task=imdb", "algo=zero_shot"])  # the paper profile's own data.source
    assert len(load_imdb_splits(cfg)["test"]) == 12


def test_run_on_paper_profile_without_the_assets_fails_before_training(offline_hub, tmp_path):
    from cli import app

    result = CliRunner().invoke(app, ["run", "task=imdb", "algo=ppo", f"output_dir={tmp_path / 'runs'}"])
    assert result.exit_code == 2
    assert "not available on this machine" in result.output and "profile=mini" in result.output
    assert not (tmp_path / "runs").exists()  # nothing started
    for ref in ("lvwerra/gpt2-imdb", "lvwerra/distilbert-imdb", "stanfordnlp/imdb"):
        assert ref in result.output  # every missing asset is listed at once
