"""The sentiment oracle on the scales the papers use (DRLC's logit, Ziegler's log-odds, a learned reward's
standardised scale), and KL targets in the unit the papers give them (issue 27)."""
from __future__ import annotations

import json
import math

import pytest
import torch

from grue.config import load_config
from grue.config.identity import config_hash
from grue.data.sample import Sample
from grue.train.rl.kl import AdaptiveKLController, kl_results

TEXTS = ["a fine film", "dull and long", "the cast was great but the plot was thin"]


@pytest.fixture
def classifier_cfg(tiny_imdb_args):
    return lambda name: load_config([*tiny_imdb_args, f"reward={name}"])


def test_logit_and_logodds_rewards_are_the_classifier_s_own_logits(classifier_cfg, tiny_model_dirs):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from grue.rewards.registry import build_reward

    samples = [Sample(id=str(i), prompt="Review:", references=[]) for i in range(len(TEXTS))]
    probability = build_reward(classifier_cfg("sentiment"))(samples, TEXTS)
    logit = build_reward(classifier_cfg("sentiment_logit"))(samples, TEXTS)
    logodds = build_reward(classifier_cfg("sentiment_logodds"))(samples, TEXTS)
    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dirs.classifier)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_model_dirs.classifier).eval()
    with torch.no_grad():
        raw = model(**tokenizer(["Review:" + t for t in TEXTS], padding=True, return_tensors="pt")).logits
    assert logit == pytest.approx(raw[:, 1].tolist(), abs=1e-5)            # DRLC: the positive class's logit
    assert logodds == pytest.approx((raw[:, 1] - raw[:, 0]).tolist(), abs=1e-5)  # Ziegler: log-odds
    assert logodds == pytest.approx([math.log(p / (1 - p)) for p in probability], abs=1e-4)


