"""A bundle's manifest: what the bundle claims to hold, each file with its SHA-256 and size.

`manifest.json` sits at the root of the archive:

    {"format": "grue-submission", "format_version": 1, "created": "...", "grue": "0.1.0",
     "setting": {"task": "imdb", "profile": "mini", "algo": "ppo", "reward": "sentiment",
                 "init_model": "...", "setting": "<12 hex: the config without its seed>"},
     "seeds": [{"seed": 0, "run": "runs/imdb-mini-ppo-seed0-8684ba49", "config_hash": "8684ba49..."}, ...],
     "model": {"included": false, "published": null},
     "files": {"runs/imdb-mini-ppo-seed0-8684ba49/results.json": {"sha256": "...", "bytes": 1234}, ...}}

Checksums catch a file damaged or edited after bundling; they are no signature (whoever edits a file
can write its new checksum), which is why verification re-derives every number it can (verify.py).
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Mapping

FORMAT = "grue-submission"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
CARD = "README.md"
ENVIRONMENT = "environment.json"
RUNS = "runs"  # runs/<run name>/... inside the archive
SETTING_KEYS = ("task", "profile", "algo", "reward", "init_model", "setting")
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SHA256 = re.compile(r"[0-9a-f]{64}")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_entry(source: Path | bytes) -> dict[str, Any]:
    if isinstance(source, bytes):
        return {"sha256": hashlib.sha256(source).hexdigest(), "bytes": len(source)}
    return {"sha256": sha256_of(Path(source)), "bytes": Path(source).stat().st_size}


def manifest_problems(doc: Any) -> list[str]:
    """What is wrong with a loaded manifest's shape (one line each); empty when it can be used."""
    if not isinstance(doc, dict):
        return [f"{MANIFEST} is not a JSON object"]
    problems = []
    if doc.get("format") != FORMAT:
        problems.append(f"{MANIFEST}: format is {doc.get('format')!r}, not {FORMAT!r}")
    if doc.get("format_version") != FORMAT_VERSION:
        problems.append(f"{MANIFEST}: format_version {doc.get('format_version')!r} is not {FORMAT_VERSION} "
                        "(made by another grue; bundle it again with this one)")
    setting = doc.get("setting")
    if not isinstance(setting, dict) or any(k not in setting for k in SETTING_KEYS):
        problems.append(f"{MANIFEST}: 'setting' must name {', '.join(SETTING_KEYS)}")
    seeds = doc.get("seeds")
    if not isinstance(seeds, list) or not seeds:
        problems.append(f"{MANIFEST}: 'seeds' must list the bundle's runs")
    else:
        for entry in seeds:
            run = entry.get("run") if isinstance(entry, dict) else None
            name = run[len(RUNS) + 1:] if isinstance(run, str) and run.startswith(f"{RUNS}/") else ""
            if not RUN_NAME.fullmatch(name) or not isinstance(entry.get("seed"), int):
                problems.append(f"{MANIFEST}: seed entry {entry!r} needs an integer 'seed' and a 'run' "
                                f"of the form {RUNS}/<run name>")
    files = doc.get("files")
    if not isinstance(files, dict) or not files:
        problems.append(f"{MANIFEST}: 'files' must map each file of the bundle to its sha256 and size")
    else:
        from grue.board.submit.archive import member_name

        for name, entry in files.items():
            normal, why = member_name(name)
            if why or normal != name or name == MANIFEST:
                problems.append(f"{MANIFEST}: {name!r} is not a file name a bundle can hold ({why or 'not normalised'})")
                continue
            if not (isinstance(entry, dict) and isinstance(entry.get("sha256"), str)
                    and _SHA256.fullmatch(entry["sha256"]) and isinstance(entry.get("bytes"), int)):
                problems.append(f"{MANIFEST}: the entry of {name!r} needs a sha256 (64 hex digits) and a size in bytes")
    model = doc.get("model")
    if not isinstance(model, dict) or not isinstance(model.get("included"), bool):
        problems.append(f"{MANIFEST}: 'model' must say whether weights are included")
    return problems


def listed_file_problems(root: Path, files: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Each listed file present as a regular file with its size and checksum; every file present is listed."""
    problems = []
    for name, entry in sorted(files.items()):
        path = root.joinpath(*name.split("/"))
        if path.is_dir():
            problems.append(f"{name} is a directory in the bundle, where the manifest lists a file")
        elif not path.is_file():
            problems.append(f"{name} is listed in the manifest but missing from the bundle")
        elif path.stat().st_size != entry["bytes"]:
            problems.append(f"checksum mismatch: {name} has {path.stat().st_size} bytes, the manifest says "
                            f"{entry['bytes']} (the file changed after bundling)")
        elif sha256_of(path) != entry["sha256"]:
            problems.append(f"checksum mismatch: {name} does not match its sha256 in the manifest "
                            "(the file changed after bundling)")
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        name = path.relative_to(root).as_posix()
        if name != MANIFEST and name not in files:
            problems.append(f"{name} is in the bundle but not in its manifest")
    return problems
