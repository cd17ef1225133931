"""`grue eval`: score any run directory or model reference on a task's metric mix."""
from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Callable, Sequence

from grue.run.display import console

SPLITS = ("val", "test")


def _split_off(args: Sequence[str], key: str) -> tuple[str | None, list[str]]:
    value, rest = None, []
    for arg in args:
        if arg.startswith(f"{key}="):
            value = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return value, rest


def eval_command(args: Sequence[str], fail: Callable[[str], None]) -> None:
    from grue.assets import AssetMissing
    from grue.config import ConfigError, config_hash, load_config
    from grue.run.evaluate import build_task_scorers, evaluate_split
    from grue.storage.atomic import atomic_write_jsonl
    from grue.policy.load import load_policy
    from grue.results.writer import results_document
    from grue.run.run_dir import RunDir
    from grue.runtime.process import device_of, seed_everything
    from tasks import get_task

    model, rest = _split_off(args, "model")
    split, rest = _split_off(rest, "split")
    if not model:
        fail("grue eval needs model=<run directory or model reference>, e.g. model=runs/imdb-mini-nlpo-seed0-1234abcd")
    splits = SPLITS if split in (None, "all") else (split,)
    if any(s not in SPLITS for s in splits):
        fail(f"split={split!r} is not one of val, test, all")
    algo, model_ref = "zero_shot", model
    run_dir = Path(model)
    if (run_dir / "results.json").exists() and (run_dir / "model").is_dir():
        algo = json.loads((run_dir / "results.json").read_text())["algo"]
        model_ref = str(run_dir / "model")
    try:
        cfg = load_config([*rest, f"algo={algo}", f"model.policy={model_ref}"])
    except ConfigError as err:
        fail(str(err))
    started = time.time()
    seed_everything(cfg.seed)
    task = get_task(cfg.task)
    if not task.runnable(cfg.profile):
        fail(task.why_not_runnable(cfg.profile))
    try:
        policy = load_policy(cfg, model_ref, device_of(cfg))
    except AssetMissing as err:
        fail(str(err))
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
    out.finish(results_document(cfg, task, digest, model_ref, metrics, {s: len(data[s]) for s in splits},
                                scorers, time.time() - started))
    from grue.commands.run import print_metrics

    print_metrics(out.path)
    console.print(f"[green]\\[grue] wrote {out.results}[/]")
