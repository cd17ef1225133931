"""Checkpoints that survive being killed mid-write: each is a directory renamed into place, the
newest that loads wins, and a broken one falls back to the previous with a warning."""
from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any, Optional

import torch

from grue.runtime import rng_state, set_rng_state

KEEP = 2


def _numbered(root: Path) -> list[tuple[int, Path]]:
    found = []
    for path in root.glob("step-*"):
        suffix = path.name.removeprefix("step-")
        if path.is_dir() and suffix.isdigit():
            found.append((int(suffix), path))
    return sorted(found)


def save_checkpoint(root: Path, step: int, state: dict[str, Any]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"step-{step:06d}"
    tmp = root / f".tmp-step-{step:06d}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    torch.save({**state, "rng": rng_state()}, tmp / "state.pt")
    (tmp / "COMPLETE").write_text("ok\n")
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    for _, old in _numbered(root)[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def load_latest(root: Path) -> Optional[dict[str, Any]]:
    """The newest complete checkpoint's state (RNG restored), or None when there is none."""
    for step, path in reversed(_numbered(root)):
        try:
            if not (path / "COMPLETE").exists():
                raise ValueError("incomplete")
            state = torch.load(path / "state.pt", map_location="cpu", weights_only=False)
        except Exception as err:  # noqa: BLE001 - any unreadable checkpoint is skipped, loudly
            warnings.warn(f"checkpoint {path.name} is unreadable ({err}); falling back to the previous one")
            continue
        set_rng_state(state.pop("rng"))
        return state
    return None
