"""Learned rewards in the registry.

`reward=learned reward.model=<dir>`: the normalised score of a trained reward model (any task, any
RL algorithm). With `reward.schedule` set, the run trains the model itself (grue.rewards.learned.schedules).

`reward=commongen_preference reward.model=<dir>`: the paper's CommonGen reward (spec §2.2, §B.4.4),
r = meteor + pref / (1 + |missing concepts|), where pref is the probability a binary preference
classifier (a reward-model directory trained with objective=classifier) gives the completion.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from grue.data.sample import Sample
from grue.metrics.coverage import concept_coverage
from grue.rewards.learned.model import RewardModel
from grue.rewards.registry import register_reward


class LearnedReward:
    name = "learned"

    def __init__(self, model: RewardModel, batch_size: int = 32) -> None:
        self.model, self.batch_size = model, batch_size

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        return self.model.score([s.prompt for s in samples], list(generations), self.batch_size)


def missing_concepts(generation: str, concepts: Sequence[str]) -> int:
    """How many of the sample's concepts the generation leaves out (the coverage metric's matching)."""
    return len(concepts) - round(concept_coverage(generation, concepts) * len(concepts))


class PreferenceReward:
    name = "commongen_preference"

    def __init__(self, classifier: RewardModel, meteor: Any, batch_size: int = 32) -> None:
        if classifier.info.get("objective") != "classifier":
            raise ValueError("reward=commongen_preference needs a preference classifier "
                             "(a reward model trained with objective=classifier)")
        self.classifier, self.meteor, self.batch_size = classifier, meteor, batch_size

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        logits = self.classifier.score([s.prompt for s in samples], list(generations), self.batch_size)
        meteor = self.meteor(samples, generations)
        out = []
        for sample, text, logit, m in zip(samples, generations, logits, meteor):
            concepts = sample.meta.get("concepts")
            if not concepts:
                raise ValueError(f"sample {sample.id}: commongen_preference needs the sample's concepts")
            pref = 1 / (1 + math.exp(-logit))
            out.append(m + pref / (1 + missing_concepts(text, concepts)))
        return out


def _model_dir(cfg: Any) -> str:
    if not cfg.reward.model:
        raise ValueError(f"reward={cfg.reward.name} needs reward.model=<reward-model directory> "
                         "(train one with `grue label train`, or set reward.schedule)")
    return cfg.reward.model


@register_reward("learned")
def _learned(cfg: Any) -> LearnedReward:
    from grue.runtime.process import device_of

    return LearnedReward(RewardModel.load(_model_dir(cfg), device_of(cfg)), cfg.reward.batch_size)


@register_reward("commongen_preference")
def _commongen_preference(cfg: Any) -> PreferenceReward:
    from grue.rewards.registry import build_named_reward
    from grue.runtime.process import device_of

    classifier = RewardModel.load(_model_dir(cfg), device_of(cfg))
    return PreferenceReward(classifier, build_named_reward(cfg, "meteor"), cfg.reward.batch_size)
