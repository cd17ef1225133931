"""One run: resolve, build, train on schedule (resumably), evaluate, write results.json."""
from __future__ import annotations

import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Sequence

import torch
from omegaconf import DictConfig

from grue.train.checkpoint import latest_step, load_latest, save_checkpoint, save_sharded_checkpoint
from grue.config import config_hash, load_config, to_yaml
from grue.run.display import console, progress_bar, rl_status
from grue.run.evaluate import build_task_scorers, evaluate_split
from grue.storage.atomic import append_jsonl, atomic_write_jsonl, read_jsonl
from grue.results.writer import results_document
from grue.rewards.learned.schedules import results_fields
from grue.train.rl.trainer import NonFiniteError
from grue.run.run_dir import RunDir
from grue.run.signals import sigterm_as_interrupt
from grue.runtime.process import configure_threads, device_of, seed_everything
from grue.runtime.distributed import die_with_launcher, in_launched_process
from grue.runtime.launch import lock_is_held_by_launcher, needs_relaunch, relaunch
from grue.results.schema import RL_ALGOS

WARM_STARTED = ("supervised_ppo", "supervised_nlpo")


def _supervised_args(args: Sequence[str]) -> list[str]:
    return [a for a in args if not a.startswith("algo=")] + ["algo=supervised"]


class _NoBar:
    """The progress bar of the processes that do not speak for the run."""

    def advance(self, n: int = 1, info: str | None = None) -> None:
        pass


