"""One run: resolve, build, train on schedule (resumably), evaluate, write results.json."""
from __future__ import annotations

import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any, Sequence

import torch
from omegaconf import DictConfig

from grue.train.checkpoint import latest_step, save_checkpoint, save_sharded_checkpoint
from grue.config import config_hash, load_config, to_yaml
from grue.config.read_groups import args_as_algorithm
from grue.runtime.console import console, progress_bar
from grue.run.evaluate import build_task_scorers, evaluate_split
from grue.storage.atomic import append_jsonl, atomic_write_jsonl
from grue.results.hardware import hardware
from grue.results.cost import cost_fields
from grue.results.writer import results_document
from grue.rewards.learned.schedules import results_fields
from grue.train.outcome import Trained
from grue.train.registry import get_algorithm
from grue.train.rl.trainer import NonFiniteError
from grue.run.run_dir import RunDir
from grue.run.signals import interrupt_behind, sigterm_as_interrupt
from grue.runtime.process import configure_threads, device_of, seed_everything
from grue.runtime.distributed import die_with_launcher, in_launched_process
from grue.runtime.launch import lock_is_held_by_launcher, needs_relaunch, relaunch


def run_with_weights(args: Sequence[str]) -> Path:
    """Run `grue run ARGS`, training it again if it finished but its model/ is gone: for a caller that needs
    the weights themselves (a teacher, a warm start), not only the results."""
    run = Run(load_config(list(args)), args)
    run.weights_required = True
    return run.execute()


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
        self.algo = get_algorithm(cfg.algo)
        self.accelerator, self.main, self.world = None, True, 1
        self.weights_required = False  # set when this run is another's warm start (its model/ must exist)
        self.for_weights_only = False  # complete, but trained again because its model/ is gone
        self.resolved_settings: dict[str, str] = {}  # settings made concrete before training (a named teacher's run)
        self.shard_mode, self.sharding = None, None  # grue.runtime.sharding: set when parameters are sharded
        if not needs_relaunch(cfg):  # the launching process of an N-process run needs no engine of its own
            from grue.runtime.accelerator import make_accelerator

            if in_launched_process():
                die_with_launcher()

            from grue.run.tracking import run_trackers

            trackers = run_trackers(cfg, self.dir.path)  # TensorBoard, W&B (grue/run/tracking.py)
            self.accelerator = make_accelerator(self.device, self.dir.path, trackers=trackers,
                                                mixed_precision=cfg.model.mixed_precision)
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
            configure_threads(self.cfg)  # building assets (the mini classifier) keeps to `threads=` too
            check_assets(self.cfg)  # before anything is written or trained
        with sigterm_as_interrupt():  # a scheduler's or a sweep's stop ends the run as Ctrl-C does
            if not (self.for_weights_only and self.main):
                return self._execute_locked()
            from grue.run.record_kept import record_kept

            with record_kept(self.dir.path, self.say):  # the weights are made again, the record stays
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
            interrupt = interrupt_behind(err)
            if interrupt is not None:  # a stop that landed in C++ code (a checkpoint's write) and came back wrapped
                self._fail("interrupted; run the same command again to resume", status="interrupted")
                raise interrupt from err
            self._fail(f"{type(err).__name__}: {err}")
            raise
        finally:
            from grue.run.tracking import stop_tracking

            stop_tracking(self.accelerator)  # TensorBoard flushed, a W&B run finished, however the run ended
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

    def bar(self, description: str, total: int, completed: int = 0):
        """The run's progress bar; the processes that do not speak for the run get a silent one."""
        return progress_bar(description, total, completed) if self.main else nullcontext(_NoBar())

    def _reuse(self, announce: bool = True) -> bool:
        complete = self.dir.complete()
        if complete and self.weights_required and not self.dir.model_dir.is_dir():
            if announce:
                console.print(f"[yellow]\\[grue] {self.dir.path} finished, but its weights are not here (pruned, or "
                              "the run was copied without them) and the run starting from them needs them: it is trained again, "
                              "same config and seed[/]", soft_wrap=True)
            self.for_weights_only = True
            return False
        if complete:
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
            from grue.results.model_card import write_model_cards

            write_model_cards(self.dir.path)
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
        from grue.run.tracking import log_metrics, start_tracking

        start_tracking(self)  # TensorBoard (and W&B when asked) through accelerate's trackers
        threads = configure_threads(cfg)
        seed_everything(cfg.seed)
        from tasks import get_task

        task = get_task(cfg.task)
        if not task.runnable(cfg.profile):
            raise RuntimeError(task.why_not_runnable(cfg.profile))
        init_ref = self._initial_model()
        from grue.run.teacher_runs import resolve_named_teachers

        self.resolved_settings = resolve_named_teachers(cfg, self.args, self.say)  # `grpo.teacher.model=supervised`
        splits = task.loader(cfg)
        from grue.policy.load import load_policy

        policy = load_policy(cfg, init_ref, self.device)
        truncation = self._start_lines(policy, splits, threads, init_ref)
        scorers = build_task_scorers(cfg, policy, self.device) if self.main else None  # metrics: main process
        for name, why in (scorers.unavailable.items() if scorers else ()):
            console.print(f"[yellow]\\[grue] metric {name} unavailable: {why}[/]")
        from grue.train.loops import train

        trained = train(self, task, policy, splits, scorers)
        final = {split: self.evaluate(policy, scorers, splits[split], split, trained) for split in ("val", "test")}
        if self.main:
            self.dir.drop_final_evaluation()  # of an earlier attempt cut short after logging it
            for split, ev in final.items():
                log_metrics(self, split, ev.metrics, trained.final_iteration)
                atomic_write_jsonl(self.dir.predictions(split), ev.predictions)
                append_jsonl(self.dir.eval_log, {"iteration": trained.final_iteration, "split": split, "final": True,
                                                 "metrics": ev.metrics,
                                                 **({"generated_tokens": ev.generated_tokens}
                                                    if ev.generated_tokens is not None else {})})
            doc = results_document(cfg, task, self.hash, init_ref, {s: ev.metrics for s, ev in final.items()},
                                   {s: len(splits[s]) for s in final}, scorers, time.time() - self.started,
                                   data=splits)
            doc.update(results_fields(self.dir.path))  # a label schedule's labels and reward-model accuracy
            doc.update(cost_fields(self.dir.path))  # generated tokens and seconds of training (grue/results/cost.py)
            doc["prompt_truncation"] = truncation  # what model.max_prompt_length cut (grue/run/truncation.py)
            doc["hardware"] = hardware(str(self.device))  # the kind of machine: its kernels round differently
            if self.resolved_settings:  # which run a teacher named by its algorithm was
                from grue.run.teacher_runs import teachers_record

                doc["teachers"] = teachers_record(self.resolved_settings, cfg)
            self.dir.finish(doc)
            from grue.results.model_card import write_model_cards

            write_model_cards(self.dir.path)  # model/README.md of this seed and of its setting's other seeds
        self._barrier()  # no rank returns before results.json (and model/) exist
        return self.dir.path

    def _start_lines(self, policy: Any, splits: dict, threads: int, init_ref: str) -> dict:
        """Said once (main process) before the work starts: the threads, the time the run should take, how
        many prompts of each split the policy's limit cuts (also recorded in results.json), and a warning
        when the run's estimated peak memory is more than is free (grue/run/memory_check.py)."""
        from grue.run.time_estimate import estimate_line
        from grue.run.truncation import count_for_run, truncation_line, truncation_record
        from grue.runtime.thread_default import thread_line

        counts = count_for_run(self.cfg, policy.tokenizer, splits)
        if self.main:
            console.print(f"\\[grue] {thread_line(threads, self.cfg.threads)}; {estimate_line(self.cfg)}",
                          soft_wrap=True)
            console.print(f"\\[grue] {truncation_line(self.cfg, counts)}", soft_wrap=True)
            self._warn_on_memory(init_ref)
        return truncation_record(self.cfg, counts)

    def _warn_on_memory(self, init_ref: str) -> None:
        from grue.run.memory_check import memory_warning

        try:
            warning = memory_warning(self.cfg, init_ref, str(self.device))
        except Exception as err:  # an estimate that cannot be made (a plug-in's model, say) must not stop the run
            warning = f"no memory estimate for this run ({type(err).__name__}: {err})"
        if warning:
            self.say(warning, warning=True)

    def _initial_model(self) -> str:
        """The model training starts from; a warm-started run first trains (or reuses) the run it starts from."""
        start = self.algo.warm_start
        if start and not self.cfg.model.supervised_init:
            args = args_as_algorithm(self.args, start)
            run_with_weights(args)  # its results alone do not start this run: its model/ does
        return self._initial_model_ref()

    def _initial_model_ref(self) -> str:
        """Where the initial model is (for a warm start: its first run's model/), without making it. A
        published supervised checkpoint (model.supervised_init) stands in for the supervised run."""
        cfg = self.cfg
        if cfg.model.supervised_init and (self.algo.warm_start or self.algo.trains == "supervised"):
            return cfg.model.supervised_init
        if not self.algo.warm_start:
            return cfg.model.policy
        first = load_config(args_as_algorithm(self.args, self.algo.warm_start))
        return str(RunDir.for_config(first, config_hash(first)).model_dir)

    # -- what the training loops use (grue.train.outcome.RunServices) ------------------------------------
    def say(self, message: str, warning: bool = False) -> None:
        console.print(f"[yellow]\\[grue] {message}[/]" if warning else f"\\[grue] {message}", soft_wrap=warning)

    def evaluate(self, policy: Any, scorers: Any, samples: list, split: str, trained: Trained | None = None):
        """Generate for and score one split; an NLPO run decodes through its mask (`trained`)."""
        trained = trained or Trained()
        models = [policy.model, *trained.eval_models]
        gathered = self.sharding.gathered(models) if self.sharding else nullcontext()
        with self.bar(f"evaluating {split}", len(samples)) as bar, gathered:  # sharded: whole while generating
            return evaluate_split(self.cfg, policy, scorers, samples, progress=bar.advance, accelerator=self.accelerator,
                                  make_processors=trained.eval_processors, decoder=trained.eval_decoder)

    def start_sharding(self) -> Any:
        """The run's Sharding when its parameters are to be sharded (several processes and a shard mode)."""
        if self.shard_mode and self.world > 1:
            from grue.runtime.sharding import Sharding

            self.sharding = Sharding(self.shard_mode, self.world, self.device)
            console.print(f"\\[grue] parameters sharded over {self.world} processes (shard={self.shard_mode})")
        elif self.shard_mode:
            console.print(f"[yellow]\\[grue] note: shard={self.shard_mode} needs several processes "
                          "(num_processes=N); this one process holds the whole model[/]", soft_wrap=True)
        return self.sharding

    def save_checkpoint(self, step: int, trainer: Any) -> None:
        if self.sharding is not None:  # every rank writes its shards, the main one the rest
            save_sharded_checkpoint(self.dir.checkpoints, step, trainer.state_dict(), trainer.write_shards,
                                    self.main, self._barrier)
        elif self.main:  # every rank holds the same weights; one writes
            save_checkpoint(self.dir.checkpoints, step, trainer.state_dict())

    def save_model(self, policy: Any) -> None:
        state = self.sharding.full_state_dict(policy.model) if self.sharding else None  # every rank, when sharded
        if self.main:
            self.dir.save_model(policy, state)
