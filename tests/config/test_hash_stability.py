"""Config hashes are run identities: existing run directories must keep theirs.

tests/config/preset_hashes.json was recorded before the algorithm registry replaced the list of
groups each algorithm ignores (scripts/preset_hashes.py re-records it). Every built-in preset, with a
few common overrides, must still hash the same, and registering a new algorithm with a config group
of its own must not change any of them.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from grue.config import ConfigError, config_hash, load_config

RECORD = json.loads((Path(__file__).parent / "preset_hashes.json").read_text())


def _hash(args: str) -> str:
    try:
        return config_hash(load_config(args.split()))
    except ConfigError:
        return "refused: ConfigError"


def _mismatches(keys) -> list[str]:
    out = []
    for args in keys:
        got = _hash(args)
        # Settings that can never mean anything may be refused later; a refusal is not a re-hash.
        if got != RECORD[args] and not (got.startswith("refused") and "reward.dense=critic" in args):
            out.append(f"{args}: {RECORD[args][:12]} -> {got[:12]}")
    return out


def test_the_record_covers_every_built_in_preset():
    from tasks import task_names

    assert len(RECORD) == len(task_names()) * 2 * 6 * 4  # tasks x profiles x the paper's algorithms x overrides
    assert sum(not v.startswith("refused") for v in RECORD.values()) > 300


def test_every_recorded_preset_keeps_its_hash():
    assert _mismatches(RECORD) == []


def test_a_new_algorithm_with_its_own_config_group_changes_no_existing_hash(toy_plugin):
    from grue.config.schema import run_schema

    assert "toy" in run_schema().__dataclass_fields__  # the group exists in every config now
    sample = [k for k in RECORD if k.split()[0] in ("task=imdb", "task=cnn_dailymail")]
    assert len(sample) == 96 and _mismatches(sample) == []


def test_the_hash_covers_exactly_the_groups_an_algorithm_reads():
    zero = ["task=imdb", "profile=mini", "algo=zero_shot"]
    ppo = ["task=imdb", "profile=mini", "algo=ppo"]
    assert config_hash(load_config(zero)) == config_hash(load_config([*zero, "ppo.learning_rate=0.5"]))
    with pytest.raises(ConfigError, match="algo=zero_shot does not read the 'ppo' group"):
        load_config([*zero, "ppo.learning_rate=0.5"], refuse_unread=True)  # as the CLI asks: refused, not ignored
    assert config_hash(load_config(ppo)) != config_hash(load_config([*ppo, "ppo.learning_rate=0.5"]))
    assert config_hash(load_config(ppo)) == config_hash(load_config([*ppo, "nlpo.top_p=0.5"]))
    assert config_hash(load_config(ppo)) == config_hash(load_config([*ppo, "output_dir=elsewhere", "threads=1"]))


def test_a_field_added_later_is_hashed_only_when_set():
    args = ["task=imdb", "profile=mini", "algo=ppo"]
    dense = [*args, "reward.dense=critic", "critic.backend=self"]
    plain, with_critic = config_hash(load_config(args)), config_hash(load_config(dense))
    assert with_critic != plain  # the dense switch, once set, is part of the run's identity
    # and then the critic's group is read: its settings count
    assert config_hash(load_config([*dense, "critic.alpha_intrinsic=0.5"])) != with_critic
