"""`grue run ... num_processes=N`: start the same command again as N processes.

Without `accelerate=` the processes are started by torchrun (`python -m torch.distributed.run
--standalone`), which works everywhere torch does, CPU included (gloo). With `accelerate=<preset>`
they are started by `accelerate launch --config_file <preset>`: the way to multi-GPU (ddp) and
multi-node setups on real machines (on a CPU-only machine accelerate needs MPI to start several
processes, torchrun does not). Either way each process runs `python -m grue run <the same args>` and
finds itself inside a launched process group, so it does not launch again.

The launching process keeps the run's lock while its children work, and tells them so
(GRUE_LOCK_HELD), so a second command on the same run still waits.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import Any, Sequence

from grue.runtime.distributed import in_launched_process

LOCK_ENV = "GRUE_LOCK_HELD"


def needs_relaunch(cfg: Any) -> bool:
    return int(cfg.num_processes) > 1 and not in_launched_process()


def launch_command(cfg: Any, args: Sequence[str]) -> list[str]:
    n = int(cfg.num_processes)
    run = ["-m", "grue", "run", *args]
    if cfg.accelerate:
        from grue.runtime.accelerate_configs import preset_path

        return [sys.executable, "-m", "accelerate.commands.launch", "--config_file", str(preset_path(cfg.accelerate)),
                "--num_processes", str(n), *run]
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={n}", *run]


def relaunch(cfg: Any, args: Sequence[str], lock_path: str, lock_fd: int | None = None) -> int:
    """Run the N-process command to its end, passing output through; returns its exit code.

    The launcher (torchrun / accelerate) inherits the locked descriptor, so if this process is killed
    the run stays locked until the launcher and its workers are gone too."""
    env = {**os.environ, LOCK_ENV: lock_path}
    if cfg.threads:
        env.setdefault("OMP_NUM_THREADS", str(cfg.threads))
    fds = (lock_fd,) if lock_fd is not None else ()
    return subprocess.run(launch_command(cfg, args), env=env, pass_fds=fds).returncode


def lock_is_held_by_launcher(lock_path: str) -> bool:
    return os.environ.get(LOCK_ENV) == lock_path
