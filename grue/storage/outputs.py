"""Where a command may write: never over one of its own inputs, never into a folder it did not make.

Asked before any work, so a mistyped `out=` costs one line instead of a user's data: `out=` naming
the queries file, the study's answers database or the comparisons being trained on would replace
them with the output; a reward-model `out=` naming the folder that holds the comparisons would
delete them with the old model. A directory grue wrote itself is recognised by its marker file
(e.g. `reward_model.json`) and may be replaced; any other non-empty directory is refused.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from grue.storage.atomic import umask_mode
from grue.storage.writable import NotWritable, check_writable_dir, check_writable_file


def _same_or_inside(path: Path, other: Path) -> bool:
    """`path` is `other` or a folder that contains it (symlinks and relative spellings resolved)."""
    path, other = path.resolve(), other.resolve()
    return path == other or path in other.parents


def refuse_input_as_output(out: Path, inputs: Iterable[Path], setting: str = "out") -> None:
    """NotWritable when `out` is one of `inputs`, or a folder holding one of them."""
    for source in inputs:
        if _same_or_inside(Path(out), Path(source)):
            what = "is" if Path(out).resolve() == Path(source).resolve() else "holds"
            raise NotWritable(f"{setting}={out} {what} the input {source}; writing there would destroy it: "
                             f"choose another {setting}")


def refuse_replacing_inputs(out: Path, inputs: Iterable[Path], setting: str = "out") -> None:
    """As refuse_input_as_output, and also refuse an existing file inside an input folder (a runs
    directory given as input holds files a report must not replace)."""
    inputs = list(inputs)
    refuse_input_as_output(out, inputs, setting)
    for source in inputs:
        if Path(out).is_file() and Path(source).is_dir() and Path(source).resolve() in Path(out).resolve().parents:
            raise NotWritable(f"{setting}={out} is a file inside the input {source}; writing there would replace "
                              f"it: choose another {setting}")


def check_output_file(out: Path, inputs: Iterable[Path], setting: str = "out") -> None:
    """`out` may be written as a file: not an input, not a directory, in a writable folder."""
    refuse_input_as_output(out, inputs, setting)
    check_writable_file(Path(out), setting)


def _written_by_grue(out: Path, markers: tuple[str, ...]) -> bool:
    """`out` holds one of `markers`: a file name, or a glob pattern for outputs named per run (`*.tar.gz`)."""
    return any(next(out.glob(marker), None) is not None for marker in markers)


def check_output_dir(out: Path, inputs: Iterable[Path], marker: str | tuple[str, ...], setting: str = "out") -> None:
    """`out` may be (re)written as a directory of grue's: not an input nor holding one, writable, and
    either absent, empty, or a directory grue wrote before (it holds `marker`, or one of several: a
    file name or glob pattern each)."""
    out = Path(out)
    markers = (marker,) if isinstance(marker, str) else tuple(marker)
    refuse_input_as_output(out, inputs, setting)
    if out.exists() and not out.is_dir():
        raise NotWritable(f"{setting}={out}: {out} is a file, not a directory; choose another {setting}")
    if out.is_dir() and any(out.iterdir()) and not _written_by_grue(out, markers):
        names = sorted(p.name for p in out.iterdir())
        shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        raise NotWritable(f"{setting}={out} is a directory grue did not write (it holds {shown}; no "
                          f"{' or '.join(markers)}); grue writes only into its own output: choose a new {setting} "
                          "or empty that directory")
    check_writable_dir(out, setting)


def replace_directory(out: Path, write: Callable[[Path], None]) -> None:
    """Write a directory with `write(tmp)` beside `out`, then swap it into place: until the swap, the
    old `out` stays whole; the swap itself is two renames, with the old copy kept as `.<name>.old`
    between them and deleted only once the new one is in place."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    tmp.chmod(umask_mode(directory=True))  # mkdtemp's 0700 would hide the model from colleagues
    try:
        write(tmp)
        old = out.parent / f".{out.name}.old"
        if old.exists():
            shutil.rmtree(old)
        if out.exists():
            os.replace(out, old)
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
