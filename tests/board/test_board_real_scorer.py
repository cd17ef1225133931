"""Results documents made by the real scoring path (`grue score`), not hand-written ones, feed the board.

The generations are fixtures; the metric values come from grue's own scorers and the document from
its own writer, so a schema drift between the runner side and the board side fails here.
"""
from __future__ import annotations

import json

import pytest

from grue.board.build import BoardOptions, build_board

score_module = pytest.importorskip("grue.commands.score")

GENERATIONS = {
    "supervised": ["A dog runs in the park.", "The cat sits on the mat."],
    "ppo": ["dog dog run", "cat"],
}
REFERENCES = [["A dog runs across the park."], ["The cat sits on a mat.", "A cat is sitting."]]


def test_scored_predictions_become_board_rows(tmp_path):
    for algo, generations in GENERATIONS.items():
        for seed in range(2):
            preds = tmp_path / f"{algo}-{seed}.jsonl"
            rows = [{"id": str(i), "prompt": "concepts", "generation": g + (" now" if seed else ""), "references": r}
                    for i, (g, r) in enumerate(zip(generations, REFERENCES))]
            preds.write_text("".join(json.dumps(r) + "\n" for r in rows))
            run_dir = tmp_path / "runs" / f"{algo}-{seed}"
            run_dir.mkdir(parents=True)
            score_module.score("commongen", preds, "val", ["bleu4", "rouge2", "rougeL"], run_dir / "results.json",
                               profile="mini", algo=algo, seed=seed, system="fixture-generations")
    board = build_board([tmp_path / "runs"], BoardOptions(with_paper=False))
    assert board.found.skipped == [] and len(board.found.runs) == 4
    assert set(board.agg["n"]) == {2} and set(board.agg["metric"]) == {"bleu4", "rouge2", "rougeL"}
    overall = board.overall.set_index("algo")
    assert overall.loc["supervised", "commongen:task"] > overall.loc["ppo", "commongen:task"]
    assert "cider" in board.entries.iloc[0]["missing_metrics"]  # Table 1 metrics not scored are listed, not zeroed
