"""A command's own `key=value` arguments, parsed one way for every command.

Two shapes of command exist: those whose arguments are all their own (`grue human report`,
`grue label export-csv`), where any other key is a typo to refuse, and those that also take run-config
overrides (`grue label train`, `grue eval`), where the rest goes to the config loader, which refuses
unknown keys itself. Either way no argument is ever silently ignored, and a refusal names the closest
valid key.
"""
from __future__ import annotations

import difflib
from typing import Iterable, Optional, Sequence

from grue.commands.errors import UsageError


def split_off(args: Sequence[str], key: str) -> tuple[str | None, list[str]]:
    """The value of `key=...` (the last one given, None when absent) and the other arguments."""
    value, rest = None, []
    for arg in args:
        if arg.startswith(f"{key}="):
            value = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    return value, rest


def _pair(arg: str) -> tuple[str, str]:
    key, sep, value = arg.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"expected key=value, got {arg!r}")
    return key.strip(), value


def _unknown(key: str, allowed: Iterable[str], config_too: bool) -> UsageError:
    allowed = sorted(allowed)
    near = difflib.get_close_matches(key, allowed, n=1)
    hint = f" (did you mean {near[0]}?)" if near else ""
    also = " or a run-config key (`grue config` lists them)" if config_too else ""
    return UsageError(f"unknown argument {key}={hint}; this command takes {', '.join(f'{a}=' for a in allowed)}{also}")


def own_pairs(args: Optional[Sequence[str]], allowed: Iterable[str]) -> dict[str, str]:
    """`key=value` arguments that must all be this command's own; anything else is refused."""
    allowed = set(allowed)
    values: dict[str, str] = {}
    for arg in args or []:
        key, value = _pair(arg)
        if key not in allowed:
            raise _unknown(key, allowed, config_too=False)
        values[key] = value
    return values


def own_and_config(args: Optional[Sequence[str]], allowed: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """This command's own `key=value` options, and the rest as run-config overrides (which the config
    loader checks key by key). A near-miss of an own key (`queries` as `querys`) is refused here, since
    the config loader's suggestion would point at a config key instead."""
    allowed = set(allowed)
    own: dict[str, str] = {}
    rest: list[str] = []
    for arg in args or []:
        key, value = _pair(arg)
        if key in allowed:
            own[key] = value
        elif "." not in key and difflib.get_close_matches(key, allowed, n=1, cutoff=0.8):
            raise _unknown(key, allowed, config_too=True)
        else:
            rest.append(arg)
    return own, rest


def required(options: dict[str, str], key: str, example: str) -> str:
    """The non-empty value of `key=`, or a UsageError showing what to give."""
    if not options.get(key, "").strip():
        raise UsageError(f"needs {key}=<{example}>")
    return options[key]


def whole_number(options: dict[str, str], key: str, default: Optional[int], minimum: int = 0) -> Optional[int]:
    """`key=` as a whole number of at least `minimum` (the default when absent)."""
    if key not in options:
        return default
    try:
        value = int(options[key])
    except ValueError:
        raise UsageError(f"{key}={options[key]!r} is not a whole number") from None
    if value < minimum:
        raise UsageError(f"{key}={value} must be at least {minimum}")
    return value


def finite_number(options: dict[str, str], key: str, default: float, minimum: float = 0.0) -> float:
    """`key=` as a finite number of at least `minimum` (nan, inf and negatives refused)."""
    if key not in options:
        return default
    try:
        value = float(options[key])
    except ValueError:
        raise UsageError(f"{key}={options[key]!r} is not a number") from None
    if not minimum <= value < float("inf"):
        raise UsageError(f"{key}={options[key]} must be a finite number of at least {minimum:g}")
    return value


def choice(options: dict[str, str], key: str, allowed: Sequence[str], default: str) -> str:
    value = options.get(key, default)
    if value not in allowed:
        raise UsageError(f"{key}={value!r}: use {'|'.join(allowed)}")
    return value
