"""`grue demo` (what `make demo` runs): IMDB on the mini profile, zero-shot and NLPO, then the table."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from grue.run.display import console

DEMO_ALGOS = ("zero_shot", "nlpo")


def demo_command(extra: Sequence[str]) -> None:
    from grue.board.export import export_tables
    from grue.config import load_config
    from grue.run.runner import Run

    out = "runs"
    for arg in extra:
        if arg.startswith("output_dir="):
            out = arg.split("=", 1)[1]
    for algo in DEMO_ALGOS:
        args = ["task=imdb", "profile=mini", f"algo={algo}", "seed=0", *extra]
        cfg = load_config(args)
        console.rule(f"[bold]grue run {' '.join(args)}")
        Run(cfg, args).execute()
    console.rule("[bold]leaderboard (mini profile: not comparable to the paper)")
    print(export_tables([Path(out)], Path(out) / "leaderboard", ("md", "csv", "json")))
