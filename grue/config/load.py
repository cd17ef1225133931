"""Resolve a run config: defaults -> task base -> profile -> algorithm preset -> command line.

OmegaConf's structured mode refuses undeclared keys and ill-typed values; this module turns its
errors into one-line messages that name the key and the closest valid names.
"""
from __future__ import annotations

import functools
import typing
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import ConfigAttributeError, ConfigKeyError, OmegaConfBaseException, ValidationError

from grue.errors import ConfigError  # noqa: F401  (re-exported: grue.config.ConfigError)
from grue.config.constraints import RULE_KEY, closest, rule_problems, schema_fields
from grue.config.cross_fields import cross_field_problems
from grue.config.identity import DIGEST_OF_RECIPE, FILE_DIGEST
from grue.config.identity import config_hash, semantic_config  # noqa: F401  (the config's identity, re-exported)
from grue.config.schema import RunConfig, run_schema, schema_config


def _closest(word: str, options: Iterable[str]) -> str:
    return f" {closest(word, options)}"


def _all_keys(node: Any, prefix: str = "") -> list[str]:
    keys = []
    for key, value in node.items():
        path = f"{prefix}{key}"
        keys.append(path)
        if isinstance(value, Mapping) or isinstance(value, DictConfig):
            keys.extend(_all_keys(value, path + "."))
    return keys


@dataclass(frozen=True)
class _Keys:
    """What the schema declares, for checking overrides: leaf keys with their types and rules, all keys, and
    the fields grue fills with a file's digest (FILE_DIGEST: key -> the key naming the file)."""
    schema: type
    fields: dict[str, Any]
    rules: dict[str, Any]
    all: list[str]
    digests: dict[str, str]
    recipes: dict[str, str]  # digest key -> "module:function" for a file grue makes (DIGEST_OF_RECIPE)


@functools.lru_cache(maxsize=8)
def _keys_of(schema: type) -> _Keys:
    leaves = list(schema_fields(schema))
    return _Keys(schema, {key: kind for key, _, kind in leaves},
                 {key: item.metadata.get(RULE_KEY) for key, item, _ in leaves},
                 _all_keys(OmegaConf.to_container(OmegaConf.structured(schema))),
                 {key: item.metadata[FILE_DIGEST] for key, item, _ in leaves if item.metadata.get(FILE_DIGEST)},
                 {key: item.metadata[DIGEST_OF_RECIPE] for key, item, _ in leaves if item.metadata.get(DIGEST_OF_RECIPE)})


def _keys() -> _Keys:
    """The current schema's keys (registered algorithms may add config groups)."""
    return _keys_of(run_schema())


def made_file_keys() -> dict[str, str]:
    """Digest key -> the key naming its file, for the files grue can make itself (DIGEST_OF_RECIPE fields)."""
    keys = _keys()
    return {digest: keys.digests[digest] for digest in keys.recipes}


# Set from a file task (grue/task_files/), recorded in the config; never given on the command line.
TASK_FILE_KEYS = ("task_file", "task_sha256")
# `reward=meteor` reads better than `reward.name=meteor`; the group keeps room for reward options.
_SHORTHANDS = {"reward": "reward.name"}
# Free-form groups: any key below them is accepted (e.g. eval.metric_options.sacrebleu_tokenize=intl).
_OPEN_GROUPS = ("eval.metric_options.",)


def parse_overrides(args: Iterable[str]) -> dict[str, str]:
    """Split `key=value` arguments, refusing anything else and keys the schema does not have."""
    keys = _keys()
    out: dict[str, str] = {}
    for arg in args:
        if "=" not in arg or arg.startswith("="):
            raise ConfigError(f"argument {arg!r} is not key=value (e.g. task=imdb algo=nlpo seed=0)")
        key, value = arg.split("=", 1)
        key = key.strip().lstrip("+")
        key = _SHORTHANDS.get(key, key)
        if key not in keys.all and not key.startswith(_OPEN_GROUPS):
            raise ConfigError(f"unknown config key {key!r}.{_closest(key, keys.all)}")
        if key not in keys.fields and not key.startswith(_OPEN_GROUPS):  # a group, e.g. ppo=3
            first = next(k for k in keys.fields if k.startswith(f"{key}."))
            raise ConfigError(f"{key} is a group of settings: set one of its keys, e.g. {first}=... "
                              "(`grue config` lists them)")
        out[key] = value
    return out


