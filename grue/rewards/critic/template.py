"""Critic prompt templates: plain-text files users copy and edit (`critic.template=<file>`).

A file holds a header (comments and one `labels:` line mapping each answer label to the sign of the
reward its spans earn), a `---` line, and the prompt body with {prompt}, {generation} and {score}
placeholders. Placeholders are replaced literally, so the body may contain any other braces.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

from grue.errors import GrueUserError

BUILT_IN_DIR = Path(__file__).parent / "templates"
PLACEHOLDERS = ("{prompt}", "{generation}", "{score}")


class TemplateError(GrueUserError, ValueError):
    """A template that cannot be used; the message names the file and what is wrong."""


@dataclass(frozen=True)
class CritiqueTemplate:
    name: str
    body: str
    labels: dict[str, float]  # answer label -> sign of its spans' reward
    answer_format: str = "headed"  # how answers are parsed (grue.rewards.critic.parse.ANSWER_FORMATS)

    @property
    def digest(self) -> str:
        """Identifies the template's content in cache keys: editing a template re-asks the critic."""
        return hashlib.sha256(repr((self.body, sorted(self.labels.items()))).encode()).hexdigest()[:16]

    def render(self, prompt: str, generation: str, score: float) -> str:
        filled = {"{prompt}": prompt.strip(), "{generation}": generation.strip(), "{score}": f"{score:.1f}"}
        text = self.body
        for placeholder, value in filled.items():
            text = text.replace(placeholder, value)
        return text


def built_in_names() -> list[str]:
    return sorted(p.stem for p in BUILT_IN_DIR.glob("*.txt"))


def template_path(ref: str) -> Path:
    """A built-in name (sentiment, summarisation, generic) or a path to a template file."""
    if ref in built_in_names():
        return BUILT_IN_DIR / f"{ref}.txt"
    path = Path(ref).expanduser()
    if not path.is_file():
        raise TemplateError(f"critic.template {ref!r} is neither a built-in template "
                            f"({', '.join(built_in_names())}) nor a readable file")
    return path


def _parse_labels(line: str, where: str) -> dict[str, float]:
    labels = {}
    for item in line.split(":", 1)[1].split(","):
        label, _, sign = item.partition("=")
        try:
            value = float(sign)
        except ValueError:
            value = math.nan
        if not math.isfinite(value):
            raise TemplateError(f"{where}: bad labels entry {item.strip()!r}; write Label=+1 or Label=-1")
        labels[label.strip() or "?"] = value
    if "?" in labels:
        raise TemplateError(f"{where}: a labels entry has no label name; write Label=+1 or Label=-1")
    return labels


def _answer_format(header: str, where: str) -> str:
    """The optional `answer format:` header line (headed: DRLC's headings + [Span n] lines, and plain
    `Label: "span"` lines too; lines: only the latter); headed when absent."""
    from grue.rewards.critic.parse import ANSWER_FORMATS

    lines = [line.split(":", 1)[1].strip().lower() for line in header.splitlines()
             if line.lower().startswith("answer format:")]
    if len(lines) > 1 or (lines and lines[0] not in ANSWER_FORMATS):
        raise TemplateError(f"{where}: 'answer format:' takes one of {', '.join(ANSWER_FORMATS)}, once")
    return lines[0] if lines else "headed"


def load_template(ref: str) -> CritiqueTemplate:
    from grue.storage.inputs import InputError, read_text

    path = template_path(ref)
    try:
        text = read_text(path, "critic template")
    except InputError as err:
        raise TemplateError(str(err)) from None
    header, sep, body = text.replace("\r\n", "\n").partition("\n---\n")
    if not sep:
        raise TemplateError(f"{path}: no '---' line between the header and the prompt body")
    label_lines = [line for line in header.splitlines() if line.lower().startswith("labels:")]
    if len(label_lines) != 1:
        raise TemplateError(f"{path}: the header needs exactly one 'labels:' line")
    answer_format = _answer_format(header, str(path))
    if "{generation}" not in body:
        raise TemplateError(f"{path}: the body never shows the sample; it needs a {{generation}} placeholder")
    return CritiqueTemplate(path.stem, body.strip() + "\n", _parse_labels(label_lines[0], str(path)), answer_format)


def template_for_task(task: str, ref: str | None) -> CritiqueTemplate:
    """`critic.template`, else the one the task's spec names (`critic_template`), else "generic"."""
    from tasks import find_task

    spec = find_task(task)
    return load_template(ref or (spec.critic_template if spec is not None else None) or "generic")