class Run:
    def __init__(self, cfg: DictConfig, args: Sequence[str] = ()) -> None:
        self.cfg, self.args = cfg, list(args)
        self.hash = config_hash(cfg)
        self.dir = RunDir.for_config(cfg, self.hash)
        self.device = device_of(cfg)
        self.started = time.time()
        self.final_iteration = 0
        self.eval_mask = None  # an NLPO run's RLTrainer when it evaluates with its mask (nlpo.mask_at_eval)
        self.accelerator, self.main, self.world = None, True, 1
        self.shard_mode, self.sharding = None, None  # grue.runtime.sharding: set when parameters are sharded
        if not needs_relaunch(cfg):  # the launching process of an N-process run needs no engine of its own
            from grue.runtime.accelerator import make_accelerator

            if in_launched_process():
                die_with_launcher()

            self.accelerator = make_accelerator(self.device, self.dir.path)
            self.main, self.world = self.accelerator.is_main_process, self.accelerator.num_processes
            if str(getattr(self.accelerator.distributed_type, "value", "")) == "DEEPSPEED":
                from grue.runtime.accelerate_configs import deepspeed_refusal

                raise RuntimeError(deepspeed_refusal())
            from grue.runtime.sharding import sharding_mode

            self.shard_mode = sharding_mode(cfg, self.accelerator)
            if self.world > 1 and self.device != "cpu":
                self.device = str(self.accelerator.device)  # this rank's GPU
            console.quiet = console.quiet or not self.main  # one process speaks for the run

    # -- entry -------------------------------------------------------------------------------------
    def execute(self) -> Path:
        """Reuse a complete run; otherwise preflight, take the run's lock, and train/resume under it.

        A failure is recorded in run.json (status and error) before it propagates, so a sweep, or a
        user finding the directory later, knows why the run stopped.
        """
        if self._reuse():
            return self.dir.path
        from grue.run.preflight import check_assets

        if self.main:
            check_assets(self.cfg)  # before anything is written or trained
        with sigterm_as_interrupt():  # a scheduler's or a sweep's stop ends the run as Ctrl-C does
            return self._execute_locked()

    def _execute_locked(self) -> Path:
        """Under the run's lock: reuse it, relaunch it as N processes, re-score it, or train it."""
        lock = self._lock()
        self._barrier()  # every rank starts once the main one holds the run
        try:
            if self._reuse(announce=False):  # the other writer may just have finished this very run
                return self.dir.path
            if self.accelerator is None:
                return self._relaunch(lock)
            if self.main and self.world == 1 and self.dir.results.exists():
                rescored = self._rescore()
                if rescored is not None:
                    return rescored
            return self._execute()
        except NonFiniteError as err:
            kept = latest_step(self.dir.checkpoints)
            where = f"the last good checkpoint is kept: {kept}" if kept else "no checkpoint had been written yet"
            message = f"{err}; the run stopped and {where}"
            self._fail(message)
            raise NonFiniteError(message, err.iteration, err.quantity) from None
        except KeyboardInterrupt:
            self._fail("interrupted; run the same command again to resume", status="interrupted")
            raise
        except Exception as err:
            self._fail(f"{type(err).__name__}: {err}")
            raise
        finally:
            if lock is not None:
                lock.release()

    # -- processes -------------------------------------------------------------------------------------
    def _lock(self):
        """The main process takes the run's lock, unless the process that launched it holds it already."""
        lock = self.dir.lock()
        if not self.main or lock_is_held_by_launcher(str(lock.path)):
            return None
        lock.acquire(on_wait=lambda why: console.print(f"[yellow]\\[grue] {why}; waiting for it to finish[/]",
                                                         soft_wrap=True))
        return lock

    def _barrier(self) -> None:
        if self.world > 1:
            self.accelerator.wait_for_everyone()

    def _fail(self, message: str, status: str = "failed") -> None:
        if self.main:
            self.dir.fail(message, status)

    def _relaunch(self, lock: Any) -> Path:
        """Run this command as `num_processes` processes (grue.runtime.launch) and wait for them."""
        code = relaunch(self.cfg, self.args, str(self.dir.lock().path), lock.fd if lock is not None else None)
        if code != 0:  # the processes printed their error; their run.json says it too
            raise SystemExit(code)
        return self.dir.path

    def _bar(self, description: str, total: int, completed: int = 0):
        return progress_bar(description, total, completed) if self.main else nullcontext(_NoBar())

    def _reuse(self, announce: bool = True) -> bool:
        if self.dir.complete():
            console.print(f"\\[grue] {self.dir.path} is already complete; reusing its results")
            return True
        if announce and self.dir.results.exists():
            console.print(f"[yellow]\\[grue] warning: {self.dir.results} is not a complete, valid results file "
                          "(cut short?); it is written again[/]", soft_wrap=True)
        return False

    def _rescore(self) -> Path | None:
        """A finished run's results.json was cut short: score its saved predictions again (grue/run/rescore.py)."""
        from grue.run.rescore import rescore

        path = rescore(self.cfg, self.dir, self.hash, self._initial_model_ref(), self.device)
        if path is not None:
            console.print(f"\\[grue] {self.dir.results} rewritten: the run's saved model and predictions were "
                          "intact and are scored again; nothing was retrained", soft_wrap=True)
        else:
            console.print("[yellow]\\[grue] the run's model or saved predictions are missing or do not match its "
                          "splits: it runs again, from its last checkpoint if one is left, else from the start "
                          "(its logs are rewound to match)[/]", soft_wrap=True)
        return path

    def _execute(self) -> Path:
        cfg = self.cfg
        if self.main:
            self.dir.start(to_yaml(cfg), self.hash)
        if self.accelerator.log_with:  # TensorBoard through accelerate's trackers, when it is installed
            self.accelerator.init_trackers("tensorboard")
        configure_threads(cfg)
        seed_everything(cfg.seed)
        from tasks import get_task

        task = get_task(cfg.task)
        if not task.runnable(cfg.profile):
            raise RuntimeError(task.why_not_runnable(cfg.profile))
        init_ref = self._initial_model()
        splits = task.loader(cfg)
        from grue.policy.load import load_policy

        policy = load_policy(cfg, init_ref, self.device)
        scorers = build_task_scorers(cfg, policy, self.device) if self.main else None  # metrics: main process
        for name, why in (scorers.unavailable.items() if scorers else ()):
            console.print(f"[yellow]\\[grue] metric {name} unavailable: {why}[/]")
        if cfg.algo == "supervised":
            self._train_supervised(task, policy, splits)
        elif cfg.algo in RL_ALGOS:
            self._train_rl(policy, splits, scorers)
        final = {split: self._evaluate(policy, scorers, splits[split], split) for split in ("val", "test")}
        if self.main:
            self.dir.drop_final_evaluation()  # of an earlier attempt cut short after logging it
            for split, ev in final.items():
                atomic_write_jsonl(self.dir.predictions(split), ev.predictions)
                append_jsonl(self.dir.eval_log, {"iteration": self.final_iteration, "split": split, "final": True,
                                                 "metrics": ev.metrics})
            doc = results_document(cfg, task, self.hash, init_ref, {s: ev.metrics for s, ev in final.items()},
                                   {s: len(splits[s]) for s in final}, scorers, time.time() - self.started)
            doc.update(results_fields(self.dir.path))  # a label schedule's labels and reward-model accuracy
            self.dir.finish(doc)
        self._barrier()  # no rank returns before results.json (and model/) exist
        return self.dir.path

    def _initial_model(self) -> str:
        """The model training starts from; a warm-started run first trains (or reuses) its supervised run."""
        if self.cfg.algo in WARM_STARTED and not self.cfg.model.supervised_init:
            Run(load_config(_supervised_args(self.args)), _supervised_args(self.args)).execute()
        return self._initial_model_ref()

    def _initial_model_ref(self) -> str:
        """Where the initial model is (for a warm start: its supervised run's model/), without making it."""
        cfg = self.cfg
        if cfg.algo not in WARM_STARTED:
            return cfg.model.supervised_init if (cfg.algo == "supervised" and cfg.model.supervised_init) \
                else cfg.model.policy
        if cfg.model.supervised_init:
            return cfg.model.supervised_init
        sup_cfg = load_config(_supervised_args(self.args))
        return str(RunDir.for_config(sup_cfg, config_hash(sup_cfg)).model_dir)

    def _evaluate(self, policy: Any, scorers: Any, samples: list, split: str):
        mask = self.eval_mask
        models = [policy.model] + ([mask.mask_model] if mask else [])
        gathered = self.sharding.gathered(models) if self.sharding else nullcontext()
        with self._bar(f"evaluating {split}", len(samples)) as bar, gathered:  # sharded: whole while generating
            return evaluate_split(self.cfg, policy, scorers, samples, progress=bar.advance, accelerator=self.accelerator,
                                  make_processors=mask.eval_processors if mask else None)

    def _start_sharding(self) -> Any:
        """The run's Sharding when its parameters are to be sharded (several processes and a shard mode)."""
        if self.shard_mode and self.world > 1:
            from grue.runtime.sharding import Sharding

            self.sharding = Sharding(self.shard_mode, self.world, self.device)
            console.print(f"\\[grue] parameters sharded over {self.world} processes (shard={self.shard_mode})")
        elif self.shard_mode:
            console.print(f"[yellow]\\[grue] note: shard={self.shard_mode} needs several processes "
                          "(num_processes=N); this one process holds the whole model[/]", soft_wrap=True)
        return self.sharding

    def _save_checkpoint(self, step: int, trainer: Any) -> None:
        if self.sharding is not None:  # every rank writes its shards, the main one the rest
            save_sharded_checkpoint(self.dir.checkpoints, step, trainer.state_dict(), trainer.write_shards,
                                    self.main, self._barrier)
        elif self.main:  # every rank holds the same weights; one writes
            save_checkpoint(self.dir.checkpoints, step, trainer.state_dict())

    def _save_model(self, policy: Any) -> None:
        state = self.sharding.full_state_dict(policy.model) if self.sharding else None  # every rank, when sharded
        if self.main:
            self.dir.save_model(policy, state)

    # -- supervised ----------------------------------------------------------------------------------
    def _train_supervised(self, task: Any, policy: Any, splits: dict) -> None:
        from grue.train.supervised.trainer import SupervisedTrainer, training_pairs

        cfg = self.cfg
        if cfg.model.supervised_init:  # a published supervised checkpoint is the Supervised row as is
            return
        trainer = SupervisedTrainer(cfg, policy, training_pairs(task, splits["train"]), self.accelerator,
                                    self._start_sharding())
        state = load_latest(self.dir.checkpoints)
        if state:
            trainer.load_state_dict(state)
            console.print(f"\\[grue] resumed supervised training after epoch {trainer.epoch}")
        if self.main:  # the log matches the state resumed from (epoch 0 when there was no checkpoint)
            self.dir.truncate_logs(trainer.epoch, key="epoch")
        while trainer.epoch < cfg.supervised.epochs:
            with self._bar(f"supervised epoch {trainer.epoch + 1}/{cfg.supervised.epochs}",
                           trainer.steps_per_epoch) as bar:
                loss = trainer.train_epoch(lambda l: bar.advance(1, f"loss {l:.3f}"))
            if self.main:  # one process writes the log
                append_jsonl(self.dir.train_log, {"epoch": trainer.epoch, "loss": loss,
                                                  "target_tokens": trainer.target_tokens})
            self._save_checkpoint(trainer.epoch, trainer)
        self._save_model(policy)

    # -- RL ----------------------------------------------------------------------------------------
    def _train_rl(self, policy: Any, splits: dict, scorers: Any) -> None:
        from grue.policy.load import build_value, frozen_copy
        from grue.rewards.learned.schedules import build_run_reward
        from grue.train.rl.nlpo_mask import loose_mask_note
        from grue.train.rl.trainer import RLTrainer

        cfg = self.cfg
        seed_everything(cfg.seed)  # the RL phase starts from the same state whether or not a warm start ran first
        ref_model = frozen_copy(policy.model)  # pi_0: the initial (for Supervised+RL: the supervised) model
        value = build_value(cfg, policy)
        nlpo = cfg.algo.endswith("nlpo")
        # A label schedule (reward.schedule) collects labels and trains its reward model here, before RL;
        # `progress` reads the trainer made next, so batched rounds follow the RL iterations.
        reward = build_run_reward(cfg, self.dir.path, policy, splits["train"],
                                  lambda: (trainer.iteration, trainer.n_iters), lambda m: console.print(f"\\[grue] {m}"))
        trainer = RLTrainer(cfg, policy, ref_model, value, reward, splits["train"], self.accelerator,
                            nlpo=nlpo, sharding=self._start_sharding())
        self.eval_mask = trainer if nlpo and cfg.nlpo.mask_at_eval else None
        note = loose_mask_note(int(cfg.rollout.top_k or 0), cfg.nlpo.min_tokens_to_keep) if nlpo else None
        if note:  # only the main process's console speaks
            console.print(f"[yellow]\\[grue] note: {note}[/]", soft_wrap=True)
        state = load_latest(self.dir.checkpoints)
        if state:
            trainer.load_state_dict(state)
            console.print(f"\\[grue] resumed at iteration {trainer.iteration}/{trainer.n_iters}")
        if self.main:  # the logs match the state resumed from (iteration 0 when there was no checkpoint)
            self.dir.truncate_logs(trainer.iteration)
        last_val = next((r["metrics"] for r in reversed(read_jsonl(self.dir.eval_log)) if r["split"] == "val"), None)
        with self._bar(f"{cfg.algo} {cfg.task}", trainer.n_iters, trainer.iteration) as bar:
            while trainer.iteration < trainer.n_iters:
                stats = trainer.step()
                if self.main:
                    append_jsonl(self.dir.train_log, stats)
                self.accelerator.log(stats, step=trainer.iteration)  # TensorBoard when it is installed
                if trainer.iteration % cfg.eval.eval_every == 0 and trainer.iteration < trainer.n_iters:
                    last_val = self._evaluate(policy, scorers, splits["val"], "val").metrics
                    if self.main:
                        append_jsonl(self.dir.eval_log, {"iteration": trainer.iteration, "split": "val",
                                                         "metrics": last_val})
                if trainer.iteration % cfg.eval.save_every == 0 or trainer.iteration == trainer.n_iters:
                    self._save_checkpoint(trainer.iteration, trainer)
                bar.advance(1, rl_status(stats, last_val))
        self.final_iteration = trainer.n_iters
        self._save_model(policy)
