"""Assemble the results.json document of a finished run (schema: docs/results_schema.md)."""
from __future__ import annotations

import datetime as dt
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping, Sequence

from omegaconf import OmegaConf

from grue.config.read_groups import shown_config
from grue.metrics.registry import higher_is_better, known_metrics
from grue.results.digests import split_digest
from grue.results.revisions import CURRENT
from grue.results.schema import SCHEMA_VERSION
from grue.train.offline.comparisons_record import comparisons_fields
from grue.train.registry import find_algorithm, optimises_reward
from grue.train.regulariser import regulariser_of


def _trains_rl(algo: str) -> bool:
    entry = find_algorithm(algo)
    return entry is not None and entry.trains == "rl"


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5,
                             cwd=Path(__file__).resolve().parent)
        return out.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def results_document(cfg: Any, task: Any, config_hash: str, init_model: str, metrics: dict[str, dict[str, float]],
                     n_samples: dict[str, int], scorers: Any, wall_time_s: float,
                     data: Mapping[str, Sequence[Any]] | None = None) -> dict:
    """`data`: the splits as the run loaded them; their digests (digests.py) say which data it scored."""
    known = set(known_metrics())
    names = {name for split in metrics.values() for name in split}
    return {
        "schema_version": SCHEMA_VERSION,
        "status": "complete",
        "task": cfg.task,
        "algo": cfg.algo,
        "profile": cfg.profile,
        "seed": int(cfg.seed),
        "reward": cfg.reward.name if optimises_reward(cfg.algo) else None,
        "init_model": init_model,
        "comparable_to_paper": cfg.profile == "paper" and task.grue_task,
        "config_hash": config_hash,
        "config": shown_config(OmegaConf.to_container(cfg, resolve=True), cfg.algo),  # as config.yaml: the groups it reads
        # where the KL term sat, its estimator and coefficient rule (grue/train/regulariser.py): RL runs only
        **({"regulariser": regulariser_of(OmegaConf.to_container(cfg, resolve=True))} if _trains_rl(cfg.algo) else {}),
        "versions": {"grue": _version("grue"), "python": platform.python_version(), "torch": _version("torch"),
                     "transformers": _version("transformers"), "accelerate": _version("accelerate")},
        "git_commit": _git_commit(),
        # the latest fix that changes numbers at the same settings (grue/results/revisions.py)
        "code_revision": CURRENT,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "wall_time_s": round(wall_time_s, 1),
        "splits": {split: {"source": "validation" if (split == "test" and task.test_references_hidden) else
                           ("validation" if split == "val" else "test"), "n_samples": n_samples[split]}
                   for split in metrics},
        "metrics": metrics,
        **({"data_sha256": {split: split_digest(data[split]) for split in metrics}} if data is not None else {}),
        "metrics_unavailable": dict(scorers.unavailable),
        "higher_is_better": {name: higher_is_better(name) for name in sorted(names) if name in known},
        **comparisons_fields(cfg),  # a DPO run's comparisons file: digest, labelers, answers
    }
