"""`grue algos` lists the groups a method's hash covers: a plug-in's own group counts even when its `reads`
leaves it out (its hash covers it; the listing used to show `reads` alone)."""
from __future__ import annotations

from grue.commands.algos import _rows
from grue.train import registry
from grue.train.registry import Algorithm, algorithm_names, register_algorithm


def test_a_plugin_group_left_out_of_reads_is_listed(monkeypatch):
    algorithm_names()  # the built-ins first, then a snapshot the test may add to
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    register_algorithm(Algorithm("decaying", "Decaying", "#123456", trains="rl", reads=("ppo", "kl", "rollout"),
                                 trainer="somewhere:Trainer", config_groups={"decay": "somewhere:DecayConfig"}))
    row = next(row for row in _rows() if row["algo"] == "decaying")
    assert row["reads"] == "ppo, kl, rollout, decay"
