"""`grue --help`, `grue tasks --help`, `grue run --help` and `grue algos --help` end with what extends grue here
(GRUE_PLUGINS modules, entry points, GRUE_TASKS_PATH files), read without importing a plugin or torch.
(An entry point of a really installed package: tests/extending/test_installed_plugin_venv.py.)"""
from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from cli import app


def _help(args: list[str], env: dict[str, str]) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": "120", **env})
    assert result.exit_code == 0, result.output
    return result.output


def test_help_lists_plugin_modules_and_task_files_without_importing_them(tmp_path):
    task_file = tmp_path / "tone.yaml"
    task_file.write_text("name: tone\n")  # never read by --help: listing a path needs no parsing
    env = {"GRUE_PLUGINS": "no_such_lab.rewards", "GRUE_TASKS_PATH": str(tmp_path)}  # importing it would fail
    for args, says in ((["run"], "algo= their algorithms (grue algos), reward= their rewards"),
                       (["tasks"], "The tasks they register are listed below"), ([], "Their tasks: grue tasks."),
                       (["algos"], "'plugin' in their from column")):
        text = _help(args, env)
        section = text.split("Plugins on this machine:")[1]
        assert "GRUE_PLUGINS" in section and "no_such_lab.rewards" in section, text
        assert "GRUE_TASKS_PATH" in section and str(task_file) in section, text
        assert says in " ".join(section.split()), text


def test_help_without_plugins_says_where_they_would_come_from(monkeypatch):
    monkeypatch.delenv("GRUE_PLUGINS", raising=False)
    monkeypatch.delenv("GRUE_TASKS_PATH", raising=False)
    section = " ".join(_help(["run"], {}).split("Plugins on this machine:")[1].split())
    assert section.startswith("None installed. Plugins come from GRUE_PLUGINS (modules), `grue.plugins` / "
                              "`grue.tasks` entry points of installed packages, GRUE_TASKS_PATH")


def test_help_does_not_load_torch():
    code = ("import sys; sys.argv = ['grue', 'run', '--help']; import cli\n"
            "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "print('torch loaded' if 'torch' in sys.modules else 'no torch')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={"PATH": "", "GRUE_PLUGINS": "no_such_lab.rewards", "PYTHONPATH": "."})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("no torch") and "no_such_lab.rewards" in proc.stdout
