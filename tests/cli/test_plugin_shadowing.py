"""A plug-in may not take a name grue has built in, nor register one name twice (issue 45): each is refused
while the plug-in is imported, as one `error:` line naming the plug-in and the name, exit 2, before any
registry is used. A metric or reward plug-in that means to replace a built-in one says so (`replace=True`).
Each CLI case runs in its own process: plug-ins are imported once per process."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

METRIC = "from grue.metrics.registry import register\n"
REWARD = "from grue.rewards.registry import register_reward\n"
ALGO = "import dataclasses\nfrom grue.train.registry import get_algorithm, register_algorithm\n"
TASK = "import dataclasses\nfrom tasks import get_task, register_task\n"

PLUGINS = {
    "builtin_metric": (METRIC + "register(higher_is_better={'rouge1': True})(lambda ctx: None)\n",
                       "metric 'rouge1' is built into grue (grue.metrics.rouge)"),
    "builtin_reward": (REWARD + "register_reward('sentiment')(lambda cfg: None)\n",
                       "reward 'sentiment' is a built-in reward (grue.rewards.sentiment)"),
    "metric_as_reward": (REWARD + "register_reward('rouge1')(lambda cfg: None)\n",
                         "reward 'rouge1' is a built-in metric's reward (grue.metrics.rouge)"),
    "builtin_algorithm": (ALGO + "register_algorithm(dataclasses.replace(get_algorithm('grpo'), name='ppo'))\n",
                          "algorithm 'ppo' is registered twice with different settings"),
    "builtin_task": (TASK + "register_task(dataclasses.replace(get_task('commongen'), name='imdb'))\n",
                     "task 'imdb' is already defined"),
    "metric_twice": (METRIC + "register(higher_is_better={'mine': True})(lambda ctx: 1)\n"
                              "register(higher_is_better={'mine': True})(lambda ctx: 2)\n",
                     "metric 'mine' is registered twice"),
    "reward_twice": (REWARD + "register_reward('mine')(lambda cfg: 1)\nregister_reward('mine')(lambda cfg: 2)\n",
                     "reward 'mine' is registered twice"),
}


def run_python(code: str, folder: Path, plugin: str, *args: str) -> subprocess.CompletedProcess:
    paths = os.pathsep.join([str(folder), str(Path.cwd())])
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": paths, "OMP_NUM_THREADS": "1", "GRUE_PLUGINS": plugin})


def grue(args: list[str], folder: Path, plugin: str) -> subprocess.CompletedProcess:
    return run_python("import sys; import cli; sys.argv = ['grue', *sys.argv[1:]]; cli.main()", folder, plugin, *args)


def assert_one_error_line(proc: subprocess.CompletedProcess, plugin: str, expected: str) -> None:
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: plugin '{plugin}'") and expected in lines[0], proc.stderr


@pytest.mark.parametrize("name", list(PLUGINS))
def test_a_plugin_taking_a_builtin_or_repeated_name_is_refused_at_load(name, tmp_path):
    source, expected = PLUGINS[name]
    (tmp_path / f"{name}.py").write_text(source)
    assert_one_error_line(grue(["algos"], tmp_path, name), name, expected)


def test_an_algorithm_clash_is_found_whichever_registry_loads_the_plugins_first(tmp_path):
    """The metric registry is named lazily and may be the first to load plug-ins: the built-in algorithms are
    registered before any plug-in all the same, so `ppo` is refused at the plug-in's import."""
    (tmp_path / "late_ppo.py").write_text(PLUGINS["builtin_algorithm"][0])
    proc = run_python("from grue.metrics.registry import known_metrics\nknown_metrics()", tmp_path, "late_ppo")
    assert proc.returncode != 0 and "PluginError: plugin 'late_ppo'" in proc.stderr, proc.stderr
    assert "registered twice with different settings" in proc.stderr


def test_a_config_naming_a_refused_plugin_metric_is_refused_before_any_work(tmp_path):
    (tmp_path / "builtin_metric.py").write_text(PLUGINS["builtin_metric"][0])
    proc = grue(["config", "task=imdb", "profile=mini", "algo=zero_shot"], tmp_path, "builtin_metric")
    assert_one_error_line(proc, "builtin_metric", "replace=True")


def test_replace_true_takes_the_name_on_purpose_and_only_that_name(monkeypatch):
    """The replacement scores rouge1; the built-in ROUGE scorer still gives rouge2, and its rouge1 does not
    overwrite the replacement's."""
    from grue.metrics import registry
    from grue.metrics.base import MetricContext, MetricInputs, MetricValue

    class Constant:
        def compute(self, inputs):
            return {"rouge1": MetricValue(corpus=42.0, per_sample=[42.0] * len(inputs.generations))}

    monkeypatch.setattr(registry, "_BY_NAME", dict(registry._BY_NAME))
    registry.register(higher_is_better={"rouge1": True}, replace=True)(lambda ctx: Constant())
    scorers = registry.build_scorers(["rouge1", "rouge2"], MetricContext())
    values = scorers.compute(MetricInputs(prompts=["p"], generations=["a cat sat"], references=[["a cat sat"]]))
    assert values["rouge1"].corpus == 42.0 and values["rouge2"].corpus == pytest.approx(1.0)


def test_a_reward_replacing_a_builtin_one_on_purpose_is_used(monkeypatch):
    from grue.rewards import registry

    monkeypatch.setattr(registry, "_FACTORIES", dict(registry._FACTORIES))
    mine = registry.register_reward("sentiment", replace=True)(lambda cfg: "mine")
    assert registry._factory("sentiment") is mine
