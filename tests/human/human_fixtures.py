"""FIXTURES: finished run directories with test predictions, and helpers to answer a study's items.

The generations are made-up strings, not model output; they let a study be built and answered.
"""
from __future__ import annotations

import json
from pathlib import Path

from grue.human.answers import current_item, rater_for_token, shown_order, submit
from grue.human.db import open_database
from grue.human.make_study import StudyRequest, make_study
from grue.human.study import Study

PROMPTS = [f"Review {i}: the film opens with" for i in range(12)]
TONES = {"zero_shot": "flat", "supervised": "plain", "ppo": "upbeat", "nlpo": "cheerful"}  # never the algo name


def write_run(root: Path, task: str, algo: str, seed: int = 0, n: int = len(PROMPTS), profile: str = "mini") -> Path:
    """A run directory the board accepts: results.json in the schema and predictions/test.jsonl."""
    run = root / f"{task}-{algo}-s{seed}"
    (run / "predictions").mkdir(parents=True, exist_ok=True)
    doc = {"schema_version": 1, "status": "complete", "task": task, "algo": algo, "profile": profile, "seed": seed,
           "reward": None, "init_model": "fixture", "comparable_to_paper": False, "config_hash": f"h-{algo}-{seed}",
           "config": {}, "versions": {}, "git_commit": None, "created": "2026-01-01T00:00:00+00:00",
           "wall_time_s": 1.0, "splits": {"test": {"source": "test", "n_samples": n}},
           "metrics": {"test": {"sentiment": 0.5}}, "metrics_unavailable": {}, "higher_is_better": {"sentiment": True}}
    (run / "results.json").write_text(json.dumps(doc))
    rows = [{"id": f"test-{i}", "prompt": PROMPTS[i], "generation": f"a {TONES[algo]} continuation {i} <b>raw</b>",
             "references": [], "scores": {}} for i in range(n)]
    (run / "predictions" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return run


def build_study(tmp_path: Path, kind: str = "ratings", task: str = "imdb", algos=("zero_shot", "ppo"),
                samples: int = 6, **request) -> tuple[Study, dict[str, str]]:
    runs = tmp_path / "runs"
    for algo in algos:
        write_run(runs, task, algo)
    return make_study(tmp_path / "study", StudyRequest(kind=kind, task=task, runs=(runs,), samples=samples,
                                                       **request))


def answer_all(study: Study, token: str, answer_for) -> int:
    """Answer every item of the rater behind `token` with `answer_for(item, order) -> form fields`,
    through the same functions the app calls; returns how many were answered."""
    engine = open_database(study.db_path)
    rater = rater_for_token(engine, token)
    count = 0
    while (item_id := current_item(engine, rater, now=0.0).item_id) is not None:
        item = study.items[item_id]
        submit(engine, study, rater, item_id, answer_for(item, shown_order(study, rater, item_id)), now=100.0)
        count += 1
    engine.dispose()
    return count
