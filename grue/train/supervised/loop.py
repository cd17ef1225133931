"""The supervised phase of a run: epochs over the training pairs, a checkpoint after each, resumable."""
from __future__ import annotations

import time
from typing import Any

from grue.config.run_settings import run_settings  # a trainer gets its algorithm's typed, read-only settings
from grue.storage.atomic import append_jsonl
from grue.train.checkpoint import resume_latest
from grue.train.outcome import RunServices, Trained


def train_supervised(run: RunServices, trainer_class: Any, task: Any, policy: Any, splits: dict) -> Trained:
    from grue.train.supervised.trainer import training_pairs

    cfg = run.cfg
    if cfg.model.supervised_init:  # a published supervised checkpoint is the Supervised row as is
        return Trained()
    trainer = trainer_class(run_settings(cfg), policy, training_pairs(task, splits["train"]), run.accelerator,
                            run.start_sharding())
    resume_latest(run, trainer, lambda: trainer.epoch, "epoch",
                  lambda: f"resumed supervised training after epoch {trainer.epoch}")
    while trainer.epoch < cfg.supervised.epochs:
        with run.bar(f"supervised epoch {trainer.epoch + 1}/{cfg.supervised.epochs}", trainer.steps_per_epoch) as bar:
            started = time.perf_counter()
            loss = trainer.train_epoch(lambda l: bar.advance(1, f"loss {l:.3f}"))
        if run.main:  # one process writes the log
            append_jsonl(run.dir.train_log, {"epoch": trainer.epoch, "loss": loss, "target_tokens": trainer.target_tokens,
                                             "seconds": time.perf_counter() - started})
        run.accelerator.log({"loss": loss, "target_tokens": trainer.target_tokens}, step=trainer.epoch)  # trackers
        run.save_checkpoint(trainer.epoch, trainer)
    run.save_model(policy)
    return Trained()
