"""The error of a user's extension: a task file, or a python: reward or metric that cannot be used as it is.

A ConfigError, so the CLI prints it as one `error:` line with exit code 2, like any other bad input:
the user's file or code is the thing to fix, not grue.
"""
from __future__ import annotations

from grue.errors import ConfigError


class ExtensionError(ConfigError):
    """A user's task file, reward or metric is unusable; the message names the file or module and what
    was expected."""
