"""A package installed with a `grue.plugins` entry point is listed and usable with no environment variable:
here a distribution on sys.path (its dist-info as pip writes it, made in the test, no network), whose
plugin registers a task and a metric."""
from __future__ import annotations

import importlib
import sys
import textwrap

from typer.testing import CliRunner

from cli import app

PLUGIN = textwrap.dedent('''\
    from grue.config.task_spec import TaskSpec
    from grue.data.sample import Sample
    from grue.metrics.base import MetricValue
    from grue.metrics.registry import register
    from tasks import register_task


    class Shouting:
        higher_is_better = {"shouting": False}

        def compute(self, inputs):
            values = [float(sum(c.isupper() for c in g)) for g in inputs.generations]
            return {"shouting": MetricValue(corpus=sum(values) / max(1, len(values)), per_sample=values)}


    register(higher_is_better=Shouting.higher_is_better)(lambda ctx: Shouting())


    def load(cfg):
        make = lambda split: [Sample(f"{split}-{i}", f"word {i}", (f"answer {i}",)) for i in range(4)]
        return {"train": make("train"), "val": make("val"), "test": make("test")}


    register_task(TaskSpec(name="pkg_task", title="A packaged task", source="an entry point",
                           task_metrics=("rouge1",), naturalness_metrics=("shouting",), loader=load))
''')


def test_an_installed_entry_point_plugin_is_listed_and_usable(tmp_path, monkeypatch):
    import tasks
    from grue import plugins
    from grue.metrics import registry as metric_registry

    metric_registry.known_metrics()
    saved_metrics, saved_tasks = dict(metric_registry._BY_NAME), dict(tasks._REGISTERED)
    site = tmp_path / "site"
    (site / "toy_pkg").mkdir(parents=True)
    (site / "toy_pkg" / "__init__.py").write_text("")
    (site / "toy_pkg" / "grue_plugin.py").write_text(PLUGIN)
    info = site / "toy_pkg-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-pkg\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[grue.plugins]\ntoy = toy_pkg.grue_plugin\n")
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    importlib.invalidate_caches()
    plugins._entry_point_modules.cache_clear()
    try:
        result = CliRunner().invoke(app, ["tasks"], env={"COLUMNS": "300"})
        assert result.exit_code == 0, result.output
        assert "pkg_task" in result.output and "plugin toy_pkg.grue_plugin" in result.output
        cfg_out = CliRunner().invoke(app, ["config", "task=pkg_task", "profile=mini", "algo=zero_shot"])
        assert cfg_out.exit_code == 0, cfg_out.output
        assert "metrics:\n  - rouge1\n  - shouting\n" in cfg_out.output
        assert metric_registry.higher_is_better("shouting") is False
    finally:
        plugins._entry_point_modules.cache_clear()
        plugins._loaded.discard("toy_pkg.grue_plugin")
        for name in ("toy_pkg", "toy_pkg.grue_plugin"):
            sys.modules.pop(name, None)
        metric_registry._BY_NAME.clear()
        metric_registry._BY_NAME.update(saved_metrics)
        tasks._REGISTERED.clear()
        tasks._REGISTERED.update(saved_tasks)


def test_an_installed_package_of_task_files_joins_the_catalogue(tmp_path, monkeypatch, clean_extensions):
    """`[grue.tasks] name = "package"`: the YAML task files in an installed package's folder are tasks."""
    import tasks
    from user_task_fixtures import write_task_folder

    site = tmp_path / "site"
    package = site / "toy_tasks"
    task_file = write_task_folder(package)
    (package / "__init__.py").write_text("")
    info = site / "toy_tasks-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-tasks\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[grue.tasks]\ntoy = toy_tasks\n")
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    importlib.invalidate_caches()
    tasks._entry_point_tasks.cache_clear()
    try:
        assert tasks.task_origin(tasks.get_task("echo_topic")) == str(task_file)
        cfg_out = CliRunner().invoke(app, ["config", "task=echo_topic", "profile=mini"])
        assert cfg_out.exit_code == 0 and "task_sha256: " in cfg_out.output, cfg_out.output
        mine = write_task_folder(tmp_path / "mine")  # the same name from another file is a clash
        clash = CliRunner().invoke(app, ["config", f"task={mine}"])
        assert clash.exit_code == 2 and "already defines" in clash.output, clash.output
    finally:
        tasks._entry_point_tasks.cache_clear()
        sys.modules.pop("toy_tasks", None)
