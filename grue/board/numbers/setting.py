"""Which setting a run belongs to, and the words that tell one setting from another on the board.

A leaderboard row averages seeds of *one* setting. A setting is a run's resolved config without the
seed: the config hash's own definition of what a run computes (grue.config.identity.semantic_config:
no output path, device or process count, no group the algorithm never reads), minus the keys that
name a seed's own output. Two runs of one algorithm that differ in `kl.target` or `ppo.total_steps`
are two rows, never two seeds of one row; and two results of one seed are duplicates only when the
whole setting agrees.

Rows of one (task, algorithm, reward, initial model, profile) that differ in setting are labelled by
the keys whose values differ among them ("kl.target=null"), so an ablation reads as one.
"""
from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Iterable, Mapping

from grue.config.identity import semantic_config

# Keys that identify one seed's run rather than its setting. `grue score` documents record the file
# they scored: each seed scores its own predictions, so the file is no part of the setting.
PER_RUN_KEYS: frozenset[str] = frozenset({"seed", "predictions", "predictions_sha256"})
NO_SETTING = ""  # a results document that records no config: every such run shares one setting
UNRECORDED = "config not recorded"  # its label, beside settings that do record one


# A warm-started run's init_model is the model/ directory of the run it started from, named by that run's
# seed and hash (<output_dir>/commongen-mini-supervised-seed1-04ddd3fc/model): different for every seed.
_RUN_MODEL = re.compile(r"(?:^|.*[/\\])(?P<run>[^/\\]+)-seed\d+-[0-9a-f]{8}[/\\]model[/\\]?$")


def init_model_name(init_model: str | None) -> str:
    """The initial model as one name for every seed: a run's own model/ directory becomes "<its
    task-profile-algorithm> run" (the seed, hash and output folder dropped); anything else is itself."""
    value = init_model or ""
    match = _RUN_MODEL.match(value)
    return f"{match['run']} run" if match else value


# A distillation's teacher given as a run directory (grpo.teacher.model=<output_dir>/imdb-mini-dapo-seed1-eed4e121,
# docs/algorithms.md): a study gives each seed the teacher run of its own seed, so, as a warm start's model, the
# path names one seed's run and is read as the run's kind for every seed.
_RUN_DIR = re.compile(r"(?:^|.*[/\\])(?P<run>[^/\\]+)-seed\d+-[0-9a-f]{8}(?:[/\\]model)?[/\\]?$")


def run_reference_name(value: Any) -> Any:
    """A value naming a grue run directory (or its model/) becomes "<task-profile-algorithm> run"; any other
    value is itself."""
    match = _RUN_DIR.match(value) if isinstance(value, str) else None
    return f"{match['run']} run" if match else value


def flatten(config: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested config -> {"ppo.total_steps": 6144, ...}; lists stay whole values."""
    flat: dict[str, Any] = {}
    for key, value in config.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            flat.update(flatten(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def made_file_digests(flat: Mapping[str, Any]) -> set[str]:
    """The digest keys of files grue makes from the run's own settings (`dpo.comparisons=auto`): the digest
    is that of a recipe holding the seed, so each seed's differs while the setting is one (the recipe's other
    parts are keys of the setting already)."""
    from grue.config.load import made_file_keys
    from grue.train.offline.auto_recipe import is_auto

    return {digest for digest, named in made_file_keys().items() if is_auto(flat.get(named))}


def setting_items(doc: Mapping[str, Any]) -> dict[str, str]:
    """A results document's setting as dotted key -> JSON text of the value."""
    config = doc.get("config")
    if not isinstance(config, Mapping) or not config:
        return {}
    flat = flatten(semantic_config(dict(config)))
    flat = {k: run_reference_name(v) if k.endswith(".teacher.model") else v for k, v in flat.items()}
    per_run = PER_RUN_KEYS | made_file_digests(flat)
    return {k: json.dumps(v, sort_keys=True) for k, v in sorted(flat.items()) if k not in per_run}


def setting_id(items: Mapping[str, str]) -> str:
    """A short stable identity of a setting ('' when the document records no config)."""
    if not items:
        return NO_SETTING
    return hashlib.sha256(json.dumps(dict(items), sort_keys=True).encode()).hexdigest()[:12]


def _shown(value: str | None) -> str:
    if value is None:
        return "(unset)"
    text = json.loads(value)
    return text if isinstance(text, str) else json.dumps(text)


def differing_keys(settings: Iterable[Mapping[str, str]]) -> list[str]:
    """Keys whose value is not the same in every one of `settings` (absent counts as a value).

    A setting that records no config says nothing about any key, so it takes no part.
    """
    settings = [s for s in settings if s]
    keys = sorted({k for s in settings for k in s})
    return [k for k in keys if len({s.get(k) for s in settings}) > 1]


def _differs_only_by_its_absent_group(key: str, settings: list[Mapping[str, str]]) -> bool:
    """True when the settings that have `key` agree on it, and the others lack its whole top-level
    group: `critic.model` beside a run that has no `critic` section says nothing `reward.dense`
    does not already say."""
    group = key.split(".")[0] + "."
    if len({s[key] for s in settings if key in s}) != 1:
        return False
    return all(not any(k.startswith(group) for k in s) for s in settings if key not in s)


def telling_keys(settings: Iterable[Mapping[str, str]]) -> list[str]:
    """The differing keys a reader needs: those that differ only because a whole group is absent
    from some settings are left out when another key tells the settings apart, so a label stays
    short ("reward.dense=critic", not every `critic.*` key beside "(unset)")."""
    recorded = [s for s in settings if s]
    keys = differing_keys(recorded)
    return [k for k in keys if not _differs_only_by_its_absent_group(k, recorded)] or keys


def setting_labels(settings: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    """Label each setting of one row group by its values of the telling keys; '' for a lone setting."""
    if len(settings) < 2:
        return {sid: "" for sid in settings}
    keys = telling_keys(settings.values())
    return {sid: ", ".join(f"{k}={_shown(items.get(k))}" for k in keys) if items else UNRECORDED
            for sid, items in settings.items()}
