"""Preflight checks every model, dataset, metric and reward a run needs and lists all problems at once;
nothing is written or trained when one is missing."""
from typer.testing import CliRunner

from cli import app
from grue.config import load_config
from grue.run.preflight import PreflightError, check_all, preflight


def test_every_missing_piece_is_listed_at_once_and_nothing_starts(tiny_imdb_args, tmp_path):
    runs = tmp_path / "never"
    args = [*tiny_imdb_args, "algo=ppo", "model.policy=/nowhere/policy", "reward.model=/nowhere/classifier",
            "data.source=/nowhere/data", f"output_dir={runs}"]
    result = CliRunner().invoke(app, ["run", *args])
    assert result.exit_code == 2
    out = " ".join(result.output.split())
    assert "preflight found 4 problem(s); nothing was started" in out
    assert "model /nowhere/policy is not available here: no such directory" in out
    assert "model /nowhere/classifier is not available here: no such directory" in out
    assert "dataset /nowhere/data is not available here: no such directory" in out
    assert "reward 'sentiment' needs metric 'sentiment', which is unavailable" in out
    assert "Traceback" not in result.output
    assert not runs.exists()


def test_an_unavailable_reward_metric_is_an_error_but_an_unavailable_eval_metric_only_a_warning(tiny_imdb_args):
    cfg = load_config([*tiny_imdb_args, "algo=ppo", "reward=spice", "eval.metrics=[sentiment,spice,msttr]"])
    report = preflight(cfg, "cpu")
    assert len(report.errors) == 1 and report.errors[0].startswith("reward 'spice' needs metric 'spice'")
    assert report.warnings == []  # spice is the reward's: reported once, as the error

    zero_shot = load_config([*tiny_imdb_args, "algo=zero_shot", "eval.metrics=[sentiment,spice,msttr]"])
    report = preflight(zero_shot, "cpu")
    assert report.errors == [] and len(report.warnings) == 1 and report.warnings[0].startswith("metric spice")


def test_a_sweep_preflight_collects_problems_of_all_its_configs(tiny_imdb_args):
    cfgs = [load_config([*tiny_imdb_args, "algo=ppo", "reward=spice"]),
            load_config([*tiny_imdb_args, "algo=zero_shot", "model.policy=/nowhere/policy"])]
    try:
        check_all(cfgs, "cpu")
        raise AssertionError("preflight passed")
    except PreflightError as err:
        assert len(err.problems) == 2
