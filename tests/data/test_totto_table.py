"""ToTTo's table handling: spanned cells on the grid, heuristic headers, both annotation layouts."""
from __future__ import annotations

from grue.data.totto import final_sentences
from grue.data.totto_table import column_intervals, highlighted_subtable, linearize


def cell(value, header=False, rows=1, cols=1):
    return {"value": value, "is_header": header, "row_span": rows, "column_span": cols}


# A two-row header: "Peak" spans the UK and US columns below it.
CHART = [
    [cell("Year", True, rows=2), cell("Album", True, rows=2), cell("Peak", True, cols=2)],
    [cell("UK", True), cell("US", True)],
    [cell("1999"), cell("Low Light"), cell("4"), cell("12")],
]


def test_spanned_cells_take_their_grid_columns():
    assert column_intervals(CHART) == [[(0, 1), (1, 2), (2, 4)], [(2, 3), (3, 4)], [(0, 1), (1, 2), (2, 3), (3, 4)]]


def test_a_cell_under_a_column_span_gets_both_headers():
    (us,) = highlighted_subtable(CHART, [[2, 3]])
    assert (us.value, us.col_headers, us.row_headers) == ("12", ("Peak", "US"), ())
    assert linearize([us]) == "<table> <cell> 12 <col_header> Peak </col_header> <col_header> US </col_header> </cell> </table>"


def test_indices_outside_the_table_are_skipped():
    assert highlighted_subtable(CHART, [[9, 0], [2, 9]]) == []


def test_annotations_as_struct_of_lists_or_list_of_structs():
    assert final_sentences({"final_sentence": ["a", "b"], "original_sentence": ["x", "y"]}) == ["a", "b"]
    assert final_sentences([{"final_sentence": "a"}, {"final_sentence": "b"}]) == ["a", "b"]
    assert final_sentences(None) == []
