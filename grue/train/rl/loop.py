"""The RL phase of a run: iterations of rollout and update, validation and checkpoints on schedule,
resumable. Any RLTrainer subclass runs under it (the algorithm registry names the class)."""
from __future__ import annotations

from typing import Any

from grue.config.run_settings import run_settings  # a trainer gets its algorithm's typed, read-only settings
from grue.runtime.process import seed_everything
from grue.storage.atomic import append_jsonl
from grue.storage.run_layout import read_jsonl
from grue.train.checkpoint import resume_latest
from grue.train.outcome import RunServices, Trained


def _last_val_metrics(run: RunServices) -> Any:
    return next((r["metrics"] for r in reversed(read_jsonl(run.dir.eval_log)) if r["split"] == "val"), None)


def train_rl(run: RunServices, trainer_class: Any, policy: Any, splits: dict, scorers: Any) -> Trained:
    from grue.policy.load import build_value, reference_model
    from grue.rewards.learned.schedules import build_run_reward
    from grue.train.rl.status_line import rl_status
    from grue.run.tracking import headline_metric, track_evaluation

    cfg = run.cfg
    seed_everything(cfg.seed)  # the RL phase starts from the same state whether or not a warm start ran first
    # pi_0: the initial (for Supervised+RL: the supervised) model; of a LoRA policy, the policy with its
    # adapters disabled (no copy)
    ref_model = reference_model(policy.model)
    value = build_value(cfg, policy) if trainer_class.uses_critic else None
    # A label schedule (reward.schedule) collects labels and trains its reward model here, before RL;
    # `progress` reads the trainer made next, so batched rounds follow the RL iterations.
    reward = build_run_reward(cfg, run.dir.path, policy, splits["train"],
                              lambda: (trainer.iteration, trainer.n_iters), run.say)
    # a teacher named by its algorithm reaches the trainer as its run's directory (grue/run/teacher_runs.py)
    settings = run_settings(cfg, getattr(run, "resolved_settings", None))
    trainer = trainer_class(settings, policy, ref_model, value, reward, splits["train"], run.accelerator,
                            sharding=run.start_sharding())
    _note_loose_mask(run)
    eval_processors = trainer.evaluation_processors()
    outcome = Trained(eval_processors=eval_processors,
                      eval_models=trainer.generating_models()[1:] if eval_processors else ())
    resume_latest(run, trainer, lambda: trainer.iteration, "iteration",
                  lambda: f"resumed at iteration {trainer.iteration}/{trainer.n_iters}")
    last_val = _last_val_metrics(run)
    with run.bar(f"{cfg.algo} {cfg.task}", trainer.n_iters, trainer.iteration) as bar:
        while trainer.iteration < trainer.n_iters:
            stats = trainer.step()
            if run.main:
                append_jsonl(run.dir.train_log, stats)
            run.accelerator.log(stats, step=trainer.iteration)  # TensorBoard when it is installed
            if trainer.iteration % cfg.eval.eval_every == 0 and trainer.iteration < trainer.n_iters:
                last_val = run.evaluate(policy, scorers, splits["val"], "val", outcome).metrics
                if run.main:
                    append_jsonl(run.dir.eval_log, {"iteration": trainer.iteration, "split": "val", "metrics": last_val})
                track_evaluation(run, trainer.iteration, "val", last_val, policy, ref_model, reward, splits["val"],
                                 outcome)  # metrics and the sample table to logs/samples.jsonl and the trackers
            if trainer.iteration % cfg.eval.save_every == 0 or trainer.iteration == trainer.n_iters:
                run.save_checkpoint(trainer.iteration, trainer)
            bar.advance(1, rl_status(stats, last_val, headline_metric(cfg)))
    outcome.final_iteration = trainer.n_iters
    run.save_model(policy)
    return outcome


def _note_loose_mask(run: RunServices) -> None:
    """NLPO settings whose mask barely binds get a note (grue/train/rl/nlpo_mask.py says when)."""
    from grue.train.registry import get_algorithm
    from grue.train.rl.nlpo_mask import loose_mask_note

    cfg = run.cfg
    if "nlpo" not in get_algorithm(cfg.algo).reads:
        return
    note = loose_mask_note(int(cfg.rollout.top_k or 0), cfg.nlpo.min_tokens_to_keep)
    if note:  # only the main process's console speaks
        run.say(f"note: {note}", warning=True)
