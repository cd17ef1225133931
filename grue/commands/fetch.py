"""`grue fetch`: pre-download every hub asset a task config needs, for offline compute nodes."""
from __future__ import annotations

from typing import Any

from grue.commands.errors import UsageError
from grue.runtime.console import console


def fetch_command(cfg: Any) -> None:
    from grue.assets import AssetMissing, resolve_model
    from grue.run.preflight import hub_assets, metric_hub_models, resolve_config_dataset

    assets = hub_assets(cfg) + [("model", ref) for ref in metric_hub_models(cfg)]  # the metrics' models too
    if not assets:
        console.print(f"\\[grue] {cfg.task} ({cfg.profile}) needs nothing from the hub")
        return
    problems = []
    for kind, ref in assets:
        try:
            path = resolve_model(ref, cfg.task) if kind == "model" else resolve_config_dataset(cfg, ref)
            console.print(f"[green]fetched[/] {kind} {ref} -> {path}")
        except AssetMissing as err:
            problems.append(str(err).splitlines()[0])
    if problems:
        raise UsageError("could not fetch:\n  " + "\n  ".join(problems))
