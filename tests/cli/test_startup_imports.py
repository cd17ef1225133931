"""The commands a user, a shell script or a CI check runs for a quick answer load neither torch nor pandas
(issue 42: `grue --help` took 1.7-2.4 s for pandas, `grue tasks` 8.5 s, half of it torch). Each command runs
in a fresh process, which then reports every module it imported; an eager import anywhere on the way (a
command module, a registry, a module scanned for registrations) fails here. scripts/bench_cli_startup.py
times the same commands."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "pandas", "scipy", "transformers")
MARK = "IMPORTED "
# Runs the real application as `grue` would, then prints what the process imported.
PROBE = f"""
import json, sys
import cli
try:
    cli.app(prog_name="grue", args=sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
print({MARK!r} + json.dumps(sorted(sys.modules)))
"""
COMMANDS = {
    "help": ["--help"],
    "algos": ["algos"],
    "tasks": ["tasks"],
    "config": ["config", "task=imdb", "profile=mini", "algo=ppo"],
    "sweep dry run": ["sweep", "task=imdb", "algo=ppo,zero_shot", "seed=0", "profile=mini", "--dry-run"],
}


def imported_by(args: list[str], cwd: Path) -> set[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "1", "GRUE_PLUGINS": ""}
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    reports = [line for line in proc.stdout.splitlines() if line.startswith(MARK)]
    assert reports, (proc.stdout[-2000:], proc.stderr[-2000:])
    return {name.split(".")[0] for name in json.loads(reports[-1][len(MARK):])}


def heavy_cases() -> list:
    cases = []
    for label, args in COMMANDS.items():
        for module in HEAVY:
            cases.append(pytest.param(args, module, id=f"{label}-{module}"))
    return cases


@pytest.fixture(scope="module")
def imports(tmp_path_factory) -> dict[tuple[str, ...], set[str]]:
    """Each command run once (in an empty folder: a dry run writes nothing, but never into the checkout)."""
    cwd = tmp_path_factory.mktemp("startup")
    return {tuple(args): imported_by(args, cwd) for args in COMMANDS.values()}


@pytest.mark.parametrize("args, module", heavy_cases())
def test_a_quick_command_does_not_import(imports, args, module):
    loaded = module in imports[tuple(args)]
    assert not loaded, f"`grue {' '.join(args)}` imported {module}"


def test_the_leaderboard_help_names_the_boards_own_choices():
    """The export help spells its formats and reward strategies out, so that mounting `grue leaderboard` does
    not load pandas for them; it must still say what the board accepts."""
    from grue.board.export import FORMATS
    from grue.board.numbers.selection import STRATEGIES
    from grue.commands.leaderboard import EXPORT_HELP

    assert f"format={'|'.join(FORMATS)} " in EXPORT_HELP and f"rewards={'|'.join(STRATEGIES)} " in EXPORT_HELP


def test_tasks_with_an_empty_hub_cache_loads_neither_the_hub_library_nor_numpy(tmp_path, monkeypatch):
    """`grue tasks` asks of every hub asset whether it is cached; with no folder for it in any hub cache the
    answer is "no" without importing huggingface_hub (~60 ms), and the task modules reach numpy only when
    they split data (~100 ms)."""
    for name in ("HF_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    loaded = imported_by(["tasks"], tmp_path)
    assert "huggingface_hub" not in loaded and "numpy" not in loaded, sorted(loaded & {"huggingface_hub", "numpy"})
