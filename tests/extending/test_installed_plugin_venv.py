"""A plugin package really built and installed by pip into a virtual environment, as a user would ship one:
`[project.entry-points."grue.plugins"]` in its pyproject.toml, `pip install` (offline: no dependencies, no
build isolation, no index), then that environment's grue lists its task, algorithm and metric in
`grue tasks`, `grue algos` and `--help`, resolves a config with them, and `grue score` computes its metric.

The venv sees grue and its dependencies through the test's own environment (a .pth file that adds its
site-packages), so nothing is downloaded. It skips, saying why, when pip or setuptools is not installed
here (they build the package); any other pip failure fails the test.
"""
from __future__ import annotations

import importlib.util
import json
import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PYPROJECT = textwrap.dedent('''\
    [build-system]
    requires = ["setuptools"]
    build-backend = "setuptools.build_meta"

    [project]
    name = "toy-grue-plugin"
    version = "0.3"

    [project.entry-points."grue.plugins"]
    toy = "toy_plugin.grue_plugin"

    [tool.setuptools]
    packages = ["toy_plugin"]
''')

PLUGIN = textwrap.dedent('''\
    """Registers a task, a lower-is-better metric and a critic-free algorithm when grue imports it."""
    from grue.config.task_spec import TaskSpec
    from grue.data.sample import Sample
    from grue.metrics.base import MetricValue
    from grue.metrics.registry import register
    from grue.train.registry import Algorithm, register_algorithm
    from tasks import register_task


    class Shouting:
        higher_is_better = {"shouting": False}

        def compute(self, inputs):
            values = [float(sum(c.isupper() for c in g)) for g in inputs.generations]
            return {"shouting": MetricValue(corpus=sum(values) / max(1, len(values)), per_sample=values)}


    register(higher_is_better=Shouting.higher_is_better)(lambda ctx: Shouting())
    register_algorithm(Algorithm("toy_reinforce", "Toy REINFORCE", "#123456", trains="rl",
                                 reads=("ppo", "kl", "rollout"), trainer="toy_plugin.trainer:ToyTrainer"))


    def load(cfg):
        make = lambda split: [Sample(f"{split}-{i}", f"word {i}", (f"answer {i}",)) for i in range(4)]
        return {"train": make("train"), "val": make("val"), "test": make("test")}


    register_task(TaskSpec(name="pkg_task", title="A packaged task", source="an installed plugin",
                           task_metrics=("rouge1",), naturalness_metrics=("shouting",), loader=load))
''')

# Runs inside the venv: each command through grue's own CLI, outputs back as JSON.
DRIVER = textwrap.dedent('''\
    import json, sys
    from typer.testing import CliRunner
    from cli import app

    preds, out = sys.argv[1], sys.argv[2]
    commands = {"tasks": ["tasks"], "algos": ["algos"], "help": ["run", "--help"],
                "config": ["config", "task=pkg_task", "profile=mini", "algo=toy_reinforce"],
                "score": ["score", "task=pkg_task", "profile=mini", f"predictions={preds}", "split=none",
                          "metrics=rouge1,shouting", f"out={out}"]}
    results = {}
    for key, args in commands.items():
        result = CliRunner().invoke(app, args, env={"COLUMNS": "200"})
        results[key] = {"code": result.exit_code, "output": result.output}
    import toy_plugin
    results["plugin_file"] = toy_plugin.__file__
    print(json.dumps(results))
''')


def _needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed in the test environment: pip cannot build the plugin package offline")


def _venv(root: Path) -> Path:
    """A venv without pip of its own whose site-packages also reads this environment's (grue, torch, pip)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=60)
    python = root / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         check=True, capture_output=True, text=True).stdout.strip()
    outer = [p for p in site.getsitepackages() if os.path.isdir(p)]
    lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in outer)  # processes their .pth (editable grue)
    Path(own, "zz_outer_environment.pth").write_text(lines)
    return python


def test_a_plugin_installed_by_pip_is_listed_configured_and_scored(tmp_path):
    _needs("pip")
    _needs("setuptools")
    package = tmp_path / "toy-grue-plugin"
    (package / "toy_plugin").mkdir(parents=True)
    (package / "pyproject.toml").write_text(PYPROJECT)
    (package / "toy_plugin" / "__init__.py").write_text("")
    (package / "toy_plugin" / "grue_plugin.py").write_text(PLUGIN)
    python = _venv(tmp_path / "venv")

    env = {**os.environ, "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "GRUE_PLUGINS": "",
           "GRUE_TASKS_PATH": ""}
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                              "--no-index", str(package)], capture_output=True, text=True, env=env, timeout=120,
                             cwd=tmp_path)
    assert install.returncode == 0, f"pip install failed:\n{install.stdout}\n{install.stderr}"

    preds = tmp_path / "own.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in (
        {"id": "a", "generation": "the CAT sat", "references": ["the cat sat"]},
        {"id": "b", "generation": "DOGS BARK", "references": ["dogs bark"]})))
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    ran = subprocess.run([str(python), str(driver), str(preds), str(tmp_path / "scored.json")], capture_output=True,
                         text=True, env={**env, "PYTHONPATH": str(REPO)}, cwd=tmp_path, timeout=300)
    assert ran.returncode == 0, ran.stderr
    results = json.loads(ran.stdout.strip().splitlines()[-1])
    for key in ("tasks", "algos", "help", "config", "score"):
        assert results[key]["code"] == 0, f"{key}: {results[key]['output']}"
    assert Path(results["plugin_file"]).is_relative_to(tmp_path / "venv")  # imported from where pip put it

    tasks = " ".join(results["tasks"]["output"].split())
    assert "pkg_task: A packaged task from plugin toy_plugin.grue_plugin (register_task); not in the GRUE score" in tasks
    assert "metrics task: rouge1 | naturalness: shouting" in tasks
    assert "toy_reinforce (Toy REINFORCE, plugin): trains rl" in results["algos"]["output"]
    help_text = results["help"]["output"].split("Plugins on this machine:")[1]
    assert "grue.plugins entry point  toy = toy_plugin.grue_plugin (package toy-grue-plugin 0.3)" in help_text
    assert "algo: toy_reinforce" in results["config"]["output"] and "  - shouting\n" in results["config"]["output"]

    scored = json.loads((tmp_path / "scored.json").read_text())
    assert scored["higher_is_better"]["shouting"] is False
    assert scored["metrics"]["none"]["shouting"] == pytest.approx((3 + 8) / 2)  # upper-case letters per generation
    assert scored["metrics"]["none"]["rouge1"] == pytest.approx(1.0)  # same words, case folded
