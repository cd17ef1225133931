"""Train a run's policy the way its algorithm says: no training, the supervised loop, or the RL loop."""
from __future__ import annotations

from typing import Any

from grue.train.outcome import RunServices, Trained
from grue.train.registry import get_algorithm


def train(run: RunServices, task: Any, policy: Any, splits: dict, scorers: Any) -> Trained:
    algo = get_algorithm(run.cfg.algo)
    if algo.trains == "supervised":
        from grue.train.supervised.loop import train_supervised

        return train_supervised(run, algo.trainer_class(), task, policy, splits)
    if algo.trains == "rl":
        from grue.train.rl.loop import train_rl

        return train_rl(run, algo.trainer_class(), policy, splits, scorers)
    return Trained()
