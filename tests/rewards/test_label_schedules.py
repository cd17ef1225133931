"""Label schedules inside a run: offline and batched reward learning on the tiny models, recorded in
results.json, and a run killed while labelling resumes to the same labels and reward model."""
import json

import pytest

from grue.config import ConfigError, load_config
from grue.rewards.learned.comparisons import latest_answers, read_comparisons
from grue.rewards.learned.plan import plan_fits, schedule_problem, start_iterations
from grue.rewards.learned.schedules import LABELS_FILE, MODELS_DIR, online_label_target, schedule_rounds
from grue.run.runner import Run


def run(args):
    return Run(load_config(args), args).execute()


def schedule_args(tiny_imdb_args, *extra):
    # The tiny classifier is the mock labeler's oracle (reward.model stays the task's classifier).
    return [*tiny_imdb_args, "algo=ppo", "reward=learned", "reward.labeler=sentiment", "reward.k=2",
            "reward.rm_learning_rate=1e-3", "reward.rm_heldout=0.25", *extra]


def test_offline_schedule_labels_rho_samples_trains_once_and_records_it(tiny_imdb_args):
    path = run(schedule_args(tiny_imdb_args, "reward.schedule=offline", "reward.labels=40"))
    doc = json.loads((path / "results.json").read_text())
    records = read_comparisons(path / LABELS_FILE)
    answers = latest_answers(records)
    assert len(answers) == 40 and {a.labeler for a in answers} == {"mock:sentiment"}
    assert all(q.candidates[0].source == doc["config"]["model"]["policy"] for q in records)  # all from rho
    learning = doc["reward_learning"]
    assert learning["labels_used"] == 40 and len(learning["rounds"]) == 1
    assert 0.0 <= learning["rounds"][0]["heldout_accuracy"] <= 1.0
    assert doc["reward"] == "learned" and "sentiment" in doc["metrics"]["val"]  # the oracle still scores the run


def test_batched_schedule_collects_later_rounds_from_the_trained_policy(tiny_imdb_args):
    path = run(schedule_args(tiny_imdb_args, "reward.schedule=batched", "reward.labels=40", "reward.rounds=2"))
    records = read_comparisons(path / LABELS_FILE)
    sources = {q.query_id[:3]: q.candidates[0].source for q in records if q.labeler is None}
    assert sources["r1-"].endswith("@iteration3")  # 5 iterations in 2 rounds: round 1 starts after ceil(5 / 2) = 3
    rounds = json.loads((path / "results.json").read_text())["reward_learning"]["rounds"]
    assert [r["labels"] for r in rounds] == [20, 40]  # round 1 retrains on all labels so far
    # Every round's model is normalised over rho's samples only (Ziegler: x ~ D, y ~ rho), i.e. the
    # candidates of round 0's queries, even when later rounds' queries (from the trained policy) are
    # among its training labels: mean 0 and variance 1 over exactly those, computed here independently.
    from grue.rewards.learned.model import RewardModel

    rho_queries = [q for q in records if q.labeler is None and q.query_id.startswith("r0-")]
    later = [q for q in records if q.labeler is None and q.query_id.startswith("r1-")]
    for r in (0, 1):
        model = RewardModel.load(path / MODELS_DIR / f"round{r}")
        scores = model.score([q.prompt for q in rho_queries for _ in q.candidates],
                             [c.text for q in rho_queries for c in q.candidates])
        mean = sum(scores) / len(scores)
        assert mean == pytest.approx(0.0, abs=1e-4)
        assert sum((x - mean) ** 2 for x in scores) / len(scores) == pytest.approx(1.0, abs=1e-3)
    later_scores = model.score([q.prompt for q in later for _ in q.candidates],
                               [c.text for q in later for c in q.candidates])
    assert abs(sum(later_scores) / len(later_scores)) > 1e-3  # the later samples were not in the normalisation


def test_a_run_killed_while_labelling_resumes_to_the_same_labels(tiny_imdb_args, tmp_path, monkeypatch):
    from grue.rewards.learned import labelers

    args = schedule_args(tiny_imdb_args, "reward.schedule=offline", "reward.labels=40")
    straight = run([*args, f"output_dir={tmp_path / 'a'}"])
    real_label = labelers.MockLabeler.label
    calls = []

    def killed_on_second_chunk(self, queries, samples, progress=None):
        calls.append(len(queries))
        if len(calls) == 2:
            raise KeyboardInterrupt("simulated kill")
        return real_label(self, queries, samples, progress)

    monkeypatch.setattr(labelers.MockLabeler, "label", killed_on_second_chunk)
    with pytest.raises(KeyboardInterrupt):
        run([*args, f"output_dir={tmp_path / 'b'}"])
    monkeypatch.setattr(labelers.MockLabeler, "label", real_label)
    resumed = run([*args, f"output_dir={tmp_path / 'b'}"])
    key = lambda a: (a.query_id, a.chosen, tuple(c.text for c in a.candidates))  # noqa: E731
    assert sorted(map(key, latest_answers(read_comparisons(resumed / LABELS_FILE)))) == \
        sorted(map(key, latest_answers(read_comparisons(straight / LABELS_FILE))))
    first = json.loads((straight / "results.json").read_text())
    again = json.loads((resumed / "results.json").read_text())
    assert again["reward_learning"] == first["reward_learning"] and again["metrics"] == first["metrics"]


