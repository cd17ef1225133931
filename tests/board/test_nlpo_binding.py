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
    # (0.02 + 0.04) / 2, one of them from its log; seed 0's metrics are PPO's seed 0's (0.6), seed 1's are not
    assert "imdb (mini): NLPO 0.0300 (2 seeds; 1 equal PPO's)" in questions
    assert "compares PPO with itself" in questions and "At 0 the mask removed nothing" in questions


def test_no_mask_no_note(tmp_path):
    for seed in (0, 1):
        write_run(tmp_path, results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.6}}))
    text = board_markdown(build_board([tmp_path], BoardOptions(with_paper=False)))
    assert "NLPO's mask" not in text


def test_the_note_counts_the_seeds_that_equal_the_unmasked_run_of_the_same_seed(tmp_path):
    """DailyDialog's NLPO seed 1 trained with a mask that never bound, yet differed from PPO's seed 1 (rounding of
    another batch shape flipped a token at iteration 7): the note says which seeds are PPO's run exactly."""
    for seed in (0, 1, 2):
        _nlpo(tmp_path, seed, 0.0)
        metrics = {"test": {"sentiment": 0.6 + seed / 100 + (0.001 if seed == 1 else 0.0)}}  # seed 1 drifted
        write_run(tmp_path, results_doc("imdb", "ppo", seed, metrics))
    write_run(tmp_path, results_doc("imdb", "ppo", 3, {"test": {"sentiment": 0.63}}))  # no NLPO twin: not counted
    text = board_markdown(build_board([tmp_path], BoardOptions(with_paper=False)))
    assert "imdb (mini): NLPO 0.0000 (3 seeds; 2 equal PPO's)" in text.split("## Table 2 questions")[1]


def test_a_masked_variant_is_compared_with_its_unmasked_method():
    from grue.train.variants import without_mask

    assert [without_mask(a) for a in ("nlpo", "supervised_nlpo", "grpo_mask", "supervised_rloo_mask", "ppo")] == \
        ["ppo", "supervised_ppo", "grpo", "supervised_rloo", "ppo"]


def test_a_seed_whose_scores_differ_only_in_a_scorer_s_last_digits_is_the_same_run(tmp_path):
    """The remade CommonGen NLPO seed 0 decoded PPO's texts on every prompt; scored at another commit, its
    BERTScore differed from PPO's by 2.5e-9. A drifted seed's scores move by far more."""
    from grue.results.same_scores import same_metrics

    ppo = {"test": {"bertscore": 0.3568523299569885, "bleu": 0.0, "spice": float("nan")}}
    assert same_metrics(ppo, {"test": {"bertscore": 0.3568523383388917, "bleu": 0.0, "spice": float("nan")}})
    assert not same_metrics(ppo, {"test": {"bertscore": 0.3568623383388917, "bleu": 0.0, "spice": float("nan")}})
    assert not same_metrics(ppo, {"test": {"bertscore": 0.3568523299569885, "bleu": 0.0}})  # a metric missing
    assert not same_metrics(ppo, {"test": {"bertscore": 0.3568523299569885, "bleu": 0.0, "spice": 0.1}})
    for seed in (0, 1):
        _nlpo(tmp_path, seed, 0.0)
        nudge = 2.5e-9 if seed == 0 else 1e-4
        write_run(tmp_path, results_doc("imdb", "ppo", seed, {"test": {"sentiment": 0.6 + seed / 100 + nudge}}))
    text = board_markdown(build_board([tmp_path], BoardOptions(with_paper=False)))
    assert "imdb (mini): NLPO 0.0000 (2 seeds; 1 equal PPO's)" in text.split("## Table 2 questions")[1]
