"""`grue rescore run=<dir>`: a finished run's saved generations scored with the current metric code."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from grue.errors import UsageError


def rescore_command(args: Sequence[str]) -> None:
    """`run=<dir>` names the old run; any other key=value (threads=1, device=cpu) applies to the scoring."""
    from grue.run.code_changes import rescore_with_current_code
    from grue.runtime.console import console
    from grue.commands.run import print_metrics

    runs = [a.split("=", 1)[1] for a in args if a.startswith("run=")]
    rest = [a for a in args if not a.startswith("run=")]
    if len(runs) != 1 or not runs[0]:
        raise UsageError("grue rescore needs one run=<run directory>, e.g. grue rescore run=runs/<task>-mini-ppo-seed0-<hash>")
    old = Path(runs[0])
    if not old.is_dir():
        raise UsageError(f"run={old}: no such run directory")
    path = rescore_with_current_code(old, rest)
    console.print(f"[green]\\[grue] {old} scored with the current code: {path}/results.json (the old run is "
                  "unchanged)[/]", soft_wrap=True)
    print_metrics(path)
