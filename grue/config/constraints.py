"""Ranges and choice sets for config fields, declared beside each field in grue/config/schema.py.

OmegaConf checks a value's type; these rules check what the type cannot say (a batch size of 0, a
probability of 1.5, a NaN learning rate, a device that does not exist), so every such value is refused
with the key named before any work starts, not minutes into a run. `grue.config.load` walks the schema
and applies each field's rule; tests/cli walks it too and proves every rule refuses a bad value.
"""
from __future__ import annotations

import dataclasses
import difflib
import math
import re
import typing
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Union


@dataclass(frozen=True)
class Range:
    """A finite number between `low` and `high` (either may be open or absent)."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def describe(self) -> str:
        if self.low is not None and self.high is not None:
            return f"in {'(' if self.low_open else '['}{self.low}, {self.high}{')' if self.high_open else ']'}"
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {self.low}"
        if self.high is not None:
            return f"{'<' if self.high_open else '<='} {self.high}"
        return "a finite number"

    def problem(self, value: Any) -> str | None:
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be {self.describe()} (a finite number), got {value}"
        too_low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
        too_high = self.high is not None and (value >= self.high if self.high_open else value > self.high)
        return f"must be {self.describe()}, got {value}" if too_low or too_high else None


def closest(word: str, options: Iterable[str]) -> str:
    """A hint for a mistyped name: the close matches, or every valid name when none is close."""
    options = sorted(options)
    close = difflib.get_close_matches(word, options, n=3, cutoff=0.5)
    return f"Did you mean: {', '.join(close)}?" if close else f"Valid: {', '.join(options)}."


@dataclass(frozen=True)
class OneOf:
    """A name from a set; `options` may be a function, so sets owned by heavy modules load only when checked."""

    options: Union[tuple[str, ...], Callable[[], Iterable[str]]]
    pattern: str | None = None  # also accepted when it matches in full, e.g. cuda:<index>

    def names(self) -> tuple[str, ...]:
        return tuple(self.options() if callable(self.options) else self.options)

    def problem(self, value: Any) -> str | None:
        names = self.names()
        if value in names or (self.pattern and re.fullmatch(self.pattern, str(value))):
            return None
        return f"unknown value {value!r}. {closest(str(value), names)}"


@dataclass(frozen=True)
class Registered:
    """A name (or each name of a list) a registry knows; the registry's checker raises KeyError with its hint."""

    check: Callable[[Any], None]

    def problem(self, value: Any) -> str | None:
        try:
            self.check(value)
        except KeyError as err:
            return str(err.args[0])
        return None


Rule = Union[Range, OneOf, Registered]

POSITIVE = Range(low=0, low_open=True)
NON_NEGATIVE = Range(low=0)
FINITE = Range()
PROBABILITY = Range(low=0, high=1, low_open=True)  # top_p-style: 0 keeps nothing
FRACTION = Range(low=0, high=1)                    # discount factors, ratios

RULE_KEY = "rule"


def schema_fields(schema: type, prefix: str = "") -> Iterator[tuple[str, dataclasses.Field, Any]]:
    """Every leaf field of a dataclass schema as (dotted key, field, type); nested groups are walked."""
    hints = typing.get_type_hints(schema)
    for item in dataclasses.fields(schema):
        kind = hints[item.name]
        if dataclasses.is_dataclass(kind):
            yield from schema_fields(kind, f"{prefix}{item.name}.")
        else:
            yield f"{prefix}{item.name}", item, kind


def rule_problems(schema: type, values: dict[str, Any]) -> Iterator[str]:
    """`key: what is wrong` for each value of a resolved config that breaks its field's rule (None is
    never checked: OmegaConf already refuses it where the field is not Optional)."""
    for key, item, _ in schema_fields(schema):
        check = item.metadata.get(RULE_KEY)
        value = values
        for part in key.split("."):
            value = value[part]
        if check is not None and value is not None:
            problem = check.problem(value)
            if problem:
                yield f"{key}: {problem}"
