"""`grue score`: score generations made by any system with a task's metric mix, without a model.

Input: a JSONL file (grue/commands/predictions.py reads and checks it), one object per line with ``id``
and ``generation``, and optionally ``references`` (a list of strings, or one string), ``prompt`` and
``meta``. What a line lacks is taken from the task's
own samples of the split (matched by ``id``), which the caller passes in: references for the
reference-based metrics, prompts (SummaC's document, the classifier inputs) and meta (CommonGen
concepts, ToTTo tables, DailyDialog intents). Output: a results document in the schema of
docs/results_schema.md (so the leaderboard can read it), written atomically, plus optionally the
predictions with their per-sample scores. The document records how many of the split's ids the file
covers; a file that covers only part of the split is refused unless the caller allows it, and is then
written with status "partial", which the leaderboard skips with that reason.

Data of one's own (docs/extending.md): a file whose lines carry their references (and prompts and meta
where its metrics need them) is scored without a task split when its ids are not ids of one: asked for
with `split=none`, or found automatically (none of its ids is in the split, every line has references),
which the command says. Such a result is written under the split name "none" with status "unsplit": a
score of the user's data, not a leaderboard submission, so the board refuses it as it does a partial file.

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

from grue.commands.errors import UsageError
from grue.commands.predictions import Coverage, PredictionsError, read_predictions
from grue.data.sample import Sample
from grue.storage.atomic import atomic_write_json, atomic_write_jsonl
from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers, higher_is_better
from grue.results.schema import SCHEMA_VERSION, validate_results


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


UNSPLIT = "none"  # split=none: the file's own data, no task split
UNSPLIT_STATUS = "unsplit"


def unsplit_reason(rows: Sequence[Mapping[str, Any]], samples: Sequence[Sample] | None) -> str | None:
    """Why a file is scored as data of its own, or None when it belongs to the task's split: none of its
    ids is in the split and every line carries its references."""
    if samples is None or any(row.get("references") is None for row in rows):
        return None
    known = {s.id for s in samples}
    if any(row["id"] in known for row in rows):
        return None
    return "none of its ids is an id of the split and every line carries its references"


def _is_grue_task(task: str) -> bool:
    """Only GRUE's seven tasks have paper numbers to compare with (a user's task file has none)."""
    from tasks import find_task

    spec = find_task(task)
    return spec is not None and spec.grue_task


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
          split_source: str | None = None, device: str = "cpu", scored_predictions: Path | None = None,
          allow_partial: bool = False) -> dict:
    """Score ``predictions`` with ``metrics`` and write the results document to ``out``; returns it.

    ``samples`` are the task's samples of ``split`` (for references, prompts and meta the file lacks);
    ``options`` the metric options of the task and profile; ``split_source`` what the split really is
    (CommonGen/ToTTo "test" is scored on validation). ``algo``/``seed`` label the submission's row.
    A file covering only part of ``samples`` is refused unless ``allow_partial``.
    """
    if split == UNSPLIT:
        rows = read_predictions(predictions)
        lacking = [row["id"] for row in rows if row.get("references") is None]
        if lacking:
            raise PredictionsError(f"{predictions}: split=none scores lines that carry their own references; "
                                   f"id {lacking[0]!r} has none (add \"references\" to every line)")
        samples = None
    else:
        rows = read_predictions(predictions, {s.id for s in samples} if samples is not None else None)
    coverage = Coverage(len(rows), len(samples) if samples is not None else None)
    if coverage.partial and not allow_partial:
        raise PredictionsError(f"{coverage.describe(predictions, split)}; score the whole split, or pass "
                               "--allow-partial to score it anyway (marked partial, left off the leaderboard)")
    inputs = metric_inputs(rows, samples)
    scorers = build_scorers(metrics, MetricContext(device=device, policy=None, options=dict(options or {})))
    values = scorers.compute(inputs)
    digest = hashlib.sha256(Path(predictions).read_bytes()).hexdigest()
    identity = json.dumps({"task": task, "split": split, "metrics": list(metrics), "options": dict(options or {}),
                           "predictions": digest}, sort_keys=True, default=str)
    status = UNSPLIT_STATUS if split == UNSPLIT else "partial" if coverage.partial else "complete"
    doc = {
        "schema_version": SCHEMA_VERSION, "status": status, "task": task, "algo": algo, "profile": profile,
        "seed": int(seed), "reward": None, "init_model": system or f"predictions:{Path(predictions).name}",
        "comparable_to_paper": profile == "paper" and split != UNSPLIT and _is_grue_task(task), "config_hash": hashlib.sha256(identity.encode()).hexdigest(),
        "config": {"source": "grue score", "predictions": str(predictions), "predictions_sha256": digest,
                   "metrics": list(metrics), "metric_options": dict(options or {})},
        "versions": _versions(), "git_commit": None,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "wall_time_s": None,
        "splits": {split: {"source": split_source or {"val": "validation", UNSPLIT: "the predictions file"}.get(split, "test"),
                           "n_samples": len(rows)}},
        "coverage": {split: coverage.as_dict()},
        "metrics": {split: {name: value.corpus for name, value in values.items()}},
        "metrics_unavailable": dict(scorers.unavailable),
        "higher_is_better": {name: higher_is_better(name) for name in values},
    }
    if split == UNSPLIT:
        doc["leaderboard"] = "not a submission: scored without a task split (split=none)"
    # What the board would say of a partial or unsplit file is by design; every other problem is grue's own bug.
    problems = validate_results({**doc, "status": "complete", "coverage": {},
                                 "metrics": {"test" if split == UNSPLIT else split: doc["metrics"][split]}})
    if problems:
        raise ValueError("the scored results do not fit the results schema: " + "; ".join(problems))
    atomic_write_json(Path(out), doc)
    if scored_predictions is not None:
        atomic_write_jsonl(Path(scored_predictions), [
            {**row, "scores": {n: v.per_sample[i] for n, v in values.items() if v.per_sample is not None}}
            for i, row in enumerate(rows)])
    return doc


def _row_labels(args: Sequence[str]) -> tuple[str, int, list[str]]:
    """`algo=` and `seed=` label the board row the scored file stands in (issue 42: they were silently dropped,
    every file scored as seed 0 Zero-Shot). The algorithm must be a registered one, so the board can name and
    group the row; the generations were made elsewhere, so nothing of that algorithm is run or checked."""
    from grue.commands.arguments import split_off
    from grue.train.registry import algorithm_names

    algo, rest = split_off(args, "algo")
    seed, rest = split_off(rest, "seed")
    if algo is not None and algo not in algorithm_names():
        raise UsageError(f"algo={algo!r} is not a registered algorithm; it labels the row the generations stand in "
                         f"for, one of: {', '.join(sorted(algorithm_names()))}")
    if seed is not None and not (seed.isdigit()):
        raise UsageError(f"seed={seed!r} is not a whole number >= 0; it labels the row's seed, e.g. seed=1")
    return algo or "zero_shot", int(seed or 0), rest


def score_command(args: Sequence[str], allow_partial: bool = False) -> None:
    """`grue score task=<task> predictions=<file.jsonl> [split=test] [metrics=a,b] [out=file] [profile=...]`."""
    from grue.commands.arguments import split_off
    from grue.config import load_config
    from grue.run.evaluate import metric_context
    from grue.storage.outputs import check_output_file
    from tasks import get_task

    predictions, rest = split_off(args, "predictions")
    split, rest = split_off(rest, "split")
    metrics, rest = split_off(rest, "metrics")
    out, rest = split_off(rest, "out")
    algo, seed, rest = _row_labels(rest)
    split = split or "test"
    if not predictions or not Path(predictions).is_file():
        raise UsageError(f"grue score needs predictions=<an existing JSONL file>, got {predictions!r}")
    if split not in ("val", "test", UNSPLIT):
        raise UsageError(f"split={split!r} is not one of val, test, none (data of your own)")
    if metrics is not None and not [m for m in metrics.split(",") if m.strip()]:
        raise UsageError("metrics= is empty; name one or more metrics, e.g. metrics=bleu,meteor")
    cfg = load_config([*rest, "algo=zero_shot"] + ([f"eval.metrics=[{metrics}]"] if metrics else []))
    target = Path(out) if out else Path(predictions).with_suffix(".results.json")
    check_output_file(target, [Path(predictions)])  # never the generations themselves (issue 45)
    task = get_task(cfg.task)
    samples = task.loader(cfg)[split] if split != UNSPLIT and task.runnable(cfg.profile) else None
    why = unsplit_reason(read_predictions(Path(predictions)), samples) if samples is not None else None
    if why:
        print(f"{predictions}: {why}: scored as data of its own (split=none), not a leaderboard submission")
        split = UNSPLIT
    hidden = split == "test" and task.test_references_hidden
    doc = score(cfg.task, Path(predictions), split, list(cfg.eval.metrics), target, samples=samples,
                options=metric_context(cfg, None, "cpu").options, profile=cfg.profile,
                split_source="validation" if hidden else None, allow_partial=allow_partial, algo=algo, seed=seed)
    for name, value in sorted(doc["metrics"][split].items()):
        print(f"{name:>16}  {value:.4f}")
    for name, why in doc["metrics_unavailable"].items():
        print(f"{name:>16}  unavailable: {why}")
    if doc["status"] == UNSPLIT_STATUS:
        print("not a leaderboard submission: scored without a task split")
    if doc["status"] == "partial":
        print(f"partial: {Coverage(**doc['coverage'][split]).describe(Path(predictions), split)}; "
              "the leaderboard leaves this file out")
    print(f"wrote {target}")
