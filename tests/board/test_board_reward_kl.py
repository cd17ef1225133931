"""The label-budget panel's reward-vs-KL view: each arm (zero-shot, RL on the oracle, RL on a learned
reward per schedule and labels used) at (KL per episode at the end of RL, oracle metric), from hand-made
results files whose means and spreads are worked out by hand below; older runs without `training_kl`
show as not recorded and stay off the figure."""
from __future__ import annotations

import math

import pytest

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.collect import collect
from grue.board.numbers.reward_kl import reward_kl_arms
from grue.board.render.plots import reward_kl_figure
from grue.board.render.site import write_site
from grue.board.tables.reward_kl_table import NOT_RECORDED, reward_kl_table


def _kl(final_episode: float, mean_episode: float, final_token: float) -> dict:
    return {"iterations": 8, "final_per_episode": final_episode, "mean_per_episode": mean_episode,
            "final_per_token": final_token, "mean_per_token": mean_episode / 24, "tokens_per_episode": 24.0,
            "final_beta": 0.05}


def _doc(algo, seed, sentiment, reward, kl=None, learned=None):
    doc = results_doc("imdb", algo, seed, {"test": {"sentiment": sentiment, "perplexity": 60.0}}, reward=reward)
    if kl is not None:
        doc["training_kl"] = kl
    if learned is not None:
        schedule, labels = learned
        doc["config"] = {"reward": {"schedule": schedule, "labels": 400}}
        doc["config_hash"] = f"fixture-learned-{schedule}-{labels}"
        doc["reward_learning"] = {"labels_used": labels, "rounds": [{"round": 0, "labels": labels,
                                                                     "heldout_accuracy": 0.6, "heldout_auc": 0.7}]}
    return doc


# (name, algo, seed, test sentiment, reward, training_kl or None (an older run), learned (schedule, labels used))
RUNS = [
    ("zs0", "zero_shot", 0, 0.64, None, None, None),
    ("zs1", "zero_shot", 1, 0.66, None, None, None),
    ("direct0", "ppo", 0, 0.75, "sentiment", _kl(6.0, 3.0, 0.25), None),
    ("direct1", "ppo", 1, 0.73, "sentiment", _kl(8.0, 4.0, 1 / 3), None),
    ("scaled0", "ppo", 0, 0.70, "sentiment_normalised", None, None),   # written before training_kl existed
    ("scaled1", "ppo", 1, 0.72, "sentiment_normalised", None, None),
    ("off400s0", "ppo", 0, 0.78, "learned", _kl(12.0, 5.0, 0.5), ("offline", 400)),
    ("off400s1", "ppo", 1, 0.74, "learned", _kl(10.0, 6.0, 0.4), ("offline", 400)),
    ("on300s0", "ppo", 0, 0.77, "learned", _kl(9.0, 4.5, 0.375), ("online", 300)),
    ("on300s1", "ppo", 1, 0.71, "learned", None, ("online", 300)),     # one seed of the arm is older
]


@pytest.fixture
def study(tmp_path):
    for name, algo, seed, sentiment, reward, kl, learned in RUNS:
        write_run(tmp_path, _doc(algo, seed, sentiment, reward, kl, learned), name)
    return tmp_path


def _arms(root):
    arms = reward_kl_arms(collect([root]).runs, "imdb", "test")
    return arms, {(a.kind, a.reward, a.schedule, a.labels): a for a in arms.itertuples()}


