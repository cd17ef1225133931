"""`grue leaderboard bundle`: finished runs to submission archives, one per setting.

A setting is what a board row is (task, profile, algorithm, reward, initial model and the config
without its seed; grue/board/numbers/setting.py), so a bundle holds the seeds of one row. Per seed it
carries what a board needs to check the numbers without the model: `results.json`, `config.yaml`,
`config_hash.txt`, the predictions of every reported split and the logs (curves, sample tables). The
bundle adds the setting's model card (`README.md`), the environment (`environment.json`: each run's
recorded versions and git commit, and the bundling machine's) and `manifest.json` (every file's
SHA-256 and size; manifest.py). Weights stay out unless asked for (`weights=yes` adds each seed's
`model/`); `published=<hub id or URL>` records where they can be fetched instead.

A bundle carries no path of the machine that made it: in each seed's `config.yaml` and `results.json`
(and the card made from them) `output_dir` becomes `runs`, `task_file` its file name, and a warm start's
`init_model` `runs/<its first run>/model`. None of them is hashed (the config hash stays the recorded
one); `grue leaderboard add` refuses a bundle that still carries them absolute (screen.py).
"""
from __future__ import annotations

import datetime as dt
import json
import platform
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable, Sequence

from grue.board.numbers.collect import Run, Skipped, collect
from grue.board.submit.archive import write_archive
from grue.board.submit.layout import RUN_FILES
from grue.board.submit.manifest import (CARD, ENVIRONMENT, FORMAT, FORMAT_VERSION, MANIFEST, RUN_NAME, RUNS,
                                        file_entry)
from grue.errors import UsageError
from grue.results.model_card import render_model_card, setting_of
from grue.storage.run_layout import EVAL_LOG, SAMPLES_LOG, TRAIN_LOG, config_file, model_dir, predictions_name

SUFFIX = ".grue.tar.gz"
LOG_FILES = (TRAIN_LOG, EVAL_LOG, SAMPLES_LOG)
PACKAGES = ("grue", "torch", "transformers", "accelerate", "datasets", "tokenizers", "sacrebleu", "rouge-score",
            "nltk", "bert-score", "numpy")


@dataclass
class Bundle:
    """One written archive: where, which setting, which seeds."""

    path: Path
    setting: dict[str, Any]
    seeds: list[int]
    files: int = 0
    notes: list[str] = field(default_factory=list)


_RUN_MODEL = re.compile(r"(?:^|.*[/\\])(?P<run>[^/\\]+-seed\d+-[0-9a-f]{8})[/\\]model[/\\]?$")
PORTABLE_OUTPUT_DIR = RUNS


def portable_config(config: dict[str, Any]) -> dict[str, Any]:
    """The config without the bundling machine's paths (`output_dir`, `task_file`; neither is hashed)."""
    out = dict(config)
    if "output_dir" in out:
        out["output_dir"] = PORTABLE_OUTPUT_DIR
    if isinstance(out.get("task_file"), str):
        out["task_file"] = re.split(r"[/\\]", out["task_file"])[-1]
    return out


def portable_results(doc: dict[str, Any]) -> dict[str, Any]:
    """The results document with its config portable and a warm start's `init_model` relative."""
    out = dict(doc)
    if isinstance(out.get("config"), dict):
        out["config"] = portable_config(out["config"])
    match = _RUN_MODEL.match(str(out.get("init_model") or ""))
    if match:
        out["init_model"] = f"{PORTABLE_OUTPUT_DIR}/{match['run']}/model"
    return out


def _portable_files(run: Run) -> tuple[bytes, bytes, dict[str, Any]]:
    """(results.json, config.yaml, the results document) of one run as the bundle carries them."""
    import yaml

    doc = portable_results(run.doc)
    config = yaml.safe_load(config_file(run.path).read_text(encoding="utf-8"))
    config = portable_config(config) if isinstance(config, dict) else config
    return ((json.dumps(doc, indent=2) + "\n").encode("utf-8"),
            yaml.safe_dump(config, sort_keys=False, allow_unicode=True).encode("utf-8"), doc)


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def environment(runs: Sequence[Run]) -> dict[str, Any]:
    """What each run recorded about its software, and what bundled it."""
    return {"runs": {run.path.name: {"versions": run.doc.get("versions"), "git_commit": run.doc.get("git_commit"),
                                     "created": run.doc.get("created"), "wall_time_s": run.doc.get("wall_time_s")}
                     for run in runs},
            "bundled_by": {"python": platform.python_version(), "platform": platform.platform(),
                           "packages": {p: _version(p) for p in PACKAGES}}}


def _is_grue_run(run: Run) -> str | None:
    """Why a counted results document cannot be bundled, or None."""
    config = run.doc.get("config")
    if not isinstance(config, dict) or not config:
        return "its results.json records no config, so a board cannot check it"
    if config.get("source") == "grue score":
        return ("a `grue score` document (generations scored without a run): bundles carry runs; "
                "`grue run algo=zero_shot model.policy=<model>` makes one")
    return None


def setting_fields(doc: dict[str, Any]) -> dict[str, Any]:
    task, profile, algo, reward, init_model, setting = setting_of(doc)
    return {"task": task, "profile": profile, "algo": algo, "reward": reward or None, "init_model": init_model,
            "setting": setting}


