"""The paper's rows sit on grue's split and scale, and its doubtful cells are marked."""
from __future__ import annotations

import pytest

from board_fixtures import results_doc, write_run
from grue.board.compare import compare_sources
from grue.board.numbers.reference import HIDDEN_TEST, reference_frame
from grue.board.render import latex
from grue.board.tables.table import FLAG_MARK
from grue.board.tables.task_tables import splits_of, task_table


def _cell(frame, **match):
    rows = frame
    for key, value in match.items():
        rows = rows[rows[key] == value]
    assert len(rows) == 1, match
    return rows.iloc[0]


def test_commongen_and_totto_dev_tables_sit_beside_our_test():
    frame = reference_frame()
    tables = {(t, s) for t, s in zip(frame["table"], frame["split"])}
    assert ("13", "test") in tables and ("24", "test") in tables  # dev = official validation = grue's test
    assert ("12", HIDDEN_TEST) in tables and ("23", HIDDEN_TEST) in tables
    assert ("5", "val") in tables and ("17", "test") in tables  # other tasks keep their own split
    assert splits_of(frame, "commongen") == ["test", HIDDEN_TEST]  # the hidden test comes last, apart
    hidden = task_table(frame, "commongen", HIDDEN_TEST)
    assert "hidden test" in hidden.title and "cannot score" in hidden.title


def test_table12_cider_and_coverage_come_on_grues_scale():
    frame = reference_frame()
    zero = dict(table="12", algo="zero_shot")
    # Spec Table 12, zero-shot: CIDEr 6.200 on the official x10 scale, coverage 91.070 %.
    assert _cell(frame, metric="cider", **zero)["mean"] == pytest.approx(0.62)
    assert _cell(frame, metric="coverage", **zero)["mean"] == pytest.approx(0.9107)
    sup = _cell(frame, table="12", algo="supervised", metric="coverage")  # 94.476 ± 0.172 %
    assert (sup["mean"], sup["std"], sup["scale"]) == (pytest.approx(0.94476), pytest.approx(0.00172), 100)
    assert _cell(frame, table="13", algo="supervised", metric="cider")["mean"] == pytest.approx(1.381)  # already ours


def test_compare_subtracts_like_from_like(tmp_path):
    for seed in range(2):
        metrics = {"test": {"cider": 1.3 + seed / 10, "coverage": 0.9}}
        write_run(tmp_path, results_doc("commongen", "supervised", seed, metrics, reward=None))
    result, _ = compare_sources(str(tmp_path), "paper")
    cider = _cell(result, metric="cider")
    assert cider["mean_b"] == pytest.approx(1.381) and cider["diff"] == pytest.approx(1.35 - 1.381)
    assert "coverage" not in set(result["metric"])  # only the hidden test reports it: never compared


def test_garbled_cells_are_flagged_and_marked():
    frame = reference_frame()
    assert "Rouge-L" in _cell(frame, table="13", algo="nlpo", reward="cider", metric="rougeLsum")["flag"]
    copied = frame[(frame["table"] == "24") & (frame["algo"] == "nlpo") & (frame["reward"] == "meteor")]
    assert len(copied) > 0 and (copied["flag"] != "").all()
    table = task_table(frame, "commongen", "test")
    nlpo = next(r for r in table.rows if r.labels["algo"] == "NLPO" and r.labels["reward"] == "cider")
    assert table.cell_text(nlpo, next(c for c in table.value_columns if c.key == "rougeLsum")).endswith(FLAG_MARK)
    assert any(note.startswith(FLAG_MARK) and "rougeLsum" in note for note in table.notes)
    tex = latex.render_table(table)
    assert r"$^{\dagger}$" in tex and FLAG_MARK not in tex  # pdflatex has no glyph for the flag
    all_flags = reference_frame(main_only=False, grue_tasks_only=False)
    flagged = {(r.table, r.algo, r.metric) for r in all_flags[all_flags["flag"] != ""].itertuples()}
    assert {("5", "nlpo", "entropy_2"), ("6", "zero_shot", "perplexity"), ("7", "supervised", "entropy_2"),
            ("28", "supervised_nlpo", "bertscore"), ("30+31", "zero_shot", "distinct_2")} <= flagged
