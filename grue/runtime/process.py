"""Process-level settings every run shares: device choice, threads, and seeding everything."""
from __future__ import annotations

import os
import random
from typing import Any

import numpy as np
import torch


def device_of(cfg: Any) -> str:
    if cfg.device != "auto":
        return cfg.device
    return "cuda" if torch.cuda.is_available() else "cpu"


def configure_threads(cfg: Any) -> int:
    """torch's threads: `threads=` as given, else torch's default lowered to the cores not busy now
    (grue/runtime/thread_default.py). Returns the count."""
    if cfg.threads:
        torch.set_num_threads(int(cfg.threads))
    else:
        from grue.runtime.thread_default import default_threads

        torch.set_num_threads(default_threads(torch.get_num_threads()))
    return torch.get_num_threads()


def seed_everything(seed: int) -> None:
    """Python, numpy and torch (CPU and CUDA); data order and sampling use generators derived from it."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    os.environ.setdefault("PYTHONHASHSEED", str(seed))


def rng_state() -> dict[str, Any]:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])
