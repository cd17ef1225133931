"""Resolve a model or dataset reference to a local directory: packaged, local path, or hub id.

A reference is one of
- `packaged:<name>`: a real asset installed from a package registry (see grue.assets.packaged);
- a path to an existing directory (a Hugging Face model dir, or a dataset dir of parquet files);
- a hub id (`org/name`): taken from the hub cache when present, downloaded otherwise.
Hub access is attempted only for hub ids, and a failure names the three ways out (AssetMissing).
"""
from __future__ import annotations

import os
from pathlib import Path

from grue.assets.errors import AssetMissing

PACKAGED_PREFIX = "packaged:"


def cache_root() -> Path:
    """Where converted and trained assets live; `GRUE_CACHE` moves it (tests use a temp dir)."""
    root = os.environ.get("GRUE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "grue")
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def is_packaged(ref: str) -> bool:
    return ref.startswith(PACKAGED_PREFIX)


def _hub_cache_dirs() -> list[Path]:
    """Every place the hub cache may be, in huggingface_hub's order of precedence."""
    home = os.path.expanduser("~")
    hf_home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                        os.path.join(home, ".cache"), "huggingface")
    places = [os.environ.get("HF_HUB_CACHE"), os.environ.get("HUGGINGFACE_HUB_CACHE"), os.path.join(hf_home, "hub"),
              os.path.join(home, ".cache", "huggingface", "hub")]
    return [Path(p) for p in places if p]


def surely_not_cached(ref: str, repo_type: str) -> bool:
    """True when no hub cache holds a folder for `ref` (`models--org--name`), so the cache lookup can be
    skipped without importing huggingface_hub (~60 ms of `grue tasks`); when a folder exists the hub
    library decides, since only it knows whether the snapshot in it is complete."""
    folder = f"{repo_type}s--{ref.replace('/', '--')}"
    return not any((place / folder).exists() for place in _hub_cache_dirs())


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False")


def _hub_snapshot(ref: str, repo_type: str, allow_patterns: list[str] | None, task: str | None,
                 revision: str | None = None) -> Path:
    kind = "dataset" if repo_type == "dataset" else "model"
    if _offline() and surely_not_cached(ref, repo_type):
        raise AssetMissing(ref, kind, "not in the hub cache and HF_HUB_OFFLINE is set", task)
    from huggingface_hub import snapshot_download

    cache_dir = os.environ.get("HF_HUB_CACHE")  # read per call: a job may point it at a pre-fetched cache
    try:  # the cache first: compute nodes are often offline on purpose
        return Path(snapshot_download(ref, repo_type=repo_type, allow_patterns=allow_patterns, cache_dir=cache_dir,
                                      revision=revision, local_files_only=True))
    except Exception:  # noqa: BLE001 - any cache miss falls through to the network attempt
        pass
    if _offline():
        raise AssetMissing(ref, kind, "not in the hub cache and HF_HUB_OFFLINE is set", task)
    try:
        return Path(snapshot_download(ref, repo_type=repo_type, allow_patterns=allow_patterns, cache_dir=cache_dir,
                                      revision=revision))
    except Exception as err:  # noqa: BLE001 - network, auth and not-found errors all mean "not here"
        reason = type(err).__name__
        raise AssetMissing(ref, kind, f"not cached and the hub could not be reached: {reason}", task) from None


def resolve_model(ref: str, task: str | None = None) -> str:
    """A directory `from_pretrained` can load, for any model reference."""
    if is_packaged(ref):
        from grue.assets.packaged import packaged_model

        return str(packaged_model(ref[len(PACKAGED_PREFIX):]))
    if os.path.isdir(ref):
        if not (Path(ref) / "config.json").exists():
            raise AssetMissing(ref, "model", "the directory has no config.json", task)
        return ref
    if ref.startswith((".", "/", "~")):
        raise AssetMissing(ref, "model", "no such directory", task)
    return str(_hub_snapshot(ref, "model", None, task))


def resolve_dataset(ref: str, task: str | None = None, subset: str | None = None,
                    revision: str | None = None) -> Path:
    """A directory of the dataset's parquet files (hub layout: `<config>/<split>-*.parquet`).

    With `subset`, only that subset's directory is fetched (WMT16 has six language pairs; a task needs
    one). `revision` reaches the hub's parquet conversion of script-based datasets (refs/convert/parquet).
    """
    if is_packaged(ref):
        raise ValueError("packaged datasets are read by their task loader, not resolved to a directory")
    if os.path.isdir(ref):
        return Path(ref)
    if ref.startswith((".", "/", "~")):
        raise AssetMissing(ref, "dataset", "no such directory", task)
    patterns = [f"{subset}/*.parquet", f"{subset}/**/*.parquet"] if subset else ["*.parquet", "**/*.parquet"]
    return _hub_snapshot(ref, "dataset", patterns + ["*.json", "**/*.json"], task, revision)


def parquet_split_files(root: Path, split: str, subset: str | None = None) -> list[Path]:
    """The parquet shards of one split, in the hub's layouts (`<subset>/<split>-*.parquet` and variants)."""
    patterns = [f"{subset}/{split}-*.parquet", f"{subset}/{split}/*.parquet"] if subset else []
    patterns += [f"*/{split}-*.parquet", f"{split}-*.parquet", f"data/{split}-*.parquet", f"*/{split}/*.parquet",
                 f"{split}/*.parquet"]
    for pattern in patterns:
        files = sorted(root.glob(pattern))
        if files:
            return files
    raise AssetMissing(str(root), "dataset", f"no parquet files for split {split!r}")
