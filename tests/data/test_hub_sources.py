"""Task data by hub id from a pre-fetched hub cache (offline compute nodes): the subset and the revision in
the config reach the cache lookup, so script datasets' parquet conversion (refs/convert/parquet) loads."""
from __future__ import annotations

from pathlib import Path

import pytest

import hub_fixtures
from grue.assets import AssetMissing, resolve_dataset
from grue.config import load_config
from grue.run.preflight import check_assets
from tasks import get_task

COMMIT = "fedcba9876543210fedcba9876543210fedcba98"


def cached_dataset(cache: Path, repo_id: str, revision: str) -> Path:
    """The hub cache layout: datasets--org--name/{refs/<revision>, snapshots/<commit>/...}."""
    root = cache / f"datasets--{repo_id.replace('/', '--')}"
    ref = root / "refs" / revision
    ref.parent.mkdir(parents=True, exist_ok=True)
    ref.write_text(COMMIT)
    snapshot = root / "snapshots" / COMMIT
    snapshot.mkdir(parents=True)
    return snapshot


@pytest.fixture
def offline_hub(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def test_dailydialog_from_the_parquet_conversion_revision(offline_hub):
    snapshot = cached_dataset(offline_hub, "li2017dailydialog/daily_dialog", "refs/convert/parquet")
    hub_fixtures.dailydialog(snapshot)
    cfg = load_config(["task=dailydialog", "algo=zero_shot"])  # the paper profile's hub id, subset, revision
    assert (cfg.data.config, cfg.data.revision) == ("default", "refs/convert/parquet")
    splits = get_task("dailydialog").loader(cfg)
    assert len(splits["test"]) == 2


def test_the_main_branch_is_not_the_conversion(offline_hub):
    cached_dataset(offline_hub, "li2017dailydialog/daily_dialog", "main")  # a script repository's main branch
    with pytest.raises(AssetMissing, match="li2017dailydialog/daily_dialog"):
        resolve_dataset("li2017dailydialog/daily_dialog", "dailydialog", "default", "refs/convert/parquet")


def test_wmt16_by_hub_id_reads_its_language_pair(offline_hub):
    snapshot = cached_dataset(offline_hub, "wmt/wmt16", "main")
    hub_fixtures.translation(snapshot, "de-en", "files")
    hub_fixtures.translation(snapshot, "cs-en", "files")
    splits = get_task("wmt16").loader(load_config(["task=wmt16", "algo=zero_shot"]))
    assert all("de-en" in s.prompt for s in splits["train"])


def test_preflight_checks_the_dataset_with_its_revision(offline_hub, tiny_model_dirs):
    snapshot = cached_dataset(offline_hub, "li2017dailydialog/daily_dialog", "refs/convert/parquet")
    hub_fixtures.dailydialog(snapshot)
    args = ["task=dailydialog", "algo=zero_shot", f"model.policy={tiny_model_dirs.policy}",
            f"reward.model={tiny_model_dirs.classifier}"]
    check_assets(load_config(args))  # found in the cache under refs/convert/parquet
    with pytest.raises(AssetMissing, match="dataset li2017dailydialog/daily_dialog"):
        check_assets(load_config([*args, "data.revision=refs/pr/1"]))
