"""Runs that started from (or learned from) another run's weights made before those weights were trained again.

A study commits its runs' records, not their weights, so a warm start or a distillation whose supervised run has
no model/ trains that run again (grue/run/record_kept.py). When the retrain's metrics differ from the first
record (a CPU retrain has differed in the 8th digit of its loss, and a sampled decode then picks another token
now and then), the board shows the retrained record and the first one is kept beside it as
results.before_retrain.json. Runs that started from the first weights, before the retrain, are then not
started from the weights whose record the board shows: a paired comparison of two warm starts (Supervised+NLPO
against Supervised+PPO of the same seed) then includes the difference between the two starts. This names them.
"""
from __future__ import annotations

from grue.board.numbers.collect import Run
from grue.board.task_info import algo_label
from grue.run.record_kept import RESULTS_BEFORE
from grue.storage.run_layout import run_name_of


def _source_runs(run: Run) -> list[str]:
    """The folder names of the runs whose weights `run` started from or learned from."""
    names = []
    init = run.doc.get("init_model")
    if isinstance(init, str) and init:
        names.append(run_name_of(init))
    for teacher in (run.doc.get("teachers") or {}).values():
        if isinstance(teacher, dict) and isinstance(teacher.get("run"), str):
            names.append(teacher["run"])
    return names


def retrained_runs(runs: list[Run]) -> list[str]:
    """'<task> <algorithm> seed <s>' for each run trained again for its weights whose metrics moved."""
    return sorted(f"{run.task} {algo_label(run.algo)} seed {run.seed}" for run in runs
                  if (run.path / RESULTS_BEFORE).is_file())


def retrained_starts(runs: list[Run]) -> list[str]:
    """'<task> <algorithm> seed <s> (started from the first weights of <source>, trained again on <date>)', one per
    run made before its source run was trained again with other metrics; [] when there is none."""
    retrained = {run.path.name: run for run in runs if (run.path / RESULTS_BEFORE).is_file()}
    out = []
    for run in runs:
        for name in _source_runs(run):
            source = retrained.get(name)
            if source is None:
                continue
            again = str(source.doc.get("created") or "")
            if str(run.doc.get("created") or "") < again:
                out.append(f"{run.task} {algo_label(run.algo)} seed {run.seed} (its {algo_label(source.algo)} seed "
                           f"{source.seed} was trained again on {again[:10]})")
    return sorted(out)
