"""Writing a bundle archive, and reading one that nothing vouches for.

A bundle comes from someone else, so its archive is read as hostile: before a byte is written, every
member is checked, and one bad member refuses the whole archive. Refused: absolute names, `..`, links
(symbolic or hard), device files, FIFOs and sparse files, anything that is neither a regular file nor a
directory, a name that appears twice, a name that is a file in one member and a directory in another, a
name that is not a file a run has (layout.py), and an archive past the limits below. Accepted members
are written by grue itself (never by `tarfile.extract`), each under the destination, created
exclusively, with plain permissions (the umask's).

Limits (docs/leaderboard.md, "What `grue leaderboard add` checks"): at most MAX_MEMBERS members, a file
at most MAX_FILE_BYTES (MAX_WEIGHT_FILE_BYTES under a run's model/), MAX_BYTES in all, and no more than
MAX_RATIO uncompressed bytes per compressed byte once past RATIO_FLOOR. The archive is read as a stream
(headers first, in one pass that writes nothing; then the members): a size claimed in a header is refused
before its data is read, and a gzip bomb is refused while it is being decompressed, never written out.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import tarfile
import time
import zlib
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Callable, Mapping, Optional

from grue.errors import GrueUserError
from grue.storage.atomic import umask_mode
from grue.storage.run_layout import MODEL

MAX_BYTES = 64 * 2 ** 30  # what a bundle may hold uncompressed (a few models' weights at most)
MAX_MEMBERS = 2_000                    # files and folders (a run has about ten, weights ten more)
MAX_FILE_BYTES = 512 * 2 ** 20         # one file outside model/ (a paper split's predictions are tens of MB)
MAX_WEIGHT_FILE_BYTES = 32 * 2 ** 30   # one file under a run's model/ (a large model's safetensors)
MAX_RATIO = 200                        # uncompressed bytes per compressed byte (JSONL compresses ~10:1)
RATIO_FLOOR = 16 * 2 ** 20             # the ratio is enforced once this much is decompressed
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
    if member.issparse() or member.type == tarfile.GNUTYPE_SPARSE:
        return "a sparse file (a bundle holds plain files only)"
    if not (member.isfile() or member.isdir()):
        return "neither a regular file nor a directory"
    return None


NameCheck = Callable[[str, bool], Optional[str]]  # (normalised name, is a directory) -> why refused, or None


def size_limit(name: str) -> int:
    """The most bytes one member may hold: weights under a run's model/ are larger than anything else."""
    parts = name.split("/")
    return MAX_WEIGHT_FILE_BYTES if len(parts) == 4 and parts[0] == "runs" and parts[2] == MODEL else MAX_FILE_BYTES


def header_problem(member: tarfile.TarInfo, allowed: NameCheck | None = None) -> str | None:
    """Why one member is refused from its header alone (name, kind, place, size), or None."""
    name, why = member_name(member.name)
    why = why or _kind_problem(member)
    if why:
        return f"unsafe archive member {member.name!r}: {why}"
    if allowed is not None:
        why = allowed(name, member.isdir())
        if why:
            return f"archive member {why}"
    if member.isfile() and member.size > size_limit(name):
        return (f"archive member {name!r} holds {member.size} bytes, more than the {size_limit(name)} one file of a "
                "bundle may")
    return None


def member_problems(members: list[tarfile.TarInfo], max_bytes: int = MAX_BYTES,
                    allowed: NameCheck | None = None) -> list[str]:
    """Every reason the archive's members are refused (one line each); empty when all are safe."""
    problems: list[str] = []
    kinds: dict[str, str] = {}
    total = 0
    if len(members) > MAX_MEMBERS:
        problems.append(f"the archive holds {len(members)} members, more than the {MAX_MEMBERS} a bundle may")
    for member in members:
        why = header_problem(member, allowed)
        if why:
            problems.append(why)
            continue
        name, _ = member_name(member.name)
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


class Refused(GrueUserError):
    """A limit crossed while the archive is read; the message is the one-line problem."""


