"""The board's "Is the critic worth its cost?" on synthetic results files whose answer is known.

PPO and the critic-free methods get sentiment means set apart by far more than their seed spread, identical
perplexity, and the generated tokens and seconds written in results.json's `cost`; a method that spent
other tokens must be left out of the comparison, and runs without recorded tokens make it untestable.
"""
from __future__ import annotations

import numpy as np

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.critic_question import QUESTION_ID
from grue.board.numbers.stats import NOT_TESTABLE


def runs(root, algo: str, sentiment: float, tokens: int | None, seconds: float, seeds: int = 4) -> None:
    rng = np.random.default_rng(hash(algo) % 2 ** 32)
    for seed in range(seeds):
        metrics = {split: {"sentiment": sentiment + float(rng.normal(0, 0.003)), "perplexity": 30.0 + 0.01 * seed}
                   for split in ("val", "test")}
        doc = results_doc("imdb", algo, seed, metrics)
        if tokens is not None:
            doc["cost"] = {"train_generated_tokens": tokens, "train_seconds": seconds + seed}
        write_run(root, doc)


def answer(root):
    questions = build_board([root], BoardOptions(with_paper=False)).questions
    return questions.set_index("question_id").loc[QUESTION_ID]


def test_ppo_beating_the_best_critic_free_method_at_equal_tokens_says_yes(tmp_path):
    runs(tmp_path, "zero_shot", 0.50, 0, 0)
    runs(tmp_path, "ppo", 0.72, 6144, 300)
    runs(tmp_path, "grpo", 0.62, 6144, 200)
    runs(tmp_path, "reinforce_pp", 0.58, 6300, 190)  # within 10% of PPO's tokens: a candidate, not the best
    runs(tmp_path, "rloo", 0.90, 12288, 400)         # better, but on twice the tokens: left out
    got = answer(tmp_path)
    assert got["answer"] == "yes"
    assert "best critic-free at 6144 tokens: GRPO" in got["detail"]
    assert "training seconds PPO 302 vs GRPO 202" in got["detail"]  # seconds + seed, averaged over seeds 0-3
    assert "not at equal generated tokens: RLOO (2.00x PPO's tokens)" in got["detail"]
    assert "ppo" in got["evidence"] and "grpo" in got["evidence"] and "Holm p=" in got["evidence"]
    assert got["paper_answer"] is None  # a question the paper did not ask


def test_a_critic_free_method_beating_ppo_at_equal_tokens_says_no(tmp_path):
    runs(tmp_path, "zero_shot", 0.50, 0, 0)
    runs(tmp_path, "ppo", 0.62, 6144, 300)
    runs(tmp_path, "grpo", 0.72, 6144, 200)
    got = answer(tmp_path)
    assert got["answer"] == "no" and "the reverse is significant: grpo > ppo" in got["detail"]


def test_runs_without_recorded_tokens_cannot_answer_it(tmp_path):
    runs(tmp_path, "zero_shot", 0.50, None, 0)
    runs(tmp_path, "ppo", 0.72, None, 300)  # results files from before costs were recorded
    runs(tmp_path, "grpo", 0.62, None, 200)
    got = answer(tmp_path)
    assert got["answer"] == NOT_TESTABLE
    assert "needs PPO and a critic-free method" in got["detail"]
    assert "GRPO (generated tokens not recorded)" in got["detail"]


def test_a_board_without_critic_free_runs_asks_it_and_says_what_it_needs(tmp_path):
    runs(tmp_path, "zero_shot", 0.50, 0, 0)
    runs(tmp_path, "ppo", 0.72, 6144, 300)
    got = answer(tmp_path)
    assert got["answer"] == NOT_TESTABLE and got["evidence"] == ""
    assert "GRPO" in got["detail"] and "REINFORCE++" in got["detail"]


def test_the_question_is_one_more_test_in_the_task_s_holm_family(tmp_path):
    """Table 2's claims and the critic's are corrected together: the Holm-adjusted p of every claim on the
    board, the critic's included, is Holm's correction of all their p-values as one family."""
    import re

    import pytest

    from grue.board.numbers.stats import holm

    runs(tmp_path, "zero_shot", 0.50, 0, 0)
    runs(tmp_path, "supervised", 0.55, 0, 50)
    runs(tmp_path, "ppo", 0.72, 6144, 300)
    runs(tmp_path, "grpo", 0.70, 6144, 200)
    questions = build_board([tmp_path], BoardOptions(with_paper=False)).questions
    pairs = [(float(p), float(adjusted)) for evidence in questions["evidence"]
             for p, adjusted in re.findall(r" p=([0-9.e+-]+), Holm p=([0-9.e+-]+)", evidence)]
    critic = questions.set_index("question_id").loc[QUESTION_ID, "evidence"]
    assert "ppo" in critic and len(pairs) >= 4  # the critic's claim and Table 2's testable ones
    assert [a for _, a in pairs] == pytest.approx(holm([p for p, _ in pairs]), rel=0.02)
