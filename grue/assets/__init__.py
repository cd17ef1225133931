"""Resolve a model or dataset reference (hub id, local directory, or `packaged:<name>`) to a local
directory, build packaged assets once, and the one error for an asset that cannot be had here."""
from grue.assets.errors import AssetMissing
from grue.assets.resolve import cache_root, resolve_dataset, resolve_model

__all__ = ["AssetMissing", "cache_root", "resolve_dataset", "resolve_model"]
