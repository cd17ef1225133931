"""A format-neutral table: the shape every exporter (Markdown, LaTeX, HTML) renders.

Building the rows once and rendering them several times keeps the formats in agreement: the
Markdown table and the HTML page can never show different numbers for the same row.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field


def fmt_number(x: float) -> str:
    """Paper-like precision: counts as integers, mid-size values with 2-3 decimals."""
    if x is None or not math.isfinite(x):
        return "–"
    size = abs(x)
    if size >= 1000:
        return f"{x:.0f}"
    if size >= 100:
        return f"{x:.1f}"
    return f"{x:.3f}"


@dataclass(frozen=True)
class Cell:
    """A mean over seeds with its spread; std is NaN for a single seed."""

    mean: float
    std: float = math.nan
    n: int = 1
    ci_low: float = math.nan
    ci_high: float = math.nan
    bold: bool = False

    def text(self) -> str:
        if math.isfinite(self.std):
            return f"{fmt_number(self.mean)} ± {fmt_number(self.std)}"
        return fmt_number(self.mean)


@dataclass(frozen=True)
class Column:
    """A value column; `higher_is_better` None means the column has no direction (labels, counts)."""

    key: str
    label: str
    higher_is_better: bool | None = None
    numeric: bool = True  # right-aligned and sorted as numbers; False for free text

    @property
    def header(self) -> str:
        if self.higher_is_better is None:
            return self.label
        return f"{self.label} {'↑' if self.higher_is_better else '↓'}"


@dataclass
class Row:
    """One line of a table: label fields, then value cells keyed by column key."""

    labels: dict[str, str]
    cells: dict[str, Cell | str]
    reference: bool = False  # a published number from the paper, not a run of ours
    note: str = ""


@dataclass
class Table:
    """A titled table with label columns, value columns and rows; notes print under it."""

    title: str
    label_columns: list[Column]
    value_columns: list[Column]
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    anchor: str = ""

    def cell_text(self, row: Row, column: Column) -> str:
        value = row.labels.get(column.key) if column in self.label_columns else row.cells.get(column.key)
        if value is None or value == "":
            return "—"
        return value.text() if isinstance(value, Cell) else str(value)

    def mark_best(self) -> None:
        """Bold the best mean of each directed column among non-reference rows (the paper's habit)."""
        for column in self.value_columns:
            if column.higher_is_better is None:
                continue
            cells = [(r, r.cells[column.key]) for r in self.rows
                     if not r.reference and isinstance(r.cells.get(column.key), Cell)]
            finite = [(r, c) for r, c in cells if math.isfinite(c.mean)]
            if len(finite) < 2:
                continue
            pick = max if column.higher_is_better else min
            best = pick(c.mean for _, c in finite)
            for row, cell in finite:
                if cell.mean == best:
                    row.cells[column.key] = Cell(cell.mean, cell.std, cell.n, cell.ci_low, cell.ci_high, True)
