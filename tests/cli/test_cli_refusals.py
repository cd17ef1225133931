"""Bad input is refused before any work starts: exit code 2, one line naming the problem, no traceback."""
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from cli import app

runner = CliRunner()


def refuse(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.mark.parametrize("args, expected", [
    (("run", "task=imbd"), "task: unknown value 'imbd'. Did you mean: imdb"),
    (("run", "task=imdb", "algo=npo"), "algo: unknown value 'npo'. Did you mean: nlpo"),
    (("run", "profile=tiny"), "profile: unknown value 'tiny'"),
    (("run", "ppo.lr=2e-6"), "unknown config key 'ppo.lr'"),
    (("config", "kl.targt=0.1"), "Did you mean: kl.target"),
    (("run", "seed=abc"), "seed"),
    (("run", "ppo.epochs=1.5"), "ppo.epochs"),
    (("run", "imdb"), "is not key=value"),
    (("config", "reward=rouge9"), "unknown reward 'rouge9'"),
    (("config", "eval.metrics=[sentimnt]"), "Did you mean: sentiment"),
    (("config", "nlpo.top_p=1.5"), "nlpo.top_p"),
    (("eval", "task=imdb"), "needs model="),
])
def test_bad_input_is_refused_with_a_helpful_message(args, expected):
    assert expected in refuse(*args)


def test_unknown_key_suggestion_names_the_closest_keys():
    out = refuse("run", "ppo.learning_rat=1e-5")
    assert "ppo.learning_rate" in out


def test_config_prints_resolved_values_and_hash_with_overrides_applied_last():
    result = runner.invoke(app, ["config", "task=imdb", "algo=nlpo", "ppo.learning_rate=2e-6", "kl.target=null"])
    assert result.exit_code == 0, result.output
    assert "learning_rate: 2.0e-06" in result.output
    assert "target: null" in result.output
    assert "lvwerra/gpt2-imdb" in result.output       # paper profile is the default
    assert "update_every: 5" in result.output         # IMDB's NLPO preset (Table 4)
    assert "# config_hash:" in result.output


def test_grue_script_exits_2_without_traceback():
    proc = subprocess.run([sys.executable, "-m", "cli", "run", "task=nope"], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "task: unknown value 'nope'" in proc.stderr


def test_tasks_lists_all_seven_as_runnable_with_their_data(tmp_path):
    # an empty hub cache: the mini profile runs here, the paper profile says what it lacks (tests/cli/test_tasks_listing.py)
    result = runner.invoke(app, ["tasks"], env={"COLUMNS": "250", "HF_HUB_CACHE": str(tmp_path)})
    assert result.exit_code == 0, result.output
    for name in ("imdb", "commongen", "cnn_dailymail", "totto", "wmt16", "narrativeqa", "dailydialog"):
        assert name in result.output
    assert result.output.count("runs here? yes") == 7 and "no:" not in result.output  # 7 tasks on mini
    assert result.output.count("runs here? no, not in the hub cache") == 7  # and on paper, without a hub cache
    assert "SYNTHETIC" in result.output and "chatterbot" in result.output  # says which data each profile uses
