"""The files a bundle may place on a board: those a run legitimately has, and nothing else.

A board is a folder other tools read (a web server, a git host, `grue leaderboard export`), so what a
bundle places there is fixed by name, whatever its manifest lists: a `.py` file, a second `results.json`
in a sub-folder or a forged `verification.json` never arrives. Per run (`runs/<run>/`):

    results.json, config.yaml, config_hash.txt     the results and the resolved config
    predictions/<split>.jsonl                     generations of a split the results report
    logs/<name>.jsonl                             training and evaluation logs, sample tables
    model/<file>                                  weights=yes only: safetensors, JSON, tokenizer files

and at the bundle's root `manifest.json`, `README.md` (the model card) and `environment.json`.
The names are checked from the archive's headers, before anything is unpacked (archive.py), and again
against the manifest (which runs it lists, whether weights are included) once it is read.
"""
from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

from grue.board.submit.manifest import CARD, ENVIRONMENT, MANIFEST, RUN_NAME, RUNS
from grue.storage.run_layout import CONFIG, CONFIG_HASH, LOGS, MODEL, PREDICTIONS, RESULTS, predictions_name

ROOT_FILES = (MANIFEST, CARD, ENVIRONMENT)
RUN_FILES = (RESULTS, CONFIG, CONFIG_HASH)
RUN_FOLDERS = (PREDICTIONS, LOGS, MODEL)
# Files a model directory may hold when its weights are used to re-score: no pickles, no code.
SAFE_MODEL_SUFFIXES = (".json", ".safetensors", ".txt", ".model", ".md", ".jinja", ".tiktoken")
_SPLIT_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*\.jsonl")
_LOG_FILE = re.compile(r"[a-z0-9][a-z0-9_-]*\.jsonl")
_MODEL_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
WHAT_A_RUN_HAS = ("a run has results.json, config.yaml, config_hash.txt, predictions/<split>.jsonl, "
                  "logs/<name>.jsonl and, with weights=yes, model/ weights (safetensors, JSON, tokenizer files)")


def _run_part(parts: list[str]) -> str | None:
    """Why the part of a name below runs/<run>/ is not something a run has, or None."""
    if len(parts) == 1:
        return None if parts[0] in RUN_FILES or parts[0] in RUN_FOLDERS else "not a file a run has"
    if len(parts) != 2 or parts[0] not in RUN_FOLDERS:
        return "not a file a run has (nothing is nested deeper in a run)"
    folder, leaf = parts
    if folder == PREDICTIONS:
        return None if _SPLIT_FILE.fullmatch(leaf) else "not a predictions file (predictions/<split>.jsonl)"
    if folder == LOGS:
        return None if _LOG_FILE.fullmatch(leaf) else "not a log a run writes (logs/<name>.jsonl)"
    if not _MODEL_FILE.fullmatch(leaf) or not leaf.endswith(SAFE_MODEL_SUFFIXES):
        return "not a file grue loads from a bundle's model/ (safetensors, JSON, tokenizer files; no code or pickles)"
    return None


def name_problem(name: str, is_dir: bool) -> str | None:
    """Why a normalised archive name is not one a bundle may hold, or None. Directories are the folders
    that hold the allowed files; files are the allowed files themselves."""
    parts = name.split("/")
    if parts[0] != RUNS:
        return None if (not is_dir and len(parts) == 1 and name in ROOT_FILES) else (
            f"{name!r} is not a file a bundle holds ({', '.join(ROOT_FILES)} and {RUNS}/<run>/...)")
    if len(parts) == 1:
        return None if is_dir else f"{name!r} is not a file a bundle holds"
    if not RUN_NAME.fullmatch(parts[1]):
        return f"{name!r}: not a run directory name a bundle can carry (letters, digits, . _ - only)"
    if len(parts) == 2:
        return None if is_dir else f"{name!r} is not a file a bundle holds ({WHAT_A_RUN_HAS})"
    if is_dir:
        return None if len(parts) == 3 and parts[2] in RUN_FOLDERS else (
            f"{name!r}: not a folder a run has ({', '.join(RUN_FOLDERS)})")
    why = _run_part(parts[2:])
    return f"{name!r}: {why}; {WHAT_A_RUN_HAS}" if why else None


def layout_problems(names: Iterable[str], manifest: Mapping[str, Any]) -> list[str]:
    """Listed names a bundle may not hold, files of runs the manifest does not list as seeds, and weights in a
    bundle that says it has none."""
    seeds = {entry["run"] for entry in manifest["seeds"]}
    included = bool(manifest["model"]["included"])
    problems = []
    for name in sorted(names):
        why = name_problem(name, False)  # as from the archive's headers, for what the manifest lists
        if why:
            problems.append(f"{MANIFEST} lists {why}")
            continue
        parts = name.split("/")
        if parts[0] != RUNS or len(parts) < 3:
            continue
        run = "/".join(parts[:2])
        if run not in seeds:
            problems.append(f"{name}: {run} is not a seed the manifest lists (a bundle carries its seeds' files only)")
        elif parts[2] == MODEL and not included:
            problems.append(f"{name}: the manifest says the bundle carries no weights, yet it holds model/ files")
    return problems


def reported_split_problems(run: str, names: Iterable[str], reported: Iterable[str]) -> list[str]:
    """Predictions of splits the run's results do not report: files a board would place unchecked."""
    wanted = {f"{run}/{predictions_name(split)}" for split in reported}
    return [f"{name}: a split the results do not report; its generations would be placed unchecked"
            for name in sorted(names) if name.startswith(f"{run}/{PREDICTIONS}/") and name not in wanted]
