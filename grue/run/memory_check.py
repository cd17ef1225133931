"""Before a run trains: a warning when `grue plan`'s estimate of its peak needs more memory than is free.

The board study's CNN/DailyMail DPO cell was killed by the kernel at its second step, after minutes of
scoring the reference, holding 21 GB on a 24 GiB machine; `grue plan task=cnn_dailymail algo=dpo
profile=mini` estimates 21.6 GiB for it (docs/speed.md compares the estimate with measured DPO peaks:
scripts/bench_dpo_memory.py). The estimate is a lower bound for PPO and within 14 % for DPO, so a run it
warns about will not fit, and saying so at the start costs a second where the kill cost the run. It warns
only: the memory free now is not the memory free later, and a user may know better.
"""
from __future__ import annotations

import os
from typing import Any, Optional

GIB = 1024 ** 3
# what lowers the estimate's largest terms, by what the algorithm trains (grue/commands/plan.py)
LEVERS = {
    "rl": "a smaller ppo.batch_size, model.gradient_checkpointing=true or model.lora.rank=16",
    "preferences": "a smaller dpo.micro_batch_size (answers per pass; the same gradient, not part of the hash)",
    "supervised": "a smaller supervised.batch_size, model.gradient_checkpointing=true or model.lora.rank=16",
}


def free_bytes(device: str) -> Optional[int]:
    """Memory free for this run on `device`: CUDA's free memory, or the kernel's MemAvailable; None if unknown."""
    if device.startswith("cuda"):
        import torch

        return int(torch.cuda.mem_get_info(torch.device(device))[0])
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def held_bytes(device: str) -> int:
    """What this process holds already (the loaded policy among it): counted in the estimate, not free."""
    if device.startswith("cuda"):
        import torch

        return int(torch.cuda.memory_allocated(torch.device(device)))
    try:
        with open("/proc/self/statm") as f:  # size, resident, ...: in pages
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return 0


def memory_warning(cfg: Any, model_ref: str, device: str) -> Optional[str]:
    """The warning for a run whose estimated peak is more than `device` has free, None when it fits or when
    the algorithm trains nothing. On a CPU every process of the run shares the machine's memory."""
    from grue.commands.plan import estimate, model_facts
    from grue.train.registry import get_algorithm

    trains = get_algorithm(cfg.algo).trains
    if trains not in LEVERS:
        return None
    free = free_bytes(device)
    if free is None:
        return None
    plan = estimate(cfg, model_facts(cfg, model_ref), device="cuda" if device.startswith("cuda") else "cpu")
    sharing = 1 if device.startswith("cuda") else int(cfg.num_processes or 1)
    held = held_bytes(device)
    if plan.peak * sharing - held <= free:
        return None
    what = "per device" if sharing == 1 else f"for {sharing} processes on this machine"
    return (f"`grue plan` estimates this run's peak at {plan.peak * sharing / GIB:.1f} GiB {what}, more than the "
            f"{(free + held) / GIB:.1f} GiB free to it now; the estimate is a lower bound, so it is likely to be "
            f"killed for memory. Lower it with {LEVERS[trains]} (see `grue plan` with the same arguments)")
