"""A task declared in a YAML or TOML file: checked key by key, then turned into a TaskSpec.

The file names what a built-in task file (tasks/*.py) declares: its data, the prompt template and
suffix, the reference field(s), the metric mix (task-preference and naturalness metrics marked), the
rewards it is meant for, and config settings for every profile (`settings`), per profile (`profiles`)
and per profile and algorithm (`algos`). `inherit: <task>` takes that task's presets (base, profiles,
algorithms: the backbone, decoding, RL budgets) as defaults under the file's own; the data source of
the inherited task is never taken. docs/extending.md shows a whole file; `FIELDS` below is the
reference. An unknown key or a value of the wrong type is refused with the file, the key and what was
expected.
"""
from __future__ import annotations

import copy
import dataclasses
import difflib
import hashlib
import re
from pathlib import Path
from typing import Any, Mapping

from grue.config.task_spec import TaskSpec
from grue.extend.errors import ExtensionError
from grue.task_files.file_loader import SPLITS, FileTaskData
from grue.task_files.records import RecordFormat

TEXT, LIST, MAP, COUNT = (str,), (list,), (dict,), (int,)
# key -> (accepted types, what it holds). Required keys: prompt, references, data.splits, metrics.task.
FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "name": (TEXT, "the task's name (default: the file name without extension)"),
    "title": (TEXT, "a one-line title"),
    "short": (TEXT, "the column and navigation title on the board"),
    "description": (TEXT, "what the data is (shown by `grue tasks`)"),
    "inherit": (TEXT, "a built-in (or plugin) task whose presets (base, profiles, algorithms) are the defaults"),
    "data": (MAP, "source/config/revision (a hub dataset), splits, val_from_train"),
    "prompt": (TEXT, "the prompt template over the record's fields, e.g. 'Review: {text}'"),
    "prompt_suffix": (TEXT, "text after every prompt (data.prompt_suffix), e.g. '\\nSummary:'"),
    "references": (TEXT + LIST, "the field (or list of fields) holding the reference text(s)"),
    "id": (TEXT, "the field holding each record's id (default: <split>-<position>)"),
    "meta": (LIST, "fields handed to metrics and rewards as each sample's meta"),
    "metrics": (MAP, "task (task-preference), naturalness and extra metric lists"),
    "rewards": (LIST, "the rewards the task is meant for; the first is the default reward.name"),
    "settings": (MAP, "config settings for every profile (model, generation, rollout, eval, ...)"),
    "profiles": (MAP, "profile -> config settings"),
    "algos": (MAP, "profile -> algorithm -> config settings"),
}
DATA_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "source": (TEXT, "a hub dataset id or a local directory in the hub's layout"),
    "config": (TEXT, "the hub dataset's subset"),
    "revision": (TEXT, "the hub revision"),
    "splits": (MAP, "train/val/test -> a data file (relative to this file) or the hub dataset's split"),
    "val_from_train": (COUNT, "without a val split: hold this many train records out as val"),
}
METRIC_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "task": (LIST, "task-preference metrics (GRUE Table 1's first kind)"),
    "naturalness": (LIST, "naturalness metrics (fluency, diversity)"),
    "extra": (LIST, "also reported, not in the task's scores"),
}
NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _check_keys(doc: Mapping[str, Any], fields: Mapping[str, tuple[tuple[type, ...], str]], where: str) -> None:
    for key, value in doc.items():
        if key not in fields:
            close = difflib.get_close_matches(str(key), list(fields), n=1)
            hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(fields)}"
            raise ExtensionError(f"{where}: unknown key {key!r}; {hint}")
        kinds, what = fields[key]
        if not isinstance(value, kinds) or isinstance(value, bool):
            expected = " or ".join({str: "a string", list: "a list", dict: "a mapping", int: "an integer"}[k]
                                   for k in kinds)
            raise ExtensionError(f"{where}: {key} is {type(value).__name__} {value!r}; expected {expected} ({what})")


def _strings(values: list[Any], where: str) -> tuple[str, ...]:
    if not all(isinstance(v, str) and v for v in values):
        raise ExtensionError(f"{where}: expected a list of names, got {values!r}")
    return tuple(values)


