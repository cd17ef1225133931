"""Markdown rendering of board tables (GitHub-flavoured pipe tables)."""
from __future__ import annotations

from grue.board.render.notices import split_notes
from grue.board.tables.table import Table


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def render_table(table: Table, level: int = 2) -> str:
    """A heading, the pipe table, and its notes; bold cells are wrapped in ** **."""
    columns = table.label_columns + table.value_columns
    above, under = split_notes(table)  # the mini notice before the rows it concerns
    lines = [f"{'#' * level} {table.title}", ""] + [f"> **{notice}**\n" for notice in above]
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
    lines.extend(f"_{note}_" for note in under)
    return "\n".join(lines).rstrip() + "\n"


def render_document(title: str, tables: list[Table], preface: list[str] = (), appendix: list[str] = ()) -> str:
    """A whole Markdown report: title, preface lines, the tables, appendix lines."""
    parts = [f"# {title}", ""]
    parts.extend(preface)
    if preface:
        parts.append("")
    parts.extend(render_table(t) for t in tables)
    if appendix:
        parts.append("")
        parts.extend(appendix)
    return "\n".join(parts).rstrip() + "\n"
