"""What kind of machine made a run: the CPU's model and the vector instructions torch's kernels used, and the
accelerator's name.

The kernels torch picks for a CPU (AVX2 or AVX-512) or for a GPU model add in other orders, so the same code,
libraries, settings and seed can train weights that differ in the last digits, and a sampled decode from them
then picks another token now and then. That is the most likely reason the board study's IMDB Supervised seed 0,
trained again a day later, moved in the 8th digit of its loss: its own commit, run again on the retrain's machine,
gave the retrain's loss exactly (docs/studies/grue_board_mini/ABOUT.md says how). So the kind of machine is part
of what made a run's numbers. Recorded as results.json `hardware`; no
host name, user or path is recorded.
"""
from __future__ import annotations

import platform
from pathlib import Path
from typing import Optional


def _cpu_model() -> Optional[str]:
    try:  # Linux names the model here; platform.processor() is often empty or just the architecture there
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip() or None
    except OSError:
        pass
    return platform.processor() or None


def hardware(device: Optional[str] = None) -> dict[str, Optional[str]]:
    """{"cpu", "cpu_capability", "accelerator"}: the accelerator is named only when the run's device is one."""
    import torch

    try:
        capability = torch.backends.cpu.get_cpu_capability()
    except (AttributeError, RuntimeError):
        capability = None
    accelerator = None
    if device and str(device).startswith("cuda") and torch.cuda.is_available():
        accelerator = torch.cuda.get_device_name(torch.device(device))
    return {"cpu": _cpu_model(), "cpu_capability": capability, "accelerator": accelerator}


def hardware_label(record: object) -> Optional[str]:
    """One readable name for a results.json `hardware` record ('' parts left out); None when not recorded."""
    if not isinstance(record, dict):
        return None
    parts = [str(record[key]) for key in ("accelerator", "cpu", "cpu_capability") if record.get(key)]
    return ", ".join(parts) or None
