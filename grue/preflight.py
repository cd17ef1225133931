"""Before a run starts: every hub model and dataset it needs must be reachable; all problems at once."""
from __future__ import annotations

from typing import Any

from grue.assets import AssetMissing, resolve_dataset, resolve_model


def hub_assets(cfg: Any) -> list[tuple[str, str]]:
    """(kind, reference) pairs of a config that live on the hub (packaged and local ones need nothing)."""
    import os

    from grue.assets.resolve import is_packaged

    refs = [("model", cfg.model.policy), ("model", cfg.model.supervised_init), ("model", cfg.reward.model),
            ("dataset", cfg.data.source)]
    return [(kind, ref) for kind, ref in dict.fromkeys(refs) if ref and not is_packaged(ref) and not os.path.isdir(ref)]


def resolve_config_dataset(cfg: Any, ref: str) -> Any:
    """The dataset of a config, with its subset and revision (only that subset is fetched)."""
    return resolve_dataset(ref, cfg.task, cfg.data.config, cfg.data.revision)


def check_assets(cfg: Any) -> None:
    """Resolve (from the cache, or by downloading when online) each hub asset; raise one error for all."""
    missing = []
    for kind, ref in hub_assets(cfg):
        try:
            resolve_model(ref, cfg.task) if kind == "model" else resolve_config_dataset(cfg, ref)
        except AssetMissing:
            missing.append(f"{kind} {ref}")
    if missing:
        raise AssetMissing("; ".join(missing), "hub assets", "not in the hub cache and the hub is unreachable",
                           cfg.task)