def _run_files(run: Run, weights: bool) -> tuple[dict[str, Path], list[str]]:
    """Archive name -> file of one run, and what is missing."""
    prefix = f"{RUNS}/{run.path.name}"
    files, missing = {}, []
    wanted = [*RUN_FILES, *(predictions_name(split) for split in run.doc["metrics"])]
    for name in wanted:
        path = run.path / name
        if path.is_file():
            files[f"{prefix}/{name}"] = path
        else:
            missing.append(f"{run.path}: no {name}")
    for name in LOG_FILES:
        if (run.path / name).is_file():
            files[f"{prefix}/{name}"] = run.path / name
    if weights:
        model = model_dir(run.path)
        if not model.is_dir():
            missing.append(f"{run.path}: no model/ to include (weights=yes; a zero-shot run saves none: "
                           "bundle it without weights)")
        else:
            for path in sorted(p for p in model.rglob("*") if p.is_file()):
                if path.is_symlink():
                    missing.append(f"{path}: a link; copy the file itself into model/")
                files[f"{prefix}/model/{path.relative_to(model).as_posix()}"] = path
    return files, missing


def _archive_name(setting: dict[str, Any]) -> str:
    return f"{setting['task']}-{setting['profile']}-{setting['algo']}-{setting['setting'] or 'unrecorded'}{SUFFIX}"


def plan(paths: Iterable[Path]) -> tuple[dict[tuple, list[Run]], list[Skipped]]:
    """The runs under `paths` grouped by setting, and the directories left out (with why)."""
    found = collect(list(paths))
    skipped = list(found.skipped)
    groups: dict[tuple, list[Run]] = {}
    for run in found.runs:
        why = _is_grue_run(run)
        if why:
            skipped.append(Skipped(run.path, (why,)))
            continue
        groups.setdefault(setting_of(run.doc), []).append(run)
    return groups, skipped


def write_bundle(runs: Sequence[Run], target: Path, weights: bool = False, published: str | None = None) -> Bundle:
    """One setting's archive at `target`."""
    runs = sorted(runs, key=lambda r: r.seed)
    files: dict[str, Path | bytes] = {}
    problems = []
    docs, configs = [], []
    for run in runs:
        if not RUN_NAME.fullmatch(run.path.name):
            problems.append(f"{run.path}: a run directory name a bundle cannot carry (letters, digits, . _ - only)")
        run_files, missing = _run_files(run, weights)
        files.update(run_files)
        problems += missing
        if not missing:
            results, config_yaml, doc = _portable_files(run)
            files[f"{RUNS}/{run.path.name}/results.json"] = results
            files[f"{RUNS}/{run.path.name}/config.yaml"] = config_yaml
            docs.append(doc)
            configs.append(config_yaml.decode("utf-8"))
    if problems:
        raise UsageError("cannot bundle: " + "; ".join(problems))
    setting = setting_fields(runs[0].doc)
    first = runs[0].path
    where = published or (f"{RUNS}/{first.name}/model" if weights else "<this run's model/ directory>")
    card = render_model_card(docs, config_yaml=configs[0],
                             name=f"{setting['task']}-{setting['profile']}-{setting['algo']}-{setting['setting']}",
                             where=where)
    if not weights and not published:
        card += ("\n> This bundle carries no weights (predictions, configs and results only); the board re-scores "
                 "the predictions without them.\n")
    files[CARD] = card.encode("utf-8")
    files[ENVIRONMENT] = (json.dumps(environment(runs), indent=2, sort_keys=True) + "\n").encode("utf-8")
    manifest = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "grue": _version("grue"),
        "setting": setting,
        "seeds": [{"seed": r.seed, "run": f"{RUNS}/{r.path.name}", "config_hash": r.doc.get("config_hash")}
                  for r in runs],
        # every seed of the setting found (all bundled): a board refuses a bundle missing a declared one (claims.py)
        "declared_seeds": sorted(r.seed for r in runs),
        "model": {"included": bool(weights), "published": published},
        "files": {name: file_entry(source) for name, source in sorted(files.items())},
    }
    files[MANIFEST] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode("utf-8")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_archive(target, files)
    return Bundle(target, setting, [r.seed for r in runs], len(files))


def bundle_runs(paths: Sequence[Path], out: Path, weights: bool = False,
                published: str | None = None) -> tuple[list[Bundle], list[Skipped]]:
    """Write one archive per setting found under `paths`: into the folder `out`, or as the file `out`
    (a name ending in .tar.gz or .tgz) when they hold one setting."""
    groups, skipped = plan(paths)
    if not groups:
        raise UsageError(f"no finished run to bundle under {', '.join(map(str, paths))}"
                         + ("".join(f"; {s.path}: {'; '.join(s.reasons)}" for s in skipped[:5])))
    out = Path(out)
    as_file = out.name.endswith((".tar.gz", ".tgz"))
    if as_file and len(groups) > 1:
        names = ", ".join(_archive_name(setting_fields(runs[0].doc)) for runs in groups.values())
        raise UsageError(f"out={out} names one file, but the runs hold {len(groups)} settings ({names}); give a "
                         "folder (one archive per setting)")
    written = []
    for runs in groups.values():
        target = out if as_file else out / _archive_name(setting_fields(runs[0].doc))
        written.append(write_bundle(runs, target, weights, published))
    return written, skipped
