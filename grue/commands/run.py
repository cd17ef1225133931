"""`grue run`: one run, with every failure a user can fix turned into one clear line."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from grue.run.display import console


def run_command(args: Sequence[str], cfg: Any, fail: Callable[[str], None]) -> None:
    from grue.assets import AssetMissing
    from grue.rl.trainer import NonFiniteError
    from grue.run.runner import Run

    try:
        path = Run(cfg, args).execute()
    except AssetMissing as err:
        fail(str(err))
    except NonFiniteError as err:
        fail(str(err))
    except KeyboardInterrupt:
        console.print("[yellow]\\[grue] interrupted; run the same command again to resume from the last checkpoint[/]")
        raise SystemExit(130)
    console.print(f"[green]\\[grue] done: {path}/results.json[/]")
    print_metrics(path)


def print_metrics(path) -> None:
    import json

    from rich.table import Table

    doc = json.loads((path / "results.json").read_text())
    table = Table(title=f"{doc['task']} / {doc['algo']} / {doc['profile']} / seed {doc['seed']}")
    splits = list(doc["metrics"])
    table.add_column("metric")
    for split in splits:
        table.add_column(split, justify="right")
    names = sorted({m for s in splits for m in doc["metrics"][s]})
    for name in names:
        table.add_row(name, *[f"{doc['metrics'][s].get(name, float('nan')):.4g}" for s in splits])
    for name, why in doc.get("metrics_unavailable", {}).items():
        table.add_row(f"{name} (unavailable)", *["—" for _ in splits])
    console.print(table)