def test_a_normalised_oracle_is_standardised_over_the_initial_policy_s_samples(tiny_imdb_args, tiny_model_dirs):
    from grue.rewards.learned.normalised import NORMALISATION_FILE
    from grue.rewards.sentiment import SentimentClassifier
    from grue.run.runner import Run

    args = [*tiny_imdb_args, "algo=ppo", "reward=sentiment_normalised"]
    path = Run(load_config(args), args).execute()
    record = json.loads((path / NORMALISATION_FILE).read_text())
    assert len(record["samples"]) == 256
    # independently: the classifier's P(positive) of the recorded samples of the initial policy
    from tasks import get_task

    cfg = load_config(args)
    prompts = {s.id: s.prompt for s in get_task("imdb").loader(cfg)["train"]}
    clf = SentimentClassifier(tiny_model_dirs.classifier)
    probs = clf.positive_probability([prompts[s["sample_id"]] + s["generation"] for s in record["samples"]])
    scaled = [record["gain"] * p + record["bias"] for p in probs]
    mean = sum(scaled) / len(scaled)
    assert mean == pytest.approx(0.0, abs=1e-5)
    assert sum((x - mean) ** 2 for x in scaled) / len(scaled) == pytest.approx(1.0, abs=1e-4)
    doc = json.loads((path / "results.json").read_text())
    assert doc["reward_normalisation"]["gain"] == record["gain"] and doc["reward_normalisation"]["samples"] == 256
    log = [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    first = log[0]["reward_mean"]  # the first rollout is the initial policy's: about mean 0 on this scale
    assert abs(first) < 3 * 1 / math.sqrt(log[0]["episodes"]) + 0.5


def test_the_normalised_oracle_refuses_to_score_outside_an_rl_run(classifier_cfg):
    from grue.rewards.registry import build_reward

    with pytest.raises(ValueError, match="inside an RL run"):
        build_reward(classifier_cfg("sentiment_normalised"))([Sample(id="0", prompt="p", references=[])], ["x"])


# -- KL units -----------------------------------------------------------------------------------------

def test_a_per_episode_target_steps_beta_on_the_per_episode_kl():
    token = AdaptiveKLController(0.1, target=6.0, k_beta=0.1, unit="token")
    episode = AdaptiveKLController(0.1, target=6.0, k_beta=0.1, unit="episode")
    # 0.25 nats a token over 24 tokens = 6 nats an episode: on target per episode, far below per token
    assert episode.update(0.25, kl_per_episode=6.0) == pytest.approx(0.1)
    assert token.update(0.25, kl_per_episode=6.0) == pytest.approx(0.1 * (1 + 0.1 * -0.2))
    assert episode.update(0.5, kl_per_episode=12.0) == pytest.approx(0.1 * (1 + 0.1 * 0.2))
    with pytest.raises(ValueError, match="target_unit"):
        AdaptiveKLController(0.1, 6.0, unit="sequence")


def test_a_checkpoint_from_before_the_unit_resumes_per_token():
    ctl = AdaptiveKLController(0.1, 6.0, unit="episode")
    ctl.load_state_dict({"value": 0.2, "target": 0.5, "k_beta": 0.2})
    assert (ctl.value, ctl.unit) == (0.2, "token")


def test_the_unit_is_hashed_only_when_set():
    base = ["task=imdb", "profile=mini", "algo=ppo"]
    assert config_hash(load_config(base)) == config_hash(load_config([*base, "kl.target_unit=token"]))
    assert config_hash(load_config(base)) != config_hash(load_config([*base, "kl.target_unit=episode"]))


def test_a_run_logs_kl_per_episode_and_results_record_mean_kl_and_final_beta(tiny_imdb_args):
    from grue.run.runner import Run

    args = [*tiny_imdb_args, "algo=ppo", "kl.target=0.3", "kl.target_unit=episode"]
    path = Run(load_config(args), args).execute()
    log = [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    for row in log:  # per episode = per token x tokens per episode
        assert row["kl_per_episode"] == pytest.approx(row["kl"] * row["tokens"] / row["episodes"], rel=1e-6)
    for a, b in zip(log, log[1:]):  # the controller stepped on the per-episode KL against 0.3
        error = max(-0.2, min(0.2, (a["kl_per_episode"] - 0.3) / 0.3))
        assert b["kl_coef"] == pytest.approx(a["kl_coef"] * (1 + 0.2 * error))
    kl = json.loads((path / "results.json").read_text())["training_kl"]
    assert kl["mean_per_token"] == pytest.approx(sum(r["kl"] for r in log) / len(log))
    assert kl["mean_per_episode"] == pytest.approx(sum(r["kl_per_episode"] for r in log) / len(log))
    assert kl["final_beta"] == log[-1]["next_kl_coef"] and kl["iterations"] == len(log) == 5
    assert kl_results([]) == {}


def _board_run(root, algo, seed, reward, sentiment, kl, labels=None):
    doc = {"schema_version": 1, "status": "complete", "task": "imdb", "algo": algo, "profile": "mini", "seed": seed,
           "reward": reward, "init_model": "fixture", "comparable_to_paper": False,
           "config_hash": f"fixture-{algo}-{reward}-{labels}", "config": {"reward": {"schedule": "offline"}},
           "versions": {"grue": "fixture"}, "git_commit": None, "created": "2026-01-01T00:00:00+00:00",
           "wall_time_s": 1.0, "splits": {"test": {"source": "test", "n_samples": 8}},
           "metrics": {"test": {"sentiment": sentiment}}, "metrics_unavailable": {},
           "higher_is_better": {"sentiment": True}}
    if kl is not None:
        doc["training_kl"] = {"mean_per_token": kl, "mean_per_episode": kl * 48}
    if labels:
        doc["reward_learning"] = {"labels_used": labels, "rounds": [{"round": 0, "labels": labels,
                                                                     "heldout_accuracy": 0.7, "heldout_auc": 0.8}]}
    path = root / f"{algo}-{reward}-{labels}-s{seed}"
    path.mkdir()
    (path / "results.json").write_text(json.dumps(doc))


def test_the_board_s_label_budget_numbers_carry_each_arm_s_mean_kl(tmp_path):
    """FIXTURE values: the KL of a budget point and of a level is the mean over its seeds' training_kl."""
    from grue.board.numbers.collect import collect
    from grue.board.numbers.label_budget import budget_points, reference_levels

    for seed, kl in ((0, 0.2), (1, 0.4)):
        _board_run(tmp_path, "ppo", seed, "learned", 0.7, kl, labels=400)
        _board_run(tmp_path, "ppo", seed, "sentiment_normalised", 0.7, kl / 2)
    _board_run(tmp_path, "zero_shot", 0, None, 0.6, None)
    runs = collect([tmp_path]).runs
    point = budget_points(runs, "imdb", "test").iloc[0]
    assert (point["labels"], point["kl"], point["kl_per_episode"]) == (400, pytest.approx(0.3), pytest.approx(14.4))
    levels = reference_levels(runs, "imdb", "test", ["mini"]).set_index("algo")
    assert levels.loc["ppo", "kl"] == pytest.approx(0.15) and levels.loc["ppo", "reward"] == "sentiment_normalised"
    assert math.isnan(levels.loc["zero_shot", "kl"])