def test_each_arm_is_its_seeds_mean_score_at_its_mean_final_kl_per_episode(study):
    arms, by = _arms(study)
    assert len(arms) == 5 and list(arms["kind"]) == ["zero_shot", "oracle", "oracle", "learned", "learned"]
    zero = by[("zero_shot", "", "", 0)]
    assert (zero.n, zero.mean, zero.kl_episode, zero.kl_token) == (2, pytest.approx(0.65), 0.0, 0.0)  # the reference
    direct = by[("oracle", "sentiment", "", 0)]
    assert direct.mean == pytest.approx(0.74) and direct.std == pytest.approx(math.sqrt(2) * 0.01)
    assert direct.kl_episode == pytest.approx(7.0) and direct.kl_episode_std == pytest.approx(math.sqrt(2))
    assert direct.kl_episode_mean == pytest.approx(3.5) and direct.kl_token == pytest.approx((0.25 + 1 / 3) / 2)
    assert direct.kl_seeds == 2
    scaled = by[("oracle", "sentiment_normalised", "", 0)]
    assert scaled.n == 2 and scaled.mean == pytest.approx(0.71)
    assert scaled.kl_seeds == 0 and math.isnan(scaled.kl_episode) and math.isnan(scaled.kl_token)
    offline = by[("learned", "learned", "offline", 400)]
    assert offline.mean == pytest.approx(0.76) and offline.kl_episode == pytest.approx(11.0)
    assert offline.kl_episode_mean == pytest.approx(5.5) and offline.kl_token == pytest.approx(0.45)
    online = by[("learned", "learned", "online", 300)]  # keyed by labels used, KL from the one seed that has it
    assert online.n == 2 and online.mean == pytest.approx(0.74)
    assert online.kl_seeds == 1 and online.kl_episode == pytest.approx(9.0) and math.isnan(online.kl_episode_std)


def test_the_table_shows_kl_beside_the_score_and_missing_kl_as_not_recorded(study):
    arms, _ = _arms(study)
    table = reward_kl_table(arms, "sentiment", "test", "mini")
    rows = {r.labels["arm"]: r for r in table.rows}
    texts = {arm: {c.key: table.cell_text(row, c) for c in table.value_columns} for arm, row in rows.items()}
    direct = texts["PPO on the oracle (sentiment)"]
    assert direct["oracle"] == "0.740 ± 0.014" and direct["kl_episode"] == "7.000 ± 1.414"
    assert direct["kl_episode_mean"] == "3.500" and direct["kl_token"] == "0.292" and direct["kl_seeds"] == "2"
    assert texts["Zero-Shot"]["kl_episode"] == "0.000" and texts["Zero-Shot"]["kl_seeds"] == "—"
    scaled = texts["PPO on the oracle (sentiment_normalised)"]
    assert scaled["oracle"] == "0.710 ± 0.014" and scaled["kl_episode"] == NOT_RECORDED == scaled["kl_token"]
    online = texts["PPO on learned reward (online, 300 labels)"]
    assert online["kl_episode"] == "9.000" and online["kl_seeds"] == "1"
    assert texts["PPO on learned reward (offline, 400 labels)"]["kl_episode"] == "11.000 ± 1.414"
    notes = " ".join(table.notes)
    assert "nats" in notes and "PPO on the oracle (sentiment_normalised)" in notes
    assert "fewer seeds" in notes and "online, 300 labels" in notes


def test_the_figure_leaves_out_arms_without_kl_and_needs_one_rl_arm_with_it(study, tmp_path_factory):
    arms, _ = _arms(study)
    assert reward_kl_figure(arms, "sentiment", "test")[:4] == b"\x89PNG"
    old = tmp_path_factory.mktemp("old")  # every RL run older than training_kl: only zero-shot has a KL
    for name, algo, seed, sentiment, reward, _, learned in RUNS:
        write_run(old, _doc(algo, seed, sentiment, reward, None, learned), name)
    old_arms, _ = _arms(old)
    assert len(old_arms) == 5 and reward_kl_figure(old_arms, "sentiment", "test") is None


def test_the_label_budget_panel_shows_the_view_and_survives_old_runs(study, tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    write_site(build_board([study], BoardOptions()), out)
    page = (out / "task-imdb.html").read_text()
    assert "Oracle reward against KL — profile mini" in page and "KL/episode, last iteration (nats)" in page
    assert (out / "reward-kl-imdb-mini.png").read_bytes()[:4] == b"\x89PNG"
    old = tmp_path_factory.mktemp("old")
    for name, algo, seed, sentiment, reward, _, learned in RUNS:
        write_run(old, _doc(algo, seed, sentiment, reward, None, learned), name)
    out2 = tmp_path_factory.mktemp("site2")
    write_site(build_board([old], BoardOptions()), out2)
    page = (out2 / "task-imdb.html").read_text()
    assert "Oracle reward against KL" in page and NOT_RECORDED in page
    assert not (out2 / "reward-kl-imdb-mini.png").exists()
