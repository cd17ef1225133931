"""The few collectives a multi-process run needs, written so one process never pays for them.

A run started by torchrun or `accelerate launch` has one process per device. Each rank collects its
share of the episodes, computes its gradients, and the gradients are averaged here before the
optimizer step, so every rank holds the same weights after every step (data parallelism, as DDP, but
without wrapping the models: the policy keeps `generate`, its config and its submodules as they are,
and there is one trainer for one process and for many). Statistics that steer the run (mean KL for the
adaptive controller, the reward the NaN check reads) are global means, so every rank decides alike.
With one process every function here is the identity, and single-process results do not change.
"""
from __future__ import annotations

import math
import os
from typing import Any, Sequence, TypeVar

import torch

T = TypeVar("T")
_BUCKET = 1 << 25  # elements per all-reduce: large enough to be fast, small enough not to double memory


def in_launched_process() -> bool:
    """Whether torchrun / accelerate launch / SLURM+torchrun started this process as one rank of many."""
    return int(os.environ.get("WORLD_SIZE", "1")) > 1


def die_with_launcher() -> None:
    """Make this rank die when the process that launched it dies.

    torchrun starts its workers in sessions of their own, so a `kill -9` of the launcher (or of the
    `grue run` above it, which holds the run's lock) would leave them training and writing, unlocked,
    while the same command started again resumes the run beside them. Linux only; elsewhere a no-op."""
    import ctypes
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except OSError:
        return
    if os.getppid() == 1:  # the launcher died before the line above: follow it now
        os.kill(os.getpid(), signal.SIGKILL)


_EXIT_HANDLER = {"registered": False}


def destroy_group_at_exit() -> None:
    """Destroy the default process group when the interpreter exits, while it is still whole.

    A rank that ends with its gloo group alive can abort (SIGABRT) in interpreter finalisation: gloo's
    worker threads still hold finished work objects whose tensors reference Python objects, and
    freeing them then needs a GIL that is being torn down. It is a race, so it strikes now and then
    (a two-process test run in CI died this way after its work was done). atexit handlers run before
    finalisation; registered once per process, after the group exists, and a no-op if the group was
    already destroyed. Not done at the end of a run, because one process may execute several runs.
    """
    if _EXIT_HANDLER["registered"] or not (torch.distributed.is_available() and torch.distributed.is_initialized()):
        return
    import atexit

    def destroy() -> None:
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()

    atexit.register(destroy)
    _EXIT_HANDLER["registered"] = True


def world_of(accelerator: Any) -> tuple[int, int]:
    """(rank, number of processes); (0, 1) for a plain process or a stand-in accelerator."""
    return int(getattr(accelerator, "process_index", 0)), int(getattr(accelerator, "num_processes", 1))


def contiguous_shard(items: Sequence[T], rank: int, world: int) -> list[T]:
    """Rank r's consecutive block; concatenating the blocks in rank order gives `items` back exactly,
    which is what a gather returns, so gathered generations line up with their samples."""
    size = math.ceil(len(items) / world) if items else 0
    return list(items[rank * size:(rank + 1) * size])


def _all_reduce_(tensor: torch.Tensor) -> torch.Tensor:
    import torch.distributed as dist

    dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    return tensor


def global_sum(values: Sequence[float], world: int, device: Any = "cpu") -> list[float]:
    """Element-wise sum of a few numbers over all ranks (float64, so sums of counts stay exact)."""
    if world == 1:
        return [float(v) for v in values]
    tensor = torch.tensor([float(v) for v in values], dtype=torch.float64, device=device)
    return _all_reduce_(tensor).tolist()


def average_gradients(params: Sequence[torch.nn.Parameter], world: int) -> None:
    """Average `.grad` over ranks in coalesced buckets; a parameter without a gradient counts as zero,
    so every rank reduces the same buffers in the same order. Sharded parameters (grue.runtime.sharding)
    are skipped: their backward pass has averaged their gradients already."""
    if world == 1:
        return
    from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors

    from grue.runtime.sharding import is_sharded

    grads = []
    for param in params:
        if is_sharded(param):
            continue
        if param.grad is None:
            param.grad = torch.zeros_like(param)
        grads.append(param.grad)
    bucket: list[torch.Tensor] = []
    size = 0
    for grad in [*grads, None]:
        if grad is not None and (not bucket or (size + grad.numel() <= _BUCKET and grad.dtype == bucket[0].dtype
                                                and grad.device == bucket[0].device)):
            bucket.append(grad)
            size += grad.numel()
            continue
        if bucket:
            flat = _all_reduce_(_flatten_dense_tensors(bucket)).div_(world)
            for target, reduced in zip(bucket, _unflatten_dense_tensors(flat, bucket)):
                target.copy_(reduced)
        bucket, size = ([grad], grad.numel()) if grad is not None else ([], 0)


def gather_texts(accelerator: Any, texts: list[str]) -> list[str]:
    """Every rank's strings, concatenated in rank order, on every rank."""
    if world_of(accelerator)[1] == 1:
        return texts
    return list(accelerator.gather_for_metrics(texts, use_gather_object=True))
