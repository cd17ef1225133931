"""Checkpoints that survive being killed mid-write: each is a directory renamed into place, the
newest that loads wins, and a broken one falls back to the previous with a warning."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Callable, Optional

import torch

from grue.errors import GrueUserError
from grue.runtime.process import rng_state, set_rng_state

KEEP = 2


class CheckpointWriteError(GrueUserError, OSError):
    """A checkpoint could not be written (a full disk, mostly); the half-written one is removed."""
SHARDS = "shards"  # a sharded run's weights and optimizer state, one set of files per process


def check_checkpoint_layout(state: dict[str, Any], sharded: bool) -> None:
    """A sharded run's weights are in per-process shard files, an unsharded one's in the state itself."""
    if bool(state.get("sharded", False)) != sharded:
        was, now = ("sharded", "unsharded") if state.get("sharded") else ("unsharded", "sharded")
        raise RuntimeError(f"this run's checkpoint was written {was} and cannot be resumed {now}; run the same "
                           "command with the shard= setting and number of processes it was started with")


def trainable_state(model: torch.nn.Module) -> dict[str, Any]:
    """What a checkpoint keeps of a model: its whole state, or of a LoRA policy only the adapters (the
    frozen base never changes, and is read again from where the run started)."""
    from grue.policy.lora import adapter_state, is_lora

    return adapter_state(model) if is_lora(model) else model.state_dict()


def load_trainable_state(model: torch.nn.Module, state: dict[str, Any]) -> None:
    """The inverse of `trainable_state`: a LoRA policy takes its adapters, and must find all of them."""
    from grue.policy.lora import adapter_state, is_lora

    if not is_lora(model):
        model.load_state_dict(state)
        return
    expected = set(adapter_state(model))
    if set(state) != expected:
        missing, extra = sorted(expected - set(state)), sorted(set(state) - expected)
        raise RuntimeError(f"this checkpoint's policy is not this run's LoRA adapters (missing {missing[:3]}, "
                           f"unexpected {extra[:3]}): was it written with other model.lora settings?")
    model.load_state_dict(state, strict=False)


def _numbered(root: Path) -> list[tuple[int, Path]]:
    found = []
    for path in root.glob("step-*"):
        suffix = path.name.removeprefix("step-")
        if path.is_dir() and suffix.isdigit():
            found.append((int(suffix), path))
    return sorted(found)


def save_checkpoint(root: Path, step: int, state: dict[str, Any]) -> Path:
    return _publish(_fresh_tmp(root, step), root, step, state)


def save_sharded_checkpoint(root: Path, step: int, state: dict[str, Any], write_shards: Callable[[Path], None],
                            main: bool, barrier: Callable[[], None]) -> Path:
    """Every process calls this: each writes its shards of the weights into the new checkpoint's
    `shards/` folder, then the main process adds `state` and publishes the folder as usual. COMPLETE is
    written only once every process has finished its shards, so a checkpoint is never half sharded."""
    if main:
        _fresh_tmp(root, step)
    barrier()
    write_shards(_tmp_dir(root, step) / SHARDS)
    barrier()
    if main:
        _publish(_tmp_dir(root, step), root, step, state)
    barrier()  # nobody moves on (and may resume from it) before it is in place
    return _step_dir(root, step)


def _step_dir(root: Path, step: int) -> Path:
    return root / f"step-{step:06d}"


def _tmp_dir(root: Path, step: int) -> Path:
    return root / f".tmp-step-{step:06d}"


def _fresh_tmp(root: Path, step: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    tmp = _tmp_dir(root, step)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    return tmp


def _publish(tmp: Path, root: Path, step: int, state: dict[str, Any]) -> Path:
    final = _step_dir(root, step)
    try:
        with open(tmp / "state.pt", "wb") as handle:  # fsync: a power cut must not leave a renamed empty file
            torch.save({**state, "rng": rng_state()}, handle)
            handle.flush()
            os.fsync(handle.fileno())
        (tmp / "COMPLETE").write_text("ok\n")
    except (OSError, RuntimeError) as err:
        # torch's zip writer reports a failed write (ENOSPC) as a RuntimeError; anything else is a bug.
        if not isinstance(err, OSError) and "write" not in str(err):
            raise
        shutil.rmtree(tmp, ignore_errors=True)
        why = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise CheckpointWriteError(f"could not write checkpoint {final} ({why}): free space on that disk or choose "
                                   "another output_dir=; the run resumes from its last complete checkpoint") from None
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

            from grue.runtime.console import console

            why = str(err).splitlines()[0].split(". ")[0][:200] if str(err) else type(err).__name__
            console.print(f"[yellow]\\[grue] warning: checkpoint {escape(str(path))} is unreadable ({escape(why)}); "
                          "falling back to the previous one[/]", soft_wrap=True)
            continue
        set_rng_state(state.pop("rng"))
        state["checkpoint_dir"] = str(path)  # where a sharded run's shards are
        return state
    return None


def resume_latest(run: Any, trainer: Any, position: Callable[[], int], key: str, resumed: Callable[[], str]) -> None:
    """Load the run's newest checkpoint into `trainer` (and say where it resumed, `resumed()`), then rewind
    the logs to the position resumed from (`position()` of `key`; 0 when there was no checkpoint), so
    that nothing past it is counted twice. Every training phase starts this way."""
    state = load_latest(run.dir.checkpoints)
    if state:
        trainer.load_state_dict(state)
        run.say(resumed())
    if run.main:
        run.dir.truncate_logs(position(), key=key)
