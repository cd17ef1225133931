"""A run whose `python:` code changed since: said when `grue run` starts, and re-scored by `grue rescore`.

An edited metric, reward or loader file is a new setting (its digest is in `code_sha256`, part of the
config hash: grue/extend/code_digests.py), so `grue run` after an edit starts a new run directory. The
user who just fixed a metric should know why, and that the old run need not be trained again: its saved
model and generations can be scored with the current metric code. `grue rescore run=<dir>` does that into
the run directory of the current setting (the old run keeps its results and their digests); it refuses
when anything but metric files changed, since then the training itself would differ.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Mapping, Sequence

from grue.errors import GrueUserError
from grue.extend.code_digests import KEY
from grue.storage import run_layout as layout

# Never carried into the re-scored run: its own config, status, lock and results are written for it.
_NOT_COPIED = (layout.RESULTS, layout.STATUS, layout.CONFIG, layout.CONFIG_HASH, layout.LOCK, layout.CHECKPOINTS)


def _settings(values: Mapping[str, Any]) -> dict:
    """What a run computes, less the content of its python: files."""
    from grue.config.identity import semantic_config

    out = semantic_config(dict(values))
    out.pop(KEY, None)
    return out


def _kind(key: str, metrics: Sequence[str]) -> str:
    return "metric" if key in metrics else "loader" if key.startswith("task.") else "reward"


def _files_said(changed: Sequence[str], metrics: Sequence[str]) -> str:
    """`metric file m.py` / `reward file r.py and metric file m.py`."""
    from grue.extend.code_digests import file_of

    return " and ".join(dict.fromkeys(f"{_kind(k, metrics)} file {file_of(k)}" for k in changed))


def changed_code_note(cfg: Any, config_hash: str) -> str | None:
    """One line when a finished run of the same settings but other python: code sits in the output folder."""
    from omegaconf import OmegaConf

    from grue.extend.code_digests import changed_files
    from grue.run.run_dir import RunDir

    here = RunDir.for_config(cfg, config_hash)
    if here.complete() or not Path(cfg.output_dir).is_dir():
        return None
    values = OmegaConf.to_container(cfg, resolve=True)
    mine, metrics = _settings(values), list(cfg.eval.metrics)
    prefix = here.path.name[:-8]  # <task>-<profile>-<algo>-seed<seed>-
    others = sorted(Path(cfg.output_dir).glob(f"{prefix}*/{layout.RESULTS}"), key=lambda p: p.stat().st_mtime, reverse=True)
    for results in others:
        if results.parent == here.path:
            continue
        try:
            recorded = json.loads(results.read_text(encoding="utf-8"))["config"]
            same = _settings(recorded) == mine
        except (ValueError, KeyError, TypeError, OSError):  # not a results file of this grue: not a run to name
            continue
        changed = changed_files(recorded.get(KEY), values.get(KEY)) if same else []
        if changed:
            rescore = all(_kind(k, metrics) == "metric" for k in changed)
            tail = (f"`grue rescore run={results.parent}` re-scores the old one with the current code" if rescore
                    else "the old run trained with the old code, so only a new run measures the new one")
            return f"{_files_said(changed, metrics)} changed since run {results.parent}: this is a new run; {tail}"
    return None


def _leaves(values: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(values, Mapping) and values:
        out: dict[str, Any] = {}
        for key, value in values.items():
            out.update(_leaves(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: values}


def _recorded_args(recorded: Mapping[str, Any], output_dir: Path, extra: Sequence[str]) -> list[str]:
    """The key=value arguments that resolve to the recorded config again (with the files as they are now)."""
    from omegaconf import OmegaConf

    from grue.config import load_config
    from grue.config.load import TASK_FILE_KEYS

    head = [f"task={recorded.get('task_file') or recorded['task']}", f"algo={recorded['algo']}",
            f"profile={recorded['profile']}", f"seed={recorded['seed']}"]
    resolved = _leaves(OmegaConf.to_container(load_config(head), resolve=True))
    skip = {"task", "algo", "profile", "seed", "init", "mask", "output_dir", KEY, *TASK_FILE_KEYS}
    given = {key.split("=", 1)[0] for key in extra}
    args = [f"{key}={json.dumps(value)}" for key, value in _leaves(dict(recorded)).items()
            if key.split(".")[0] not in skip and not key.endswith("_sha256") and key not in given
            and resolved.get(key, object()) != value]
    return [*head, *args, f"output_dir={output_dir}", *extra]


def _copy_run(old: Path, new: Path) -> None:
    """The old run's model, logs and predictions, linked where the filesystem allows (a model is large)."""
    def link_or_copy(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    tmp = new.with_name(f".{new.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(old, tmp, ignore=lambda folder, names: [n for n in names if Path(folder) == old and n in _NOT_COPIED],
                    copy_function=link_or_copy)
    tmp.rename(new)


def rescore_with_current_code(old: Path, extra: Sequence[str] = ()) -> Path:
    """Score a finished run's saved generations with the current metric code, into the run directory of the
    current setting; the old run is left as it is. Returns the new run directory."""
    from omegaconf import OmegaConf

    from grue.config import config_hash, load_config, to_yaml
    from grue.extend.code_digests import changed_files
    from grue.run.rescore import rescore
    from grue.run.run_dir import RunDir
    from grue.runtime.process import configure_threads, device_of

    old = Path(old)
    run = RunDir(old)
    if not run.complete():
        raise GrueUserError(f"{old}: not a finished run (no complete results.json); `grue run` finishes it")
    doc = json.loads(run.results.read_text(encoding="utf-8"))
    recorded = doc["config"]
    cfg = load_config(_recorded_args(recorded, old.parent, extra))
    values = OmegaConf.to_container(cfg, resolve=True)
    if _settings(values) != _settings(recorded):
        differ = sorted(k for k in {*_leaves(_settings(values)), *_leaves(_settings(recorded))}
                        if _leaves(_settings(values)).get(k) != _leaves(_settings(recorded)).get(k))
        raise GrueUserError(f"{old}: its settings no longer resolve as recorded (they differ at "
                            f"{', '.join(differ[:5])}): the task file, its data or a preset changed; `grue run` "
                            "makes a run of the current settings")
    metrics = list(cfg.eval.metrics)
    changed = changed_files(recorded.get(KEY), values.get(KEY))
    if not changed:
        raise GrueUserError(f"{old}: its python: files are unchanged since it ran; its results stand")
    trained_on = [k for k in changed if _kind(k, metrics) != "metric"]
    if trained_on:
        raise GrueUserError(f"{_files_said(trained_on, metrics)} changed since run {old}: the run trained with the old "
                            "code, so re-scoring cannot stand in for it; `grue run` makes a run of the current code")
    new_hash = config_hash(cfg)
    new = RunDir.for_config(cfg, new_hash)
    if new.complete():
        return new.path
    if new.path.exists():
        raise GrueUserError(f"{new.path} exists but is not finished: `grue run` with the current code finishes it")
    configure_threads(cfg)
    _copy_run(old, new.path)
    new.start(to_yaml(cfg), new_hash)
    path = rescore(cfg, new, new_hash, doc["init_model"], device_of(cfg), extra={"rescored_from": old.name})
    if path is None:
        shutil.rmtree(new.path, ignore_errors=True)
        raise GrueUserError(f"{old}: its model or saved predictions are missing or no longer match its splits; "
                            "`grue run` makes a run of the current code")
    return path
