"""Issue 46: what a DPO row trained on (where its comparisons came from, how many answers, by which labeler, each
file's digest) is on the board, under the task's table."""
from __future__ import annotations

from board_fixtures import results_doc, run_config, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.export import board_markdown

DIGESTS = ("a" * 64, "b" * 64)


def _dpo(root, seed, record):
    doc = results_doc("imdb", "dpo", seed, {"test": {"sentiment": 0.7}}, reward=None)
    doc["config"] = {**run_config("dpo", seed), "dpo": {"comparisons": "auto"}}
    doc["comparisons"] = record
    return write_run(root, doc)


def _table(root) -> str:
    text = board_markdown(build_board([root], BoardOptions(with_paper=False)))
    return text.split("## imdb (test split)")[1].split("\n## ")[0]


def test_made_comparisons_are_said_once_per_row_with_each_seed_s_digest(tmp_path):
    for seed, digest in enumerate(DIGESTS):
        _dpo(tmp_path, seed, {"made": True, "path": "x/comparisons.jsonl", "sha256": digest,
                              "labelers": ["mock:sentiment"], "queries": 160, "answers": 158})
    table = _table(tmp_path)
    assert "| DPO |" in table and "| 2 |" in table  # one row of both seeds
    assert "DPO: made: 158 answers by mock:sentiment (sha256 aaaaaaaaaaaa, bbbbbbbbbbbb)." in table


def test_a_user_s_file_is_named_and_other_tables_say_nothing(tmp_path):
    _dpo(tmp_path, 0, {"made": False, "path": "/data/labels.jsonl", "sha256": DIGESTS[0], "labelers": ["ann", "bob"],
                       "answers": 12})
    assert "DPO: labels.jsonl: 12 answers by ann, bob (sha256 aaaaaaaaaaaa)." in _table(tmp_path)
    write_run(tmp_path / "ppo_only", results_doc("imdb", "ppo", 0, {"test": {"sentiment": 0.7}}))
    assert "Comparisons each preference row" not in _table(tmp_path / "ppo_only")
