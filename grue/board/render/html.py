"""HTML building blocks: a Table as a sortable <table>, and the page frame around content.

Every value is escaped; numeric cells carry their raw mean in `data-sort`, so sorting is by the
number, never by its formatted text ("35.472 ± 0.074").

Laid out to be read at 1280 px (tests/board/test_board_layout.py): a cell's spread goes under its mean,
labels and headers wrap where their words allow, so a table fits its page where it can; where it
cannot, it scrolls sideways with its first column (the algorithm) pinned. Every header is aligned as
its column's cells are. The notice that mini-profile numbers are not comparable to the paper stands
above every table holding mini rows (render/notices.py), not among the notes under it.
"""
from __future__ import annotations

import html
import math

from grue.board.render.notices import split_notes
from grue.board.tables.table import Cell, Table

STYLESHEET = "style.css"
SCRIPT = "sort.js"


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def _body(text: str, value: object) -> str:
    if isinstance(value, Cell) and " ± " in text:  # the spread on a line of its own, smaller: narrow columns
        mean, spread = text.split(" ± ", 1)
        return f'{esc(mean)}<span class="sd">± {esc(spread)}</span>'
    return esc(text)


def _cell(table: Table, row, column, is_label: bool) -> str:
    value = row.labels.get(column.key) if is_label else row.cells.get(column.key)
    text = table.cell_text(row, column)
    classes = ["label"] if is_label else ([] if column.numeric else ["text"])
    sort = ""
    if isinstance(value, Cell):
        sort = f' data-sort="{value.mean!r}"' if math.isfinite(value.mean) else ' data-sort=""'
        if value.bold:
            classes.append("best")
        if value.flag:
            classes.append("flagged")
        title = value.describe()
        sort += f' title="{esc(title)}"' if title else ""
    elif text == "—":
        sort = ' data-sort=""'
    badge = ' <span class="badge">paper</span>' if is_label and row.reference and column == table.label_columns[0] else ""
    return f'<td class="{" ".join(classes)}"{sort}>{_body(text, value)}{badge}</td>'


def _header_class(column, is_label: bool) -> str:
    """Aligned as the column's cells are: labels and text left, numbers right."""
    return "label" if is_label else ("num" if column.numeric else "text")


def table_html(table: Table, heading: str = "h3") -> str:
    """A titled, sortable table with its notes."""
    columns = [(c, True) for c in table.label_columns] + [(c, False) for c in table.value_columns]
    head = "".join(f'<th class="{_header_class(c, lab)}" scope="col">{esc(c.header)}</th>' for c, lab in columns)
    body = []
    for row in table.rows:
        attrs = ' class="ref"' if row.reference else ""
        note = f' title="{esc(row.note)}"' if row.note else ""
        body.append(f"<tr{attrs}{note}>" + "".join(_cell(table, row, c, lab) for c, lab in columns) + "</tr>")
    above, under = split_notes(table)
    notices = "".join(f'<p class="notice" role="note">{esc(n)}</p>\n' for n in above)
    notes = "".join(f'<p class="note">{esc(n)}</p>' for n in under)
    anchor = f' id="{esc(table.anchor)}"' if table.anchor else ""
    return (f"<{heading}{anchor}>{esc(table.title)}</{heading}>\n{notices}<div class=\"scroll\"><table class=\"sortable\">"
            f"<thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body) + f"\n</tbody></table></div>{notes}\n")


def page(title: str, subtitle: str, nav: list[tuple[str, str]], current: str, content: str) -> str:
    """A whole page: offline assets only (a local stylesheet and script, an empty data: favicon)."""
    here = ' class="here"'
    links = "".join(f'<a href="{esc(href)}"{here if href == current else ""}>{esc(label)}</a>' for label, href in nav)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{STYLESHEET}">
<script src="{SCRIPT}" defer></script>
</head>
<body>
<header><h1>{esc(title)}</h1><p>{esc(subtitle)}</p></header>
<nav>{links}</nav>
<main>
{content}
</main>
</body>
</html>
"""
