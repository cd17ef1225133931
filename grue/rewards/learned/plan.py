"""When each reward model of a label schedule is trained, on how many labels, and whether a config's
rounds can all start.

A schedule's rounds begin at shares of the RL run (`Round.start`); the run switches reward models
only between iterations, so round r begins at the first iteration i with start_r * iterations <= i.
Two rounds that would begin in the same iteration, or a round that would begin after the last one,
cannot both be honoured: the earlier round would never be trained and its labels never collected.
Such configs are refused when the config is loaded (`schedule_problem`), naming the largest
`reward.rounds` that fits and the smallest `ppo.total_steps` that fits the rounds asked for; a run
therefore trains every planned round on exactly its planned labels.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional

SCHEDULES = ("offline", "batched", "online")
_EPS = 1e-9


@dataclass(frozen=True)
class Round:
    start: float  # share of the RL iterations done when the round begins
    labels: int   # answered comparisons in all once the round has collected its share


def online_label_target(n: float, initial: int, total: int) -> float:
    """Ziegler's l(n): labels wanted before a share n of the RL episodes, N0 + (N - N0)(1 - (1 - n)^2)."""
    return initial + (total - initial) * (1 - (1 - n) ** 2)


def schedule_rounds(schedule: str, labels: int, rounds: int, initial_labels: Optional[int] = None) -> list[Round]:
    """When each reward model is trained and on how many labels.

    offline: one, on every label, before RL. batched: `rounds` equal shares at equal RL intervals.
    online: `rounds` models (Ziegler: 20, the first before RL then 19 retrains) at evenly spaced label
    counts L_j = N0 + (N - N0) j / rounds, each once l(n) reaches it, i.e. at n = 1 - sqrt(1 - j / rounds);
    the labels l(n) would ask for after the last retrain are never used, so they are not collected
    (the plan's last count, N0 + (N - N0)(rounds - 1) / rounds, is what an online run labels).
    """
    if schedule == "offline":
        return [Round(0.0, labels)]
    if schedule == "batched":
        return [Round(r / rounds, labels * (r + 1) // rounds) for r in range(rounds)]
    initial = labels // rounds if initial_labels is None else initial_labels
    return [Round(1 - math.sqrt(1 - j / rounds), initial + (labels - initial) * j // rounds) for j in range(rounds)]


def start_iteration(start: float, iterations: int) -> int:
    """The first RL iteration (0-based) whose rollout uses a round beginning at share `start`."""
    return max(0, math.ceil(start * iterations - _EPS))


def round_of(plan: list[Round], iteration: int, iterations: int) -> int:
    """The round whose reward model scores the rollout of `iteration`."""
    return max(j for j, r in enumerate(plan) if start_iteration(r.start, iterations) <= iteration)


def start_iterations(plan: list[Round], iterations: int) -> list[int]:
    return [start_iteration(r.start, iterations) for r in plan]


def plan_fits(plan: list[Round], iterations: int) -> bool:
    """Every round begins in an iteration of its own, before the run ends, and collects a label."""
    starts = start_iterations(plan, iterations)
    distinct = all(a < b for a, b in zip(starts, starts[1:])) and starts[-1] < iterations
    shares = [plan[0].labels] + [b.labels - a.labels for a, b in zip(plan, plan[1:])]
    return distinct and all(n >= 1 for n in shares)


def rl_iterations(ppo: Mapping[str, Any]) -> int:
    """Iterations of the RL phase (grue.train.rl.trainer.RLTrainer: total_steps // steps_per_update)."""
    return max(1, int(ppo["total_steps"]) // int(ppo["steps_per_update"]))


def schedule_problem(reward: Mapping[str, Any], ppo: Mapping[str, Any]) -> Optional[str]:
    """Why a batched or online schedule's rounds cannot all start in the run's iterations, or None."""
    schedule, rounds = reward.get("schedule"), int(reward.get("rounds") or 1)
    if schedule not in ("batched", "online") or rounds < 1 or int(reward["labels"]) < 2:
        return None
    labels, initial = int(reward["labels"]), reward.get("initial_labels")
    if initial is not None and not 0 < int(initial) <= labels:
        return None  # refused on its own (reward.initial_labels)
    iterations = rl_iterations(ppo)
    plan = schedule_rounds(schedule, labels, rounds, initial)
    if plan_fits(plan, iterations):
        return None
    fitting = [r for r in range(1, rounds) if plan_fits(schedule_rounds(schedule, labels, r, initial), iterations)]
    steps = int(ppo["steps_per_update"])
    needed = next((n for n in range(iterations + 1, 100 * rounds * rounds + 2) if plan_fits(plan, n)), None)
    starts = start_iterations(plan, iterations)
    clash = next((j for j in range(1, len(plan)) if starts[j] <= starts[j - 1] or starts[j] >= iterations), None)
    if clash is None:
        why = "a round would collect no new label"
    elif starts[clash] >= iterations:
        why = f"round {clash} would start after the last of the run's {iterations} RL iterations"
    else:
        why = (f"rounds {clash - 1} and {clash} would both start at RL iteration {starts[clash]} of {iterations}, "
               f"so round {clash - 1} would never be trained and its labels never collected")
    fixes = [f"the largest reward.rounds that fits is {max(fitting)}" if fitting else
             "no reward.rounds above 1 fits"]
    if needed is not None:
        fixes.append(f"or raise ppo.total_steps to at least {needed * steps} ({needed} iterations of "
                     f"ppo.steps_per_update={steps})")
    return f"reward.schedule={schedule} with reward.rounds={rounds}: {why}; {', '.join(fixes)}"
