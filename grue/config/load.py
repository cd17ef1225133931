"""Resolve a run config: defaults -> task base -> profile -> algorithm preset -> command line.

OmegaConf's structured mode refuses undeclared keys and ill-typed values; this module turns its
errors into one-line messages that name the key and the closest valid names.
"""
from __future__ import annotations

import difflib
import hashlib
import json
from typing import Any, Iterable, Mapping

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException, ValidationError

from grue.config.schema import NON_SEMANTIC_KEYS, RunConfig
from grue.results.schema import ALGOS, PROFILES


class ConfigError(ValueError):
    """A bad command-line or task value; the CLI prints it and exits with code 2."""


def _closest(word: str, options: Iterable[str]) -> str:
    options = list(options)
    close = difflib.get_close_matches(word, options, n=3, cutoff=0.5)
    return f" Did you mean: {', '.join(close)}?" if close else f" Valid: {', '.join(sorted(options))}."


def _all_keys(node: Any, prefix: str = "") -> list[str]:
    keys = []
    for key, value in node.items():
        path = f"{prefix}{key}"
        keys.append(path)
        if isinstance(value, Mapping) or isinstance(value, DictConfig):
            keys.extend(_all_keys(value, path + "."))
    return keys


_SCHEMA_KEYS = _all_keys(OmegaConf.to_container(OmegaConf.structured(RunConfig)))
# `reward=meteor` reads better than `reward.name=meteor`; the group keeps room for reward options.
_SHORTHANDS = {"reward": "reward.name"}
# Free-form groups: any key below them is accepted (e.g. eval.metric_options.sacrebleu_tokenize=intl).
_OPEN_GROUPS = ("eval.metric_options.",)


def parse_overrides(args: Iterable[str]) -> dict[str, str]:
    """Split `key=value` arguments, refusing anything else and keys the schema does not have."""
    out: dict[str, str] = {}
    for arg in args:
        if "=" not in arg or arg.startswith("="):
            raise ConfigError(f"argument {arg!r} is not key=value (e.g. task=imdb algo=nlpo seed=0)")
        key, value = arg.split("=", 1)
        key = key.strip().lstrip("+")
        key = _SHORTHANDS.get(key, key)
        if key not in _SCHEMA_KEYS and not key.startswith(_OPEN_GROUPS):
            raise ConfigError(f"unknown config key {key!r}.{_closest(key, _SCHEMA_KEYS)}")
        out[key] = value
    return out


def _check_choice(kind: str, value: str, valid: Iterable[str]) -> None:
    if value not in valid:
        raise ConfigError(f"unknown {kind} {value!r}.{_closest(value, valid)}")


def _merge(cfg: DictConfig, layer: Mapping[str, Any] | DictConfig, where: str) -> DictConfig:
    try:
        return OmegaConf.merge(cfg, layer)
    except (ConfigKeyError, ConfigAttributeError) as err:
        key = getattr(err, "full_key", "") or str(err)
        raise ConfigError(f"unknown config key {key!r} in {where}.{_closest(str(key), _SCHEMA_KEYS)}") from None
    except ValidationError as err:
        raise ConfigError(f"bad value for {err.full_key!r} in {where}: {err.msg}") from None
    except OmegaConfBaseException as err:
        raise ConfigError(f"invalid config in {where}: {err}") from None


