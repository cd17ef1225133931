"""The notice every rendered table with mini-profile rows carries above its rows (HTML and Markdown alike):
mini numbers sit in the same tables as the paper's and must not be read against them."""
from __future__ import annotations

from grue.board.tables.table import Table
from grue.board.tables.mini_notice import MINI_NOTICE, is_mini_notice


def has_mini_rows(table: Table) -> bool:
    """Rows of the mini profile: a task, selection, tests or questions table's Profile label, or a board
    built for that profile alone (its title says so; its notes carry the notice)."""
    return (any(map(is_mini_notice, table.notes)) or "profile mini" in table.title
            or any(row.labels.get("profile") == "mini" for row in table.rows))


def split_notes(table: Table) -> tuple[list[str], list[str]]:
    """(notices shown above the table, notes shown under it)."""
    own = [note for note in table.notes if is_mini_notice(note)]  # the table's own words for its tasks
    notices = (own or [MINI_NOTICE]) if has_mini_rows(table) else []
    return notices, [note for note in table.notes if not is_mini_notice(note)]
