"""Sweeps over the tiny models: the `grue sweep` command in-process, its cells as real `grue run` processes."""
from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from cli import app

# The tiny IMDB run, minus what a sweep test varies itself.
VARIED = ("algo=", "seed=", "ppo.learning_rate=", "output_dir=", "threads=")


def base_args(tiny_imdb_args: list[str], runs: Path) -> list[str]:
    return [a for a in tiny_imdb_args if not a.startswith(VARIED)] + [f"output_dir={runs}"]


def sweep(*args: str):
    result = CliRunner().invoke(app, ["sweep", *args], env={"COLUMNS": "200"})
    return result


def books(runs: Path) -> Path:
    (root,) = list((runs / "sweeps").iterdir())
    return root


def records(runs: Path) -> list[dict]:
    return [json.loads(l) for l in (books(runs) / "cells.jsonl").read_text().splitlines()]