def _shape_hint(key: str) -> str:
    """How a list or a free-form group is written on the command line, for a value of the wrong shape."""
    kind = typing.get_origin(_keys().fields.get(key))
    if kind is list:
        return f" ({key} is a list: {key}=[a,b])"
    if kind is dict:
        return f" ({key} is a group: {key}.<name>=<value>)"
    return ""


def _check_choice(key: str, value: str) -> None:
    """One field's rule, ahead of the merge (the task, algorithm and profile pick the layers to merge)."""
    problem = _keys().rules[key].problem(value)
    if problem:
        raise ConfigError(f"{key}: {problem}")


def _merge(cfg: DictConfig, layer: Mapping[str, Any] | DictConfig, where: str) -> DictConfig:
    try:
        return OmegaConf.unsafe_merge(cfg, layer)
    except (ConfigKeyError, ConfigAttributeError) as err:
        key = getattr(err, "full_key", "") or str(err)
        raise ConfigError(f"unknown config key {key!r} in {where}.{_closest(str(key), _keys().all)}") from None
    except ValidationError as err:
        why = str(err.msg).splitlines()[0]
        raise ConfigError(f"bad value for {err.full_key!r} in {where}: {why}{_shape_hint(err.full_key)}") from None
    except OmegaConfBaseException as err:
        raise ConfigError(f"invalid config in {where}: {err}") from None


def check_layer(layer: Mapping[str, Any], where: str) -> None:
    """Refuse a layer of settings (a task file's) with an unknown key or an ill-typed value, naming `where`."""
    _merge(schema_config(), layer, where)


