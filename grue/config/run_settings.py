"""The settings a trainer receives: the run's resolved config as typed values, read-only, holding only the
groups its algorithm reads.

The loader's config (an OmegaConf tree) holds every algorithm's groups, so a trainer could read `cfg.dpo`
while its run's hash covers only its own groups: two runs differing in that setting would then share one
run directory and one board row. A trainer gets `RunSettings` instead. Each group is the schema's own
dataclass (`settings.ppo` is a `PPOConfig`, its numbers Python numbers), nothing in it can be assigned, and
reading a group the algorithm does not read raises `UnreadGroup` naming the group and the way to read it
(declare it in the algorithm's `reads`, which puts it in the hash). The groups left out are exactly the ones
`grue config` and config.yaml leave out (grue/config/read_groups.py), so a trainer sees what the run records.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterator, Mapping

from grue.errors import GrueUserError


class UnreadGroup(GrueUserError, AttributeError):
    """A trainer read a config group its algorithm does not read: fixed in the algorithm's registration (a
    plug-in author's one-line fix, so it is shown as one `error:` line; a built-in's tests catch it first)."""


class ReadOnlyGroup:
    """One config group as its schema dataclass, behind a guard that refuses assignment."""

    __slots__ = ("_values", "_path")

    def __init__(self, values: Any, path: str) -> None:
        object.__setattr__(self, "_values", values)
        object.__setattr__(self, "_path", path)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._values, name)
        return ReadOnlyGroup(value, f"{self._path}.{name}") if dataclasses.is_dataclass(value) else value

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._path}.{name}: a run's settings are read-only once resolved")

    def get(self, name: str, default: Any = None) -> Any:
        return getattr(self, name) if name in self.keys() else default

    def __getitem__(self, name: str) -> Any:
        if name not in self.keys():
            raise KeyError(f"{self._path}.{name}")
        return getattr(self, name)

    def __contains__(self, name: object) -> bool:
        return name in self.keys()

    def keys(self) -> list[str]:
        return [f.name for f in dataclasses.fields(self._values)]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    @property
    def schema(self) -> type:
        """The schema dataclass this group is (PPOConfig, KLConfig, a plug-in's own)."""
        return type(self._values)

    def __repr__(self) -> str:
        return f"{self._path}: {self._values!r}"


class RunSettings(ReadOnlyGroup):
    """A run's settings for its algorithm's trainer (see the module docstring)."""

    __slots__ = ("_hidden",)

    def __init__(self, values: Any, algo: str, hidden: frozenset[str]) -> None:
        super().__init__(values, f"settings of {algo}")
        object.__setattr__(self, "_hidden", hidden)

    def __getattr__(self, name: str) -> Any:
        if name in self._hidden:
            raise UnreadGroup(
                f"the trainer of algo={self.algo} read the {name!r} config group, which its algorithm does not "
                f"read: its run's hash does not cover it, so two runs differing there would share one run "
                f"directory. Add {name!r} to the algorithm's `reads` (grue/train/registry.py, docs/extending.md)")
        return super().__getattr__(name)

    def keys(self) -> list[str]:
        return [key for key in super().keys() if key not in self._hidden]


def run_settings(cfg: Any, resolved: Mapping[str, Any] | None = None) -> RunSettings:
    """The settings a trainer of `cfg.algo` receives, from the loader's resolved config. `resolved` replaces
    dotted settings by what the run made of them before training (a teacher named by its algorithm,
    `grpo.teacher.model=supervised`, by that run's model directory): the trainer reads the directory, while
    the run's config, hash and results keep the name (grue/run/teacher_runs.py)."""
    from omegaconf import OmegaConf

    from grue.config.read_groups import algorithm_groups, read_groups

    typed = OmegaConf.to_object(cfg)  # the schema's dataclasses, plug-in groups included, values converted
    for dotted, value in (resolved or {}).items():  # a fresh copy: the loader's config is left as it is
        *groups, name = dotted.split(".")
        holder = typed
        for group in groups:
            holder = getattr(holder, group)
        setattr(holder, name, value)
    return RunSettings(typed, cfg.algo, algorithm_groups() - read_groups(cfg.algo))
