"""Launchers: every cell is one `grue run` process, so a crash, a NaN or an out-of-memory in one cell
never takes the sweep down, and each cell's output goes to its own log.

- local: cells one after another, or `jobs` at a time; CPU threads are split so jobs x threads fits
  the cores, and GPUs (`devices`) are handed out one per running cell.
- submitit: each cell one job on SLURM (or on submitit's local executor, which is how it is tested
  here); the job runs the same `grue run` command and writes the same log.

A local sweep stopped by SIGTERM (a scheduler, `kill`) passes it on to its running cells, each of which
then records itself as interrupted (grue.run.signals) instead of running on unwatched; on Ctrl-C the
terminal has already sent every cell its own SIGINT, so the sweep waits for them to stop.
"""
from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from grue.run.signals import Terminated
from grue.sweep.grid import Cell

Outcome = Callable[[Cell, int], None]  # (cell, exit code) -> None; called as each cell ends


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def cell_command(cell: Cell, threads: Optional[int]) -> list[str]:
    """`grue run <cell args>` with the sweep's thread budget, unless the cell sets its own threads."""
    args = list(cell.args)
    if threads and not any(a.startswith("threads=") for a in args):
        args.append(f"threads={threads}")
    return [sys.executable, "-m", "cli", "run", *args]


def run_logged(command: Sequence[str], log: str, env_updates: Optional[dict[str, str]] = None,
               cwd: Optional[str] = None) -> int:
    """Run one cell, appending everything it prints to its log; returns its exit code.

    Module-level and plain-typed so submitit can pickle it into a SLURM job; `cwd` is the directory
    the sweep was started from, so relative paths (output_dir=runs) mean the same on a compute node."""
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TOKENIZERS_PARALLELISM": "false", "PYTHONUNBUFFERED": "1", **(env_updates or {})}
    with open(log, "a", encoding="utf-8") as handle:
        handle.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(command)}\n")
        handle.flush()
        process = subprocess.Popen(list(command), stdout=handle, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        with _RUNNING_LOCK:
            _RUNNING.add(process)
        try:
            return process.wait()
        except KeyboardInterrupt as err:
            if isinstance(err, Terminated):
                process.terminate()
            process.wait()
            raise
        finally:
            with _RUNNING_LOCK:
                _RUNNING.discard(process)


_RUNNING: set[subprocess.Popen] = set()  # the local cells running now, for stop_running_cells
_RUNNING_LOCK = threading.Lock()


def stop_running_cells() -> None:
    """SIGTERM to every local cell still running; each records itself as interrupted and stops."""
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for process in running:
        process.terminate()
    for process in running:
        process.wait()


class LocalLauncher:
    def __init__(self, jobs: int = 1, devices: Sequence[str] = (), cores: Optional[int] = None) -> None:
        self.jobs = max(1, jobs)
        self.devices = list(devices)
        self.threads = max(1, (cores or available_cores()) // self.jobs)

    def run(self, cells: Sequence[Cell], log_of: Callable[[Cell], Path], done: Outcome) -> None:
        free: "queue.Queue[str]" = queue.Queue()
        for device in self.devices:
            free.put(device)

        def one(cell: Cell) -> None:
            device = free.get() if self.devices else None
            try:
                env = {"CUDA_VISIBLE_DEVICES": device} if device is not None else {}
                env["OMP_NUM_THREADS"] = str(self.threads)
                code = run_logged(cell_command(cell, self.threads), str(log_of(cell)), env)
            finally:
                if device is not None:
                    free.put(device)
            done(cell, code)

        if self.jobs == 1:
            for cell in cells:
                one(cell)
            return
        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = [pool.submit(one, cell) for cell in cells]
            try:
                for future in futures:
                    future.result()
            except KeyboardInterrupt as err:  # before the pool waits for its threads: stop what they wait on
                for future in futures:
                    future.cancel()
                if isinstance(err, Terminated):
                    stop_running_cells()
                raise


class SubmititLauncher:
    """`cluster="slurm"` for a real cluster, `"local"` for submitit's local executor (tests, one machine)."""

    def __init__(self, folder: Path, cluster: str = "slurm", jobs: int = 0, threads: Optional[int] = None,
                 **parameters: Any) -> None:
        # submitit binds console log handlers to the streams of the moment it is first imported; grue keeps
        # its own per-cell logs, so leave submitit's messages to the logging module's defaults instead.
        os.environ.setdefault("SUBMITIT_LOG_LEVEL", "NOCONFIG")
        import submitit

        self.executor = submitit.AutoExecutor(folder=str(folder), cluster=cluster)
        params = {k: v for k, v in parameters.items() if v is not None}
        if jobs and cluster == "slurm":
            params["slurm_array_parallelism"] = jobs
        self.executor.update_parameters(**params)
        self.threads = threads

    def run(self, cells: Sequence[Cell], log_of: Callable[[Cell], Path], done: Outcome) -> None:
        env = {"OMP_NUM_THREADS": str(self.threads)} if self.threads else {}
        jobs = [(cell, self.executor.submit(run_logged, cell_command(cell, self.threads), str(log_of(cell)), env,
                                            os.getcwd())) for cell in cells]
        for cell, job in jobs:
            try:
                code = int(job.result())
            except Exception as err:  # noqa: BLE001 - the job itself died (preempted, killed, node lost)
                with open(log_of(cell), "a", encoding="utf-8") as handle:
                    handle.write(f"\n=== submitit job {job.job_id} failed: {err}\n")
                code = 1
            done(cell, code)
