"""One record of a user's data as a Sample: the prompt template filled from its fields, its references,
its id and the fields kept as meta.

The template is Python's `str.format` over the record (`"Review: {text}"`; `{{` for a literal brace).
A reference field may hold one text or a list of texts; blank ones are dropped, and a record left with
none is refused (every reference-based metric would score it against nothing).
"""
from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any, Mapping

from grue.data.hub import clean_references
from grue.data.sample import Sample
from grue.extend.errors import ExtensionError


def template_fields(template: str) -> tuple[str, ...]:
    """The record fields a template reads (the part before any `.attr` or `[key]`)."""
    fields = []
    for _, name, _, _ in string.Formatter().parse(template):
        if name:
            fields.append(name.split(".")[0].split("[")[0])
    return tuple(dict.fromkeys(fields))


@dataclass(frozen=True)
class RecordFormat:
    """How the task file maps a record to a Sample."""

    prompt: str                      # template over the record's fields
    references: tuple[str, ...]      # fields holding the reference text(s)
    id_field: str | None = None      # None: "<split>-<position in the file>"
    meta: tuple[str, ...] = ()       # fields handed to metrics and rewards as the sample's meta

    def fields(self) -> tuple[str, ...]:
        """Every field a record must have."""
        own = (*template_fields(self.prompt), *self.references, *self.meta, *((self.id_field,) if self.id_field else ()))
        return tuple(dict.fromkeys(own))

    def sample(self, record: Mapping[str, Any], fallback_id: str) -> Sample:
        """The record as a Sample, or an ExtensionError saying what is wrong with it (the caller names
        the file and the line or row, which only it knows)."""
        missing = [f for f in self.fields() if f not in record]
        if missing:
            raise ExtensionError(f"the record lacks field(s) {', '.join(map(repr, missing))} that the task "
                                 f"file names; it has {', '.join(map(repr, record)) or 'none'}")
        prompt = self._prompt(record)
        references = self._references(record)
        return Sample(id=self._id(record, fallback_id), prompt=prompt, references=references,
                      meta={name: record[name] for name in self.meta})

    def _prompt(self, record: Mapping[str, Any]) -> str:
        prompt_fields = template_fields(self.prompt)
        empty = [f for f in prompt_fields if record[f] is None]
        if empty:
            raise ExtensionError(f"field(s) {', '.join(map(repr, empty))} of the prompt template are empty "
                                 "(null); every prompt field needs a value")
        nested = [f for f in prompt_fields if isinstance(record[f], (dict, list, tuple))]
        if nested:
            raise ExtensionError(f"field(s) {', '.join(map(repr, nested))} of the prompt template hold a "
                                 f"{type(record[nested[0]]).__name__}, not a text")
        try:
            return self.prompt.format_map(record)
        except (KeyError, IndexError, AttributeError, ValueError) as err:
            raise ExtensionError(f"the prompt template {self.prompt!r} cannot be filled: {err}") from None

    def _references(self, record: Mapping[str, Any]) -> tuple[str, ...]:
        texts: list[Any] = []
        for name in self.references:
            value = record[name]
            texts.extend(value if isinstance(value, (list, tuple)) else [value])
        odd = [t for t in texts if isinstance(t, (dict, list, tuple))]
        if odd:
            raise ExtensionError(f"field(s) {', '.join(self.references)} hold a {type(odd[0]).__name__} where "
                                 "a reference text (or a list of texts) belongs")
        references = clean_references(texts)
        if not references:
            raise ExtensionError(f"no reference text in field(s) {', '.join(self.references)} "
                                 "(empty or blank); every sample needs at least one")
        return references

    def _id(self, record: Mapping[str, Any], fallback_id: str) -> str:
        """The id field's text. A null, blank or structured id is refused: str() would make "None" or
        "{...}" an id, and a blank one names nothing (predictions are kept by id)."""
        if not self.id_field:
            return fallback_id
        value = record[self.id_field]
        if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
            raise ExtensionError(f"id field {self.id_field!r} is {value!r}; every record needs a non-empty text "
                                 "or whole-number id")
        return str(value)
