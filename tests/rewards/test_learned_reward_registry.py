"""reward=learned and reward=commongen_preference through the registry: runs with a trained reward
model, the preference formula by hand, and encoder-decoder backbones."""
import json
import math

import pytest

from grue.config import load_config
from grue.data.sample import Sample
from grue.rewards.learned.model import RewardModel
from grue.rewards.learned.reward import PreferenceReward, missing_concepts
from grue.rewards.learned.training import TrainingSettings, fit_reward_model
from grue.run.runner import Run
from tests.rewards.toy_preferences import WordOracle, toy_queries


def trained_dir(backbone, out, objective="comparison"):
    from grue.rewards.learned.labelers import MockLabeler

    answers = MockLabeler(WordOracle()).label(toy_queries(24, 2), {})
    fit_reward_model(RewardModel.from_backbone(backbone), answers,
                     TrainingSettings(learning_rate=1e-3, heldout_fraction=0.0, objective=objective), out, answers)
    return out


@pytest.mark.parametrize("algo", ["ppo", "nlpo"])
def test_an_rl_run_optimises_a_trained_reward_model_and_imdb_still_scores_sentiment(tiny_imdb_args, tiny_model_dirs,
                                                                                 tmp_path, algo):
    rm = trained_dir(tiny_model_dirs.policy, tmp_path / "rm")
    args = [*tiny_imdb_args, f"algo={algo}", "reward=learned", f"reward.model={rm}",
            f"eval.metric_options.sentiment_model={tiny_model_dirs.classifier}"]
    path = Run(load_config(args), args).execute()
    doc = json.loads((path / "results.json").read_text())
    assert doc["reward"] == "learned" and "reward_learning" not in doc
    assert "sentiment" in doc["metrics"]["test"]
    logged = [json.loads(line)["reward_mean"] for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    model = RewardModel.load(rm)
    assert all(math.isfinite(r) for r in logged) and model.info["objective"] == "comparison"


def test_without_a_classifier_imdb_sentiment_is_unavailable_not_scored_by_the_reward_model(tiny_imdb_args,
                                                                                         tiny_model_dirs, tmp_path):
    from grue.run.evaluate import metric_context

    rm = trained_dir(tiny_model_dirs.policy, tmp_path / "rm")
    cfg = load_config([*tiny_imdb_args, "algo=ppo", "reward=learned", f"reward.model={rm}"])
    assert metric_context(cfg, None, "cpu").options["sentiment_model"] is None
    sentiment_cfg = load_config([*tiny_imdb_args, "algo=ppo"])
    assert metric_context(sentiment_cfg, None, "cpu").options["sentiment_model"] == tiny_model_dirs.classifier


def test_reward_learned_without_a_model_is_a_clear_error(tiny_imdb_args):
    from grue.rewards.registry import build_reward

    with pytest.raises(ValueError, match="needs reward.model=<reward-model directory>"):
        build_reward(load_config([*tiny_imdb_args, "reward=learned", "reward.model=null"]))


def test_a_t5_backbone_reads_the_text_with_its_encoder(tiny_t5_dir, tmp_path):
    model = RewardModel.load(trained_dir(tiny_t5_dir, tmp_path / "rm"))
    scores = model.score(["Review:", "Review:"], [" delight highly", " boring mess"])
    assert len(scores) == 2 and scores[0] != scores[1]


def test_missing_concepts_match_lemmas():
    assert missing_concepts("the dogs ran home", ["dog", "run", "park"]) == 1
    assert missing_concepts("", ["dog", "run"]) == 2


def test_commongen_preference_is_meteor_plus_preference_over_one_plus_missing(tiny_model_dirs, tmp_path):
    classifier = RewardModel.load(trained_dir(tiny_model_dirs.policy, tmp_path / "pref", objective="classifier"))
    samples = [Sample("a", "generate a sentence with: dog run park", ("x",), {"concepts": ["dog", "run", "park"]}),
               Sample("b", "generate a sentence with: dog run park", ("x",), {"concepts": ["dog", "run", "park"]})]
    generations = ["the dogs ran in the park", "a cat sat"]
    meteor_values = [0.4, 0.1]
    reward = PreferenceReward(classifier, lambda s, g: meteor_values)
    logits = classifier.score([s.prompt for s in samples], generations)
    by_hand = [0.4 + (1 / (1 + math.exp(-logits[0]))) / (1 + 0),
               0.1 + (1 / (1 + math.exp(-logits[1]))) / (1 + 3)]
    assert reward(samples, generations) == pytest.approx(by_hand)


def test_commongen_preference_refuses_a_comparison_reward_model(tiny_model_dirs, tmp_path):
    model = RewardModel.load(trained_dir(tiny_model_dirs.policy, tmp_path / "rm"))
    with pytest.raises(ValueError, match="objective=classifier"):
        PreferenceReward(model, lambda s, g: [0.0] * len(g))
