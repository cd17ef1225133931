"""A run directory's files, named once, and the one reader of the JSONL files a run writes.

    <run>/results.json              the results (docs/results_schema.md); written last, atomically
    <run>/config.yaml               the resolved config
    <run>/config_hash.txt           its hash
    <run>/run.json                  running / complete / failed / interrupted (RunDir.status)
    <run>/.lock                     held by the process running it (grue/storage/lock.py)
    <run>/model/                    the final model, in the hub's layout
    <run>/checkpoints/              what a resumed run starts from; gone once the run is complete
    <run>/logs/train.jsonl          one line per training step
    <run>/logs/eval.jsonl           one line per evaluation
    <run>/logs/samples.jsonl        the sample tables of intermediate evaluations
    <run>/predictions/<split>.jsonl generations of a split with their per-sample scores
    <run>/critic_cache/             judgements of reward.dense=critic

The ground floor: this module imports nothing of grue, so the run, the board, the results, the human
app and labelling can all read it without pulling one another in. A sweep's own books
(<runs>/sweeps/<hash>/, grue/sweep/state.py) are not a run directory and are not named here.
"""
from __future__ import annotations

import json
from pathlib import Path, PurePath
from typing import Any, Optional, Union

PathLike = Union[str, Path]

RESULTS = "results.json"
CONFIG = "config.yaml"
CONFIG_HASH = "config_hash.txt"
STATUS = "run.json"
LOCK = ".lock"
MODEL = "model"
CHECKPOINTS = "checkpoints"
LOGS = "logs"
PREDICTIONS = "predictions"
CRITIC_CACHE = "critic_cache"
# Names relative to the run directory (POSIX), as a submission bundle's archive and messages spell them.
TRAIN_LOG = f"{LOGS}/train.jsonl"
EVAL_LOG = f"{LOGS}/eval.jsonl"
SAMPLES_LOG = f"{LOGS}/samples.jsonl"


def predictions_name(split: str) -> str:
    """predictions/<split>.jsonl, relative to the run directory."""
    return f"{PREDICTIONS}/{split}.jsonl"


def results_file(run: PathLike) -> Path:
    return Path(run) / RESULTS


def config_file(run: PathLike) -> Path:
    return Path(run) / CONFIG


def config_hash_file(run: PathLike) -> Path:
    return Path(run) / CONFIG_HASH


def status_file(run: PathLike) -> Path:
    return Path(run) / STATUS


def lock_file(run: PathLike) -> Path:
    return Path(run) / LOCK


def model_dir(run: PathLike) -> Path:
    return Path(run) / MODEL


def run_name_of(path: PathLike) -> str:
    """The run folder's name, given the folder or its model/ directory (a warm start's or a teacher's)."""
    path = PurePath(path)
    return path.parent.name if path.name == MODEL else path.name


def checkpoints_dir(run: PathLike) -> Path:
    return Path(run) / CHECKPOINTS


def logs_dir(run: PathLike) -> Path:
    return Path(run) / LOGS


def train_log(run: PathLike) -> Path:
    return Path(run) / TRAIN_LOG


def eval_log(run: PathLike) -> Path:
    return Path(run) / EVAL_LOG


def samples_log(run: PathLike) -> Path:
    return Path(run) / SAMPLES_LOG


def predictions_dir(run: PathLike) -> Path:
    return Path(run) / PREDICTIONS


def predictions_file(run: PathLike, split: str) -> Path:
    return Path(run) / predictions_name(split)


def critic_cache_dir(run: PathLike) -> Path:
    return Path(run) / CRITIC_CACHE


def read_jsonl(path: PathLike) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file grue wrote, in order; a missing file is [] (nothing logged yet).

    A line that does not parse is skipped, never fatal: logs grow by appends, so a run killed mid-write
    leaves a torn last line, and the next attempt's first line may be glued to it. Values that are not
    objects are skipped too, since every reader looks fields up by name.

    Each line is decoded as strict UTF-8 on its own, not the file with errors='replace': grue writes these
    files with json.dumps, which escapes every non-ASCII character, so a byte that is not UTF-8 means the
    line was damaged (a torn write, a disk fault). Skipping that one line keeps the rest; decoding the
    whole file strictly would lose every line for one bad byte, and 'replace' would keep the damaged line
    with U+FFFD inside its strings, which would then reach a re-scored metric or a board's sample table
    as if grue had written them.

    Files from outside (a submitted bundle, a user's data) are not read here: their readers report the
    line that is wrong (grue/storage/inputs.py's jsonl_objects) instead of skipping it.
    """
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    rows = []
    for line in data.splitlines():  # bytes split at \n, \r and \r\n only, as json.dumps never emits them raw
        row = _json_object(line)
        if row is not None:
            rows.append(row)
    return rows


def _json_object(line: bytes) -> Optional[dict[str, Any]]:
    """The object one line holds; None for a blank, torn, non-UTF-8 or non-object line."""
    try:
        value = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return value if isinstance(value, dict) else None
