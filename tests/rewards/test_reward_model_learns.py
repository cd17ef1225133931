"""The reward model learns an oracle's preferences from comparisons (held out, above chance), its
normalisation and directory round trip, and the mock labeler's choices and noise."""
import statistics

import pytest
import torch

from grue.rewards.learned.labelers import MockLabeler
from grue.rewards.learned.model import RewardModel, is_reward_model_dir
from grue.rewards.learned.training import TrainingSettings, fit_reward_model, split_heldout
from tests.rewards.toy_preferences import WordOracle, toy_queries


def labelled(n: int, k: int, **noise):
    return MockLabeler(WordOracle(), **noise).label(toy_queries(n, k), {})


@pytest.mark.parametrize("k, chance", [(4, 0.25), (2, 0.5)])
def test_reward_model_ranks_held_out_oracle_preferences_above_chance(tiny_model_dirs, tmp_path, k, chance):
    answers = labelled(600, k)
    settings = TrainingSettings(learning_rate=3e-3, batch_size=8, heldout_fraction=0.25)
    report = fit_reward_model(RewardModel.from_backbone(tiny_model_dirs.policy), answers, settings, tmp_path / "rm", normalise_over=answers)
    assert report.heldout_comparisons > 100
    assert report.heldout_accuracy > chance + 0.25, report.summary()
    assert report.heldout_auc > 0.75
    first, last = report.curve[:10], report.curve[-10:]
    assert statistics.mean(p["loss"] for p in last) < statistics.mean(p["loss"] for p in first)


def test_saved_model_is_normalised_over_its_samples_and_scores_alike_after_loading(tiny_model_dirs, tmp_path):
    answers = labelled(80, 4)
    out = tmp_path / "rm"
    fit_reward_model(RewardModel.from_backbone(tiny_model_dirs.policy), answers, TrainingSettings(learning_rate=1e-3), out, answers)
    assert is_reward_model_dir(str(out)) and (out / "training_curve.jsonl").exists()
    loaded = RewardModel.load(out)
    prompts = [a.prompt for a in answers for _ in a.candidates]
    texts = [c.text for a in answers for c in a.candidates]
    scores = loaded.score(prompts, texts)
    assert statistics.fmean(scores) == pytest.approx(0.0, abs=1e-4)
    assert statistics.pstdev(scores) == pytest.approx(1.0, abs=1e-4)


def test_an_unfinished_save_is_not_a_reward_model(tiny_model_dirs, tmp_path):
    model = RewardModel.from_backbone(tiny_model_dirs.policy)
    model.backbone.save_pretrained(tmp_path / "rm")  # killed before reward_model.json
    assert not is_reward_model_dir(str(tmp_path / "rm"))
    with pytest.raises(FileNotFoundError, match="not a reward-model directory"):
        RewardModel.load(tmp_path / "rm")


def test_training_keeps_dropout_off_and_the_head_is_fresh_per_seed(tiny_model_dirs):
    a = RewardModel.from_backbone(tiny_model_dirs.policy, seed=1)
    b = RewardModel.from_backbone(tiny_model_dirs.policy, seed=2)
    assert not torch.equal(a.head.weight, b.head.weight)
    for name, pa in a.backbone.named_parameters():
        assert torch.equal(pa, dict(b.backbone.named_parameters())[name])  # same pretrained backbone
    answers = labelled(16, 4)
    from grue.rewards.learned.training import train_reward_model

    train_reward_model(a, answers, TrainingSettings(heldout_fraction=0.0))
    assert not any(m.training for m in a.modules())


def test_held_out_split_is_stable_as_the_budget_grows():
    small, large = toy_queries(100, 2), toy_queries(400, 2)
    held_small = {q.query_id for q in split_heldout(small, 0.2)[1]}
    held_large = {q.query_id for q in split_heldout(large, 0.2)[1]}
    assert held_small and held_small <= held_large


def test_mock_labeler_picks_the_oracle_best_and_noise_flips_some():
    queries = toy_queries(400, 4)
    oracle = WordOracle()
    clean = MockLabeler(oracle).label(queries, {})
    for q, a in zip(queries, clean):
        scores = oracle([None] * q.k, [c.text for c in q.candidates])
        assert scores[a.chosen] == max(scores)
    noisy = MockLabeler(oracle, error_rate=0.3, seed=1).label(queries, {})
    flipped = sum(a.chosen != b.chosen for a, b in zip(clean, noisy)) / len(queries)
    assert 0.2 < flipped < 0.4
    assert noisy[0].labeler == "mock:toy_words@e0.3"
    again = MockLabeler(oracle, error_rate=0.3, seed=1).label(queries[::-1], {})[::-1]
    assert [a.chosen for a in again] == [a.chosen for a in noisy]  # order-independent, so resumable


def test_boltzmann_labeler_follows_the_softmax_of_the_oracle():
    queries = toy_queries(2000, 2, seed=3)
    oracle = WordOracle()
    answers = MockLabeler(oracle, temperature=1.0).label(queries, {})
    import math

    expected = observed = 0.0
    for q, a in zip(queries, answers):
        s = oracle([None] * 2, [c.text for c in q.candidates])
        expected += 1 / (1 + math.exp(s[1] - s[0]))
        observed += a.chosen == 0
    assert observed / len(queries) == pytest.approx(expected / len(queries), abs=0.03)
