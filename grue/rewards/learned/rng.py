"""Label work inside a run must not move the run's random stream: a run resumed after a round's
labels and reward model exist (so that work is skipped) must sample exactly as one that did it."""
from __future__ import annotations

import torch


def isolated_rng() -> torch.random.fork_rng:
    """Random draws inside this context leave the CPU and every GPU generator as they were."""
    return torch.random.fork_rng(devices=range(torch.cuda.device_count()) if torch.cuda.is_available() else [])
