"""`grue eval`: score any run directory or model reference on a task's metric mix; a run directory's model card
(model/README.md, grue/results/model_card.py) is written again."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Sequence

from grue.commands.arguments import split_off
from grue.commands.errors import UsageError
from grue.runtime.console import console
from grue.storage.run_layout import model_dir, results_file, status_file

SPLITS = ("val", "test")
# Evaluations go here unless output_dir= says otherwise: beside runs/, never inside it, so a quick check
# never becomes a leaderboard row (the board also leaves out results of kind "evaluation").
DEFAULT_OUT = "evals"


def _check_model_json(folder: Path, model: str) -> None:
    """A model directory's config.json and adapter_config.json must be JSON objects: loading one that is not
    ended in a traceback from transformers or peft (issue 45)."""
    for name in ("config.json", "adapter_config.json", "adapter/adapter_config.json"):
        path = folder / name
        if not path.is_file():
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as err:
            raise UsageError(f"model={model}: {path} is not readable JSON ({str(err).splitlines()[0]}); copy the "
                             "directory that save_pretrained wrote again") from None
        if not isinstance(doc, dict):
            raise UsageError(f"model={model}: {path} holds a {type(doc).__name__}, not the JSON object "
                             "save_pretrained writes; copy that directory again")


def _model_of(model: str) -> tuple[str, str]:
    """(algo, model reference) of `model=`: a finished run's directory, a model directory, or a hub id."""
    path = Path(model)
    if not path.is_dir():
        if path.exists():
            raise UsageError(f"model={model} is a file; give a run directory, a model directory or a hub id")
        return "zero_shot", model
    if results_file(path).exists() or status_file(path).exists():
        if not model_dir(path).is_dir():
            raise UsageError(f"model={model} is a run directory without a model/ (unfinished, or a zero-shot run "
                             "that saves none); evaluate its base model instead, e.g. model=<hub id or dir>")
        try:
            algo = json.loads(results_file(path).read_text(encoding="utf-8"))["algo"]
        except (OSError, ValueError, KeyError, TypeError):
            raise UsageError(f"{path / 'results.json'} is missing or unreadable; run the same `grue run` command "
                             f"again to finish the run, or give model={path / 'model'}") from None
        _check_complete(model_dir(path), f"model={model}")
        _check_model_json(model_dir(path), model)
        return algo, str(model_dir(path))
    if (path / "adapter_config.json").is_file() and not (path / "config.json").exists():
        _check_model_json(path, model)
        return "zero_shot", model  # a LoRA adapter (peft's layout, e.g. a run's model/adapter): merged into its base
    if not (path / "config.json").exists():
        raise UsageError(f"model={model} is neither a model directory (no config.json) nor a run directory "
                         "(no results.json); give one of those or a hub id")
    _check_complete(path, f"model={model}")
    _check_model_json(path, model)
    return "zero_shot", model


def _run_defaults(model: str, rest: Sequence[str]) -> list[str]:
    """A run directory's task, profile and seed, for the ones the command line does not set."""
    results = results_file(model)
    if not results.is_file():
        return []
    try:
        doc = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    given = {arg.split("=", 1)[0] for arg in rest}
    task_file = (doc.get("config") or {}).get("task_file")
    if task_file and "task" not in given and Path(task_file).is_file():  # a run of a user's task file
        doc = {**doc, "task": task_file}
    return [f"{key}={doc[key]}" for key in ("task", "profile", "seed") if key not in given and key in doc]


def _mask_note(cfg: object) -> list[str]:
    """An NLPO-family run evaluated itself through its mask, whose masking model is not kept with the
    final model: this evaluation decodes without it, and its recorded config says so."""
    from grue.train.registry import get_algorithm

    if "nlpo" in get_algorithm(cfg.algo).reads and cfg.nlpo.mask_at_eval:
        console.print("[yellow]\\[grue] note: this run evaluated itself through its NLPO mask; the masking model is "
                      "not saved with model/, so grue eval decodes without the mask (nlpo.mask_at_eval=false is "
                      "recorded) and its numbers can differ from the run's own[/]", soft_wrap=True)
        return ["nlpo.mask_at_eval=false"]
    return []


def _check_complete(directory: Path, what: str) -> None:
    """A model directory that lacks its weights or tokenizer is named before anything is loaded."""
    from grue.assets.model_files import missing_model_files

    missing = missing_model_files(directory)
    if missing:
        raise UsageError(f"{what}: the model directory {directory} lacks {', '.join(missing)}; copy the whole "
                         "directory that save_pretrained wrote (model and tokenizer)")


def eval_command(args: Sequence[str]) -> None:
    from grue.board.numbers.collect import EVALUATION
    from grue.config import config_hash, load_config
    from grue.run.evaluate import build_task_scorers, evaluate_split
    from grue.storage.atomic import atomic_write_jsonl
    from grue.storage.writable import check_writable_dir
    from grue.policy.load import load_policy
    from grue.results.writer import results_document
    from grue.run.run_dir import RunDir
    from grue.runtime.process import device_of, seed_everything
    from tasks import get_task

    model, rest = split_off(args, "model")
    split, rest = split_off(rest, "split")
    if not model:
        raise UsageError("grue eval needs model=<run directory or model reference>, "
                         "e.g. model=runs/imdb-mini-nlpo-seed0-1234abcd")
    splits = SPLITS if split in (None, "all") else (split,)
    if any(s not in SPLITS for s in splits):
        raise UsageError(f"split={split!r} is not one of val, test, all")
    algo, model_ref = _model_of(model)
    rest = [*_run_defaults(model, rest), *rest]
    if not any(arg.startswith("output_dir=") for arg in rest):
        rest.append(f"output_dir={DEFAULT_OUT}")
    cfg = load_config([*rest, f"algo={algo}", f"model.policy={model_ref}"])
    mask_off = _mask_note(cfg)
    if mask_off:
        cfg = load_config([*rest, f"algo={algo}", f"model.policy={model_ref}", *mask_off])
    check_writable_dir(Path(cfg.output_dir), "output_dir")
    started = time.time()
    seed_everything(cfg.seed)
    task = get_task(cfg.task)
    if not task.runnable(cfg.profile):
        raise UsageError(task.why_not_runnable(cfg.profile))
    policy = load_policy(cfg, model_ref, device_of(cfg))
    data = task.loader(cfg)
    scorers = build_task_scorers(cfg, policy, device_of(cfg))
    digest = config_hash(cfg)
    out = RunDir(Path(cfg.output_dir) / f"eval-{cfg.task}-{cfg.profile}-{algo}-seed{cfg.seed}-{digest[:8]}")
    out.start("", digest)
    metrics = {}
    for name in splits:
        ev = evaluate_split(cfg, policy, scorers, data[name])
        atomic_write_jsonl(out.predictions(name), ev.predictions)
        metrics[name] = ev.metrics
    doc = results_document(cfg, task, digest, model_ref, metrics, {s: len(data[s]) for s in splits}, scorers,
                           time.time() - started, data=data)
    doc["kind"] = EVALUATION
    out.finish(doc)
    from grue.commands.run import print_metrics

    print_metrics(out.path)
    console.print(f"[green]\\[grue] wrote {out.results}[/]")
    if results_file(model).is_file():  # a run directory: its model card is written again
        from grue.results.model_card import write_model_cards

        for card in write_model_cards(Path(model)):
            console.print(f"\\[grue] model card: {card}")
