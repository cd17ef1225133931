"""Built-in metrics are named lazily (grue.metrics.registry.BUILTIN): listing them, checking a config's names
and reading their directions import no scorer module, and the table says exactly what the modules register,
so a metric added without its line (or with another direction) fails here rather than vanishing from grue."""
from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import grue.metrics
import grue.rewards
from grue.metrics import registry


def _import_every_module(package) -> set[str]:
    """Every module of a package and its sub-packages, imported: what scanning would register."""
    names = {info.name for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")}
    for name in names:
        importlib.import_module(name)
    return names


def test_the_table_says_what_the_modules_register():
    scanned = _import_every_module(grue.metrics) | _import_every_module(grue.rewards)
    declared = {name: (module, better) for module, names in registry.BUILTIN.items() for name, better in names.items()}
    loaded = {name: (entry.factory.__module__, entry.higher_is_better[name])
              for name, entry in registry._BUILTIN_LOADED.items()}
    assert loaded == declared
    strays = sorted(name for name, entry in registry._BY_NAME.items() if entry.factory.__module__ in scanned)
    assert not strays, f"registered by grue's own modules but missing from BUILTIN: {strays}"
    refused = {name for entry in registry._BUILTIN_LOADED.values() for name in entry.not_rewards}
    assert refused == registry.BUILTIN_NOT_REWARDS


def test_listing_checking_and_directions_import_no_scorer_module():
    code = ("import sys\n"
            "from grue.metrics import registry as r\n"
            "r.check_names(['bertscore', 'perplexity', 'rouge1', 'sentiment'])\n"
            "assert r.find_direction('perplexity') is False and r.higher_is_better('bleurt')\n"
            "assert 'perplexity' not in r.reward_metrics() and 'summaczs' in r.reward_metrics()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers')\n"
            "             or m in ('grue.metrics.bertscore', 'grue.metrics.lm', 'grue.rewards.sentiment')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_a_builtin_scorer_is_built_after_a_test_restored_the_plugin_table():
    saved = dict(registry._BY_NAME)
    registry._BY_NAME.clear()  # as the plugin fixtures do after their test: built-ins live in their own table
    try:
        assert registry.higher_is_better("rouge1")
        assert registry.reward_transform("ter")(0.25) == 0.75  # TER's own reward_from, from its module
    finally:
        registry._BY_NAME.update(saved)
