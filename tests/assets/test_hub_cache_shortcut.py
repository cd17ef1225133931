"""The cache shortcut of grue.assets.resolve: offline and with no hub-cache folder for a reference, the lookup
answers "missing" itself; with a folder present, huggingface_hub decides (a folder may hold a partial download)."""
from __future__ import annotations

import sys

import pytest

from grue.assets import resolve
from grue.assets.errors import AssetMissing


@pytest.fixture
def empty_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path


def test_a_reference_with_no_folder_in_any_cache_is_surely_missing(empty_caches):
    assert resolve.surely_not_cached("org/name", "model")
    (empty_caches / "home" / "hub" / "models--org--name").mkdir(parents=True)
    assert not resolve.surely_not_cached("org/name", "model")
    assert resolve.surely_not_cached("org/name", "dataset")  # datasets live under datasets--org--name


def test_offline_miss_is_answered_without_the_hub_library(empty_caches, monkeypatch):
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # any import of it now raises ImportError
    with pytest.raises(AssetMissing, match="HF_HUB_OFFLINE"):
        resolve.resolve_model("org/name")


def test_a_folder_in_the_cache_is_left_to_the_hub_library(empty_caches, monkeypatch):
    (empty_caches / "hub" / "models--org--name").mkdir(parents=True)
    asked = []

    class FakeHub:
        @staticmethod
        def snapshot_download(ref, **kwargs):
            asked.append((ref, kwargs.get("local_files_only")))
            raise FileNotFoundError("partial download")

    monkeypatch.setitem(sys.modules, "huggingface_hub", FakeHub)
    with pytest.raises(AssetMissing, match="HF_HUB_OFFLINE"):
        resolve.resolve_model("org/name")
    assert asked == [("org/name", True)]
