"""The notice every rendered table with mini-profile rows carries above its rows (HTML and Markdown alike):
mini numbers sit in the same tables as the paper's and must not be read against them."""
from __future__ import annotations

from grue.board.tables.table import Table
from grue.board.tables.task_tables import MINI_NOTICE


def has_mini_rows(table: Table) -> bool:
    """Rows of the mini profile: a task, selection, tests or questions table's Profile label, or a board
    built for that profile alone (its title says so; its notes carry the notice)."""
    return (MINI_NOTICE in table.notes or "profile mini" in table.title
            or any(row.labels.get("profile") == "mini" for row in table.rows))


def split_notes(table: Table) -> tuple[list[str], list[str]]:
    """(notices shown above the table, notes shown under it)."""
    notices = [MINI_NOTICE] if has_mini_rows(table) else []
    return notices, [note for note in table.notes if note != MINI_NOTICE]