def load_config(args: Iterable[str] = (), base: Mapping[str, Any] | None = None, *,
                refuse_unread: bool = False, trace: Any = None) -> DictConfig:
    """Build the resolved, read-only config for `key=value` args (the CLI's and the tests' entry).

    `refuse_unread`: a setting of a group the algorithm does not read is refused (grue/config/read_groups.py).
    The CLI asks for it where the user typed the settings for this one run; a caller that shares one list of
    settings between algorithms (a study script, a test's fixture) leaves it off, and such settings are then
    not read, as for a sweep's cells. `trace` (a grue.config.provenance.Trace) is handed each layer merged,
    with where it came from, for `grue config --origins`; it changes nothing merged."""
    from grue.task_files.discover import looks_like_task_file
    from tasks import task_from_choice  # late import: tasks import grue modules

    overrides = parse_overrides(args)
    for key in TASK_FILE_KEYS:
        if key in overrides or key in (base or {}):
            raise ConfigError(f"{key}: set from the task itself (task=path/to/task_file), never given by hand")
    if "code_sha256" in overrides or "code_sha256" in (base or {}):
        raise ConfigError("code_sha256: grue sets it to the SHA-256 of each python: file the run names; "
                          "never given by hand")
    for key, source in _keys().digests.items():  # a hand-typed digest would be overwritten, looking set
        if key in overrides or key in (base or {}):
            raise ConfigError(f"{key}: grue sets it to the SHA-256 of the file {source} names; never given by hand")
    merged_choices = dict(base or {})
    merged_choices.update({k: v for k, v in overrides.items() if k in ("task", "algo", "profile", "init", "mask")})
    algo = merged_choices.get("algo", RunConfig.algo)
    profile = merged_choices.get("profile", RunConfig.profile)
    choice = merged_choices.get("task", RunConfig.task)
    if not looks_like_task_file(choice):
        _check_choice("task", choice)
    task = task_from_choice(choice)  # a name, or a task file's path (read and added to the catalogue)
    task_name = task.name
    for key, value in (("algo", algo), ("profile", profile)):
        _check_choice(key, value)
    algo, variants = _composed(algo, merged_choices, strict=refuse_unread)
    if refuse_unread:
        _refuse_unread(overrides, algo)
    overrides.pop("task", None)
    where = task.origin or f"tasks/{task_name}.py"

    def merge(cfg: DictConfig, layer: Any, where: str, origin: str | None = None, traced: Any = None) -> DictConfig:
        if trace is not None:  # provenance only: what is merged is `layer`, whatever is traced
            trace.add(origin or where, layer if traced is None else traced)
        return _merge(cfg, layer, where)

    from grue.config import provenance as pv

    mix_label, base_label, profile_label = pv.task_labels(task, profile)
    given = {**(base or {}), **overrides}
    cfg = schema_config()
    cfg = merge(cfg, {"task": task_name, "algo": algo, "profile": profile}, "the command line", pv.COMMAND_LINE,
                {k: v for k, v in merged_choices.items() if k in ("task", "algo", "profile")})
    cfg = merge(cfg, {"eval": {"metrics": list(task.metrics)}}, f"task {task_name}", mix_label)
    cfg = merge(cfg, task.base, f"{where} (base)", base_label)
    cfg = merge(cfg, task.profiles.get(profile, {}), f"{where} (profile {profile})", profile_label)
    from grue.train.registry import get_algorithm

    presets = pv.preset_labels(task, algo, profile)
    for layer in get_algorithm(algo).task_preset(task.algos.get(profile, {}), profile):
        cfg = merge(cfg, layer, f"{where} ({profile}/{algo})", pv.label_of(layer, presets, f"{profile}/{algo} preset"))
    if base:
        cfg = merge(cfg, OmegaConf.from_dotlist([f"{k}={v}" for k, v in base.items() if k != "task"]), "the caller",
                    "the caller (a sweep cell or a warm start)")
    dotlist = [f"{k}={v}" for k, v in overrides.items()]
    cfg = merge(cfg, OmegaConf.from_dotlist(dotlist), "the command line", pv.COMMAND_LINE)
    cfg = merge(cfg, {"algo": algo, **variants}, "the command line (its variants folded into algo)",
                f"variant (algo={merged_choices.get('algo', RunConfig.algo)} with init=/mask= folded in)",
                _variant_trace(algo, variants, merged_choices, given))
    # A file task's identity is its file's content, whatever the command line says (grue/config/identity.py).
    file_task = {"task_file": task.origin or None, "task_sha256": task.file_sha256}
    cfg = merge(cfg, file_task, where, "grue (the task file and its content's digest)", file_task if task.origin else {})
    digests = _file_digests(cfg)
    cfg = merge(cfg, digests, "the files it names", "grue (the digest of the file it names)",
                {k: v for k, v in pv.leaves(digests).items() if v is not None})
    if refuse_unread:
        _refuse_idle_recipe(overrides, algo, cfg)
    _check_values(cfg)  # before the code digests: they read the resolved values, whose interpolations must resolve
    code = {"code_sha256": _code_digests(cfg, task)}  # the python: files' content (grue/extend/code_digests.py)
    cfg = merge(cfg, code, "the python: files it names", "grue (the digests of the python: files it names)",
                code if code["code_sha256"] else {})
    if cfg.shard is None and cfg.accelerate is not None:  # a sharding preset shards without shard= too
        from grue.runtime.accelerate_configs import SHARD_MODES

        cfg.shard = SHARD_MODES.get(cfg.accelerate)
        if trace is not None:
            trace.add(f"accelerate={cfg.accelerate} (its sharding)", {"shard": cfg.shard})
    OmegaConf.set_readonly(cfg, True)
    return cfg


def _variant_trace(algo: str, variants: Mapping[str, Any], choices: Mapping[str, Any],
                   given: Mapping[str, Any]) -> dict[str, Any]:
    """What folding the variants into `algo` set that nobody typed: the registered name when it differs from
    the name asked for, and the variant keys the name implies (provenance only)."""
    out = {k: v for k, v in variants.items() if k not in given}
    if algo != choices.get("algo", RunConfig.algo):
        out["algo"] = algo
    return out


def _refuse_unread(overrides: Mapping[str, str], algo: str) -> None:
    """A setting of a group the algorithm does not read would change nothing though it looks set (issue 45)."""
    from grue.config.read_groups import unread_problem

    problem = next(filter(None, (unread_problem(key, algo) for key in overrides)), None)
    if problem:
        raise ConfigError(problem)


