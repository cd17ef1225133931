"""Settings of the learned-reward and dense-critic groups that pass field by field but cannot mean anything
together are refused, naming both keys; sensible combinations pass."""
from __future__ import annotations

import pytest

from grue.config import ConfigError, load_config
from grue.config.cross_fields import CrossFieldError, check_cross_fields

BASE = ["task=imdb", "profile=mini", "algo=ppo"]


def problem_of(args: list[str]) -> str | None:
    """The refusal of these settings, whether the config loader or the cross-field check gives it."""
    try:
        cfg = load_config([*BASE, *args])
    except ConfigError as err:
        return str(err)
    try:
        check_cross_fields(cfg)
    except CrossFieldError as err:
        return str(err)
    return None


@pytest.mark.parametrize("args, names", [
    (["reward.name=learned", "reward.schedule=offline"], ["reward.schedule=offline", "reward.labeler"]),
    (["reward.schedule=offline", "reward.labeler=sentiment"], ["reward.schedule", "reward.name=sentiment"]),
    (["reward.labeler_temperature=0.5", "reward.labeler_error_rate=0.1"],
     ["reward.labeler_temperature", "reward.labeler_error_rate"]),
    (["reward.initial_labels=50", "reward.labels=20"], ["reward.initial_labels=50", "reward.labels=20"]),
    (["reward.name=learned", "reward.schedule=batched", "reward.labeler=sentiment", "reward.labels=3",
      "reward.rounds=5"], ["reward.rounds=5", "reward.labels=3"]),
    (["reward.name=distinct_2"], ["reward.name=distinct_2", "corpus-level"]),
    (["reward.labeler=msttr"], ["reward.labeler=msttr", "corpus-level"]),
    (["critic.model=judge"], ["critic.model", "reward.dense"]),
    (["critic.alpha_intrinsic=0.5"], ["critic.alpha_intrinsic", "reward.dense"]),
    (["reward.dense=critic", "critic.model=packaged:smollm2-135m", "algo=zero_shot"], ["reward.dense=critic",
                                                                                      "algo=zero_shot"]),
    (["reward.dense=critic", "critic.backend=http", "critic.model=m", "critic.base_url=localhost:8000/v1"],
     ["critic.base_url=localhost:8000/v1", "http://"]),
    (["reward.dense=critic", "critic.backend=http", "critic.model=m", "critic.base_url=ftp://host/v1"],
     ["critic.base_url=ftp://host/v1"]),
])
def test_settings_that_cannot_go_together_are_refused_naming_both_keys(args, names):
    problem = problem_of(args)
    assert problem is not None
    for name in names:
        assert name in problem, (name, problem)


@pytest.mark.parametrize("args", [
    [],
    ["reward.name=learned", "reward.schedule=batched", "reward.labeler=sentiment", "reward.labels=40",
     "reward.rounds=4", "reward.labeler_error_rate=0.1"],
    ["reward.labeler_temperature=0.5"],
    ["reward.dense=critic", "critic.model=packaged:smollm2-135m", "critic.alpha_intrinsic=0.5"],
    ["reward.dense=critic", "critic.backend=http", "critic.model=m", "critic.base_url=https://api.example.com/v1"],
    ["reward.name=rouge_avg"],
])
def test_sensible_combinations_pass(args):
    assert problem_of(args) is None
