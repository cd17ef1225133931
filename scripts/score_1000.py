"""Time `grue score` on a 1,000-line predictions file for each task (issue 4's check).

For each task the mini profile's samples are cycled to 1,000 lines; each line's generation is the
first reference of another sample (a plausible but wrong output), with the line's own references,
prompt and meta, so every metric of the task's mix has what it needs. Prints seconds per task and
which metrics were unavailable.

    .venv/bin/python scripts/score_1000.py [task ...]
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from grue.commands.score import score
from grue.config import load_config
from grue.run.evaluate import metric_context
from tasks import get_task, task_names


def predictions_file(task: str, out: Path, n: int = 1000) -> tuple[Path, list[str]]:
    cfg = load_config([f"task={task}", "profile=mini", "algo=zero_shot"])
    samples = [s for split in get_task(task).loader(cfg).values() for s in split]
    rows = []
    for i in range(n):
        sample, other = samples[i % len(samples)], samples[(i * 7 + 3) % len(samples)]
        rows.append({"id": f"line-{i}", "prompt": sample.prompt, "generation": other.references[0],
                     "references": list(sample.references), "meta": sample.meta})
    path = out / f"{task}.jsonl"
    path.write_text("".join(json.dumps(r, default=str) + "\n" for r in rows))
    return path, list(cfg.eval.metrics)


def main() -> None:
    tasks = sys.argv[1:] or list(task_names())
    with tempfile.TemporaryDirectory() as tmp:
        for task in tasks:
            path, metrics = predictions_file(task, Path(tmp))
            cfg = load_config([f"task={task}", "profile=mini", "algo=zero_shot"])
            start = time.perf_counter()
            doc = score(task, path, "test", metrics, Path(tmp) / f"{task}.results.json",
                        options=metric_context(cfg, None, "cpu").options, profile="mini")
            took = time.perf_counter() - start
            print(f"{task}: {took:.1f} s for 1000 lines; {len(doc['metrics']['test'])} metrics; "
                  f"unavailable: {sorted(doc['metrics_unavailable'])}", flush=True)


if __name__ == "__main__":
    main()
