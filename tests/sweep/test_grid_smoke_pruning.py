"""scripts/grid_smoke.py deletes finished cells' weights while the sweep runs: never a supervised run's (the
Supervised+RL cells warm-start from it), never a cell that wrote its results.json moments ago (its model card
is still being written into model/)."""
import importlib.util
import json
import os
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "grid_smoke.py"


def smoke_module():
    spec = importlib.util.spec_from_file_location("grid_smoke", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cell(root: Path, name: str, algo: str, age_s: float) -> Path:
    run = root / name
    for sub in ("model", "checkpoints", "predictions"):
        (run / sub).mkdir(parents=True)
        (run / sub / "f").write_text("x")
    (run / "results.json").write_text(json.dumps({"algo": algo}))
    then = time.time() - age_s
    os.utime(run / "results.json", (then, then))
    return run


def test_prunes_settled_non_supervised_cells_only(tmp_path):
    smoke = smoke_module()
    old_ppo = cell(tmp_path, "imdb-ppo", "ppo", age_s=600)
    old_sup = cell(tmp_path, "imdb-supervised", "supervised", age_s=600)
    fresh = cell(tmp_path, "imdb-grpo", "grpo", age_s=1)
    unfinished = tmp_path / "imdb-nlpo"
    (unfinished / "model").mkdir(parents=True)
    assert smoke.prune_weights(tmp_path) == 2
    assert not (old_ppo / "model").exists() and not (old_ppo / "checkpoints").exists()
    assert (old_ppo / "predictions" / "f").exists() and (old_ppo / "results.json").exists()
    assert (old_sup / "model").is_dir() and (fresh / "model").is_dir() and (unfinished / "model").is_dir()
    assert smoke.prune_weights(tmp_path, settle_s=0.0) == 2  # once the sweep has ended, the fresh one goes too
    assert not (fresh / "model").exists() and (old_sup / "model").is_dir()
