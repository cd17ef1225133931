"""Runs made before a fix that changes their numbers at the same settings are named, by the board and the sweep.

The board study's NLPO rows were complete runs made before NLPO's mask dropped ended rows with the policy; a
config hash cannot tell them from runs made after it, so `grue sweep` skipped them and the board mixed both."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.tables.provenance_table import provenance_table, stale_rows
from grue.results.revisions import CURRENT, REVISIONS, missed_revisions, revision_of

REPO = Path(__file__).resolve().parents[2]
NLPO_FIX = next(r for r in REVISIONS if r.number == 1)


def _commit(ref: str) -> str:
    out = subprocess.run(["git", "rev-parse", ref], capture_output=True, text=True, cwd=REPO)
    if out.returncode:
        pytest.skip(f"this checkout has no git history to place {ref} in")
    return out.stdout.strip()


def test_a_run_is_placed_by_its_recorded_revision_or_else_by_its_commit():
    assert revision_of({"code_revision": 0, "git_commit": _commit("HEAD")}) == 0  # the record wins
    assert revision_of({"git_commit": _commit(f"{NLPO_FIX.commit}~1")}) == 0
    assert revision_of({"git_commit": _commit(NLPO_FIX.commit)}) == 1
    assert revision_of({"git_commit": _commit("HEAD")}) == CURRENT
    assert revision_of({"git_commit": "0" * 40}) is None and revision_of({"git_commit": None}) is None


def test_a_recorded_commit_that_is_not_a_commit_id_never_reaches_git(monkeypatch):
    from grue.results import revisions

    calls = []
    monkeypatch.setattr(revisions, "_is_ancestor", lambda older, newer: calls.append(newer) or True)
    for given in ("--output=/tmp/x", "HEAD~1", "main", 3, "abc"):
        assert revision_of({"git_commit": given}) is None
    assert calls == []
    assert revision_of({"git_commit": "a" * 40}) == CURRENT and calls


def test_only_the_algorithms_a_revision_changes_missed_it():
    before = {"code_revision": 0}
    assert missed_revisions(before, "nlpo") == ([NLPO_FIX], True)
    assert missed_revisions(before, "supervised_nlpo") == ([NLPO_FIX], True)
    assert missed_revisions(before, "grpo_mask") == ([NLPO_FIX], True)  # a masked variant samples through it too
    assert missed_revisions(before, "ppo") == ([], True)
    assert missed_revisions({"code_revision": CURRENT}, "nlpo") == ([], True)
    assert missed_revisions({"git_commit": None}, "nlpo") == ([NLPO_FIX], False)  # cannot tell: said so


def test_the_board_names_rows_with_seeds_from_before_a_revision(tmp_path):
    for seed, revision in ((0, 0), (1, 1), (2, 0)):
        doc = results_doc("imdb", "nlpo", seed, {"test": {"sentiment": 0.6}})
        doc["code_revision"] = revision
        write_run(tmp_path, doc)
    for seed in (0, 1):
        doc = results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.6}})
        doc["code_revision"] = 0
        write_run(tmp_path, doc)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    assert stale_rows(board.found.runs) == [("imdb NLPO (2 of 3 seeds before revision 1)", [1])]
    note = provenance_table(board).notes[-1]
    assert "imdb NLPO (2 of 3 seeds before revision 1)." in note and note.count(NLPO_FIX.what) == 1


def test_a_sweep_lists_a_complete_cell_made_before_a_revision(tiny_imdb_args, capsys):
    from grue.config import load_config
    from grue.run.runner import Run
    from grue.sweep.orchestrate import describe, plan as plan_sweep

    args = [*tiny_imdb_args, "algo=nlpo"]
    path = Run(load_config(args), args).execute()
    sweep = plan_sweep(args)
    assert "made before revision" not in describe(sweep)[0]  # made today: current
    doc = json.loads((path / "results.json").read_text())
    doc["code_revision"] = 0
    (path / "results.json").write_text(json.dumps(doc))
    line = describe(plan_sweep(args))[0]
    assert "complete (skipped); made before revision 1" in line and "--remake-stale makes it again" in line
