"""A distillation teacher named by its algorithm: `grpo.teacher.model=supervised` is the supervised run of the
student's own task, profile, seed, settings and output folder, trained first when it is absent (or finished with
its weights gone), as a warm start's first run is.

Why a name and not a path: a study (or a sweep's `algo=all`) gives every seed the teacher of its own seed, so a
path would differ per seed and per machine, and the distillation cell could not be a plain sweep cell. The name
is what the run's config and hash hold; the directory it resolves to is recorded in results.json
(`teachers`), and the trainer alone receives the directory (grue.config.run_settings `resolved`).

Any registered algorithm that trains and needs no teacher itself may be named. A directory that happens to be
called like an algorithm is given as `./supervised`. A published supervised checkpoint (model.supervised_init)
stands in for the supervised run here as it does for a warm start.
"""
from __future__ import annotations

from typing import Any, Iterator, Mapping, Optional, Sequence

from grue.storage.run_layout import run_name_of

TEACHER_GROUP = "teacher"


def teacher_settings(cfg: Any) -> Iterator[tuple[str, Any]]:
    """("<group>.teacher.model", value) for every group of the run's algorithm that has a teacher set."""
    from grue.config.read_groups import read_groups

    for group in sorted(read_groups(cfg.algo)):
        options = cfg.get(group)
        teacher = options.get(TEACHER_GROUP) if hasattr(options, "get") else None
        model = teacher.get("model") if hasattr(teacher, "get") else None
        if model:
            yield f"{group}.{TEACHER_GROUP}.model", model


def named_algorithm(value: Any) -> Optional[str]:
    """The algorithm a teacher value names (`supervised`), or None for a path, `packaged:<name>` or a hub id."""
    from grue.train.registry import algorithm_names

    return value if isinstance(value, str) and value in algorithm_names() else None


def named_teacher_problems(cfg: Any) -> list[str]:
    """Why a teacher named by its algorithm cannot be one (asked by preflight, before any work)."""
    from grue.train.registry import get_algorithm

    problems = []
    for setting, value in teacher_settings(cfg):
        name = named_algorithm(value)
        if name is None:
            continue
        algo = get_algorithm(name)
        if algo.trains == "nothing":
            problems.append(f"{setting}={name}: a {name} run trains nothing and saves no model to distil from; name "
                            "an algorithm that trains (supervised), or give the model itself (packaged:<name>, a "
                            "directory or a hub id)")
        elif _needs_teacher(name):
            problems.append(f"{setting}={name}: a {name} run distils from a teacher itself; name an algorithm that "
                            "needs none (supervised)")
    return problems


def _needs_teacher(name: str) -> bool:
    """Whether runs of `name` read a teacher (the `distill` preset and its composed forms)."""
    from grue.train.registry import get_algorithm

    preset = dict(get_algorithm(name).preset or {})
    return any(isinstance(options, Mapping) and isinstance(options.get(TEACHER_GROUP), Mapping)
               for options in preset.values())


def teacher_run_args(args: Sequence[str], name: str) -> list[str]:
    """The command line of the teacher's run: the student's, with the teacher's algorithm, less the settings
    its algorithm does not read and less any teacher setting (the teacher has no teacher of its own)."""
    from grue.config.read_groups import args_as_algorithm

    kept = [a for a in args if f".{TEACHER_GROUP}." not in a.split("=", 1)[0]]
    return args_as_algorithm(kept, name)


def _published(cfg: Any, name: str) -> Optional[str]:
    """The published checkpoint that stands in for the named run (model.supervised_init for `supervised`)."""
    return str(cfg.model.supervised_init) if name == "supervised" and cfg.model.get("supervised_init") else None


def teacher_directory_of(cfg: Any, args: Sequence[str], name: str) -> str:
    """Where a named teacher's weights are, without making them."""
    from grue.config import config_hash, load_config
    from grue.run.run_dir import RunDir

    published = _published(cfg, name)
    if published:
        return published
    first = load_config(teacher_run_args(args, name))
    return str(RunDir.for_config(first, config_hash(first)).model_dir)


def resolve_named_teachers(cfg: Any, args: Sequence[str], say: Any = None) -> dict[str, str]:
    """{setting: directory} for each teacher named by its algorithm, its run trained (or reused) first."""
    from grue.run.runner import run_with_weights
    from grue.storage.run_layout import model_dir

    resolved: dict[str, str] = {}
    for setting, value in teacher_settings(cfg):
        name = named_algorithm(value)
        if name is None:
            continue
        published = _published(cfg, name)
        if published:
            resolved[setting] = published
            continue
        if say is not None:
            say(f"{setting}={name}: the teacher is this task's {name} run (same settings and seed); "
                "it is trained first unless it is already complete with its weights")
        resolved[setting] = str(model_dir(run_with_weights(teacher_run_args(args, name))))  # the run's own folder
    return resolved


def teachers_record(resolved: Mapping[str, str], cfg: Any) -> dict[str, dict[str, str]]:
    """results.json's `teachers`: for each named teacher, the name given and the run (its folder name) it was,
    so a board shows which run taught which without naming a machine path."""
    given = dict(teacher_settings(cfg))
    record = {}
    for setting, directory in resolved.items():
        record[setting] = {"given": str(given[setting]), "run": run_name_of(directory)}
    return record
