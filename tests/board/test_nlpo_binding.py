"""How often NLPO's mask bound, recorded per run and shown beside the board's Table 2 questions.

A CommonGen mini NLPO run was PPO's run bit for bit (the mask kept 100 tokens, the sampler drew from the top 50,
and the mask never bound), so a question comparing them compared PPO with itself without the board saying so."""
from __future__ import annotations

import json

import pytest

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.export import board_markdown
from grue.train.rl.nlpo_mask import BOUND_KEY, mask_results


def test_mask_results_summarise_the_logged_fractions_by_hand():
    log = [{"iteration": 1, BOUND_KEY: 0.0}, {"iteration": 2, BOUND_KEY: 0.5}, {"iteration": 3},
           {"iteration": 4, BOUND_KEY: 0.25}]
    assert mask_results(log) == {"nlpo_mask": {"iterations": 3, "mean_bound_fraction": pytest.approx(0.25),
                                               "max_bound_fraction": 0.5, "final_bound_fraction": 0.25}}
    assert mask_results([{"iteration": 1, "kl": 0.1}]) == {}  # PPO: no mask, no record


def _nlpo(root, seed, fraction, recorded=True):
    doc = results_doc("imdb", "nlpo", seed, {"test": {"sentiment": 0.6 + seed / 100}})
    if recorded:
        doc["nlpo_mask"] = {"iterations": 2, "mean_bound_fraction": fraction, "max_bound_fraction": fraction,
                            "final_bound_fraction": fraction}
    path = write_run(root, doc)
    if not recorded:  # a run from before results.json recorded it: the board reads its train log
        (path / "logs").mkdir()
        lines = [{"iteration": i, BOUND_KEY: v} for i, v in ((1, fraction - 0.01), (2, fraction + 0.01))]
        (path / "logs" / "train.jsonl").write_text("".join(json.dumps(l) + "\n" for l in lines) + '{"torn')
    return path


def test_the_board_reports_each_nlpo_row_s_binding_beside_table_2(tmp_path):
    _nlpo(tmp_path, 0, 0.02)
    _nlpo(tmp_path, 1, 0.04, recorded=False)
    for seed in (0, 1):
        write_run(tmp_path, results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.6}}))
    text = board_markdown(build_board([tmp_path], BoardOptions(with_paper=False)))
    questions = text.split("## Table 2 questions")[1]
    assert "imdb (mini): NLPO 0.0300 (2 seeds)" in questions  # (0.02 + 0.04) / 2, one of them from its log
    assert "compares PPO with itself" in questions and "At 0 the mask removed nothing" in questions


def test_no_mask_no_note(tmp_path):
    for seed in (0, 1):
        write_run(tmp_path, results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.6}}))
    text = board_markdown(build_board([tmp_path], BoardOptions(with_paper=False)))
    assert "NLPO's mask" not in text
