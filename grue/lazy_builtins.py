"""The lookup both lazy registries share (metrics in grue/metrics/registry.py, rewards in
grue/rewards/registry.py): a built-in name is listed with the module that registers it, and that module is
imported the first time the name is asked for, so listing and checking names imports no scorer."""
from __future__ import annotations

import importlib
from typing import Any, Mapping, Optional


def builtin_registration(name: str, homes: Mapping[str, str], loaded: Mapping[str, Any], kind: str,
                         table: str) -> Optional[Any]:
    """What `name`'s built-in module registered for it (imported on first use); None for a name no module
    has. `loaded` fills as modules register; `table` names the listing, for the error a wrong one raises."""
    home = homes.get(name)
    if home is None:
        return None
    if name not in loaded:
        importlib.import_module(home)
    if name not in loaded:  # the listing promised a name its module does not register: grue's bug
        raise RuntimeError(f"{home} registers no {kind} {name!r}, though {table} says so")
    return loaded[name]
