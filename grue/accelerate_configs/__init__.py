"""Accelerate launch presets by name (`grue run ... accelerate=ddp num_processes=8`).

Each is an `accelerate launch --config_file` YAML shipped with the package. `ddp` and `multi_node` are
what grue's trainer runs today (data parallel: every process holds the whole policy). `fsdp`, `zero2`
and `zero3` describe sharded setups for models too big to replicate; the trainer does not shard yet and
refuses them at start with that reason rather than run replicated under a sharding label.
"""
from __future__ import annotations

from pathlib import Path

PRESETS = ("ddp", "fsdp", "zero2", "zero3", "multi_node")
SHARDED = ("fsdp", "zero2", "zero3")


def preset_path(name: str) -> Path:
    if name not in PRESETS:
        raise KeyError(f"unknown accelerate preset {name!r}; one of {', '.join(PRESETS)}")
    return Path(__file__).resolve().parent / f"{name}.yaml"


def sharded_refusal(name: str) -> str:
    return (f"accelerate={name}: grue's trainer does not shard parameters yet (every process holds the whole "
            "policy), so it refuses to run under a sharding preset; use accelerate=ddp on one machine or "
            "accelerate=multi_node across machines")
