"""The seed aggregate and the table exports agree with an independent pandas computation."""
from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from scipy import stats

from board_fixtures import imdb_grid
from grue.board.numbers.aggregate import aggregate, seed_frame
from grue.board.numbers.collect import collect
from grue.board.export import export_tables


def _independent(paths) -> pd.DataFrame:
    """Expected statistics straight from the files, without grue.board."""
    rows = []
    for p in paths:
        doc = json.loads((p / "results.json").read_text())
        for split, values in doc["metrics"].items():
            for metric, value in values.items():
                rows.append((doc["algo"], split, metric, value))
    frame = pd.DataFrame(rows, columns=["algo", "split", "metric", "value"])
    return frame.groupby(["algo", "split", "metric"])["value"].agg(["mean", "std", "count"])


def test_aggregate_matches_pandas(tmp_path):
    paths = imdb_grid(tmp_path, seeds=7)
    agg = aggregate(seed_frame(collect([tmp_path]).runs)).set_index(["algo", "split", "metric"])
    expected = _independent(paths)
    assert len(agg) == len(expected)
    for key, row in expected.iterrows():
        got = agg.loc[key]
        assert got["mean"] == pytest.approx(row["mean"], rel=1e-12)
        assert got["std"] == pytest.approx(row["std"], rel=1e-12)
        assert got["n"] == row["count"] == 7
        half = stats.t.ppf(0.975, 6) * row["std"] / math.sqrt(7)
        assert got["ci_low"] == pytest.approx(row["mean"] - half)
        assert got["ci_high"] == pytest.approx(row["mean"] + half)


def test_single_seed_has_no_spread(tmp_path):
    imdb_grid(tmp_path, seeds=1, algos=("ppo",))
    agg = aggregate(seed_frame(collect([tmp_path]).runs))
    assert (agg["n"] == 1).all()
    assert agg["std"].isna().all() and agg["ci_low"].isna().all()


def test_export_tables_writes_md_csv_json(tmp_path):
    runs = tmp_path / "runs"
    paths = imdb_grid(runs, seeds=3)
    text = export_tables([runs], tmp_path / "out")
    assert "## imdb (test split)" in text
    assert "Supervised+NLPO" in text and "sentiment ↑" in text and "perplexity ↓" in text
    csv = pd.read_csv(tmp_path / "out" / "leaderboard.csv")
    expected = _independent(paths)
    merged = csv.set_index(["algo", "split", "metric"]).join(expected.add_suffix("_pd"))
    assert (merged["mean"] - merged["mean_pd"]).abs().max() < 1e-9
    doc = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert len(doc["rows"]) == len(expected)
    assert {r["reward"] for r in doc["rows"] if r["algo"] == "supervised"} == {None}
