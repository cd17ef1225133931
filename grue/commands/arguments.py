"""A command's own `key=value` arguments, taken out before the rest goes to the config."""
from __future__ import annotations

from typing import Sequence


def split_off(args: Sequence[str], key: str) -> tuple[str | None, list[str]]:
    """The value of `key=...` (the last one given, None when absent) and the other arguments."""
    value, rest = None, []
    for arg in args:
        if arg.startswith(f"{key}="):
            value = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return value, rest
