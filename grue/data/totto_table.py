"""ToTTo tables: the highlighted subtable with heuristic headers, its linearisation, and PARENT's tables.

Follows the official ToTTo preprocessing (Parikh et al., 2020) as the paper's prompt shows it (section
B.6.4), written here from its description:
- Cells spanning several rows or columns are placed on a grid, so each cell has a column interval.
- A highlighted cell's column headers are the header cells in rows above whose interval overlaps its
  own; its row headers are the header cells to its left in the same row (blank headers are dropped).
- A cell is linearised as `<cell> value <col_header> h </col_header> ... <row_header> h </row_header>
  </cell>`, the subtable as `<table> cells </table>`, optionally preceded by `<page_title> ...
  </page_title> <section_title> ... </section_title>` (metadata).
PARENT (grue.metrics.parent) measures precision against the highlighted cells, their headers and the
page and section titles, and recall against the highlighted cells alone, as ToTTo's evaluation does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

Cell = dict[str, Any]  # hub schema: value, is_header, row_span, column_span


@dataclass(frozen=True)
class HighlightedCell:
    value: str
    col_headers: tuple[str, ...]
    row_headers: tuple[str, ...]


def column_intervals(table: Sequence[Sequence[Cell]]) -> list[list[tuple[int, int]]]:
    """[start, end) grid columns of every cell, skipping grid slots taken by row-spanning cells above."""
    taken: set[tuple[int, int]] = set()
    out: list[list[tuple[int, int]]] = []
    for r, row in enumerate(table):
        col, spans = 0, []
        for cell in row:
            while (r, col) in taken:
                col += 1
            width = max(1, int(cell.get("column_span") or 1))
            height = max(1, int(cell.get("row_span") or 1))
            spans.append((col, col + width))
            taken.update((r + dr, c) for dr in range(1, height) for c in range(col, col + width))
            col += width
        out.append(spans)
    return out


def _value(cell: Cell) -> str:
    return " ".join(str(cell.get("value") or "").split())


def highlighted_subtable(table: Sequence[Sequence[Cell]],
                         highlighted: Sequence[Sequence[int]]) -> list[HighlightedCell]:
    """The highlighted cells in the dataset's order, each with its heuristic headers."""
    spans = column_intervals(table)
    out = []
    for r, c in ((int(rc[0]), int(rc[1])) for rc in highlighted):
        if r >= len(table) or c >= len(table[r]):
            continue  # an index outside the table (malformed row) is skipped, not guessed
        start, end = spans[r][c]
        col_headers = tuple(_value(cell) for rr in range(r) for cell, (s, e) in zip(table[rr], spans[rr])
                            if cell.get("is_header") and s < end and e > start and _value(cell))
        row_headers = tuple(_value(cell) for cell in table[r][:c] if cell.get("is_header") and _value(cell))
        out.append(HighlightedCell(_value(table[r][c]), col_headers, row_headers))
    return out


def linearize(cells: Sequence[HighlightedCell], page_title: str = "", section_title: str = "") -> str:
    """The subtable as markup text; with titles given, the metadata comes first."""
    text = ""
    if page_title:
        text += f"<page_title> {page_title} </page_title> "
    if section_title:
        text += f"<section_title> {section_title} </section_title> "
    text += "<table> "
    for cell in cells:
        text += f"<cell> {cell.value} "
        text += "".join(f"<col_header> {h} </col_header> " for h in cell.col_headers)
        text += "".join(f"<row_header> {h} </row_header> " for h in cell.row_headers)
        text += "</cell> "
    return text + "</table>"


def subtable_prompt(cells: Sequence[HighlightedCell], page_title: str, section_title: str) -> str:
    """The paper's prompt (reference code `representation: subtable`): the subtable without metadata, then
    the subtable with its page and section titles, concatenated (B.6.4 shows `</table><page_title>`)."""
    return linearize(cells) + linearize(cells, page_title, section_title)


def parent_tables(cells: Sequence[HighlightedCell], page_title: str,
                  section_title: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(precision table, recall table) as (attribute, value) pairs for PARENT."""
    recall = [(" ".join(c.col_headers + c.row_headers) or "cell", c.value) for c in cells if c.value]
    headers = [("header", h) for c in cells for h in dict.fromkeys(c.col_headers + c.row_headers) if h]
    titles = [(name, text) for name, text in (("page_title", page_title), ("section_title", section_title)) if text]
    return recall + list(dict.fromkeys(headers)) + titles, recall
