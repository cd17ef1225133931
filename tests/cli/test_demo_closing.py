"""The demo's closing block in an 80-column piped log: the results table is whole, one line per run, and
no sentence runs past the 80th column; paths and commands are never broken (they are copied)."""
from __future__ import annotations

import io
import json

from rich.console import Console

from grue.commands import demo

SENTIMENT = {"zero_shot": [0.2, 0.4, 0.6, 0.8], "ppo": [0.3, 0.6, 0.6, 0.9]}


def _run_dir(root, algo: str):
    run_dir = root / f"imdb-mini-{algo}-seed0-0123abcd"
    (run_dir / "predictions").mkdir(parents=True)
    scores = SENTIMENT[algo]
    mean = sum(scores) / len(scores)
    (run_dir / "results.json").write_text(json.dumps({"metrics": {"test": {"sentiment": mean, "perplexity": 31.25}}}))
    with (run_dir / "predictions" / "test.jsonl").open("w") as handle:
        for i, value in enumerate(scores):
            handle.write(json.dumps({"id": f"t{i}", "scores": {"sentiment": value}}) + "\n")
    return run_dir


def test_the_closing_block_fits_80_columns(tmp_path, monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(demo, "console", Console(file=out, width=80, color_system=None))
    runs = {algo: _run_dir(tmp_path / "runs", algo) for algo in ("zero_shot", "ppo")}
    demo._closing(runs, tmp_path / "runs" / "leaderboard", str(tmp_path / "runs"), ["zero_shot 2:01", "ppo 9:58"], 725)
    lines = out.getvalue().splitlines()
    whole = {f"  {runs['zero_shot']}/", f"  {runs['ppo']}/", f"  {tmp_path}/runs/leaderboard/site/index.html"}
    assert whole <= set(lines)  # a path is one line however long
    too_wide = [line for line in lines if len(line) > 80 and line not in whole and not line.startswith("  grue ")
                and not line.startswith(f"  {tmp_path}")]
    assert too_wide == []
    table = next(i for i, line in enumerate(lines) if line.split() == ["algorithm", "sentiment", "↑", "perplexity", "↓"])
    assert lines[table + 1].split() == ["zero_shot", "0.500", "31.2"]  # 31.25 rounds half to even
    assert lines[table + 2].split() == ["ppo", "0.600", "31.2"]
    assert max(len(line) for line in lines[table:table + 3]) <= 40
    text = " ".join(out.getvalue().split())
    # the paired difference: per prompt 0.1, 0.2, 0, 0.1 -> mean 0.1, sd 0.0816, se 0.0408, z 2.4
    assert "on the same 4 test prompts: sentiment +0.100 ± 0.041 (paired per prompt, z = 2.4)" in text
    assert "Done in 12:05 (zero_shot 2:01, ppo 9:58)." in text