def _deep_merge(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(dict(base))
    for key, value in over.items():
        out[key] = _deep_merge(out[key], value) if isinstance(value, Mapping) and isinstance(out.get(key), Mapping) \
            else copy.deepcopy(value)
    return out


def _without_data_source(layer: Mapping[str, Any]) -> dict[str, Any]:
    """An inherited layer minus the parent's data source: a user task reads its own data."""
    out = copy.deepcopy(dict(layer))
    if isinstance(out.get("data"), Mapping):
        out["data"] = {k: v for k, v in out["data"].items() if k not in ("source", "config", "revision")}
    return out


def _inherited(name: str | None, where: str) -> TaskSpec | None:
    if name is None:
        return None
    from tasks import grue_task_names, inheritable_task

    parent = inheritable_task(name)
    if parent is None:
        close = difflib.get_close_matches(name, grue_task_names(), n=1)
        raise ExtensionError(f"{where}: inherit: unknown task {name!r}" + (f"; did you mean {close[0]!r}?" if close else ""))
    return parent


def _data(doc: Mapping[str, Any], where: str) -> tuple[dict[str, str], dict[str, Any], int | None]:
    """(splits, data settings of the config, val_from_train) of the `data` mapping."""
    data = doc.get("data")
    if data is None:
        raise ExtensionError(f"{where}: no data: name its splits, e.g. data: {{splits: {{train: train.jsonl, "
                             "val: val.jsonl, test: test.jsonl}}}}")
    _check_keys(data, DATA_FIELDS, f"{where}: data")
    splits = data.get("splits") or {}
    for split, value in splits.items():
        if split not in SPLITS:
            raise ExtensionError(f"{where}: data.splits: unknown split {split!r}; use train, val and test")
        if not isinstance(value, str) or not value:
            raise ExtensionError(f"{where}: data.splits.{split} is {value!r}; expected a file path or split name")
    missing = [s for s in ("train", "test") if s not in splits] + \
        (["val (or data.val_from_train)"] if "val" not in splits and not data.get("val_from_train") else [])
    if missing:
        raise ExtensionError(f"{where}: data.splits lacks {', '.join(missing)}")
    settings = {k: data[k] for k in ("source", "config", "revision") if k in data}
    return dict(splits), settings, data.get("val_from_train")


PREVIEW = 4  # records of each split kept for trying the task's python: metrics and rewards at config time


def _check_data_fields(loader: FileTaskData, where: str) -> FileTaskData:
    """Local files exist, parse, and every record has the fields the file names: all read before any run
    starts (as a run will read them), so a bad record deep in a file is one error now, naming its line.
    Returns the loader with the first records of each split kept (`preview`)."""
    from grue.data.local_files import read_records
    from grue.storage.inputs import InputError

    preview = {}
    for split in loader.splits:
        path = loader.path(split)
        if not path.is_file():
            raise ExtensionError(f"{where}: data.splits.{split}: no file {path}")
        try:
            records = read_records(path)
        except (InputError, OSError) as err:  # the data layer names the file, its encoding or line
            raise ExtensionError(f"{where}: data.splits.{split}: {err}") from None
        missing = [f for f in loader.record.fields() if f not in records[0].values]
        if missing:  # a field no record has: said once for the file, not once per line
            raise ExtensionError(f"{where}: {path} lacks field(s) {', '.join(map(repr, missing))} named by "
                                 f"prompt/references/id/meta; its fields: {', '.join(sorted(records[0].values)) or 'none'}")
        try:
            samples = loader.checked_samples(split, records)
        except ExtensionError as err:  # the loader names the file and every bad line
            text = str(err).removeprefix(f"task {loader.task}: ")
            raise ExtensionError(f"{where}: data.splits.{split}: {text}; fix or remove those records") from None
        preview[split] = tuple(samples[:PREVIEW])
    return dataclasses.replace(loader, preview=preview)


def _check_own_layers(own_base: Mapping[str, Any], doc: Mapping[str, Any], where: str) -> None:
    """Every settings layer the file writes is checked against the config schema now, not only the one a
    run happens to merge: a typo in the paper profile is found on the mini profile too."""
    from grue.config.load import check_layer
    from grue.results.schema import PROFILES
    from grue.train.registry import find_algorithm

    check_layer(own_base, f"{where} (data, rewards)")
    check_layer(doc.get("settings") or {}, f"{where} (settings)")
    for profile, layer in (doc.get("profiles") or {}).items():
        if profile not in PROFILES or not isinstance(layer, dict):
            raise ExtensionError(f"{where}: profiles.{profile}: expected a mapping of settings under one of the "
                                 f"profiles {', '.join(PROFILES)}")
        check_layer(layer, f"{where} (profiles.{profile})")
    for profile, by_algo in (doc.get("algos") or {}).items():
        if profile not in PROFILES or not isinstance(by_algo, dict):
            raise ExtensionError(f"{where}: algos.{profile}: expected a mapping of algorithm -> settings under "
                                 f"one of the profiles {', '.join(PROFILES)}")
        for algo, layer in by_algo.items():
            if not isinstance(layer, dict):
                raise ExtensionError(f"{where}: algos.{profile}.{algo} is {type(layer).__name__}; expected a mapping")
            # A plugin's algorithm whose plugin this process has not loaded: its settings may set its own
            # group, unknown here; a run of it loads the plugin and checks them as it merges them.
            if find_algorithm(algo) is not None:
                check_layer(layer, f"{where} (algos.{profile}.{algo})")


def _data_digest(loader: FileTaskData) -> str:
    """The content of the task's local data files: a changed file is a new setting, as an edited task file is
    (a hub dataset is named by its id, subset and revision instead)."""
    digest = hashlib.sha256()
    for split in sorted(loader.splits):
        file_digest = hashlib.sha256()
        with open(loader.path(split), "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                file_digest.update(chunk)
        digest.update(f"{split} {file_digest.hexdigest()}\n".encode())
    return digest.hexdigest()


def _metric_mix(doc: Mapping[str, Any], where: str) -> tuple[tuple[str, ...], ...]:
    """(task, naturalness, extra) metric names of the `metrics` mapping."""
    metrics = doc["metrics"]
    _check_keys(metrics, METRIC_FIELDS, f"{where}: metrics")
    if not metrics.get("task"):
        raise ExtensionError(f"{where}: metrics.task is empty; name the task's own metric(s)")
    return tuple(_strings(metrics.get(kind, []), f"{where}: metrics.{kind}") for kind in ("task", "naturalness", "extra"))


def _layers(doc: Mapping[str, Any], own_base: Mapping[str, Any], parent: TaskSpec | None) -> tuple[dict, dict, dict]:
    """(base, profiles, algos) of the spec. The file's own values win over everything inherited: its
    settings and profile are laid over the parent's profile and algorithm presets too, not only its base."""
    own_common = _deep_merge(own_base, doc.get("settings") or {})
    own_profiles, own_algos = doc.get("profiles") or {}, doc.get("algos") or {}
    base = _deep_merge(_without_data_source(parent.base) if parent else {}, own_common)
    profiles = {p: _deep_merge(_deep_merge(_without_data_source(parent.profiles.get(p, {})) if parent else {},
                                           own_common), own_profiles.get(p, {}))
                for p in {*(parent.profiles if parent else {}), *own_profiles}}
    algos: dict[str, dict[str, Any]] = {}
    for profile in {*(parent.algos if parent else {}), *own_algos}:
        mine, theirs = own_algos.get(profile, {}), parent.algos.get(profile, {}) if parent else {}
        over = _deep_merge(own_common, own_profiles.get(profile, {}))
        algos[profile] = {a: _deep_merge(_deep_merge(_without_data_source(theirs.get(a, {})), over), mine.get(a, {}))
                          for a in {*theirs, *mine}}
    return base, profiles, algos


def task_from_mapping(doc: Any, path: Path, sha256: str) -> TaskSpec:
    """The TaskSpec a parsed task file declares (`path` locates its data and names it in messages). Its
    digest covers the file's content (`sha256`) and, for local data, the data files' content."""
    where = str(path)
    if not isinstance(doc, dict):
        raise ExtensionError(f"{where}: a task file holds a mapping of keys (name, data, prompt, ...), "
                             f"not a {type(doc).__name__}")
    _check_keys(doc, FIELDS, where)
    for key in ("prompt", "references", "metrics"):
        if key not in doc:
            raise ExtensionError(f"{where}: missing key {key!r} ({FIELDS[key][1]})")
    name = doc.get("name", path.stem)
    if not NAME.match(name):
        raise ExtensionError(f"{where}: task name {name!r} must be lower-case letters, digits and _ "
                             "(it names run directories); set name: in the file")
    task_metrics, naturalness, extra = _metric_mix(doc, where)
    rewards = _strings(doc.get("rewards", []), f"{where}: rewards")
    references = (doc["references"],) if isinstance(doc["references"], str) else \
        _strings(doc["references"], f"{where}: references")
    record = RecordFormat(doc["prompt"], references, doc.get("id"), _strings(doc.get("meta", []), f"{where}: meta"))
    splits, data_settings, val_from_train = _data(doc, where)
    own_base: dict[str, Any] = {"data": {"prompt_suffix": doc.get("prompt_suffix", ""), **data_settings}}
    if rewards:
        own_base["reward"] = {"name": rewards[0]}
    _check_own_layers(own_base, doc, where)
    base, profiles, algos = _layers(doc, own_base, _inherited(doc.get("inherit"), where))
    loader = FileTaskData(name, path, path.parent, splits, "source" in data_settings, record, val_from_train)
    if not loader.hub:
        loader = _check_data_fields(loader, where)
        sha256 = hashlib.sha256(f"{sha256} {_data_digest(loader)}".encode()).hexdigest()
    return TaskSpec(
        name=name, title=doc.get("title", name), short=doc.get("short", ""),
        source=f"task file {path}", task_metrics=task_metrics, naturalness_metrics=naturalness,
        extra_metrics=extra, rewards=rewards, base=base, profiles=profiles, algos=algos,
        data_description={p: doc.get("description", f"from {path.name}") for p in ("paper", "mini")},
        loader=loader, origin=str(path), file_sha256=sha256)
