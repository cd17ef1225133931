"""`dpo.comparisons=auto`: what the comparisons file grue makes for a DPO run is a function of, and where it lives.

A hand-made comparisons file is part of a run's identity through its digest (dpo.comparisons_sha256, filled
when the config is loaded). The file `auto` names does not exist yet at that moment, so its identity is its
recipe instead: every setting the made file depends on, written as canonical JSON. The config loader fills
dpo.comparisons_sha256 with the SHA-256 of that text (grue/config/identity.py DIGEST_OF_RECIPE), and the made
file's folder holds the text as recipe.json, so the recorded digest can be checked against it by hand.

The recipe is what `grue label queries` and `grue label mock` read, made explicit:
- the policy the candidates are sampled from: the run's initial model (model group; for a warm-started
  algorithm also its warm start and the `supervised` group that makes it), its task and profile, data
  settings and seed;
- the decoding: the task's rollout decoding (`rollout`, as `grue label queries` uses it), with k candidates
  per query (reward.k) drawn from the train split;
- the labeler: dpo.labeler (unset: the task's own reward, reward.name) with the reward group's settings
  (its classifier, the mock labeler's noise reward.labeler_temperature / reward.labeler_error_rate);
- the count: dpo.queries.
Everything else in the dpo group (beta, learning rate, steps...) only trains on the file, so runs that differ
there, or in evaluation settings, share one made file.

Imports nothing heavy: `grue config` computes the digest.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping, Optional

AUTO = "auto"   # dpo.comparisons=auto; a file of that name is given as ./auto
RECIPE_VERSION = 1
# The common groups the made file depends on (the rest of the run's identity only trains or evaluates on it).
# Not code_sha256: the loader fills it after the file digests, and the run's hash covers it anyway.
_RECIPE_GROUPS = ("task", "task_sha256", "profile", "seed", "model", "data", "reward")
COMPARISONS_FILE = "comparisons.jsonl"  # the made file, in its folder beside the recipe:
RECIPE_FILE = "recipe.json"             # the recipe text whose SHA-256 is the run's dpo.comparisons_sha256
DEFAULT_QUERIES = 160  # dpo.queries: mini DPO reads 8 steps x 16 answers; 160 leave ~144 after the 10 % held out


def is_auto(value: Any) -> bool:
    return value == AUTO


def recipe_off(values: Mapping[str, Any]) -> Optional[str]:
    """Why the run makes no comparisons file (so its `rollout` settings are read by nothing), None when it does:
    the registry's `recipe_reads` predicate for DPO's rollout group."""
    given = values["dpo"].get("comparisons")
    return None if is_auto(given) else f"dpo.comparisons={given} is a file, not {AUTO}"


def labeler_of(values: Mapping[str, Any]) -> str:
    """The mock labeler's reward: dpo.labeler, or the task's own reward."""
    return values["dpo"].get("labeler") or values["reward"]["name"]


def queries_of(values: Mapping[str, Any]) -> int:
    return int(values["dpo"]["queries"])


def recipe(values: Mapping[str, Any]) -> dict[str, Any]:
    """The recipe of a resolved config (a plain dict, every group present) whose dpo.comparisons is auto."""
    from grue.config.identity import NON_SEMANTIC_KEYS, added_field_defaults, semantic_config
    from grue.train.registry import get_algorithm

    semantic = semantic_config(dict(values))  # non-semantic keys (threads, gradient checkpointing) left out
    algo = get_algorithm(str(values["algo"]))
    start = algo.warm_start if algo.warm_start and not values["model"].get("supervised_init") else None
    unset = added_field_defaults()  # decoding fields added later count only when set, as in the run's hash
    rollout = {k: v for k, v in values["rollout"].items()
               if f"rollout.{k}" not in NON_SEMANTIC_KEYS and not (f"rollout.{k}" in unset and unset[f"rollout.{k}"] == v)}
    return {"recipe_version": RECIPE_VERSION, **{g: semantic.get(g) for g in _RECIPE_GROUPS},
            "warm_start": start, **({start: semantic.get(start)} if start else {}),
            "rollout": rollout, "split": "train", "k": int(values["reward"]["k"]),
            "labeler": labeler_of(values), "queries": queries_of(values)}


def recipe_text(values: Mapping[str, Any]) -> str:
    return json.dumps(recipe(values), sort_keys=True, indent=1) + "\n"


def recipe_sha256(cfg: Any) -> Optional[str]:
    """dpo.comparisons_sha256 of a config whose dpo.comparisons is auto (None otherwise, or while the config
    does not resolve: the loader then refuses it with the key named)."""
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    if not is_auto(OmegaConf.select(cfg, "dpo.comparisons")):
        return None
    try:
        values = OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException:
        return None
    return hashlib.sha256(recipe_text(values).encode()).hexdigest()


def made_dir(task: str, profile: str, seed: int, digest: str) -> Path:
    """The folder of a made file in the asset cache (GRUE_CACHE): shared by every run, output_dir and sweep
    that shares the recipe, as the mini classifier is."""
    from grue.assets.resolve import cache_root

    return cache_root() / "dpo_comparisons" / f"{task}-{profile}-seed{seed}-{digest[:16]}"


def comparisons_path(cfg: Any) -> Path:
    """The comparisons file a DPO run trains on: the one it names, or for auto the made one (which
    grue/train/offline/auto_comparisons.py makes before the trainer reads it)."""
    d = cfg.dpo
    if not is_auto(d.comparisons):
        return Path(d.comparisons)
    return made_dir(cfg.task, cfg.profile, int(cfg.seed), d.comparisons_sha256) / COMPARISONS_FILE
