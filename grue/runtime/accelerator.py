"""The accelerate engine every run goes through (one CPU process here; many GPUs for real runs)."""
from __future__ import annotations

import importlib.util
from pathlib import Path


def make_accelerator(device: str, project_dir: Path, trackers: list | None = None, mixed_precision: str = "no"):
    """`trackers`: accelerate trackers (grue/run/tracking.py); None: TensorBoard when it is installed.
    `mixed_precision` (model.mixed_precision): no, bf16, or fp16 (with loss scaling; needs a GPU)."""
    from accelerate import Accelerator

    from grue.runtime.distributed import destroy_group_at_exit

    if trackers is None:
        trackers = "tensorboard" if importlib.util.find_spec("tensorboard") else None
    if mixed_precision == "fp16" and not str(device).startswith("cuda"):
        raise ValueError(f"model.mixed_precision=fp16 needs a GPU (its loss scaling is CUDA's); on {device} use bf16")
    _forget_other_precision(mixed_precision)
    accelerator = Accelerator(cpu=device == "cpu", log_with=trackers or None, project_dir=str(project_dir),
                              mixed_precision=mixed_precision)
    destroy_group_at_exit()  # the group accelerate created for a launched rank
    return accelerator


# -- mixed precision (model.mixed_precision) ---------------------------------------------------------------
FP32_MASTER = ("float32",)


def _forget_other_precision(mixed_precision: str) -> None:
    """accelerate keeps one engine state per process and refuses an engine of another precision; a process
    that runs several single-process runs one after another (a sweep, the tests) starts each afresh."""
    from accelerate.state import AcceleratorState, PartialState

    if not AcceleratorState._shared_state or PartialState().num_processes > 1:
        return
    if str(AcceleratorState().mixed_precision) != mixed_precision:
        AcceleratorState._reset_state(reset_partial_state=False)


def check_mixed_precision(accelerator, mixed_precision: str, dtype: str) -> None:
    """The accelerator must autocast as the config says; fp16 needs fp32 master weights and a GPU."""
    got = str(getattr(accelerator, "mixed_precision", "no") or "no")
    if got != mixed_precision:
        raise ValueError(f"model.mixed_precision={mixed_precision} but the accelerate engine runs mixed precision "
                         f"{got!r}: make the engine with make_accelerator(..., mixed_precision={mixed_precision!r})")
    if mixed_precision == "fp16" and dtype not in FP32_MASTER:
        raise ValueError(f"model.mixed_precision=fp16 keeps fp32 master weights and scales the loss; model.dtype="
                         f"{dtype} makes the weights themselves half precision, whose gradients cannot be unscaled. "
                         "Use model.dtype=float32")


def autocast_settings(accelerator) -> tuple[str, str] | None:
    """(device type, dtype name) of the accelerator's autocast, or None when it runs full precision."""
    mode = str(getattr(accelerator, "mixed_precision", "no") or "no")
    if mode == "no":
        return None
    device = getattr(accelerator, "device", None)
    return (getattr(device, "type", "cpu") or "cpu", {"bf16": "bfloat16", "fp16": "float16"}[mode])


def autocast(settings: tuple[str, str] | None):
    """The autocast context for `settings` (autocast_settings), or a no-op."""
    import contextlib

    import torch

    if settings is None:
        return contextlib.nullcontext()
    return torch.autocast(device_type=settings[0], dtype=getattr(torch, settings[1]))


def autocast_forward(module, settings: tuple[str, str] | None) -> None:
    """Every call of `module` (generate()'s steps included) runs under autocast, as accelerate's
    prepare() does to a model's forward; the weights stay as they are (fp32 master weights). The
    settings are plain values on the module, so a deep copy of it autocasts the same way."""
    import functools
    import types

    if settings is None:
        return
    original = type(module).forward

    def forward(self, *args, **kwargs):
        with autocast(self.__dict__.get("_grue_autocast")):
            return original(self, *args, **kwargs)

    functools.update_wrapper(forward, original)  # the model's own signature (the KV cache argument's name is read)
    module.__dict__["_grue_autocast"] = settings
    module.forward = types.MethodType(forward, module)
