"""Build a cached asset exactly once, even when several runs of a sweep ask for it at the same time.

The first process takes a lock per asset and builds into a private temporary directory that is
renamed into place; the others wait on the lock and then find the finished directory. A builder killed
outright (`kill -9`, the machine's OOM killer) cannot clean its temporary directory; the lock is the kernel's
and dies with it, so the next builder, holding the lock, knows any temporary directory of this target is
such a leftover and removes it. Everything built
gets the permissions the user's umask gives a plain file or folder: a builder that writes through
temporary files of its own (0600) would otherwise hide the asset from colleagues sharing GRUE_CACHE.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Callable

from grue.storage.atomic import umask_mode
from grue.storage.lock import RunLock


def build_once(target: Path, build: Callable[[Path], None], marker: str = "config.json") -> Path:
    if (target / marker).exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with RunLock(target.parent / f".{target.name}.lock"):
        if (target / marker).exists():  # built by another process while this one waited
            return target
        _remove_leftovers(target)
        tmp = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}."))
        tmp.chmod(umask_mode(directory=True))  # mkdtemp's 0700 would lock colleagues out of a shared cache
        try:
            build(tmp)
            _share(tmp)
            shutil.rmtree(target, ignore_errors=True)
            tmp.rename(target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def _remove_leftovers(target: Path) -> None:
    """Remove the temporary directories of killed builds of `target` (call holding its lock). Only names
    mkdtemp gives this target's prefix: `.<name>.` and 8 characters without a dot, so the temporary directory
    of a sibling target whose name starts with this one's (`<name>.v2`, built under its own lock) is left alone."""
    own = re.compile(rf"\.{re.escape(target.name)}\.[A-Za-z0-9_]{{8}}")
    for path in target.parent.iterdir():
        if own.fullmatch(path.name) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)


def _share(root: Path) -> None:
    """Give every file and folder under `root` the umask's permissions (what open() and mkdir() give)."""
    file_mode, dir_mode = umask_mode(), umask_mode(directory=True)
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            os.chmod(os.path.join(folder, name), dir_mode)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, file_mode | (os.stat(path).st_mode & 0o111 & dir_mode))  # keep execute bits
