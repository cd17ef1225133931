"""`grue tasks` at 80 columns (a pipe, a log, a narrow window) and on a wide terminal; "runs here?" for
the paper profile says which hub assets this machine lacks, looking at the hub cache only."""
from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli import app
from grue.commands.tasks import print_tasks

GRUE = ("imdb", "commongen", "cnn_dailymail", "totto", "wmt16", "narrativeqa", "dailydialog")
REVISION = "0123456789abcdef0123456789abcdef01234567"


def _hub_entry(cache, kind: str, repo_id: str):
    """models--org--name/{refs/main, snapshots/<rev>/}: how huggingface_hub lays out its cache."""
    root = cache / f"{kind}s--{repo_id.replace('/', '--')}"
    (root / "refs").mkdir(parents=True)
    (root / "refs" / "main").write_text(REVISION)
    snapshot = root / "snapshots" / REVISION
    snapshot.mkdir(parents=True)
    return snapshot


@pytest.fixture
def hub_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hub"
    cache.mkdir()
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return cache


def _blocks(text: str) -> dict[str, str]:
    """Each task's block, by task name (blocks are separated by a blank line and start `name: title`)."""
    blocks = {}
    for block in text.strip().split("\n\n")[1:]:
        blocks[block.split(":", 1)[0]] = block
    return blocks


def test_at_80_columns_one_short_block_per_task_and_the_paper_profile_says_what_is_missing(hub_cache):
    """Piped (CliRunner is no terminal) at 80 columns: no line is wider, at most ~17 lines a task (the
    table this replaced wrapped to ~330 lines), and the paper profile without a hub cache says no, naming
    every missing asset and the way to get it, while nothing is downloaded."""
    (_hub_entry(hub_cache, "model", "lvwerra/gpt2-imdb") / "config.json").write_text("{}")
    result = CliRunner().invoke(app, ["tasks"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = result.output.rstrip("\n").splitlines()
    too_wide = [line for line in lines if len(line) > 80 and " " in line.strip()]
    assert too_wide == []
    assert "┃" not in result.output and "│" not in result.output  # no table at 80 columns
    blocks = _blocks(result.output)
    assert set(GRUE) <= set(blocks) and len(lines) < 18 * len(blocks)
    for name in GRUE:
        paper, mini = blocks[name].split("\n  paper ")[1].split("\n  mini ")
        assert " ".join(mini.split()).endswith("runs here? yes"), mini
        paper = " ".join(paper.split())
        assert "runs here? no, not in the hub cache:" in paper
        assert f"`grue fetch task={name}` on a machine with hub access" in paper
    imdb = " ".join(blocks["imdb"].split())
    assert "model lvwerra/distilbert-imdb, dataset stanfordnlp/imdb;" in imdb  # the classifier and data are missing
    assert "model lvwerra/gpt2-imdb" not in imdb  # the policy is in the cache
    assert "from tasks/imdb.py (built-in)" in imdb and "metrics task: sentiment | naturalness: perplexity" in imdb


def test_a_paper_task_whose_assets_are_cached_runs_here(hub_cache):
    for ref in ("lvwerra/gpt2-imdb", "lvwerra/distilbert-imdb"):
        (_hub_entry(hub_cache, "model", ref) / "config.json").write_text("{}")
    _hub_entry(hub_cache, "dataset", "stanfordnlp/imdb")
    out = io.StringIO()
    print_tasks(Console(file=out, width=100))
    blocks = _blocks(out.getvalue())
    assert " ".join(blocks["imdb"].split()).count("runs here? yes") == 2
    assert "runs here? no" in " ".join(blocks["wmt16"].split())


def test_a_wide_terminal_gets_the_table_a_narrow_one_the_blocks(hub_cache):
    wide = io.StringIO()
    print_tasks(Console(file=wide, width=240, force_terminal=True, color_system=None))
    text = wide.getvalue()
    assert "┃ task" in text and "runs here?" in text and max(len(line) for line in text.splitlines()) <= 240
    rows = [line for line in text.splitlines() if re.match(r"│ (imdb|wmt16) ", line)]
    assert len(rows) == 2 and all(re.search(r"│ paper\s+│", row) for row in rows)  # one row per task and profile
    narrow = io.StringIO()
    print_tasks(Console(file=narrow, width=120, force_terminal=True, color_system=None))
    assert "┃" not in narrow.getvalue() and set(GRUE) <= set(_blocks(narrow.getvalue()))