def test_offline_and_batched_plans_split_the_budget():
    assert [(r.start, r.labels) for r in schedule_rounds("offline", 250, 2)] == [(0.0, 250)]
    assert [(r.start, r.labels) for r in schedule_rounds("batched", 10, 3)] == [(0.0, 3), (1 / 3, 6), (2 / 3, 10)]


def test_online_plan_retrains_at_evenly_spaced_label_counts_where_l_of_n_reaches_them():
    rounds = schedule_rounds("online", 1000, 4, initial_labels=200)
    assert [r.labels for r in rounds] == [200, 400, 600, 800]
    for r in rounds:  # Ziegler's l(n) at each round's start is its label count
        assert online_label_target(r.start, 200, 1000) == pytest.approx(r.labels)
    assert rounds[0].start == 0.0 and all(a.start < b.start for a, b in zip(rounds, rounds[1:]))


def test_online_schedule_in_a_run_follows_the_plan(tiny_imdb_args):
    path = run(schedule_args(tiny_imdb_args, "reward.schedule=online", "reward.labels=30", "reward.rounds=3",
                             "reward.initial_labels=10"))
    learning = json.loads((path / "results.json").read_text())["reward_learning"]
    rounds = learning["rounds"]
    assert [r["labels"] for r in rounds] == [r["labels_planned"] for r in rounds] == [10, 16, 23]
    assert [r["round"] for r in rounds] == [0, 1, 2] and [r["start_iteration"] for r in rounds] == [0, 1, 3]
    # online labels up to the last retrain: 10 + (30 - 10) * 2 // 3 = 23 of the budget of 30
    assert (learning["labels_budget"], learning["labels_planned"], learning["labels_used"]) == (30, 23, 23)
    records = read_comparisons(path / LABELS_FILE)
    sources = {q.query_id[:3]: q.candidates[0].source for q in records if q.labeler is None}
    # 5 iterations: round 1 starts at 5 * (1 - sqrt(2/3)) = 0.92 -> iteration 1; round 2 at 2.11 -> iteration 3
    assert sources["r1-"].endswith("@iteration1") and sources["r2-"].endswith("@iteration3")


@pytest.mark.parametrize("change, message", [
    ({"schedule": "nightly"}, "reward.schedule must be one of"),
    ({"labeler": None}, "needs reward.labeler"),
    ({"initial_labels": 5000}, "reward.initial_labels must lie between"),
    ({"name": "sentiment"}, "for reward=learned, not reward=sentiment"),
])
def test_bad_schedule_settings_are_refused(tiny_imdb_args, change, message):
    from grue.rewards.learned.schedules import check_schedule

    from omegaconf import OmegaConf

    cfg = load_config(schedule_args(tiny_imdb_args, "reward.schedule=offline"))
    OmegaConf.set_readonly(cfg, False)
    for key, value in change.items():  # set after loading: the config checks may refuse some of these earlier
        cfg.reward[key] = value
    with pytest.raises(ValueError, match=message):
        check_schedule(cfg)


def test_a_batched_run_killed_after_its_second_round_resumes_to_the_same_metrics(tiny_imdb_args, tmp_path,
                                                                               monkeypatch):
    from grue.train.rl import trainer as trainer_module

    args = schedule_args(tiny_imdb_args, "reward.schedule=batched", "reward.labels=40", "reward.rounds=2")
    straight = json.loads((run([*args, f"output_dir={tmp_path / 'a'}"]) / "results.json").read_text())
    real_step = trainer_module.RLTrainer.step

    def killed_at_iteration_4(self):
        if self.iteration == 4:  # round 1 (from iteration 3) has its labels and reward model by now
            raise KeyboardInterrupt("simulated kill")
        return real_step(self)

    monkeypatch.setattr(trainer_module.RLTrainer, "step", killed_at_iteration_4)
    with pytest.raises(KeyboardInterrupt):
        run([*args, f"output_dir={tmp_path / 'b'}"])
    monkeypatch.setattr(trainer_module.RLTrainer, "step", real_step)
    resumed = json.loads((run([*args, f"output_dir={tmp_path / 'b'}"]) / "results.json").read_text())
    assert resumed["metrics"] == straight["metrics"]
    assert resumed["reward_learning"] == straight["reward_learning"]


