"""Whole runs on tiny models: files written, interrupted runs resume to the same numbers, reuse."""
import json
from pathlib import Path

import pytest

from grue.config import load_config
from grue.results.schema import validate_results
from grue.run.runner import Run


def run(args):
    return Run(load_config(args), args).execute()


@pytest.mark.parametrize("algo", ["zero_shot", "supervised", "ppo", "nlpo", "supervised_nlpo"])
def test_every_algorithm_writes_a_valid_results_file(tiny_imdb_args, algo):
    path = run([*tiny_imdb_args, f"algo={algo}"])
    doc = json.loads((path / "results.json").read_text())
    assert validate_results(doc) == []
    assert doc["algo"] == algo and doc["profile"] == "mini" and doc["comparable_to_paper"] is False
    for split in ("val", "test"):
        assert {"sentiment", "perplexity", "msttr", "distinct_1", "entropy_2", "unique_1"} <= set(doc["metrics"][split])
        lines = (path / "predictions" / f"{split}.jsonl").read_text().splitlines()
        assert len(lines) == 6 and "sentiment" in json.loads(lines[0])["scores"]
    assert doc["reward"] == ("sentiment" if algo in ("ppo", "nlpo", "supervised_nlpo") else None)
    if algo in ("ppo", "nlpo"):
        train_log = [json.loads(l) for l in (path / "logs" / "train.jsonl").read_text().splitlines()]
        assert [r["iteration"] for r in train_log] == [1, 2, 3, 4, 5]
        assert all(r["tokens"] == 24 for r in train_log)  # steps are tokens: 4 episodes x 6 tokens
    if algo == "supervised_nlpo":  # warm start trained once, then reused by the RL run as pi_0
        sup = list(path.parent.glob("imdb-mini-supervised-seed0-*"))
        assert len(sup) == 1 and doc["init_model"] == str(sup[0] / "model")


def test_interrupted_run_resumes_to_the_same_final_metrics(tiny_imdb_args, tmp_path, monkeypatch):
    from grue.train.rl import trainer as trainer_module

    args = [*tiny_imdb_args, "algo=nlpo", "nlpo.update_every=2"]
    straight = json.loads((run([*args, f"output_dir={tmp_path / 'a'}"]) / "results.json").read_text())
    untrained = json.loads((run([*tiny_imdb_args, "algo=zero_shot"]) / "results.json").read_text())
    assert straight["metrics"] != untrained["metrics"]  # training moved the model, so resume has work to match

    real_step = trainer_module.RLTrainer.step

    def crash_at_iteration_3(self):
        if self.iteration == 3:
            raise KeyboardInterrupt("simulated kill")
        return real_step(self)

    monkeypatch.setattr(trainer_module.RLTrainer, "step", crash_at_iteration_3)
    with pytest.raises(KeyboardInterrupt):
        run([*args, f"output_dir={tmp_path / 'b'}"])
    monkeypatch.setattr(trainer_module.RLTrainer, "step", real_step)
    resumed_dir = run([*args, f"output_dir={tmp_path / 'b'}"])
    resumed = json.loads((resumed_dir / "results.json").read_text())
    assert resumed["metrics"] == straight["metrics"]
    iterations = [json.loads(l)["iteration"] for l in (resumed_dir / "logs" / "train.jsonl").read_text().splitlines()]
    assert iterations == [1, 2, 3, 4, 5]  # nothing lost, nothing repeated


def test_a_finished_run_is_reused_not_retrained(tiny_imdb_args):
    args = [*tiny_imdb_args, "algo=zero_shot"]
    first = run(args)
    stamp = (first / "results.json").stat().st_mtime_ns
    assert run(args) == first
    assert (first / "results.json").stat().st_mtime_ns == stamp


def test_grue_eval_of_a_run_directory_reproduces_its_final_metrics(tiny_imdb_args, tmp_path):
    from typer.testing import CliRunner

    from cli import app

    path = run([*tiny_imdb_args, "algo=ppo"])
    trained = json.loads((path / "results.json").read_text())
    out = tmp_path / "evals"
    result = CliRunner().invoke(app, ["eval", *tiny_imdb_args, f"model={path}", "split=val", f"output_dir={out}"])
    assert result.exit_code == 0, result.output
    evaluated = json.loads(next(out.glob("eval-imdb-mini-ppo-*/results.json")).read_text())
    assert evaluated["algo"] == "ppo" and list(evaluated["metrics"]) == ["val"]
    assert evaluated["metrics"]["val"] == pytest.approx(trained["metrics"]["val"])


def test_leaderboard_export_prints_mean_and_std_over_seeds(tiny_imdb_args, tmp_path):
    from grue.board.export import export_tables

    for seed in (0, 1):
        run([*tiny_imdb_args, "algo=zero_shot", f"seed={seed}"])
    runs = next(iter(a for a in tiny_imdb_args if a.startswith("output_dir="))).split("=", 1)[1]
    text = export_tables([Path(runs)], tmp_path / "board", ("md", "csv", "json"))
    assert "Zero-Shot" in text and "| 2 |" in text and "±" in text  # two seeds aggregated
    assert (tmp_path / "board").exists()


def test_grue_score_of_a_runs_predictions_reproduces_its_metrics(tiny_imdb_args, tmp_path):
    from typer.testing import CliRunner

    from cli import app

    path = run([*tiny_imdb_args, "algo=zero_shot"])
    trained = json.loads((path / "results.json").read_text())["metrics"]["val"]
    task_args = [a for a in tiny_imdb_args if a.split("=")[0] in ("task", "profile", "reward.model", "data.max_val")]
    out = tmp_path / "scored.json"
    result = CliRunner().invoke(app, ["score", *task_args, f"predictions={path / 'predictions' / 'val.jsonl'}",
                                      "split=val", f"out={out}"])
    assert result.exit_code == 0, result.output
    scored = json.loads(out.read_text())
    assert "perplexity" in scored["metrics_unavailable"]  # needs the model, which a submission lacks
    expected = {k: v for k, v in trained.items() if k != "perplexity"}
    assert scored["metrics"]["val"] == pytest.approx(expected)
