"""Where each value of a resolved config came from: `grue config --origins` and the `inherit:` note.

The loader (grue/config/load.py) merges layers in order: schema defaults, the task (its base, its profile,
its per-algorithm presets, or, for a task file with `inherit:`, the inherited task's), the algorithm's own
presets, the caller's settings (a sweep cell), the command line, the variants folded into `algo`, and what
grue fills itself (file digests). It hands each layer it merged, with a label, to a `Trace`; the last layer
that sets a key is that key's origin. Nothing here re-merges or re-validates: the values printed are the
loader's, only the labels are added.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

DEFAULT = "default"
COMMAND_LINE = "command line"
# Settings an inherited task brings that change what a run is, not how it is printed: said in one line
# whenever `inherit:` supplies them (issue 47: an IMDB parent cut 10-17 % of a docstring task's prompts).
NOTABLE = ("reward.name", "reward.model", "model.policy", "model.max_prompt_length", "model.truncation_side",
           "rollout.max_new_tokens", "generation.max_new_tokens")
NOTABLE_SUFFIXES = (".learning_rate", ".total_steps")


def leaves(layer: Mapping[str, Any] | Any, prefix: str = "") -> dict[str, Any]:
    """Dotted leaf keys of a nested mapping (an empty mapping is a leaf: it sets the whole group)."""
    if hasattr(layer, "items") and (len(layer) or not prefix):
        out: dict[str, Any] = {}
        for key, value in layer.items():
            out.update(leaves(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: layer}


@dataclass
class Trace:
    """The layers a load merged, in order, each with where it came from."""

    layers: list[tuple[str, Mapping[str, Any]]] = field(default_factory=list)

    def add(self, label: str, layer: Mapping[str, Any]) -> None:
        self.layers.append((label, layer))

    def origins(self) -> dict[str, str]:
        """Leaf key -> label of the last layer that set it (keys no layer set are schema defaults)."""
        found: dict[str, str] = {}
        for label, layer in self.layers:
            for key in leaves(layer):
                # A layer setting a whole group (e.g. eval.metric_options={}) replaces what was below it.
                for old in [k for k in found if k.startswith(key + ".")]:
                    del found[old]
                found[key] = label
        return found


def origin_of(key: str, origins: Mapping[str, str]) -> str:
    """The origin of `key`, or of the nearest group above it a layer set as a whole; else the default."""
    parts = key.split(".")
    for end in range(len(parts), 0, -1):
        label = origins.get(".".join(parts[:end]))
        if label is not None:
            return label
    return DEFAULT


def preset_labels(task: Any, algo: str, profile: str) -> list[tuple[Mapping[str, Any], str]]:
    """Each preset layer the algorithm registry may hand the loader for this task, with its label. The
    registry returns the layers themselves (grue/train/registry.py Algorithm.task_preset); they are told
    apart here by identity, so the registry stays as it is."""
    from grue.train.registry import get_algorithm

    entry = get_algorithm(algo)
    declared = task.algos.get(profile, {})
    where = _task_label(task)
    labelled = []
    if entry.presets_from and declared.get(entry.presets_from):
        labelled.append((declared[entry.presets_from], f"{where}, {profile}/{entry.presets_from} preset"))
    if entry.preset:
        labelled.append((entry.preset, f"algorithm {algo} preset"))
    if entry.profile_presets.get(profile):
        labelled.append((entry.profile_presets[profile], f"algorithm {algo} preset, profile {profile}"))
    if declared.get(algo):
        labelled.append((declared[algo], f"{where}, {profile}/{algo} preset"))
    return labelled


def label_of(layer: Mapping[str, Any], labelled: list[tuple[Mapping[str, Any], str]], fallback: str) -> str:
    return next((label for known, label in labelled if known is layer), fallback)


def _task_label(task: Any) -> str:
    return f"task {task.name}"


def task_labels(task: Any, profile: str) -> tuple[str, str, str]:
    """Labels of the task's metric mix, base and profile layers."""
    where = _task_label(task)
    return f"{where} (metric mix)", where, f"{where}, profile {profile}"


# ---- inherit: which of a task file's values came from the task it inherits ----

def inherited_parent(task: Any) -> str | None:
    """The task a declarative task file names in `inherit:` (None for other tasks)."""
    doc = _task_document(task)
    parent = doc.get("inherit") if isinstance(doc, dict) else None
    return parent if isinstance(parent, str) else None


def _task_document(task: Any) -> Any:
    origin = getattr(task, "origin", "") or ""
    path = Path(origin)
    if not origin or path.suffix not in (".yaml", ".yml", ".toml") or not path.is_file():
        return None
    from grue.task_files.discover import _parse, _task_text  # the catalogue's own reader: same encodings

    return _parse(path, _task_text(path))


def own_layers(task: Any, profile: str, algo: str) -> list[tuple[str, set[str]]]:
    """The keys a declarative task file sets itself for this profile and algorithm, by the block that sets
    them, most specific first: (label, keys). grue/task_files/declarative.py lays the file's own `settings`
    over its `profiles` and `algos` presets (and over an inherited task's), so the loader's layer that set a
    key is not always the block the user wrote it in; these name that block."""
    from grue.train.registry import get_algorithm

    doc = _task_document(task) or {}
    where = _task_label(task)
    common = {"data.prompt_suffix", "data.source", "data.config", "data.revision"} | set(leaves(doc.get("settings") or {}))
    if doc.get("rewards"):
        common.add("reward.name")
    by_algo = (doc.get("algos") or {}).get(profile) or {}
    entry = get_algorithm(algo)
    named = [name for name in (algo, entry.presets_from) if name and by_algo.get(name)]
    return [*((f"{where}, {profile}/{name} preset", set(leaves(by_algo[name]))) for name in named),
            (f"{where}, profile {profile}", set(leaves((doc.get("profiles") or {}).get(profile) or {}))),
            (where, common)]


def file_task_origins(origins: dict[str, str], task: Any, profile: str, algo: str) -> dict[str, str]:
    """For a declarative task file, the task's labels renamed for the block of the file that set each key,
    or, for a key the file does not set itself, for the task it inherits (`inherit:`)."""
    if _task_document(task) is None:
        return origins
    parent = inherited_parent(task)
    blocks = own_layers(task, profile, algo)
    prefix = _task_label(task)
    out = {}
    for key, label in origins.items():
        if label == prefix or label.startswith(prefix + ","):
            own = next((name for name, keys in blocks if any(key == k or key.startswith(k + ".") for k in keys)), None)
            if own is not None:
                label = own
            elif parent is not None:
                label = f"inherited from {parent}" + label[len(prefix):]
        out[key] = label
    return out


def inherit_note(values: Mapping[str, Any], origins: Mapping[str, str]) -> str:
    """One line naming what an inherited task brought that changes the run ('' when nothing)."""
    brought = []
    flat = leaves(values)
    for key in sorted(flat):
        label = origin_of(key, origins)
        if not label.startswith("inherited from ") or flat[key] in (None, "", [], {}):
            continue
        if key in NOTABLE or key.endswith(NOTABLE_SUFFIXES):
            brought.append(f"{key}={flat[key]}")
    if not brought:
        return ""
    parent = next(v for v in origins.values() if v.startswith("inherited from ")).split()[2].rstrip(",")
    return (f"note: inherit: {parent} brought {', '.join(brought)}; set them in the task file to choose your own "
            "(`grue config --origins` shows where every value came from)")
