"""docs/extending.md's worked algorithm (section 5) exactly as the page shows it.

There is no copy of the plugin here: the page's code blocks are written to a temporary folder (the plugin
and the task file of section 1 that names it), so a test of the algorithm is a test of the page, and the
two cannot drift apart. The fixture undoes the registration afterwards, so other tests see the built-in
registries only.
"""
from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending.md"
BLOCK = re.compile(r"^```(\w+)(?: (\S+))?\n(.*?)^```", re.MULTILINE | re.DOTALL)
PLUGIN = "average_baseline"  # the module, the algorithm and its config group share the name
PLUGIN_FILE = f"my_lab/{PLUGIN}.py"


def page_files() -> dict[str, str]:
    """Every file the page writes out: path -> content."""
    return {path: body for _, path, body in BLOCK.findall(DOC.read_text(encoding="utf-8")) if path}


@pytest.fixture
def doc_algorithm(tmp_path, monkeypatch):
    """The page's files under a temporary folder, its plugin named in GRUE_PLUGINS; registrations undone after."""
    from grue import plugins
    from grue.train import registry as algo_registry

    algo_registry.algorithm_names()  # the built-ins loaded before the snapshot
    for path, body in page_files().items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(body, encoding="utf-8")
    # sys.path set directly: monkeypatch.syspath_prepend also calls into pkg_resources
    monkeypatch.setattr(sys, "path", [str(tmp_path / "my_lab"), *sys.path])
    importlib.invalidate_caches()
    monkeypatch.setenv(plugins.ENV_VAR, PLUGIN)
    saved = dict(algo_registry._REGISTRY)
    yield SimpleNamespace(folder=tmp_path, name=PLUGIN, task_file=str(tmp_path / "my_tasks" / "tone.yaml"))
    algo_registry._REGISTRY.clear()
    algo_registry._REGISTRY.update(saved)
    plugins._loaded.discard(PLUGIN)
    sys.modules.pop(PLUGIN, None)
