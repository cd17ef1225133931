"""Any metric as a reward, and the paper's composite rewards as weighted sums of metrics.

The reward of an episode is the metric's per-sample value for that generation (never a corpus
score of a growing batch: the reference code's intent reward made that mistake). Lower-is-better
metrics are turned around as their registration declares (grue.metrics.registry.reward_transform:
TER -> 1 - TER, as the paper's reward; any other lower-is-better metric -> its negation).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from grue.data.sample import Sample
from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable
from grue.metrics.registry import build_scorers, reward_transform
from grue.rewards.components import RewardComponents
from grue.rewards.registry import register_reward

# name -> {metric: weight}. Sources: spec 2.2 (ROUGE-avg, SPiDEr equal weights), 2.4 (METEOR+PARENT,
# weights not given: equal), 2.5 (ROUGE combined = mean of ROUGE-1/2/L), 2.7 (DailyDialog: METEOR 0.25,
# intent 0.75 for PPO/NLPO, Table 32).
COMPOSITES: dict[str, dict[str, float]] = {
    "rouge_avg": {"rouge1": 1 / 3, "rouge2": 1 / 3, "rougeL": 1 / 3},
    "rouge_combined": {"rouge1": 1 / 3, "rouge2": 1 / 3, "rougeL": 1 / 3},
    "spider": {"spice": 0.5, "cider": 0.5},
    "meteor_parent": {"meteor": 0.5, "parent": 0.5},
    "meteor_intent": {"meteor": 0.25, "intent_accuracy": 0.75},
}


class MetricReward:
    def __init__(self, name: str, weights: Mapping[str, float], ctx: MetricContext) -> None:
        self.name = name
        self.weights = dict(weights)
        self.transforms = {metric: reward_transform(metric) for metric in self.weights}
        self.scorers = build_scorers(self.weights, ctx)
        if self.scorers.unavailable:
            missing = "; ".join(f"{k}: {v}" for k, v in self.scorers.unavailable.items())
            raise MetricUnavailable(f"reward {name!r} needs metrics that are unavailable here ({missing})")

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        return self.score_components(samples, generations).total()

    def score_components(self, samples: Sequence[Sample], generations: Sequence[str]) -> RewardComponents:
        """Each metric's per-sample reward (turned to the reward's direction) and its weight: the mix's parts,
        which GDPO-style normalisation standardises apart (grue/rewards/components.py)."""
        inputs = MetricInputs(prompts=[s.prompt for s in samples], generations=list(generations),
                              references=[list(s.references) for s in samples], meta=[s.meta for s in samples])
        values = self.scorers.compute(inputs)
        columns = []
        for metric in self.weights:
            per_sample = values[metric].per_sample
            if per_sample is None:
                raise MetricUnavailable(f"metric {metric!r} has no per-sample value, so it cannot be a reward")
            flip = self.transforms[metric]
            columns.append(tuple(flip(v) for v in per_sample))
        return RewardComponents(tuple(self.weights), tuple(self.weights.values()), tuple(columns))


def metric_reward_factory(name: str, weights: Mapping[str, float]):
    """The reward factory of a weighted sum of metrics (one metric: weight 1)."""
    def build(cfg: Any) -> MetricReward:
        from grue.run.evaluate import metric_context
        from grue.runtime.process import device_of

        return MetricReward(name, weights, metric_context(cfg, None, device_of(cfg)))

    return build


# Every metric that can be a reward is one under its own name (grue.rewards.registry looks them up);
# the composites are registered here.
for _name, _weights in COMPOSITES.items():
    register_reward(_name)(metric_reward_factory(_name, _weights))
