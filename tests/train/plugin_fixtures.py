"""A plugin written to a temporary folder, as a researcher outside the package would write it.

It registers a critic-free algorithm with a config group of its own and a lower-is-better metric;
nothing under grue/ or tasks/ is edited. The fixture undoes the registrations afterwards, so other
tests see the built-in registries only.
"""
from __future__ import annotations

import importlib
import sys
import textwrap

import pytest

PLUGIN = "toy_grue_plugin"
SOURCE = textwrap.dedent('''
    """A toy plugin: REINFORCE with a batch-mean baseline, and a length metric (lower is better)."""
    from dataclasses import dataclass

    import torch

    from grue.config.schema import rule
    from grue.config.constraints import POSITIVE
    from grue.metrics.base import MetricValue
    from grue.metrics.registry import register
    from grue.train.registry import Algorithm, register_algorithm
    from grue.train.rl.rollout import Experience
    from grue.train.rl.trainer import RLTrainer


    @dataclass
    class ToyConfig:
        scale: float = rule(1.0, POSITIVE)  # advantages are multiplied by this


    class ToyTrainer(RLTrainer):
        """Sequence reward minus the batch mean, on every token of the episode; no critic."""
        uses_critic = False

        def advantages(self, episodes):
            valid = episodes.rollout.valid
            centred = episodes.task_reward - episodes.task_reward.mean()
            advantages = self.cfg.toy.scale * centred[:, None] * valid
            kl = (episodes.rollout.raw_logp - episodes.ref_logp) * valid
            zeros = torch.zeros_like(valid)
            return Experience(episodes.rollout, zeros, advantages, zeros, episodes.task_reward, kl,
                              episodes.generations)


    register_algorithm(Algorithm(
        "toy_reinforce", "Toy REINFORCE", "#123456", trains="rl", reads=("ppo", "kl", "rollout", "toy"),
        trainer="toy_grue_plugin:ToyTrainer", config_groups={"toy": "toy_grue_plugin:ToyConfig"}))


    class LengthScorer:
        higher_is_better = {"toy_length": False}

        def compute(self, inputs):
            lengths = [float(len(g)) for g in inputs.generations]
            return {"toy_length": MetricValue(corpus=sum(lengths) / max(1, len(lengths)), per_sample=lengths)}


    @register(higher_is_better=LengthScorer.higher_is_better)
    def build_length(ctx):
        return LengthScorer()
''')


@pytest.fixture
def toy_plugin(tmp_path, monkeypatch):
    """GRUE_PLUGINS names a module in a temporary folder on sys.path; registrations undone after."""
    from grue import plugins
    from grue.metrics import registry as metric_registry
    from grue.train import registry as algo_registry

    metric_registry.known_metrics(), algo_registry.algorithm_names()  # built-ins loaded before the snapshot
    folder = tmp_path / "plugin_src"
    folder.mkdir()
    (folder / f"{PLUGIN}.py").write_text(SOURCE)
    # sys.path set directly: monkeypatch.syspath_prepend also calls into pkg_resources, which an earlier
    # test may have left half-imported
    monkeypatch.setattr(sys, "path", [str(folder), *sys.path])
    importlib.invalidate_caches()
    monkeypatch.setenv(plugins.ENV_VAR, PLUGIN)
    algos, metrics = dict(algo_registry._REGISTRY), dict(metric_registry._BY_NAME)
    yield PLUGIN
    algo_registry._REGISTRY.clear()
    algo_registry._REGISTRY.update(algos)
    metric_registry._BY_NAME.clear()
    metric_registry._BY_NAME.update(metrics)
    plugins._loaded.discard(PLUGIN)
    sys.modules.pop(PLUGIN, None)
