"""The paper's numbers ship with provenance; `grue compare` reports differences, significance and the better side."""
from __future__ import annotations

import json

import pytest

from board_fixtures import controlled_grid, imdb_grid, results_doc, write_run
from grue.board.compare import compare_sources
from grue.board.numbers.reference import paper_results, paper_table2, provenance, reference_frame


def test_paper_rows_carry_table_split_and_seed_count():
    rows = paper_results()["rows"]
    ppo = next(r for r in rows if r["table"] == "5" and r["algo"] == "ppo" and r["setting"] == {"target_kl": "0.1"})
    assert ppo["main"] and ppo["split"] == "val" and ppo["n_seeds"] == 5
    assert ppo["metrics"]["sentiment"] == {"mean": 0.602, "std": 0.012}
    assert ppo["metrics"]["perplexity"] == {"mean": 33.816, "std": 0.233}
    ablation = next(r for r in rows if r["table"] == "5" and r["algo"] == "ppo" and r["setting"] == {"target_kl": "inf"})
    assert not ablation["main"]
    commongen = [r for r in rows if r["table"] == "12"]
    assert len(commongen) == 26 and all(r["n_seeds"] is None and r["split"] == "test" for r in commongen)
    wmt = next(r for r in rows if r["task"] == "wmt16" and r["algo"] == "supervised_nlpo" and r["reward"] == "sacrebleu")
    assert wmt["table"] == "30+31" and wmt["metrics"]["ter"]["mean"] == 0.533 and "msttr" in wmt["metrics"]
    assert provenance("5") == "paper Table 5 (imdb, val, 5 seeds)"


def test_reference_frame_holds_only_main_grue_rows():
    frame = reference_frame()
    assert set(frame["source"]) == {"paper"} and "iwslt2017" not in set(frame["task"])
    imdb = frame[(frame["task"] == "imdb") & (frame["metric"] == "sentiment")]
    assert sorted(imdb["algo"]) == sorted(["zero_shot", "supervised", "ppo", "nlpo", "supervised_ppo", "supervised_nlpo"])
    assert not frame.loc[frame["metric"] == "perplexity", "higher_is_better"].any()


def test_table2_is_decoded():
    answers = paper_table2()["answers"]
    assert answers["needs_warm_start"]["commongen"] is True and answers["needs_warm_start"]["imdb"] is False
    assert answers["rl_gt_sup_human"]["wmt16"] is None


def test_compare_against_paper_is_a_readable_report(tmp_path):
    controlled_grid(tmp_path, {"ppo": (0.602, 33.8), "supervised": (0.45, 35.5)}, seeds=5)
    result, text = compare_sources(str(tmp_path), "paper")
    assert "profiles differ (mini, paper)" in text
    assert "## imdb / ppo (val; reward sentiment vs sentiment; setting — vs target_kl=0.1)" in text
    sup = result[(result["algo"] == "supervised") & (result["metric"] == "sentiment")].iloc[0]
    assert sup["verdict"] == "B better" and sup["diff"] == pytest.approx(sup["mean_a"] - 0.539)
    ppo = result[(result["algo"] == "ppo") & (result["metric"] == "sentiment")].iloc[0]
    assert ppo["verdict"] == "no significant difference"
    assert "**Summary over" in text


def test_compare_two_result_sets_and_unknown_seed_counts(tmp_path):
    controlled_grid(tmp_path / "a", {"ppo": (0.70, 30.0)}, seeds=3)
    controlled_grid(tmp_path / "b", {"ppo": (0.60, 34.0)}, seeds=3, rng_seed=7)
    result, _ = compare_sources(str(tmp_path / "a"), str(tmp_path / "b"))
    verdicts = result[result["split"] == "test"].set_index("metric")["verdict"]
    assert verdicts["sentiment"] == "A better" and verdicts["perplexity"] == "A better"  # lower perplexity wins
    metrics = {"test": {"rouge2": 0.2, "cider": 1.0}}
    for seed in range(2):
        write_run(tmp_path / "cg", results_doc("commongen", "supervised", seed, metrics, reward=None))
    cg, _ = compare_sources(str(tmp_path / "cg"), "paper")
    assert cg["verdict"].str.contains("seed count is not published").all()


def test_compare_reads_an_exported_board(tmp_path):
    from grue.board.export import export_tables

    imdb_grid(tmp_path / "runs", seeds=3, algos=("ppo",))
    export_tables([tmp_path / "runs"], tmp_path / "out", ["json"])
    result, text = compare_sources(str(tmp_path / "out" / "leaderboard.json"), str(tmp_path / "runs"))
    assert (result["diff"].abs() < 1e-12).all() and set(result["verdict"]) == {"no significant difference"}
    assert json.loads((tmp_path / "out" / "leaderboard.json").read_text())["rows"]