class _Counted(io.RawIOBase):
    """The compressed file, counting what has been read from it."""

    def __init__(self, handle: BinaryIO) -> None:
        self.handle, self.count = handle, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        n = self.handle.readinto(buffer)
        self.count += n or 0
        return n


class _Metered(io.RawIOBase):
    """The decompressed stream, refusing it once it outgrows the compressed bytes by more than MAX_RATIO
    (past RATIO_FLOOR) or outgrows what a bundle may hold at all."""

    def __init__(self, inner: BinaryIO, counted: _Counted, max_bytes: int) -> None:
        self.inner, self.counted, self.max_bytes, self.count = inner, counted, max_bytes, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        data = self.inner.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.count += n
        if self.count > RATIO_FLOOR and self.count > MAX_RATIO * max(self.counted.count, 1):
            raise Refused(f"the archive decompresses to more than {MAX_RATIO} times its compressed size "
                          f"({self.count} bytes from {self.counted.count}, still going): refused as a compression "
                          "bomb, nothing written")
        if self.count > self.max_bytes + 2 ** 20:  # headers and padding beyond the members' bytes
            raise Refused(f"the archive decompresses to more than the {self.max_bytes} bytes a bundle may hold")
        return n


def _open_stream(archive: Path, max_bytes: int) -> tuple[BinaryIO, BinaryIO]:
    """(the file handle to close, the tar stream decompressed and metered)."""
    handle = open(archive, "rb")
    magic = handle.read(6)
    handle.seek(0)
    counted = _Counted(handle)
    raw = io.BufferedReader(counted, 1 << 16)
    if magic[:2] == b"\x1f\x8b":
        inner: BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb")
    elif magic[:3] == b"BZh":
        inner = bz2.BZ2File(raw)
    elif magic == b"\xfd7zXZ\x00":
        inner = lzma.LZMAFile(raw)
    else:
        inner = raw  # a plain tar: its size is its size
    return handle, io.BufferedReader(_Metered(inner, counted, max_bytes), 1 << 16)


def scan(archive: Path, max_bytes: int = MAX_BYTES, allowed: NameCheck | None = None) -> list[str]:
    """Read the archive's headers in one streaming pass, writing nothing; the problems (empty: safe).
    Stops at the first member past a limit, so a claimed size is never read and a bomb never expanded."""
    members: list[tarfile.TarInfo] = []
    handle, stream = _open_stream(archive, max_bytes)
    try:
        with handle, tarfile.open(fileobj=stream, mode="r|") as tar:
            for member in tar:
                members.append(member)
                if len(members) > MAX_MEMBERS:
                    return [f"the archive holds more than the {MAX_MEMBERS} members a bundle may (stopped reading "
                            "there)"]
                why = header_problem(member, allowed)
                if why and "bytes, more than" in why:
                    return [why]
    except Refused as err:
        return [str(err)]
    return member_problems(members, max_bytes, allowed)


def safe_extract(archive: Path, dest: Path, allowed: NameCheck | None = None, max_bytes: int = MAX_BYTES) -> list[str]:
    """Extract `archive` into the empty directory `dest` when every member is safe; else write nothing and
    return the problems. `allowed`: which names a bundle may hold (layout.name_problem)."""
    try:
        problems = scan(archive, max_bytes, allowed)
        if problems:
            return problems
        handle, stream = _open_stream(archive, max_bytes)
        with handle, tarfile.open(fileobj=stream, mode="r|") as tar:
            for member in tar:
                name, _ = member_name(member.name)
                target = dest.joinpath(*name.split("/"))
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                with source, open(target, "xb") as out:  # exclusive: nothing extracted earlier is replaced
                    left = member.size
                    while left > 0:
                        block = source.read(min(left, 1 << 20))
                        if not block:
                            break
                        out.write(block)
                        left -= len(block)
                os.chmod(target, umask_mode())  # plain permissions, as grue writes its own files
    except Refused as err:
        return [str(err)]
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error, lzma.LZMAError) as err:
        return [f"{archive} is not a readable bundle archive: {err}"]
    return []

