"""An algorithm's own config groups are always part of its runs' hash (grue/train/registry.py
`hashed_groups`), listed in `reads` or not. Every built-in algorithm already lists them, so the rule
re-hashes none of their runs; a plugin that forgot to is the case it exists for
(tests/extending/test_plugin_contracts.py)."""
from __future__ import annotations

from grue.train.registry import COMMON_GROUPS, Algorithm, algorithm_names, get_algorithm


def test_every_built_in_algorithm_already_reads_its_own_groups():
    for name in algorithm_names():
        algo = get_algorithm(name)
        assert set(algo.config_groups) <= set(algo.reads), name
        assert algo.hashed_groups == COMMON_GROUPS + tuple(g for g in algo.reads if g not in COMMON_GROUPS), name


def test_a_group_left_out_of_reads_is_hashed_all_the_same():
    algo = Algorithm("forgetful", "Forgetful", "#000000", trains="rl", reads=("ppo", "kl"), trainer="m:T",
                     config_groups={"forgetful": "m:Config", "ppo": "m:Shared"})
    assert algo.hashed_groups == COMMON_GROUPS + ("ppo", "kl", "forgetful")
