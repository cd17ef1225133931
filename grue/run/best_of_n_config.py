"""The `best_of_n` config group and what a best-of-n run cannot start with. Kept apart from the decoder
(grue/run/best_of_n.py) so that building a config imports no model code."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grue.config.constraints import POSITIVE
from grue.config.schema import rule


@dataclass
class BestOfNConfig:
    """Best-of-n sampling (the DPO paper's "Best of N" baseline, Rafailov et al. 2023, section 6 and Appendix D.1,
    where N is varied: strong, "although computationally expensive")."""

    # Samples per prompt. 4: the candidates of one 4-way labelling query (Ziegler et al. 2019) and the group
    # methods' samples per prompt (docs/algorithms.md), so best-of-4 spends per prompt what they spend.
    n: int = rule(4, POSITIVE)


def preflight(cfg: Any) -> list[str]:
    """The reward picks among finished samples: a label schedule (it trains a reward model during RL) and
    dense per-token rewards have nothing to do here."""
    problems = []
    if cfg.reward.schedule:
        problems.append(f"reward.schedule={cfg.reward.schedule} trains its reward model during RL; algo=best_of_n "
                        "trains nothing: train the reward model first (`grue label train`) and name it with "
                        "reward.model=<dir>")
    if cfg.reward.dense:
        problems.append(f"reward.dense={cfg.reward.dense} adds per-token rewards for RL; algo=best_of_n ranks whole "
                        "samples by the task reward: leave reward.dense unset")
    if not cfg.rollout.do_sample and cfg.best_of_n.n > 1:
        problems.append(f"best_of_n.n={cfg.best_of_n.n} with rollout.do_sample=false: the n samples would all be the "
                        "same; best-of-n samples with the rollout settings")
    return problems
