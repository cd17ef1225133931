"""Checkpoints that survive being killed mid-write: each is a directory renamed into place, the
newest that loads wins, and a broken one falls back to the previous with a warning."""
from __future__ import annotations

import os
import shutil
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
    with open(tmp / "state.pt", "wb") as handle:  # fsync: a power cut must not leave a renamed empty file
        torch.save({**state, "rng": rng_state()}, handle)
        handle.flush()
        os.fsync(handle.fileno())
    (tmp / "COMPLETE").write_text("ok\n")
    shutil.rmtree(final, ignore_errors=True)
    tmp.rename(final)
    for _, old in _numbered(root)[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def latest_step(root: Path) -> Optional[Path]:
    """The newest checkpoint directory on disk (whether it loads is load_latest's business)."""
    found = _numbered(root)
    return found[-1][1] if found else None


def load_latest(root: Path) -> Optional[dict[str, Any]]:
    """The newest complete checkpoint's state (RNG restored), or None when there is none."""
    for step, path in reversed(_numbered(root)):
        try:
            if not (path / "COMPLETE").exists():
                raise ValueError("incomplete")
            state = torch.load(path / "state.pt", map_location="cpu", weights_only=False)
        except Exception as err:  # noqa: BLE001 - any unreadable checkpoint is skipped, loudly
            from rich.markup import escape

            from grue.display import console

            why = str(err).splitlines()[0].split(". ")[0][:200] if str(err) else type(err).__name__
            console.print(f"[yellow]\\[grue] warning: checkpoint {escape(str(path))} is unreadable ({escape(why)}); "
                          "falling back to the previous one[/]", soft_wrap=True)
            continue
        set_rng_state(state.pop("rng"))
        return state
    return None
