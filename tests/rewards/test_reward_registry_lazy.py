"""Built-in rewards are named lazily (grue.rewards.registry.BUILTIN): listing them and checking a config's
`reward=` import no reward module (the classifier and reward-model ones load torch), and the table says exactly
what the modules register."""
from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import grue.rewards
from grue.rewards import registry


def test_the_table_says_what_the_modules_register():
    scanned = {info.name for info in pkgutil.walk_packages(grue.rewards.__path__, "grue.rewards.")}
    for name in scanned:
        importlib.import_module(name)
    declared = {name: module for module, names in registry.BUILTIN.items() for name in names}
    assert {name: factory.__module__ for name, factory in registry._BUILTIN_LOADED.items()} == declared
    strays = sorted(name for name, factory in registry._FACTORIES.items() if factory.__module__ in scanned)
    assert not strays, f"registered by grue's own modules but missing from BUILTIN: {strays}"


def test_listing_and_checking_rewards_import_no_reward_module():
    code = ("import sys\n"
            "from grue.rewards import registry as r\n"
            "for name in ('sentiment', 'learned', 'meteor_intent', 'rouge1', 'ter'):\n"
            "    r.check_reward(name)\n"
            "assert 'perplexity' not in r.reward_names()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers')\n"
            "             or m in ('grue.rewards.sentiment', 'grue.rewards.learned.reward')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
