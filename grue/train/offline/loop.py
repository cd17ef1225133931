"""The preference phase of a run (DPO): optimizer steps over a comparisons file's answers, a checkpoint
every `dpo.save_every` steps, resumable mid-epoch. The algorithm registry names the trainer class."""
from __future__ import annotations

from typing import Any, Mapping

from grue.config.run_settings import run_settings  # a trainer gets its algorithm's typed, read-only settings
from grue.storage.atomic import append_jsonl
from grue.train.checkpoint import resume_latest
from grue.train.outcome import RunServices, Trained


def train_preferences(run: RunServices, trainer_class: Any, policy: Any, splits: Mapping[str, Any]) -> Trained:
    from grue.policy.load import frozen_copy
    from grue.runtime.process import seed_everything
    from grue.train.offline.auto_recipe import is_auto

    cfg = run.cfg
    if is_auto(cfg.dpo.comparisons):  # made from the initial policy before anything trains it (then cached)
        from grue.train.offline.auto_comparisons import ensure_comparisons

        ensure_comparisons(cfg, policy, splits["train"], run.say)
    seed_everything(cfg.seed)  # the same state whether or not a warm start ran first
    ref_model = frozen_copy(policy.model)  # pi_ref: the initial (for Supervised+DPO: the supervised) model
    trainer = trainer_class(run_settings(cfg), policy, ref_model, run.accelerator, run.start_sharding())
    trainer.say = run.say  # what the trainer reports before the bar below moves
    resume_latest(run, trainer, lambda: trainer.step, "step",
                  lambda: f"resumed {cfg.algo} after step {trainer.step}/{trainer.total_steps}")
    if hasattr(trainer, "prepare"):  # one-off work before the first step (DPO: the reference's scoring)
        trainer.prepare()
    every = cfg.dpo.save_every
    with run.bar(f"{cfg.algo} {cfg.task}", trainer.total_steps, trainer.step) as bar:
        while trainer.step < trainer.total_steps:
            stats = trainer.train_step()
            if trainer.epoch_done:
                stats.update(trainer.heldout_stats())
            if run.main:
                append_jsonl(run.dir.train_log, stats)
            if trainer.step % every == 0 or trainer.step == trainer.total_steps:
                run.save_checkpoint(trainer.step, trainer)
            bar.advance(1, f"loss {stats['loss']:.3f} acc {stats['accuracy']:.2f}")
    run.save_model(policy)
    return Trained(final_iteration=trainer.step)
