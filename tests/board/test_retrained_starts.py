"""The board names supervised runs trained again for their weights whose metrics moved, and the warm starts and
distillations that started from the first weights.

The board study's IMDB Supervised seed 0 was trained again for Supervised+NLPO's weights; two of 200 sampled
test texts came out otherwise and its record moved, while Supervised+PPO of the same seed had started from the
first weights the day before."""
from __future__ import annotations

import json

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.tables.provenance_table import provenance_table
from grue.board.tables.retrained_starts import retrained_runs, retrained_starts
from grue.run.record_kept import RESULTS_BEFORE


def _run(root, algo, seed, created, **extra):
    doc = results_doc("imdb", algo, seed, {"test": {"sentiment": 0.6}}, reward=None if algo == "supervised"
                      else "sentiment")
    doc["created"] = created
    doc.update(extra)
    return write_run(root, doc, name=f"imdb-mini-{algo}-seed{seed}-0000000{seed}")


def _study(tmp_path):
    first = _run(tmp_path, "supervised", 0, "2026-01-03T00:00:00+00:00")
    (first / RESULTS_BEFORE).write_text(json.dumps({"metrics": {"test": {"sentiment": 0.7}}}))
    _run(tmp_path, "supervised", 1, "2026-01-01T00:00:00+00:00")  # never trained again
    start = "runs/imdb-mini-supervised-seed{}-0000000{}/model"
    _run(tmp_path, "supervised_ppo", 0, "2026-01-02T00:00:00+00:00", init_model=start.format(0, 0))   # before
    _run(tmp_path, "supervised_nlpo", 0, "2026-01-04T00:00:00+00:00", init_model=start.format(0, 0))  # after
    _run(tmp_path, "supervised_ppo", 1, "2026-01-02T00:00:00+00:00", init_model=start.format(1, 1))
    _run(tmp_path, "distill", 0, "2026-01-02T12:00:00+00:00",
         teachers={"grpo.teacher.model": {"given": "supervised", "run": "imdb-mini-supervised-seed0-00000000"}})
    return build_board([tmp_path], BoardOptions(with_paper=False))


def test_runs_started_from_weights_made_before_their_retrain_are_named(tmp_path):
    board = _study(tmp_path)
    assert retrained_runs(board.found.runs) == ["imdb Supervised seed 0"]
    named = retrained_starts(board.found.runs)
    assert len(named) == 2 and all("was trained again on 2026-01-03" in text for text in named)
    assert named[0].startswith("imdb ") and any("Supervised+PPO seed 0" in t for t in named)
    assert not any("seed 1" in t or "NLPO" in t for t in named)  # never retrained / started after the retrain
    note = provenance_table(board).notes[-1]
    assert "results.before_retrain.json: imdb Supervised seed 0." in note and "Supervised+PPO seed 0" in note


def test_no_note_when_no_run_was_trained_again(tmp_path):
    board = _study(tmp_path)
    (tmp_path / "imdb-mini-supervised-seed0-00000000" / RESULTS_BEFORE).unlink()
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    assert retrained_starts(board.found.runs) == []
    assert not any("trained again" in note for note in provenance_table(board).notes)
