"""A finished run trained again only because its weights are gone keeps the record it was made with.

A warm start or a teacher needs a run's model/, and a study committed without weights (or pruned by the
grid smoke) has the record but not the model: `run_with_weights` trains that run again, same config and
seed. Left alone, the retrain rewrites the record too (results.json with a new commit, date and wall time,
run.json, the logs), so a committed study's files change although nothing about the run did. The record is
the run's account of itself, and a board reads it; the weights are a by-product made again. So:

- the retrain gives the recorded metrics (to the digits a scorer repeats, grue/results/same_scores.py: a
  model-based score such as BERTScore moves by 1e-9 between processes on the same texts): the record is put
  back byte for byte, and only model/ is new;
- it gives other metrics (another machine, a non-deterministic kernel): the new record stays, because it
  describes the weights now in model/ that the warm-started run starts from, and the old results are kept
  beside it (RESULTS_BEFORE) with a warning, never silently lost;
- it fails or is stopped: the record is put back as it was (the run is still the complete run it was, only
  without weights), and the exception goes on.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from grue.results.same_scores import same_metrics
from grue.storage.atomic import atomic_write_bytes
from grue.storage.run_layout import CONFIG, CONFIG_HASH, LOGS, PREDICTIONS, RESULTS, STATUS

RESULTS_BEFORE = "results.before_retrain.json"
_RECORD_FILES = (RESULTS, CONFIG, CONFIG_HASH, STATUS)
_RECORD_FOLDERS = (LOGS, PREDICTIONS)


def record_names(run: Path) -> list[str]:
    """The names (relative, POSIX) of the run's record: what a study commits, not its weights or caches."""
    names = [name for name in _RECORD_FILES if (run / name).is_file()]
    for folder in _RECORD_FOLDERS:
        if (run / folder).is_dir():
            names += sorted(p.relative_to(run).as_posix() for p in (run / folder).rglob("*") if p.is_file())
    return names


def record_files(run: Path) -> dict[str, bytes]:
    """The run's record, name -> bytes."""
    return {name: (run / name).read_bytes() for name in record_names(run)}


def put_back(run: Path, record: dict[str, bytes]) -> None:
    """The run's record exactly as `record` holds it: files written since that it did not have are removed."""
    for name in set(record_names(run)) - set(record):
        (run / name).unlink()
    for name, data in record.items():
        atomic_write_bytes(run / name, data)


def _metrics(results: bytes) -> object:
    return json.loads(results)["metrics"]


@contextmanager
def record_kept(run: Path, say: Callable[..., None]) -> Iterator[None]:
    """Around the retrain of a complete run whose weights are gone (see the module's text)."""
    before = record_files(run)
    try:
        yield
    except BaseException:
        put_back(run, before)
        raise
    after = (run / RESULTS).read_bytes()
    if same_metrics(_metrics(after), _metrics(before[RESULTS])):
        put_back(run, before)
        say(f"{run} trained again for its weights: its metrics equal the recorded ones, and its record "
            "(results, logs, predictions) is kept as it was")
        return
    atomic_write_bytes(run / RESULTS_BEFORE, before[RESULTS])
    say(f"{run} trained again for its weights, but its metrics differ from the recorded ones (another machine "
        "or a non-deterministic kernel): results.json now describes the weights in model/, which the next run "
        f"starts from; the recorded results are kept in {RESULTS_BEFORE}", warning=True)
