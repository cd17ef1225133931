"""The ground floor of grue's errors: what a user can fix, as one type.

Every error that means a mistake in the user's input — a config value, a plug-in, a command's arguments,
an input file, a missing asset, a busy or unwritable run directory — derives from `GrueUserError`. The CLI
(grue/commands/errors.py) shows any of them as one `error:` line with exit code 2, and everything else as
a bug with its traceback; no list of class names is kept anywhere, so a new error type only has to say
which kind it is. This module imports nothing of grue, so any floor may raise these without pulling in
the CLI.
"""
from __future__ import annotations


class GrueUserError(Exception):
    """A mistake the user can fix; its message says what was wrong and what to do."""


class UsageError(GrueUserError, ValueError):
    """A command's own arguments or input files are wrong (the config's are ConfigError)."""


class ConfigError(GrueUserError, ValueError):
    """A bad command-line or task value (grue/config/load.py checks them); named here so that a layer below
    the config (a plug-in's metric, the LoRA wrapper, a tracker) can raise it without importing the loader."""
