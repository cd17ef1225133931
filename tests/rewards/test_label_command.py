"""`grue label`: queries from a model, mock answers, the CSV round trip and training, end to end on the
tiny models; bad input is one line and exit code 2."""
import csv

import pytest
from typer.testing import CliRunner

from cli import app
from grue.rewards.learned.comparisons import latest_answers, read_comparisons
from grue.rewards.learned.model import RewardModel


@pytest.fixture
def task_args(tiny_model_dirs, tmp_path):
    return ["task=imdb", "profile=mini", f"reward.model={tiny_model_dirs.classifier}", "data.max_train=16",
            "rollout.max_new_tokens=6", "rollout.min_new_tokens=6", "threads=1"]


def grue(*args):
    result = CliRunner().invoke(app, list(args))
    return result


def test_queries_mock_answers_and_training_end_to_end(tiny_model_dirs, task_args, tmp_path):
    labels = tmp_path / "labels.jsonl"
    made = grue("label", "queries", *task_args, f"model={tiny_model_dirs.policy}", "n=20", "k=3", f"out={labels}")
    assert made.exit_code == 0, made.output
    assert "16/20 queries" in made.output and "20/20 queries" in made.output  # a running count, not the chunk's size
    queries = read_comparisons(labels)
    assert len(queries) == 20 and {q.k for q in queries} == {3}
    assert all(q.candidates[0].source == tiny_model_dirs.policy and q.sample_id for q in queries)
    again = grue("label", "queries", *task_args, f"model={tiny_model_dirs.policy}", "n=20", "k=3", f"out={labels}")
    assert again.exit_code == 0 and len(read_comparisons(labels)) == 20  # nothing sampled twice

    answered = grue("label", "mock", *task_args, f"queries={labels}", "labeler=sentiment")
    assert answered.exit_code == 0, answered.output
    answers = latest_answers(read_comparisons(labels))
    assert len(answers) == 20 and {a.labeler for a in answers} == {"mock:sentiment"}

    out = tmp_path / "rm"
    trained = grue("label", "train", *task_args, f"comparisons={labels}", f"out={out}",
                   f"backbone={tiny_model_dirs.policy}", "reward.rm_heldout=0.3")
    assert trained.exit_code == 0, trained.output
    assert "held-out accuracy" in trained.output
    model = RewardModel.load(out)
    assert model.info["train_comparisons"] + model.info["heldout_comparisons"] == 20


def test_csv_export_and_import_round_trip_with_mturk_columns(tiny_model_dirs, task_args, tmp_path):
    labels = tmp_path / "labels.jsonl"
    grue("label", "queries", *task_args, f"model={tiny_model_dirs.policy}", "n=4", "k=2", f"out={labels}")
    exported = tmp_path / "batch.csv"
    assert grue("label", "export-csv", f"queries={labels}", f"out={exported}").exit_code == 0
    rows = list(csv.DictReader(exported.open()))
    assert [r["query_id"] for r in rows] == [q.query_id for q in read_comparisons(labels)]
    results = tmp_path / "results.csv"
    with results.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["HITId", "WorkerId", "WorkTimeInSeconds", "Input.query_id", "Answer.chosen"])
        for i, r in enumerate(rows):
            writer.writerow([f"h{i}", "W1", "12", r["query_id"], i % 2])
    imported = grue("label", "import-csv", f"queries={labels}", f"answers={results}")
    assert imported.exit_code == 0, imported.output
    answers = latest_answers(read_comparisons(labels))
    assert [a.chosen for a in answers] == [0, 1, 0, 1] and {a.labeler for a in answers} == {"W1"}
    assert answers[0].time_s == 12.0 and answers[0].candidates == read_comparisons(labels)[0].candidates


@pytest.mark.parametrize("args, message", [
    (["label", "queries", "task=imdb", "profile=mini", "n=3", "out=x.jsonl"], "needs model="),
    (["label", "queries", "task=imdb", "profile=mini", "model=m", "n=three", "out=x.jsonl"], "not a whole number"),
    (["label", "train", "comparisons=missing.jsonl", "out=rm"], "missing.jsonl: no such comparisons file"),
    (["label", "mock", "task=imdb", "queries=missing.jsonl", "labeler=sentiment"], "no such comparisons file"),
    (["label", "train", "comparisons=missing.jsonl", "out=rm", "reward.nope=1"], "reward.nope"),
])
def test_bad_input_is_one_line_and_exit_code_2(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = grue(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_malformed_answers_csv_names_its_line(tiny_model_dirs, task_args, tmp_path):
    labels = tmp_path / "labels.jsonl"
    grue("label", "queries", *task_args, f"model={tiny_model_dirs.policy}", "n=2", "k=2", f"out={labels}")
    results = tmp_path / "results.csv"
    qid = read_comparisons(labels)[0].query_id
    results.write_text(f"query_id,chosen,labeler\n{qid},5,alice\n")
    result = grue("label", "import-csv", f"queries={labels}", f"answers={results}")
    assert result.exit_code == 2 and "line 2: chosen 5 is not a candidate index" in result.output


def test_win_rate_of_two_runs_by_a_majority_of_three_mock_judges(tiny_imdb_args, tiny_model_dirs, tmp_path):
    from grue.config import load_config
    from grue.run.runner import Run

    runs = {}
    for algo in ("zero_shot", "ppo"):
        args = [*tiny_imdb_args, f"algo={algo}"]
        runs[algo] = Run(load_config(args), args).execute()
    out = tmp_path / "judged.jsonl"
    result = grue("label", "win-rate", *tiny_imdb_args, f"a={runs['ppo']}", f"b={runs['zero_shot']}",
                  "labeler=sentiment", "reward.labeler_error_rate=0.1", f"out={out}")
    assert result.exit_code == 0, result.output
    assert "two-sided binomial p" in result.output
    answers = latest_answers(read_comparisons(out))
    assert len(answers) == 3 * 6 and len({a.labeler for a in answers}) == 3  # 6 test prompts, 3 judges
    missing = grue("label", "win-rate", *tiny_imdb_args, f"a={tmp_path}", f"b={runs['ppo']}", "labeler=sentiment")
    assert missing.exit_code == 2 and "does not exist" in missing.output