def _refuse_idle_recipe(overrides: Mapping[str, str], algo: str, cfg: DictConfig) -> None:
    """A setting of a group only a recipe reads (DPO's auto comparisons read `rollout`) changes nothing when the
    resolved values leave the recipe off; known only once the values are merged."""
    from grue.config.read_groups import idle_recipe_problem
    from grue.train.registry import get_algorithm

    if not any(key.lstrip("+").split(".", 1)[0] in get_algorithm(algo).recipe_reads for key in overrides):
        return
    problem = idle_recipe_problem(overrides, algo, OmegaConf.to_container(cfg, resolve=False))
    if problem:
        raise ConfigError(problem)


def _composed(algo: str, choices: Mapping[str, Any], strict: bool) -> tuple[str, dict[str, Any]]:
    """`algo` with the variants asked for (init=, mask=) folded in, as one registered name, so the composed
    spelling and the name are one run with one hash (grue/train/variants.py), and the variants as recorded."""
    from grue.train.variants import VARIANT_KEYS, VariantError, canonical_algorithm

    for key in VARIANT_KEYS:
        if choices.get(key) is not None:
            _check_choice(key, str(choices[key]))
    try:
        return canonical_algorithm(algo, choices, strict)
    except VariantError as err:
        raise ConfigError(str(err)) from None


def _code_digests(cfg: DictConfig, task: Any) -> dict[str, str] | None:
    """The digests of the python: files the run reads (grue/extend/code_digests.py): part of its identity."""
    from grue.extend.code_digests import code_digests
    from grue.train.registry import optimises_reward

    values = semantic_config(OmegaConf.to_container(cfg, resolve=True))
    return code_digests(values, task, optimises_reward(cfg.algo))


def _file_digests(cfg: DictConfig) -> dict[str, Any]:
    """Every field marked FILE_DIGEST, set to the SHA-256 of the file its source key names (None while that
    key is unset or names no file: the source's own rule says so)."""
    import hashlib
    import os

    from grue.train.registry import load_attribute

    layer: dict[str, Any] = {}
    keys = _keys()
    for key, source in keys.digests.items():
        path = OmegaConf.select(cfg, source)
        # a file the run makes (the recipe's function says; a file of the same name is not it): its recipe's digest
        digest = load_attribute(keys.recipes[key])(cfg) if key in keys.recipes else None
        if digest is None and path and os.path.isfile(path):
            digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
        *groups, leaf = key.split(".")
        node = layer
        for group in groups:
            node = node.setdefault(group, {})
        node[leaf] = digest
    return layer


def _check_values(cfg: DictConfig) -> None:
    """Every field's range or set (declared in the schema), on the resolved values, then checks across
    fields; an interpolation that does not resolve is refused here too, not when a run first reads it."""
    try:
        values = OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as err:
        key = getattr(err, "full_key", None) or "a value"
        raise ConfigError(f"{key} cannot be resolved: {str(err).splitlines()[0]}") from None
    problem = next(rule_problems(run_schema(), values), None)
    if problem:
        raise ConfigError(problem)
    for gen in ("rollout", "generation"):
        if values[gen]["min_new_tokens"] > values[gen]["max_new_tokens"]:
            raise ConfigError(f"{gen}.min_new_tokens ({values[gen]['min_new_tokens']}) must not exceed "
                              f"{gen}.max_new_tokens ({values[gen]['max_new_tokens']})")
    for problem in cross_field_problems(values):  # critic and learned-reward settings that cannot mean anything
        raise ConfigError(problem)
    from grue.policy.lora_targets import target_problems

    for problem in target_problems(cfg):  # a LoRA layer name the backbone lacks: config, plan and run alike
        raise ConfigError(problem)
    if values["reward"]["dense"] == "critic":
        from grue.rewards.critic.build import check_critic_settings

        try:
            check_critic_settings(cfg)
        except ValueError as err:
            raise ConfigError(str(err)) from None


def to_yaml(cfg: DictConfig, every_group: bool = False) -> str:
    """The resolved config as YAML: the groups the run reads (grue/config/read_groups.py), or every group."""
    from grue.config.read_groups import shown_config

    values = OmegaConf.to_container(cfg, resolve=True)
    return OmegaConf.to_yaml(shown_config(values, cfg.algo, every_group))
