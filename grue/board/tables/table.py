"""A format-neutral table: the shape every exporter (Markdown, LaTeX, HTML) renders.

Building the rows once and rendering them several times keeps the formats in agreement: the
Markdown table and the HTML page can never show different numbers for the same row.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace


FLAG_MARK = "⚑"  # a published cell the paper's text garbled or contradicts (the reason is in the tooltip and notes)


def fmt_number(x: float) -> str:
    """Paper-like precision: large values as integers, mid-size values with 1-3 decimals."""
    if x is None or not math.isfinite(x):
        return "–"
    size = abs(x)
    if size >= 1000:
        return f"{x:.0f}"
    if size >= 100:
        return f"{x:.1f}"
    return f"{x:.3f}"


def fmt_count(x: float, spread: bool = False) -> str:
    """A count as an integer; a spread of counts below 1 keeps one decimal so it does not read as 0."""
    if x is None or not math.isfinite(x):
        return "–"
    return f"{x:.1f}" if spread and abs(x) < 1 else f"{x:.0f}"


@dataclass(frozen=True)
class Cell:
    """A mean over seeds with its spread; std is NaN for a single seed, n None where no seed count applies.

    `tooltip` replaces the default n/CI description (the overall board's scores say what they average);
    `flag` is why a published value is doubtful; `count` prints the mean and std as integers.
    """

    mean: float
    std: float = math.nan
    n: int | None = None
    ci_low: float = math.nan
    ci_high: float = math.nan
    bold: bool = False
    count: bool = False
    flag: str = ""
    tooltip: str = ""

    def text(self) -> str:
        if self.count:
            body = fmt_count(self.mean) + (f" ± {fmt_count(self.std, spread=True)}" if math.isfinite(self.std) else "")
        else:
            body = fmt_number(self.mean) + (f" ± {fmt_number(self.std)}" if math.isfinite(self.std) else "")
        return f"{body} {FLAG_MARK}" if self.flag else body

    def describe(self) -> str:
        """The hover text: seed count and 95% CI, or the cell's own tooltip; then the flag's reason."""
        parts = [self.tooltip] if self.tooltip else []
        if not self.tooltip and self.n is not None:
            parts.append(f"n={self.n} seed(s)")
        if not self.tooltip and math.isfinite(self.ci_low):
            parts.append(f"95% CI [{self.ci_low:.4g}, {self.ci_high:.4g}]")
        if self.flag:
            parts.append(f"{FLAG_MARK} {self.flag}")
        return "; ".join(parts)


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
        """Bold the best mean of each directed column among non-reference rows (the paper's habit).

        A column where every row ties bolds nothing: no row is best.
        """
        for column in self.value_columns:
            if column.higher_is_better is None:
                continue
            cells = [(r, r.cells[column.key]) for r in self.rows  # a flagged value of ours (taken as reported) is no best
                     if not r.reference and isinstance(r.cells.get(column.key), Cell) and not r.cells[column.key].flag]
            finite = [(r, c) for r, c in cells if math.isfinite(c.mean)]
            if len(finite) < 2:
                continue
            means = [c.mean for _, c in finite]
            if max(means) == min(means):
                continue
            best = max(means) if column.higher_is_better else min(means)
            for row, cell in finite:
                if cell.mean == best:
                    row.cells[column.key] = replace(cell, bold=True)
