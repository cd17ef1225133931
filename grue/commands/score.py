"""`grue score`: score generations made by any system with a task's metric mix, without a model.

Input: a JSONL file, one object per line with ``id`` and ``generation``, and optionally ``references``
(a list of strings, or one string), ``prompt`` and ``meta``. What a line lacks is taken from the task's
own samples of the split (matched by ``id``), which the caller passes in: references for the
reference-based metrics, prompts (SummaC's document, the classifier inputs) and meta (CommonGen
concepts, ToTTo tables, DailyDialog intents). Output: a results document in the schema of
docs/results_schema.md (so the leaderboard can read it), written atomically, plus optionally the
predictions with their per-sample scores.

The caller (the CLI) resolves the task: its metric list, its samples for the split and the metric
options of the profile; this module only reads, scores and writes. Perplexity needs the model that
made the generations, which a submission does not have, so it is reported as unavailable.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, Mapping, Sequence

from grue.data.sample import Sample
from grue.storage.atomic import atomic_write_json, atomic_write_jsonl
from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers, higher_is_better
from grue.results.schema import SCHEMA_VERSION, validate_results


def read_predictions(path: Path) -> list[dict[str, Any]]:
    """Predictions from JSONL; every line must be an object with a unique ``id`` and a ``generation``."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{path}:{number}: not JSON ({err.msg})") from None
        if not isinstance(row, dict) or "id" not in row or not isinstance(row.get("generation"), str):
            raise ValueError(f"{path}:{number}: each line needs an 'id' and a string 'generation'")
        row["id"] = str(row["id"])
        if row["id"] in seen:
            raise ValueError(f"{path}:{number}: duplicate id {row['id']!r}")
        seen.add(row["id"])
        refs = row.get("references")
        if isinstance(refs, str):
            row["references"] = [refs]
        elif refs is not None and not (isinstance(refs, list) and all(isinstance(r, str) for r in refs)):
            raise ValueError(f"{path}:{number}: 'references' must be a string or a list of strings")
        rows.append(row)
    if not rows:
        raise ValueError(f"{path}: no predictions")
    return rows


def metric_inputs(rows: Sequence[Mapping[str, Any]], samples: Sequence[Sample] | None = None) -> MetricInputs:
    """Align predictions with their references, prompts and meta (from the line, else the task sample)."""
    by_id = {s.id: s for s in samples or ()}
    prompts, references, meta = [], [], []
    for row in rows:
        sample = by_id.get(row["id"])
        refs = row.get("references")
        if refs is None and sample is not None:
            refs = list(sample.references)
        prompts.append(row.get("prompt", sample.prompt if sample else ""))
        references.append(refs)
        meta.append(row.get("meta", dict(sample.meta) if sample else {}))
    missing = [row["id"] for row, refs in zip(rows, references) if refs is None]
    if missing and len(missing) < len(rows):
        raise ValueError(f"no references for ids {missing[:5]} (give them in the file or score a task split "
                         "that has these ids)")
    return MetricInputs(prompts=prompts, generations=[r["generation"] for r in rows],
                        references=[] if missing else references, meta=meta)


def _versions() -> dict[str, str | None]:
    def version(package: str) -> str | None:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            return None

    return {"grue": version("grue"), "python": platform.python_version(), "torch": version("torch"),
            "transformers": version("transformers")}


def score(task: str, predictions: Path, split: str, metrics: Sequence[str], out: Path, *,
          samples: Sequence[Sample] | None = None, options: Mapping[str, Any] | None = None,
          profile: str = "paper", algo: str = "zero_shot", seed: int = 0, system: str | None = None,
          split_source: str | None = None, device: str = "cpu", scored_predictions: Path | None = None) -> dict:
    """Score ``predictions`` with ``metrics`` and write the results document to ``out``; returns it.

    ``samples`` are the task's samples of ``split`` (for references, prompts and meta the file lacks);
    ``options`` the metric options of the task and profile; ``split_source`` what the split really is
    (CommonGen/ToTTo "test" is scored on validation). ``algo``/``seed`` label the submission's row.
    """
    rows = read_predictions(predictions)
    inputs = metric_inputs(rows, samples)
    scorers = build_scorers(metrics, MetricContext(device=device, policy=None, options=dict(options or {})))
    values = scorers.compute(inputs)
    digest = hashlib.sha256(Path(predictions).read_bytes()).hexdigest()
    identity = json.dumps({"task": task, "split": split, "metrics": list(metrics), "options": dict(options or {}),
                           "predictions": digest}, sort_keys=True, default=str)
    doc = {
        "schema_version": SCHEMA_VERSION, "status": "complete", "task": task, "algo": algo, "profile": profile,
        "seed": int(seed), "reward": None, "init_model": system or f"predictions:{Path(predictions).name}",
        "comparable_to_paper": profile == "paper", "config_hash": hashlib.sha256(identity.encode()).hexdigest(),
        "config": {"source": "grue score", "predictions": str(predictions), "predictions_sha256": digest,
                   "metrics": list(metrics), "metric_options": dict(options or {})},
        "versions": _versions(), "git_commit": None,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "wall_time_s": None,
        "splits": {split: {"source": split_source or ("validation" if split == "val" else "test"),
                           "n_samples": len(rows)}},
        "metrics": {split: {name: value.corpus for name, value in values.items()}},
        "metrics_unavailable": dict(scorers.unavailable),
        "higher_is_better": {name: higher_is_better(name) for name in values},
    }
    problems = validate_results(doc)
    if problems:
        raise ValueError("the scored results do not fit the results schema: " + "; ".join(problems))
    atomic_write_json(Path(out), doc)
    if scored_predictions is not None:
        atomic_write_jsonl(Path(scored_predictions), [
            {**row, "scores": {n: v.per_sample[i] for n, v in values.items() if v.per_sample is not None}}
            for i, row in enumerate(rows)])
    return doc


def score_command(args: Sequence[str], fail: Any) -> None:
    """`grue score task=<task> predictions=<file.jsonl> [split=test] [metrics=a,b] [out=file] [profile=...]`."""
    from grue.commands.evaluate import _split_off
    from grue.config import ConfigError, load_config
    from grue.run.evaluate import metric_context
    from tasks import get_task

    predictions, rest = _split_off(args, "predictions")
    split, rest = _split_off(rest, "split")
    metrics, rest = _split_off(rest, "metrics")
    out, rest = _split_off(rest, "out")
    split = split or "test"
    if not predictions or not Path(predictions).exists():
        fail(f"grue score needs predictions=<existing JSONL file>, got {predictions!r}")
    if split not in ("val", "test"):
        fail(f"split={split!r} is not one of val, test")
    try:
        cfg = load_config([*rest, "algo=zero_shot"] + ([f"eval.metrics=[{metrics}]"] if metrics else []))
    except ConfigError as err:
        fail(str(err))
    task = get_task(cfg.task)
    samples = task.loader(cfg)[split] if task.runnable(cfg.profile) else None
    hidden = split == "test" and task.test_references_hidden
    target = Path(out) if out else Path(predictions).with_suffix(".results.json")
    doc = score(cfg.task, Path(predictions), split, list(cfg.eval.metrics), target, samples=samples,
                options=metric_context(cfg, None, "cpu").options, profile=cfg.profile,
                split_source="validation" if hidden else None)
    for name, value in sorted(doc["metrics"][split].items()):
        print(f"{name:>16}  {value:.4f}")
    for name, why in doc["metrics_unavailable"].items():
        print(f"{name:>16}  unavailable: {why}")
    print(f"wrote {target}")