def load_config(args: Iterable[str] = (), base: Mapping[str, Any] | None = None) -> DictConfig:
    """Build the resolved, read-only config for `key=value` args (the CLI's and the tests' entry)."""
    from tasks import get_task, task_names  # late import: tasks import grue modules

    overrides = parse_overrides(args)
    merged_choices = dict(base or {})
    merged_choices.update({k: v for k, v in overrides.items() if k in ("task", "algo", "profile")})
    task_name = merged_choices.get("task", RunConfig.task)
    algo = merged_choices.get("algo", RunConfig.algo)
    profile = merged_choices.get("profile", RunConfig.profile)
    _check_choice("task", task_name, task_names())
    _check_choice("algorithm", algo, ALGOS)
    _check_choice("profile", profile, PROFILES)
    task = get_task(task_name)

    cfg = OmegaConf.structured(RunConfig)
    cfg = _merge(cfg, {"task": task_name, "algo": algo, "profile": profile}, "the command line")
    cfg = _merge(cfg, {"eval": {"metrics": list(task.metrics)}}, f"task {task_name}")
    cfg = _merge(cfg, task.base, f"tasks/{task_name}.py (base)")
    cfg = _merge(cfg, task.profiles.get(profile, {}), f"tasks/{task_name}.py (profile {profile})")
    cfg = _merge(cfg, task.algos.get(profile, {}).get(algo, {}), f"tasks/{task_name}.py ({profile}/{algo})")
    if base:
        cfg = _merge(cfg, OmegaConf.from_dotlist([f"{k}={v}" for k, v in base.items()]), "the caller")
    dotlist = [f"{k}={v}" for k, v in overrides.items()]
    cfg = _merge(cfg, OmegaConf.from_dotlist(dotlist), "the command line")
    _check_values(cfg)
    if cfg.shard is None and cfg.accelerate is not None:  # a sharding preset shards without shard= too
        from grue.runtime.accelerate_configs import SHARD_MODES

        cfg.shard = SHARD_MODES.get(cfg.accelerate)
    OmegaConf.set_readonly(cfg, True)
    return cfg


def _check_values(cfg: DictConfig) -> None:
    """Cross-field checks OmegaConf's types cannot express."""
    from grue.metrics.registry import check_names

    _check_choice("model.kind", cfg.model.kind, ("causal", "seq2seq"))
    _check_choice("model.value_model", cfg.model.value_model, ("separate", "shared"))
    _check_choice("supervised.lr_scheduler", cfg.supervised.lr_scheduler, ("constant", "cosine", "constant_with_warmup"))
    for side in ("padding_side", "truncation_side"):
        _check_choice(f"model.{side}", cfg.model[side], ("left", "right"))
    if cfg.num_processes < 1:
        raise ConfigError(f"num_processes must be at least 1, got {cfg.num_processes}")
    if cfg.accelerate is not None:
        from grue.runtime.accelerate_configs import PRESETS

        _check_choice("accelerate preset", cfg.accelerate, PRESETS)
    if cfg.shard is not None:
        from grue.runtime.sharding import MODES

        _check_choice("shard mode", cfg.shard, MODES)
    if not 0 < cfg.nlpo.top_p <= 1:
        raise ConfigError(f"nlpo.top_p must be in (0, 1], got {cfg.nlpo.top_p}")
    if cfg.kl.target is not None and cfg.kl.target <= 0:
        raise ConfigError("kl.target must be positive, or null for no KL penalty (the paper's 'inf' target)")
    for key in ("total_steps", "steps_per_update", "batch_size", "epochs", "rollout_batch_size"):
        if cfg.ppo[key] <= 0:
            raise ConfigError(f"ppo.{key} must be positive, got {cfg.ppo[key]}")
    for gen in ("rollout", "generation"):
        if cfg[gen].max_new_tokens <= 0:
            raise ConfigError(f"{gen}.max_new_tokens must be positive")
    try:
        check_names(cfg.eval.metrics)
    except KeyError as err:
        raise ConfigError(f"eval.metrics: {err.args[0]}") from None
    from grue.rewards.registry import check_reward

    try:
        check_reward(cfg.reward.name)
    except KeyError as err:
        raise ConfigError(f"reward.name: {err.args[0]}") from None


def to_yaml(cfg: DictConfig) -> str:
    return OmegaConf.to_yaml(cfg, resolve=True)


# Config groups an algorithm never reads: left out of its hash, so e.g. a Supervised+PPO run finds the
# supervised warm start that a plain `algo=supervised` run with the same settings produced.
_UNUSED_GROUPS = {
    "zero_shot": ("ppo", "kl", "nlpo", "rollout", "supervised"),
    "supervised": ("ppo", "kl", "nlpo", "rollout"),
    "ppo": ("nlpo", "supervised"),
    "nlpo": ("supervised",),
    "supervised_ppo": ("nlpo",),
    "supervised_nlpo": (),
}


def config_hash(cfg: DictConfig) -> str:
    """A stable identity for what a run computes (where it is written, how fast, unused groups excluded)."""
    data = OmegaConf.to_container(cfg, resolve=True)
    for key in NON_SEMANTIC_KEYS + _UNUSED_GROUPS.get(cfg.algo, ()):
        data.pop(key, None)
    data["eval"].pop("save_every", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
