"""Accelerate launch presets by name (`grue run ... accelerate=ddp num_processes=8`).

Each is an `accelerate launch --config_file` YAML shipped with the package. `ddp` and `multi_node` are
data parallel (every process holds the whole policy). `fsdp` and `zero3` shard parameters, gradients
and optimizer state (shard=full), `zero2` gradients and optimizer state with parameters gathered from
forward to backward (shard=grad_op). grue does the sharding itself with torch FSDP2
(grue/runtime/sharding.py); the ZeRO presets name the stage, and DeepSpeed's engine is not used.
"""
from __future__ import annotations

from pathlib import Path

PRESETS = ("ddp", "fsdp", "zero2", "zero3", "multi_node")
# what the sharding presets mean for grue.runtime.sharding (FULL_SHARD / SHARD_GRAD_OP)
SHARD_MODES = {"fsdp": "full", "zero3": "full", "zero2": "grad_op"}
SHARDED = tuple(SHARD_MODES)


def preset_path(name: str) -> Path:
    if name not in PRESETS:
        raise KeyError(f"unknown accelerate preset {name!r}; one of {', '.join(PRESETS)}")
    return Path(__file__).resolve().parent / f"{name}.yaml"


def deepspeed_refusal() -> str:
    return ("this run was launched with a DeepSpeed accelerate config; grue does not use DeepSpeed's engine. "
            "For ZeRO stage 2 or 3 use accelerate=zero2 or accelerate=zero3 (or shard=grad_op|full), which "
            "grue runs with torch FSDP")
