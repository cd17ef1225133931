"""The accelerate engine every run goes through (one CPU process here; many GPUs for real runs)."""
from __future__ import annotations

import importlib.util
from pathlib import Path


def make_accelerator(device: str, project_dir: Path, trackers: list | None = None):
    """`trackers`: accelerate trackers (grue/run/tracking.py); None: TensorBoard when it is installed."""
    from accelerate import Accelerator

    from grue.runtime.distributed import destroy_group_at_exit

    if trackers is None:
        trackers = "tensorboard" if importlib.util.find_spec("tensorboard") else None
    accelerator = Accelerator(cpu=device == "cpu", log_with=trackers or None, project_dir=str(project_dir))
    destroy_group_at_exit()  # the group accelerate created for a launched rank
    return accelerator
