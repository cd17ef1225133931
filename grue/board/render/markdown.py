"""Markdown rendering of board tables (GitHub-flavoured pipe tables).

What a board shows comes partly from submitters (a run's name, a setting label, a reason quoting a
file), so every piece of text is escaped before it is placed: HTML (`<script>`, `&`) as entities
everywhere, and in table cells also the pipe (a new column), the backtick (a code span), markup
characters and line breaks (a new row). Only the formatting this module adds itself (bold, italics,
notices) is Markdown.
"""
from __future__ import annotations

import re

from grue.board.render.notices import split_notes
from grue.board.tables.table import Table


_CELL_MARKUP = str.maketrans({"|": "\\|", "`": "\\`", "*": "\\*", "[": "\\[", "]": "\\]",
                              "\\": "\\\\", "\n": " ", "\r": " "})


def escape_html(text: str) -> str:
    """Text with HTML made inert (`&`, `<`, `>` as entities): safe anywhere in the document."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# An underscore opens emphasis only at a word's edge (GFM ignores `distinct_1`'s): only those are escaped,
# so metric and file names stay readable in the Markdown source.
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def _escape(text: str) -> str:
    """A table cell's text: inert HTML, and no character that would end the cell, the row or open markup."""
    return escape_html(_EDGE_UNDERSCORE.sub(r"\\_", str(text).translate(_CELL_MARKUP)))


def render_table(table: Table, level: int = 2) -> str:
    """A heading, the pipe table, and its notes; bold cells are wrapped in ** **."""
    columns = table.label_columns + table.value_columns
    above, under = split_notes(table)  # the mini notice before the rows it concerns
    lines = [f"{'#' * level} {escape_html(table.title)}", ""] + [f"> **{escape_html(notice)}**\n" for notice in above]
    lines.append("| " + " | ".join(_escape(c.header) for c in columns) + " |")
    lines.append("|" + "|".join("---" if c in table.label_columns or not c.numeric else "---:" for c in columns) + "|")
    for row in table.rows:
        texts = []
        for column in columns:
            text = _escape(table.cell_text(row, column))
            cell = row.cells.get(column.key)
            if getattr(cell, "bold", False):
                text = f"**{text}**"
            texts.append(text)
        if row.reference:
            texts[0] = f"*{texts[0]} (paper)*"
        lines.append("| " + " | ".join(texts) + " |")
    lines.append("")
    lines.extend(f"_{escape_html(note)}_" for note in under)
    return "\n".join(lines).rstrip() + "\n"


def render_document(title: str, tables: list[Table], preface: list[str] = (), appendix: list[str] = ()) -> str:
    """A whole Markdown report: title, preface lines, the tables, appendix lines."""
    parts = [f"# {escape_html(title)}", ""]
    parts.extend(escape_html(line) for line in preface)
    if preface:
        parts.append("")
    parts.extend(render_table(t) for t in tables)
    if appendix:
        parts.append("")
        parts.extend(escape_html(line) for line in appendix)
    return "\n".join(parts).rstrip() + "\n"
