"""Every command, found by walking the CLI (so a new command is covered without editing this file):
`--help` works, and an unknown `key=value` argument is refused in one line with exit code 2, before any
work and without a traceback."""
from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from cli import app

runner = CliRunner()


def _commands(group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in sorted(group.commands.items()):
        path = (*prefix, name)
        found += _commands(command, path) if hasattr(command, "commands") else [path]  # a group: its commands
    return found


COMMANDS = _commands(typer.main.get_command(app))


def test_the_walk_finds_the_newer_commands():
    assert {("label", "import-csv"), ("human", "serve"), ("compare",), ("eval",)} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_works(command):
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_an_unknown_argument_is_refused_before_any_work(command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # anything a command wrote by mistake would land here
    result = runner.invoke(app, [*command, "no_such_key=1"])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 or "Usage" in result.output, result.output  # grue's one line, or the parser's usage
    assert list(tmp_path.iterdir()) == []