# -- rounds that cannot all start (issue 27: 6 rounds in 5 iterations trained 4 of them on 35 of 51 labels) --

ITERATIONS_5 = {"total_steps": 120, "steps_per_update": 24}  # the tiny run's 5 RL iterations


def reward(schedule, labels, rounds, initial=None):
    return {"schedule": schedule, "labels": labels, "rounds": rounds, "initial_labels": initial}


def test_round_start_iterations_by_hand():
    # batched, 3 rounds in 5 iterations: shares 0, 1/3, 2/3 -> iterations ceil(0), ceil(1.67), ceil(3.33)
    assert start_iterations(schedule_rounds("batched", 30, 3), 5) == [0, 2, 4]
    # online, 6 rounds in 5 iterations: 5 * (1 - sqrt(1 - j/6)) = 0, 0.44, 0.92, 1.46, 2.11, 2.96
    assert start_iterations(schedule_rounds("online", 51, 6), 5) == [0, 1, 1, 2, 3, 3]
    assert not plan_fits(schedule_rounds("online", 51, 6), 5)
    assert plan_fits(schedule_rounds("online", 51, 4), 5)  # 0, 0.67, 1.46, 2.5 -> 0, 1, 2, 3


@pytest.mark.parametrize("plan, largest, steps", [
    # 6 online rounds in 5 iterations: 4 fit; 8 iterations (192 steps) fit all 6
    (reward("online", 51, 6), 4, 192),
    # more batched rounds than iterations: 5 fit; 6 rounds need 6 iterations
    (reward("batched", 60, 6), 5, 144),
    (reward("batched", 60, 9), 5, 216),
])
def test_a_schedule_whose_rounds_cannot_all_start_is_refused_with_the_largest_rounds_that_fit(plan, largest, steps):
    problem = schedule_problem(plan, ITERATIONS_5)
    assert f"the largest reward.rounds that fits is {largest}" in problem
    assert f"raise ppo.total_steps to at least {steps}" in problem
    fitting = {**plan, "rounds": largest}
    assert schedule_problem(fitting, ITERATIONS_5) is None
    assert schedule_problem({**plan, "rounds": largest + 1}, ITERATIONS_5) is not None
    assert schedule_problem(plan, {"total_steps": steps, "steps_per_update": 24}) is None
    assert schedule_problem(plan, {"total_steps": steps - 24, "steps_per_update": 24}) is not None


def test_ziegler_s_twenty_online_retrains_do_not_fit_the_mini_preset_s_eight_iterations():
    problem = schedule_problem(reward("online", 5000, 20), {"total_steps": 6144, "steps_per_update": 768})
    assert "rounds 1 and 2 would both start at RL iteration 1 of 8" in problem
    assert "the largest reward.rounds that fits is 6" in problem


def test_more_rounds_than_iterations_are_refused_when_the_config_loads(tiny_imdb_args):
    with pytest.raises(ConfigError, match="the largest reward.rounds that fits is 4"):
        load_config(schedule_args(tiny_imdb_args, "reward.schedule=online", "reward.labels=51", "reward.rounds=6"))
    with pytest.raises(ConfigError, match="round 5 would start after the last of the run's 5 RL iterations"):
        load_config(schedule_args(tiny_imdb_args, "reward.schedule=batched", "reward.labels=60", "reward.rounds=6"))


def test_as_many_batched_rounds_as_iterations_train_every_round_on_every_planned_label(tiny_imdb_args):
    path = run(schedule_args(tiny_imdb_args, "reward.schedule=batched", "reward.labels=20", "reward.rounds=5"))
    learning = json.loads((path / "results.json").read_text())["reward_learning"]
    assert [r["round"] for r in learning["rounds"]] == [0, 1, 2, 3, 4]  # as reward_model/round<r> is named
    assert sorted(p.name for p in (path / MODELS_DIR).glob("round*")) == [f"round{r}" for r in range(5)]
    assert [r["labels"] for r in learning["rounds"]] == [4, 8, 12, 16, 20]
    assert [r["start_iteration"] for r in learning["rounds"]] == [0, 1, 2, 3, 4]
    assert learning["labels_used"] == learning["labels_planned"] == learning["labels_budget"] == 20
    answers = latest_answers(read_comparisons(path / LABELS_FILE))
    assert sorted({a.query_id[:3] for a in answers}) == ["r0-", "r1-", "r2-", "r3-", "r4-"] and len(answers) == 20
