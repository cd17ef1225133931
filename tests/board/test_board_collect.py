"""Invalid, unfinished and duplicate runs are listed as skipped and never counted."""
from __future__ import annotations

import json

from board_fixtures import imdb_grid, results_doc, write_run
from grue.board.numbers.aggregate import aggregate, seed_frame
from grue.board.numbers.collect import collect
from grue.run.run_dir import RunDir


def test_bad_runs_are_skipped_with_reasons(tmp_path):
    good = imdb_grid(tmp_path, seeds=2, algos=("ppo",))
    running = tmp_path / "still-running"
    running.mkdir()
    (running / "run.json").write_text(json.dumps({"status": "running"}))
    died = tmp_path / "died"  # killed: run.json still says running, but nothing holds its lock
    died.mkdir()
    (died / "run.json").write_text(json.dumps({"status": "running"}))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.json").write_text("{ not json")
    bad_task = write_run(tmp_path, results_doc("nope", "ppo", 0, {"val": {"sentiment": 0.5}}), "bad-task")
    failed = results_doc("imdb", "ppo", 9, {"val": {"sentiment": 0.5}})
    failed["status"] = "failed"
    write_run(tmp_path, failed, "failed")
    nan = results_doc("imdb", "ppo", 8, {"val": {"sentiment": float("nan")}})
    write_run(tmp_path, nan, "nan")
    dup = write_run(tmp_path, json.loads((good[0] / "results.json").read_text()), "zz-duplicate")

    with RunDir(running).lock():
        found = collect([tmp_path])

    assert sorted(r.path for r in found.runs) == sorted(good)
    reasons = {s.path.name: " ".join(s.reasons) for s in found.skipped}
    assert "unfinished" in reasons["still-running"] and "status running" in reasons["still-running"]
    assert "status interrupted" in reasons["died"]
    assert "unreadable" in reasons["broken"]
    assert "task 'nope'" in reasons[bad_task.name]
    assert "status is 'failed'" in reasons["failed"]
    assert "finite" in reasons["nan"]
    assert "duplicate of seed 0" in reasons[dup.name]
    assert set(aggregate(seed_frame(found.runs))["n"]) == {2}


def test_profiles_never_share_a_row(tmp_path):
    for profile in ("mini", "paper"):
        for seed in range(2):
            doc = results_doc("imdb", "ppo", seed, {"val": {"sentiment": 0.5 + seed}}, profile=profile)
            write_run(tmp_path, doc)
    agg = aggregate(seed_frame(collect([tmp_path]).runs))
    assert sorted(agg["profile"]) == ["mini", "paper"]
    assert set(agg["n"]) == {2}
