"""One run: resolve, build, train on schedule (resumably), evaluate, write results.json."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Sequence

import torch
from omegaconf import DictConfig

from grue.checkpoint import latest_step, load_latest, save_checkpoint
from grue.config import config_hash, load_config, to_yaml
from grue.display import console, progress_bar, rl_status
from grue.evaluate import build_task_scorers, evaluate_split
from grue.io import append_jsonl, atomic_write_jsonl, read_jsonl
from grue.results_writer import results_document
from grue.rl.trainer import NonFiniteError
from grue.run_dir import RunDir
from grue.runtime import configure_threads, device_of, seed_everything

RL_ALGOS = ("ppo", "nlpo", "supervised_ppo", "supervised_nlpo")
WARM_STARTED = ("supervised_ppo", "supervised_nlpo")


def _supervised_args(args: Sequence[str]) -> list[str]:
    return [a for a in args if not a.startswith("algo=")] + ["algo=supervised"]


class Run:
    def __init__(self, cfg: DictConfig, args: Sequence[str] = ()) -> None:
        self.cfg, self.args = cfg, list(args)
        self.hash = config_hash(cfg)
        self.dir = RunDir.for_config(cfg, self.hash)
        self.device = device_of(cfg)
        from grue.runtime_accelerate import make_accelerator

        self.accelerator = make_accelerator(self.device, self.dir.path)
        self.started = time.time()
        self.final_iteration = 0

    # -- entry -------------------------------------------------------------------------------------
    def execute(self) -> Path:
        """Reuse a complete run; otherwise preflight, take the run's lock, and train/resume under it.

        A failure is recorded in run.json (status and error) before it propagates, so a sweep, or a
        user finding the directory later, knows why the run stopped.
        """
        if self._reuse():
            return self.dir.path
        from grue.preflight import check_assets

        check_assets(self.cfg)  # before anything is written or trained
        lock = self.dir.lock()
        lock.acquire(on_wait=lambda why: console.print(f"[yellow]\\[grue] {why}; waiting for it to finish[/]",
                                                         soft_wrap=True))
        try:
            if self._reuse():  # the other writer may just have finished this very run
                return self.dir.path
            return self._execute()
        except NonFiniteError as err:
            kept = latest_step(self.dir.checkpoints)
            where = f"the last good checkpoint is kept: {kept}" if kept else "no checkpoint had been written yet"
            message = f"{err}; the run stopped and {where}"
            self.dir.fail(message)
            raise NonFiniteError(message, err.iteration, err.quantity) from None
        except KeyboardInterrupt:
            self.dir.fail("interrupted; run the same command again to resume", status="interrupted")
            raise
        except Exception as err:
            self.dir.fail(f"{type(err).__name__}: {err}")
            raise
        finally:
            lock.release()

    def _reuse(self) -> bool:
        if self.dir.complete():
            console.print(f"\\[grue] {self.dir.path} is already complete; reusing its results")
            return True
        return False

    def _execute(self) -> Path:
        cfg = self.cfg
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
        scorers = build_task_scorers(cfg, policy, self.device)
        for name, why in scorers.unavailable.items():
            console.print(f"[yellow]\\[grue] metric {name} unavailable: {why}[/]")
        if cfg.algo == "supervised":
            self._train_supervised(task, policy, splits)
        elif cfg.algo in RL_ALGOS:
            self._train_rl(policy, splits, scorers)
        final = {split: self._evaluate(policy, scorers, splits[split], split) for split in ("val", "test")}
        for split, ev in final.items():
            atomic_write_jsonl(self.dir.predictions(split), ev.predictions)
            append_jsonl(self.dir.eval_log, {"iteration": self.final_iteration, "split": split, "final": True,
                                             "metrics": ev.metrics})
        doc = results_document(cfg, task, self.hash, init_ref, {s: ev.metrics for s, ev in final.items()},
                               {s: len(splits[s]) for s in final}, scorers, time.time() - self.started)
        self.dir.finish(doc)
        return self.dir.path

    def _initial_model(self) -> str:
        cfg = self.cfg
        if cfg.algo not in WARM_STARTED:
            return cfg.model.supervised_init if (cfg.algo == "supervised" and cfg.model.supervised_init) \
                else cfg.model.policy
        if cfg.model.supervised_init:
            return cfg.model.supervised_init
        sup_cfg = load_config(_supervised_args(self.args))
        sup_dir = Run(sup_cfg, _supervised_args(self.args)).execute()  # reused when it already exists
        return str(sup_dir / "model")

    def _evaluate(self, policy: Any, scorers: Any, samples: list, split: str):
        with progress_bar(f"evaluating {split}", len(samples)) as bar:
            return evaluate_split(self.cfg, policy, scorers, samples, progress=bar.advance)

    # -- supervised ----------------------------------------------------------------------------------
    def _train_supervised(self, task: Any, policy: Any, splits: dict) -> None:
        from grue.supervised import SupervisedTrainer, training_pairs

        cfg = self.cfg
        if cfg.model.supervised_init:  # a published supervised checkpoint is the Supervised row as is
            return
        trainer = SupervisedTrainer(cfg, policy, training_pairs(task, splits["train"]), self.accelerator)
        state = load_latest(self.dir.checkpoints)
        if state:
            trainer.load_state_dict(state)
            console.print(f"\\[grue] resumed supervised training after epoch {trainer.epoch}")
        while trainer.epoch < cfg.supervised.epochs:
            with progress_bar(f"supervised epoch {trainer.epoch + 1}/{cfg.supervised.epochs}",
                              trainer.steps_per_epoch) as bar:
                loss = trainer.train_epoch(lambda l: bar.advance(1, f"loss {l:.3f}"))
            append_jsonl(self.dir.train_log, {"epoch": trainer.epoch, "loss": loss})
            save_checkpoint(self.dir.checkpoints, trainer.epoch, trainer.state_dict())
        self.dir.save_model(policy)

    # -- RL ----------------------------------------------------------------------------------------
    def _train_rl(self, policy: Any, splits: dict, scorers: Any) -> None:
        from grue.policy.load import build_value, frozen_copy
        from grue.rewards.registry import build_reward
        from grue.rl.trainer import RLTrainer

        cfg = self.cfg
        seed_everything(cfg.seed)  # the RL phase starts from the same state whether or not a warm start ran first
        ref_model = frozen_copy(policy.model)  # pi_0: the initial (for Supervised+RL: the supervised) model
        value = build_value(cfg, policy)
        trainer = RLTrainer(cfg, policy, ref_model, value, build_reward(cfg), splits["train"], self.accelerator,
                            nlpo=cfg.algo.endswith("nlpo"))
        state = load_latest(self.dir.checkpoints)
        if state:
            trainer.load_state_dict(state)
            self.dir.truncate_logs(trainer.iteration)
            console.print(f"\\[grue] resumed at iteration {trainer.iteration}/{trainer.n_iters}")
        last_val = next((r["metrics"] for r in reversed(read_jsonl(self.dir.eval_log)) if r["split"] == "val"), None)
        with progress_bar(f"{cfg.algo} {cfg.task}", trainer.n_iters, trainer.iteration) as bar:
            while trainer.iteration < trainer.n_iters:
                stats = trainer.step()
                append_jsonl(self.dir.train_log, stats)
                self.accelerator.log(stats, step=trainer.iteration)  # TensorBoard when it is installed
                if trainer.iteration % cfg.eval.eval_every == 0 and trainer.iteration < trainer.n_iters:
                    last_val = self._evaluate(policy, scorers, splits["val"], "val").metrics
                    append_jsonl(self.dir.eval_log, {"iteration": trainer.iteration, "split": "val",
                                                     "metrics": last_val})
                if trainer.iteration % cfg.eval.save_every == 0 or trainer.iteration == trainer.n_iters:
                    save_checkpoint(self.dir.checkpoints, trainer.iteration, trainer.state_dict())
                bar.advance(1, rl_status(stats, last_val))
        self.final_iteration = trainer.n_iters
        self.dir.save_model(policy)
