"""The layout of one run directory (docs/results_schema.md) and its life cycle."""
from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from grue.storage import run_layout as layout
from grue.storage.atomic import atomic_write_json, atomic_write_text
from grue.storage.lock import RunLock
from grue.storage.run_layout import read_jsonl
from grue.results.schema import validate_results


@dataclass
class RunDir:
    path: Path

    @classmethod
    def for_config(cls, cfg: Any, config_hash: str) -> "RunDir":
        name = f"{cfg.task}-{cfg.profile}-{cfg.algo}-seed{cfg.seed}-{config_hash[:8]}"
        return cls(Path(cfg.output_dir) / name)

    # The names are grue/storage/run_layout.py's, which the board and the human app read too.
    checkpoints = property(lambda self: layout.checkpoints_dir(self.path))
    train_log = property(lambda self: layout.train_log(self.path))
    eval_log = property(lambda self: layout.eval_log(self.path))
    results = property(lambda self: layout.results_file(self.path))
    model_dir = property(lambda self: layout.model_dir(self.path))
    critic_cache = property(lambda self: layout.critic_cache_dir(self.path))  # judgements of reward.dense=critic
    status_file = property(lambda self: layout.status_file(self.path))

    def predictions(self, split: str) -> Path:
        return layout.predictions_file(self.path, split)

    def complete(self) -> bool:
        if not self.results.exists():
            return False
        try:  # cut short, not UTF-8, unreadable: all mean "not complete" (ValueError covers the first two)
            return not validate_results(json.loads(self.results.read_text(encoding="utf-8")))
        except (ValueError, OSError):
            return False

    def lock(self) -> RunLock:
        """The per-run lock (grue.storage.lock); a run holds it from before it checks `complete` until it ends."""
        return RunLock(layout.lock_file(self.path))

    def status(self) -> dict:
        """run.json: running, complete, failed (with its error) or interrupted; {} when never started.

        A run killed outright (kill -9, a node lost) cannot update its run.json, which still says
        "running"; its lock is free, though (the kernel drops it with the process), so such a run is
        reported as interrupted, which is what it is: the same command resumes it.
        """
        try:
            status = json.loads(self.status_file.read_text(encoding="utf-8"))
        except (ValueError, OSError):
            return {}
        if isinstance(status, dict) and status.get("status") == "running" and not self.lock().is_held():
            return {**status, "status": "interrupted",
                    "error": "its process died (run.json says running, but nothing holds the run's lock); "
                             "run the same command again to resume"}
        return status if isinstance(status, dict) else {}

    def fail(self, error: str, status: str = "failed") -> None:
        """Record why a run stopped, for `grue sweep` and for the user who finds the directory later.

        Best effort: on a full disk the record cannot be written either, and the original error, not
        this one, is what the user must see (a reader still tells the dead run by its free lock).
        """
        if self.path.exists():
            try:
                atomic_write_json(self.status_file, {"status": status, "error": error, "updated": time.time()})
            except OSError:
                pass

    def start(self, config_yaml: str, config_hash: str) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        atomic_write_text(layout.config_file(self.path), config_yaml)
        atomic_write_text(layout.config_hash_file(self.path), config_hash + "\n")
        atomic_write_json(self.status_file, {"status": "running", "updated": time.time()})

    def truncate_logs(self, step: int, key: str = "iteration") -> None:
        """Rewind the logs to the state a run resumes from (`step` of `key`, 0 when it starts afresh): lines
        past it, and the final evaluation's, will be written again, and must not be counted twice."""
        self._keep_log_rows(lambda row: row.get(key, 0) <= step and not row.get("final"))

    def drop_final_evaluation(self) -> None:
        """Before the final evaluation is logged: the lines of an earlier one (cut short) go."""
        self._keep_log_rows(lambda row: not row.get("final"))

    def _keep_log_rows(self, keep: Callable[[dict], bool]) -> None:
        """Rewritten whole, which also drops a line torn by a kill (the next line would be glued to it)."""
        for log in (self.train_log, self.eval_log):
            if log.exists():
                atomic_write_text(log, "".join(json.dumps(row) + "\n" for row in read_jsonl(log) if keep(row)))

    def save_model(self, policy: Any, state_dict: Optional[dict] = None) -> None:
        """The final model in the hub's layout; `state_dict` gives full tensors of a sharded model."""
        tmp = self.path / ".model.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            from grue.policy.lora import is_lora, save_merged

            if is_lora(policy.model):  # the merged model (plain transformers) and the adapter under adapter/
                save_merged(policy.model, tmp, state_dict)
            else:
                policy.model.save_pretrained(tmp, state_dict=state_dict)
            policy.tokenizer.save_pretrained(tmp)
        except BaseException:  # a full disk or a kill: no half-written model is left behind
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        shutil.rmtree(self.model_dir, ignore_errors=True)
        tmp.rename(self.model_dir)

    def finish(self, results: dict) -> None:
        problems = validate_results(results)
        if problems:
            raise RuntimeError(f"refusing to write an invalid results.json: {problems}")
        atomic_write_json(self.results, results)
        atomic_write_json(self.status_file, {"status": "complete", "updated": time.time()})
        shutil.rmtree(self.checkpoints, ignore_errors=True)  # the final model is in model/
