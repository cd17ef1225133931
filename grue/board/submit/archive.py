"""Writing a bundle archive, and reading one that nothing vouches for.

A bundle comes from someone else, so its archive is read as hostile: before a byte is written, every
member is checked, and one bad member refuses the whole archive. Refused: absolute names, `..`, links
(symbolic or hard), device files and FIFOs, anything that is neither a regular file nor a directory,
a name that appears twice, a name that is a file in one member and a directory in another, and more
uncompressed bytes than a bundle may hold. Accepted members are written by grue itself (never by
`tarfile.extract`), each under the destination, created exclusively, with plain permissions (the umask's).
"""
from __future__ import annotations

import io
import os
import re
import shutil
import tarfile
import time
from pathlib import Path, PurePosixPath
from typing import Mapping

from grue.storage.atomic import umask_mode

MAX_BYTES = 64 * 2 ** 30  # what a bundle may hold uncompressed (a few models' weights at most)
_DRIVE = re.compile(r"^[A-Za-z]:")


def write_archive(path: Path, files: Mapping[str, Path | bytes]) -> None:
    """A gzip'd tar of `files` (archive name -> a file to copy, or bytes), written atomically."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    now = int(time.time())
    try:
        with tarfile.open(tmp, "w:gz", format=tarfile.PAX_FORMAT) as tar:
            for name in sorted(files):
                source = files[name]
                info = tarfile.TarInfo(name)
                info.mode, info.mtime, info.uid, info.gid, info.uname, info.gname = 0o644, now, 0, 0, "", ""
                if isinstance(source, bytes):
                    info.size = len(source)
                    tar.addfile(info, io.BytesIO(source))
                else:
                    info.size = Path(source).stat().st_size
                    with open(source, "rb") as handle:
                        tar.addfile(info, handle)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def member_name(name: str) -> tuple[str, str | None]:
    """(the member's normalised name, or why the name is refused)."""
    if not name or name.startswith(("/", "\\")) or _DRIVE.match(name) or "\\" in name or "\x00" in name:
        return name, "an absolute or non-POSIX path"
    parts = [p for p in PurePosixPath(name).parts if p not in ("", ".")]
    if ".." in parts:
        return name, "a path that climbs out of the bundle (..)"
    if not parts:
        return name, "an empty path"
    return "/".join(parts), None


def _kind_problem(member: tarfile.TarInfo) -> str | None:
    if member.issym() or member.islnk():
        return f"a link (to {member.linkname!r})"
    if member.ischr() or member.isblk():
        return "a device file"
    if member.isfifo():
        return "a FIFO"
    if not (member.isfile() or member.isdir()):
        return "neither a regular file nor a directory"
    return None


def member_problems(members: list[tarfile.TarInfo], max_bytes: int = MAX_BYTES) -> list[str]:
    """Every reason the archive's members are refused (one line each); empty when all are safe."""
    problems: list[str] = []
    kinds: dict[str, str] = {}
    total = 0
    for member in members:
        name, why = member_name(member.name)
        why = why or _kind_problem(member)
        if why:
            problems.append(f"unsafe archive member {member.name!r}: {why}")
            continue
        kind = "directory" if member.isdir() else "file"
        if name in kinds and not (kind == kinds[name] == "directory"):
            problems.append(f"archive member {name!r} appears twice (a later copy would replace the first)")
        kinds[name] = kind
        total += member.size if member.isfile() else 0
    for name, kind in kinds.items():
        parent = str(PurePosixPath(name).parent)
        while parent not in (".", ""):
            if kinds.get(parent) == "file":
                problems.append(f"archive member {parent!r} is a file and also holds {name!r} as a directory")
                break
            parent = str(PurePosixPath(parent).parent)
    if total > max_bytes:
        problems.append(f"the archive holds {total} bytes uncompressed, more than the {max_bytes} a bundle may")
    return problems


def safe_extract(archive: Path, dest: Path, max_bytes: int = MAX_BYTES) -> list[str]:
    """Extract `archive` into the empty directory `dest` when every member is safe; else write nothing and
    return the problems."""
    try:
        with tarfile.open(archive, "r:*") as tar:
            members = tar.getmembers()
            problems = member_problems(members, max_bytes)
            if problems:
                return problems
            for member in members:
                name, _ = member_name(member.name)
                target = dest.joinpath(*name.split("/"))
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                with source, open(target, "xb") as out:  # exclusive: nothing extracted earlier is replaced
                    shutil.copyfileobj(source, out)
                os.chmod(target, umask_mode())  # plain permissions, as grue writes its own files
    except (tarfile.TarError, EOFError, OSError, ValueError) as err:
        return [f"{archive} is not a readable bundle archive: {err}"]
    return []
