"""Code from outside the package that registers algorithms, metrics, rewards or tasks.

A plugin is any importable module that calls grue's `register_*` functions when imported. grue
imports them once, before the first registry lookup, from two places:
- the `GRUE_PLUGINS` environment variable: module names separated by commas
  (`GRUE_PLUGINS=my_lab.grpo_variant,my_lab.rewards grue run algo=my_grpo ...`); the processes a
  run or a sweep starts inherit it, so every process sees the same registries;
- the `grue.plugins` entry-point group of installed distributions
  (`[project.entry-points."grue.plugins"] my_lab = "my_lab.grue_plugin"` in their pyproject.toml).

A plugin may not take a name grue has built in, nor one registered already: registering a built-in
metric or reward name (`rouge1`, `sentiment`) is refused unless the call says `replace=True`, and
registering `ppo` or `imdb` with other settings is refused too. Each is found while the plugin is
imported and reported as one line naming the plugin and the name.

Torch-free, so listing what exists stays fast.
"""
from __future__ import annotations

import functools
import importlib
import os
from importlib.metadata import entry_points

from grue.errors import GrueUserError

ENV_VAR = "GRUE_PLUGINS"
ENTRY_POINT_GROUP = "grue.plugins"


class PluginError(GrueUserError, ImportError):
    """A plugin named in GRUE_PLUGINS or an entry point could not be imported."""


class NameTaken(GrueUserError, ValueError):
    """A registration under a name that is built in or registered already, without `replace=True`: found when
    the plugin is imported, so a run never silently uses another scorer than the one its name means."""


# Registrations that are not named lazily in their registry's module: imported before any plugin, so that a
# plugin taking one of their names is refused at its own import (not later, when the built-in one arrives).
_BUILTIN_REGISTRATIONS = ("grue.train.algorithms",)


_loaded: set[str] = set()
_loading = False


def plugin_modules() -> list[str]:
    """The module names to import: GRUE_PLUGINS first, then entry points, each once."""
    names = [name.strip() for name in os.environ.get(ENV_VAR, "").split(",") if name.strip()]
    return list(dict.fromkeys(names + list(_entry_point_modules())))


@functools.lru_cache(maxsize=1)
def _entry_point_modules() -> tuple[str, ...]:
    """Installed distributions do not change while a process runs: scanned once."""
    return tuple(ep.value.split(":")[0] for ep in entry_points(group=ENTRY_POINT_GROUP))


def _import_failure(name: str, err: BaseException) -> str:
    """One line naming the plugin, where it was declared, and what its import did."""
    where = f"plugin {name!r} (from {ENV_VAR} or the {ENTRY_POINT_GROUP!r} entry points)"
    if isinstance(err, ModuleNotFoundError) and err.name and name.startswith(err.name):
        return f"{where}: no module named {err.name!r}; check its spelling in {ENV_VAR} and that it is installed"
    if isinstance(err, NameTaken):
        return f"{where}: {err}"
    if isinstance(err, SystemExit):
        return f"{where} called sys.exit({err.code!r}) while being imported; a plugin must only register things"
    first = str(err).splitlines()[0] if str(err) else ""
    return f"{where} failed while being imported: {type(err).__name__}: {first}"


def load_plugins() -> None:
    """Import every plugin not imported yet. Cheap after the first call; re-reads GRUE_PLUGINS, so a
    module added to it later (a test, a notebook) is picked up by the next lookup."""
    global _loading
    if _loading:  # a plugin's own import of a registry must not recurse into loading plugins
        return
    pending = [name for name in plugin_modules() if name not in _loaded]
    if not pending:
        return
    _loading = True
    try:
        for builtin in _BUILTIN_REGISTRATIONS:
            importlib.import_module(builtin)
        for name in pending:
            try:
                importlib.import_module(name)
            except (Exception, SystemExit) as err:  # noqa: BLE001 - the plugin's own code failed: the user's to fix
                raise PluginError(_import_failure(name, err)) from None
            _loaded.add(name)
    finally:
        _loading = False


def installed() -> list[tuple[str, str]]:
    """What extends grue here, for the --help texts: (where it is declared, what it names). Read from the
    environment and the installed distributions' metadata only: no plugin is imported, so --help stays fast
    and works even when a plugin is broken."""
    from importlib.metadata import entry_points as points

    found = [(ENV_VAR, name.strip()) for name in os.environ.get(ENV_VAR, "").split(",") if name.strip()]
    for group in (ENTRY_POINT_GROUP, "grue.tasks"):
        for point in points(group=group):
            dist = getattr(point, "dist", None)
            origin = f" (package {dist.metadata['Name']} {dist.version})" if dist is not None else ""
            found.append((f"{group} entry point", f"{point.name} = {point.value}{origin}"))
    from grue.task_files.discover import ENV_VAR as TASKS_PATH, path_entries

    try:
        found.extend((TASKS_PATH, str(path)) for path in path_entries())
    except Exception as err:  # noqa: BLE001 - a wrong entry is reported by the commands that read it
        found.append((TASKS_PATH, str(err)))
    return found
