"""A finished run whose results.json is cut short: score its saved predictions again, do not retrain.

Training is over when a run's results.json is written (its checkpoints are gone by then), so retraining
would cost the whole run and, with sampling on another machine, might not even give the same model.
The generations are already on disk: when `model/` (or, for a run that trains nothing, its initial
model) and both predictions files are intact and match the task's splits id for id, scoring them
again gives the same metrics the lost file held.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Optional, Sequence

from grue.data.sample import Sample
from grue.run.run_dir import RunDir
from grue.storage.run_layout import read_jsonl

SPLITS = ("val", "test")


def saved_generations(run_dir: RunDir, samples: Sequence[Sample], split: str) -> Optional[list[str]]:
    """The generations of `split` from predictions/<split>.jsonl, when the file holds exactly the split's ids
    in order; None otherwise (missing, torn, or from another version of the data)."""
    rows = read_jsonl(run_dir.predictions(split))
    if [row.get("id") for row in rows] != [s.id for s in samples]:
        return None
    generations = [row.get("generation") for row in rows]
    return generations if all(isinstance(g, str) for g in generations) else None


def scoring_model(cfg: Any, run_dir: RunDir, init_model: str) -> Optional[str]:
    """The model whose predictions these are: the saved final model, or the initial one when the run
    trains nothing (zero-shot, or a published supervised checkpoint); None when it is gone."""
    if run_dir.model_dir.is_dir():
        return str(run_dir.model_dir)
    from grue.train.registry import get_algorithm

    trains = get_algorithm(cfg.algo).trains
    if trains == "nothing" or (trains == "supervised" and cfg.model.supervised_init):
        return init_model
    return None


def rescore(cfg: Any, run_dir: RunDir, config_hash: str, init_model: str, device: str,
            extra: Optional[dict] = None) -> Optional[Path]:
    """Rewrite results.json from the saved predictions; None (nothing written) when they cannot stand in.
    `extra`: fields added to the results (`rescored_from`, grue/run/rescore_code.py)."""
    from grue.policy.load import load_policy
    from grue.results.cost import cost_fields
    from grue.results.writer import results_document
    from grue.rewards.learned.schedules import results_fields
    from grue.run.evaluate import build_task_scorers, score_generations
    from grue.storage.atomic import atomic_write_jsonl
    from tasks import get_task

    started = time.time()
    model = scoring_model(cfg, run_dir, init_model)
    if model is None:
        return None
    task = get_task(cfg.task)
    splits = task.loader(cfg)
    generations = {split: saved_generations(run_dir, splits[split], split) for split in SPLITS}
    if any(g is None for g in generations.values()):
        return None
    policy = load_policy(cfg, model, device)  # perplexity is scored under the model that generated
    scorers = build_task_scorers(cfg, policy, device)
    scored = {split: score_generations(scorers, splits[split], generations[split]) for split in SPLITS}
    for split, evaluation in scored.items():  # each line keeps what it recorded (a stop string's cut), new scores
        rows = read_jsonl(run_dir.predictions(split))
        fresh = [{**row, "scores": new["scores"]} for row, new in zip(rows, evaluation.predictions)]
        if fresh != rows:
            atomic_write_jsonl(run_dir.predictions(split), fresh)
    metrics = {split: evaluation.metrics for split, evaluation in scored.items()}
    doc = results_document(cfg, task, config_hash, init_model, metrics, {split: len(splits[split]) for split in SPLITS},
                           scorers, time.time() - started, data=splits)
    doc.update(results_fields(run_dir.path))  # what the run's own files add (a label schedule's records)
    doc.update(cost_fields(run_dir.path))      # and what it spent (its logs)
    doc.update(extra or {})
    run_dir.finish(doc)
    return run_dir.path
