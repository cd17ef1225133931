"""A trainer receives its algorithm's settings, typed and read-only, without the groups its hash does not cover
(grue/config/run_settings.py): reading another algorithm's group is an error at once, not a setting that
changes training while two runs share one run directory."""
from __future__ import annotations

import sys

import pytest

from grue.config import load_config
from grue.config.run_settings import RunSettings, UnreadGroup, run_settings
from grue.config.schema import KLConfig, PPOConfig
from grue.run.runner import Run


def test_settings_hold_the_schema_s_typed_groups_and_refuse_assignment(tiny_imdb_args):
    cfg = load_config([*tiny_imdb_args, "algo=ppo", "ppo.learning_rate=2e-4"])
    settings = run_settings(cfg)
    assert settings.ppo.schema is PPOConfig and settings.kl.schema is KLConfig
    assert settings.ppo.learning_rate == 2e-4 and isinstance(settings.ppo.total_steps, int)
    assert settings.ppo.total_steps == cfg.ppo.total_steps == 120
    assert settings.model.lora.rank == cfg.model.lora.rank  # nested groups read the same way
    assert settings.get("ppo") is not None and settings["ppo"].clip_range == cfg.ppo.clip_range
    with pytest.raises(AttributeError, match="read-only"):
        settings.ppo.learning_rate = 1.0
    with pytest.raises(AttributeError, match="read-only"):
        settings.model.lora.rank = 4
    assert cfg.ppo.learning_rate == 2e-4


def test_another_algorithm_s_group_is_not_there(tiny_imdb_args):
    settings = run_settings(load_config([*tiny_imdb_args, "algo=grpo"]))
    assert settings.grpo.group_size >= 2
    with pytest.raises(UnreadGroup, match="'dpo'"):
        settings.dpo
    assert "dpo" not in settings.keys() and "grpo" in settings.keys() and "nlpo" not in settings
    assert settings.get("dpo") is None
    ppo = run_settings(load_config([*tiny_imdb_args, "algo=ppo"]))
    with pytest.raises(UnreadGroup, match="'grpo'"):
        ppo.grpo


def test_a_trainer_reading_a_group_its_algorithm_does_not_read_stops_the_run(toy_plugin, tiny_imdb_args,
                                                                                 monkeypatch):
    """The toy plug-in reads ppo, kl, rollout and toy; its trainer peeking at DPO's beta must fail the run
    (through the real loop), since `dpo.beta=...` would otherwise change training but not the run's hash."""
    from grue.train.registry import algorithm_names

    assert "toy_reinforce" in algorithm_names()  # loads the plug-in module
    toy = sys.modules[toy_plugin]
    seen = []
    original = toy.ToyTrainer.advantages

    def peeking(self, episodes):
        seen.append(type(self.cfg))
        scale = self.cfg.dpo.beta
        return original(self, episodes) if scale is None else original(self, episodes)

    monkeypatch.setattr(toy.ToyTrainer, "advantages", peeking)
    args = [*tiny_imdb_args, "algo=toy_reinforce"]
    with pytest.raises(UnreadGroup, match="toy_reinforce read the 'dpo' config group"):
        Run(load_config(args), args).execute()
    assert seen == [RunSettings]
