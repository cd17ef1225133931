"""The one place where an exception becomes what the user sees.

Every error that derives from grue.errors.GrueUserError means a mistake the user can fix (a config value,
a plug-in, a missing asset, a bad input file), and so do the filesystem's refusals (a full disk, a read-only
or mistyped path): each becomes one line, `error: ...`, and exit code 2. Anything else is a bug in grue: its traceback is kept, with a line
asking to report it.
"""
from __future__ import annotations

import errno
from typing import Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from grue.errors import GrueUserError, UsageError  # noqa: F401  (UsageError re-exported for the commands)


# What the filesystem says when a path is wrong, unwritable or full: the user's to fix, not a bug.
_FILESYSTEM_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR,
                      errno.EISDIR, errno.EEXIST, errno.ENOENT, errno.ENAMETOOLONG}


def is_user_error(err: BaseException) -> bool:
    """A mistake the user can fix (grue's own error types, the filesystem's refusals), not a bug."""
    return isinstance(err, GrueUserError) or (isinstance(err, OSError) and err.errno in _FILESYSTEM_ERRNOS)


def one_line(err: BaseException) -> str:
    """The message of a user error; a filesystem error names the path and the setting to change. (Preflight
    and a missing asset list their problems and ways out on a few lines of their own.)"""
    if isinstance(err, OSError) and err.errno in _FILESYSTEM_ERRNOS:  # NotWritable has no errno: own message
        where = f" ({err.filename})" if err.filename else ""
        what = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is exceeded",
                errno.EEXIST: "a file stands where a directory is needed",
                errno.ENOTDIR: "a file stands where a directory is needed"}.get(err.errno, err.strerror or str(err))
        free = "free space or " if err.errno in (errno.ENOSPC, errno.EDQUOT) else ""
        return (f"{what}{where}: {free}choose another location (output_dir= for runs, out= for written files, "
                "GRUE_CACHE for the asset cache)")
    return str(err).strip() or type(err).__name__


def fail(message: str) -> None:
    """Print `error: message` and stop with exit code 2 (refused input, nothing done)."""
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(code=2)


class GrueGroup(TyperGroup):
    """The `grue` command group: every subcommand runs inside its error handling."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException, KeyboardInterrupt, SystemExit):  # typer's own: usage, exit
            raise
        except Exception as err:  # noqa: BLE001 - sorted into the user's mistakes and grue's bugs
            if is_user_error(err):
                fail(one_line(err))
            typer.secho("grue hit an internal error (a bug, not a mistake in your input); please report it "
                        "with the traceback below", fg=typer.colors.RED, err=True)
            raise
