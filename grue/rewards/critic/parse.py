"""The critic's answer to labelled spans. Never raises: every answer gets an outcome that is counted.

Outcomes: `spans` (at least one labelled span), `none` ("None identified", for the whole answer or
under every heading it gives), `refusal` (the model declined), `malformed` (anything else, e.g. free
prose or labels without text), `failed` (no answer at all: the backend gave up).

Two answer formats (`answer_format`):
- `lines`: one line per span, `Label: "span"` (the built-in templates ask for this); numbered span
  lines make the answer `malformed` rather than being skipped. Several quoted
  spans per line are allowed; an unquoted remainder counts as one span. A line naming several labels
  (`Positive: "great cast", Negative: "weak plot"`) is split at each label, so every span takes the
  sign of the label before it.
- `headed` (default; reads `lines` answers too): DRLC's own format, a heading per label followed by
  numbered span lines, e.g.

      Positive spans: None identified
      Negative spans:
      [Span 1]: "dull, lifeless bore"

  A heading saying "None identified" is recorded apart (`Critique.none_under`): the critic looked
  under that label and found nothing, which is neither "no answer" nor "malformed".
Bullets, numbering, bold markers, case and curly quotes are tolerated; labels the template does not
declare are ignored (a span line under an undeclared heading belongs to no label).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

OUTCOMES = ("spans", "none", "refusal", "malformed", "failed")
ANSWER_FORMATS = ("headed", "lines")
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_NONE = re.compile(r"\bnone identified\b|^\s*none\.?\s*$", re.IGNORECASE | re.MULTILINE)
_REFUSAL = re.compile(r"\b(i can(?:no|')t|i am unable|i'm unable|i won't|i will not|as an ai|i'm sorry|i apologi[sz]e)\b",
                      re.IGNORECASE)
_LEAD = r"^[\s\-*•\d.)#]*"  # bullets, numbering, markdown headings
_SPAN_LINE = re.compile(_LEAD + r"\[?\s*span\s*\d*\s*\]?\s*\**\s*[:\-–]\s*(.*)$", re.IGNORECASE)
_HEADING_WORDS = r"(?:\s+(?:spans?|segments?|phrases?))?"


@dataclass(frozen=True)
class Critique:
    outcome: str
    spans: tuple[tuple[str, str], ...] = field(default=())  # (label, quoted text)
    none_under: tuple[str, ...] = field(default=())         # labels whose heading said "None identified"


def _label_at(labels: list[str]) -> re.Pattern:
    """A label (optionally followed by "spans"), bold or not, then a colon or dash."""
    names = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    return re.compile(rf"\**\b({names}){_HEADING_WORDS}\**\s*[:\-–]", re.IGNORECASE)


def _bare_heading(labels: list[str]) -> re.Pattern:
    """A line that is only a label heading, without a colon ("**Negative spans**")."""
    names = "|".join(re.escape(label) for label in sorted(labels, key=len, reverse=True))
    return re.compile(rf"{_LEAD}\**({names}){_HEADING_WORDS}\**\s*:?\s*$", re.IGNORECASE)


def _outside_quotes(line: str) -> str:
    """The line with quoted text blanked out, so a label word inside a quoted span is not a label."""
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), line)


def _segments(line: str, pattern: re.Pattern) -> list[tuple[str, str]]:
    """(label, the text after it up to the next label) for every label on the line outside quotes;
    the first label must open the line (after bullets and numbering)."""
    masked = _outside_quotes(line)
    found = list(pattern.finditer(masked))
    if not found or masked[:found[0].start()].strip(" \t-*•0123456789.)#"):
        return []
    return [(m.group(1), line[m.end():(found[i + 1].start() if i + 1 < len(found) else len(line))])
            for i, m in enumerate(found)]


def _span_texts(rest: str) -> list[str]:
    quoted = [a or b for a, b in _QUOTED.findall(rest)]
    if quoted:
        return [q.strip() for q in quoted if q.strip()]
    bare = rest.strip().strip("'\"`.,;")
    return [] if not bare or _NONE.search(bare) else [bare]


def parse_critique(answer: Optional[str], labels: list[str], answer_format: str = "headed") -> Critique:
    if answer is None:
        return Critique("failed")
    if answer_format not in ANSWER_FORMATS:
        raise ValueError(f"answer format must be one of {', '.join(ANSWER_FORMATS)}, not {answer_format!r}")
    canonical = {label.lower(): label for label in labels}
    at_label, bare = _label_at(labels), _bare_heading(labels)
    headed = answer_format == "headed"
    spans: list[tuple[str, str]] = []
    none_under: list[str] = []
    heading: Optional[str] = None  # the label of the heading the following span lines belong to
    unread = False
    for line in answer.splitlines():
        span_line = _SPAN_LINE.match(line)
        if span_line and not headed:
            unread = True  # the paper's format under `lines`: never silently read as "none"
            continue
        if span_line:
            if heading is not None:
                texts = _span_texts(span_line.group(1))
                spans.extend((heading, text) for text in texts)
                if not texts and _NONE.search(span_line.group(1)):
                    none_under.append(heading)
            continue
        segments = _segments(line, at_label)
        if segments:
            for name, rest in segments:
                label = canonical[name.lower()]
                texts = _span_texts(rest)
                spans.extend((label, text) for text in texts)
                if not texts and _NONE.search(rest):
                    none_under.append(label)
            heading = canonical[segments[-1][0].lower()]
            continue
        only_heading = bare.match(line) if headed else None
        if only_heading:
            heading = canonical[only_heading.group(1).lower()]
        elif headed and heading is not None and _NONE.search(line):
            none_under.append(heading)  # "None identified" on the line below its heading
    found = tuple(dict.fromkeys(none_under))
    if spans:
        return Critique("spans", tuple(spans), found)
    if unread:
        return Critique("malformed")
    if found or _NONE.search(answer):
        return Critique("none", (), found)
    if _REFUSAL.search(answer):
        return Critique("refusal")
    return Critique("malformed")
