"""What a run computes, as the config hash sees it: a whitelist of what its algorithm reads.

A run's hash covers the common groups and the groups its algorithm declares it reads
(grue/train/registry.py), and nothing else. So a config group added later (a new algorithm's, or
any other) never changes the hash of a run that does not read it: existing run directories are
still found and resumed, and the board keeps old and new runs of one setting in one row.

A field added to a group that existing runs already read is marked `HASHED_WHEN_SET` in the schema:
while it holds its default it is left out, so runs from before it existed keep their hash.
"""
from __future__ import annotations

import copy
import functools
import hashlib
import json
from typing import Any

from omegaconf import DictConfig, OmegaConf

# Keys that change where or how fast a run goes, not what it computes (dotted for keys inside a group).
# model.gradient_checkpointing recomputes the same activations in the backward pass (gradients equal to
# float rounding, tests/train/test_gradient_checkpointing.py): memory, not a result; so does dpo.micro_batch_size
# (the step's mean gradient summed in parts, tests/train/test_dpo_micro_batches.py).
NON_SEMANTIC_KEYS = ("output_dir", "device", "threads", "num_processes", "accelerate", "shard", "eval.save_every",
                     "task_file", "dpo.save_every", "dpo.micro_batch_size", "tracking", "model.gradient_checkpointing")
# Keys every algorithm reads whatever its groups: a file task's content digest (unset for built-in tasks) and
# the digests of the python: files the run names (unset without any; grue/extend/code_digests.py).
TASK_IDENTITY_KEYS = ("task_sha256", "code_sha256")
# Field metadata: left out of the hash while the value is the field's default (fields added after runs
# existed that read their group).
HASHED_WHEN_SET = "hashed_when_set"
# Field metadata: the field holds the SHA-256 of the file another key (dotted) names, filled when the config
# is loaded (grue/config/load.py), so a file edited or appended to in place is a new setting (DPO's
# comparisons file: dpo.comparisons_sha256 of dpo.comparisons).
FILE_DIGEST = "file_digest"
# Field metadata beside FILE_DIGEST: "module:function" of the config giving the digest when the file key names a
# file grue makes during the run (dpo.comparisons=auto): the digest of what the file is made from, so the hash
# stays a function of the settings (grue/train/offline/auto_recipe.py).
DIGEST_OF_RECIPE = "digest_of_recipe"
# Groups read only when a switch is on: the critic's settings matter only to runs with a dense critic.
CONDITIONAL_GROUPS = {"critic": ("reward", "dense")}


def _pop(data: dict[str, Any], dotted: str) -> Any:
    *parents, leaf = dotted.split(".")
    for part in parents:
        data = data.get(part)
        if not isinstance(data, dict):
            return None
    return data.pop(leaf, None)


def _get(data: dict[str, Any], path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _defaults_omitted_when_unset() -> dict[str, Any]:
    """Dotted key -> default of every field marked HASHED_WHEN_SET (the current schema's)."""
    from grue.config.schema import run_schema

    return _marked_defaults(run_schema())


@functools.lru_cache(maxsize=8)
def added_field_defaults() -> dict[str, Any]:
    """Dotted key -> default of every field added after runs existed (HASHED_WHEN_SET): a config recorded
    before such a field existed lacks the key and ran at its default."""
    return dict(_defaults_omitted_when_unset())


def _marked_defaults(schema: type) -> dict[str, Any]:
    """Walked once per schema: the board hashes every run it reads."""
    from grue.config.constraints import schema_fields

    return {key: item.default for key, item, _ in schema_fields(schema) if item.metadata.get(HASHED_WHEN_SET)}


def semantic_config(data: dict[str, Any]) -> dict[str, Any]:
    """The part of a resolved config (a plain dict) that decides what a run computes. The leaderboard
    reads it from results.json to tell settings apart, so both sides share this one definition.
    A results file of an algorithm that is not registered here (a plugin not loaded) keeps every
    group but the non-semantic keys."""
    from grue.train.registry import find_algorithm

    data = copy.deepcopy(data)
    algo = find_algorithm(str(data.get("algo")))
    if algo is not None:
        for key in [k for k in data if k not in algo.hashed_groups and k not in TASK_IDENTITY_KEYS]:
            data.pop(key)
    for key in NON_SEMANTIC_KEYS:
        _pop(data, key)
    for group, switch in CONDITIONAL_GROUPS.items():
        if _get(data, switch) is None:
            data.pop(group, None)
    for key, default in _defaults_omitted_when_unset().items():
        path = tuple(key.split("."))
        if _get(data, path) == default and isinstance(_get(data, path[:-1]), dict):
            _pop(data, key)
            if len(path) > 2 and _get(data, path[:-1]) == {}:  # a sub-group of such fields, all unset: model.lora
                _pop(data, ".".join(path[:-1]))
    return data


def config_hash(cfg: DictConfig) -> str:
    """A stable identity for what a run computes."""
    data = semantic_config(OmegaConf.to_container(cfg, resolve=True))
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
