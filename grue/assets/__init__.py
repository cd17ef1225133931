from grue.assets.errors import AssetMissing
from grue.assets.resolve import cache_root, resolve_dataset, resolve_model

__all__ = ["AssetMissing", "cache_root", "resolve_dataset", "resolve_model"]
