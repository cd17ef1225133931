"""How the report prints numbers: an underflowed p-value is `< 1e-16`, never `0.000`; other zeros stay zeros."""
from __future__ import annotations

import pandas as pd
import pytest

from grue.human.pvalue import format_p
from grue.human.report import _markdown_table


@pytest.mark.parametrize("p, shown", [(0.0, "< 1e-16"), (3e-20, "< 1e-16"), (4e-4, "4.0e-04"), (0.25, "0.250"),
                                      (float("nan"), "—")])
def test_p_values_below_the_floor_are_printed_as_a_bound(p, shown):
    assert format_p(p) == shown


def test_tables_format_p_columns_as_p_values_and_the_rest_as_numbers():
    table = _markdown_table(pd.DataFrame({"system_a": ["a"], "win_rate_a": [0.0], "p_value": [0.0]}))
    assert table.splitlines()[-1] == "| a | 0.000 | < 1e-16 |"


def test_the_html_report_prints_an_underflowed_p_as_a_bound(tmp_path):
    from grue.human.report import build_report, render_html
    from human_fixtures import answer_all, build_study

    study, tokens = build_study(tmp_path, kind="comparisons", algos=("zero_shot", "ppo"), samples=6)
    for token in tokens.values():
        answer_all(study, token, lambda item, order: {"choice": "0"})
    report = build_report(study)
    report.wins.loc[:, "p_value"] = 0.0
    assert "&lt; 1e-16" in render_html(report)
