"""`grue run`: one run; every failure a user can fix becomes one clear line in grue.commands.errors."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from grue.runtime.console import console
from grue.storage.run_layout import results_file


def run_command(args: Sequence[str], cfg: Any) -> None:
    """Run, or resume, one run; grue's own errors (a missing asset, a non-finite loss) reach the CLI's handler."""
    from grue.run.runner import Run
    from grue.run.signals import Terminated
    from grue.storage.writable import check_writable_dir

    check_writable_dir(Path(cfg.output_dir), "output_dir")
    from grue.config import config_hash
    from grue.run.code_changes import changed_code_note

    note = changed_code_note(cfg, config_hash(cfg))  # an edited python: file: why this is a new run
    if note:
        console.print(f"[yellow]\\[grue] {note}[/]", soft_wrap=True)
    try:
        path = Run(cfg, args).execute()
    except KeyboardInterrupt as err:  # Ctrl-C, or SIGTERM (grue.run.signals): the run.json says interrupted
        console.print("[yellow]\\[grue] interrupted; run the same command again to resume from the last checkpoint[/]")
        raise SystemExit(143 if isinstance(err, Terminated) else 130)  # the shells' codes for SIGTERM and SIGINT
    console.print(f"[green]\\[grue] done: {path}/results.json[/]")
    print_metrics(path)


def print_metrics(path) -> None:
    import json

    from rich.table import Table

    doc = json.loads(results_file(path).read_text())
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
