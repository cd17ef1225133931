"""Train a run's policy the way its algorithm says: no training, the supervised loop, the RL loop or the
preference loop; an algorithm that decodes its own way at evaluation (best-of-n) says how here too."""
from __future__ import annotations

from typing import Any

from grue.train.outcome import RunServices, Trained
from grue.train.registry import get_algorithm, load_attribute


def train(run: RunServices, task: Any, policy: Any, splits: dict, scorers: Any) -> Trained:
    algo = get_algorithm(run.cfg.algo)
    if algo.trains == "supervised":
        from grue.train.supervised.loop import train_supervised

        trained = train_supervised(run, algo.trainer_class(), task, policy, splits)
    elif algo.trains == "rl":
        from grue.train.rl.loop import train_rl

        trained = train_rl(run, algo.trainer_class(), policy, splits, scorers)
    elif algo.trains == "preferences":
        from grue.train.offline.loop import train_preferences

        trained = train_preferences(run, algo.trainer_class(), policy, splits)
    else:
        trained = Trained()
    if algo.evaluation:
        trained.eval_decoder = load_attribute(algo.evaluation)(run, policy)
    return trained
