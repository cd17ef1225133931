"""NaN or infinite reward, KL or loss: the run stops with an error naming the iteration and the quantity,
exits non-zero, keeps its last good checkpoint, and says so in run.json."""
import json
import math

import pytest
from typer.testing import CliRunner

from cli import app
from grue.rewards.registry import _FACTORIES, register_reward
from grue.train.rl.trainer import NonFiniteError, _check_finite


@pytest.fixture
def nan_reward():
    """A test-only reward that is fine for two iterations and NaN from the third rollout on."""
    calls = {"n": 0}

    class NanFromThirdCall:
        name = "nan_from_3"

        def __call__(self, samples, generations):
            calls["n"] += 1
            return [math.nan if calls["n"] >= 3 else 0.5] * len(samples)

    register_reward("nan_from_3")(lambda cfg: NanFromThirdCall())
    yield "nan_from_3"
    _FACTORIES.pop("nan_from_3", None)


def test_a_nan_reward_stops_the_run_naming_iteration_and_quantity(tiny_imdb_args, tmp_path, nan_reward):
    runs = tmp_path / "nan"
    result = CliRunner().invoke(app, ["run", *tiny_imdb_args, "algo=ppo", f"reward={nan_reward}", f"output_dir={runs}"])
    assert result.exit_code != 0
    assert "iteration 3: mean reward is nan" in result.output
    assert "the last good checkpoint is kept" in result.output and "step-000002" in result.output
    assert "Traceback" not in result.output
    path = next(runs.glob("imdb-mini-ppo-*"))
    assert not (path / "results.json").exists()
    assert sorted(p.name for p in (path / "checkpoints").iterdir()) == ["step-000001", "step-000002"]
    status = json.loads((path / "run.json").read_text())
    assert status["status"] == "failed" and "iteration 3: mean reward is nan" in status["error"]


@pytest.mark.parametrize("quantity, text", [("mean_KL", "mean KL is inf"), ("PPO_loss", "PPO loss is nan"),
                                            ("gradient_norm", "gradient norm is -inf")])
def test_each_checked_quantity_is_named(quantity, text):
    value = {"mean_KL": math.inf, "PPO_loss": math.nan, "gradient_norm": -math.inf}[quantity]
    with pytest.raises(NonFiniteError, match=f"iteration 4: {text}") as err:
        _check_finite(4, **{quantity: value})
    assert (err.value.iteration, err.value.quantity) == (4, quantity)
