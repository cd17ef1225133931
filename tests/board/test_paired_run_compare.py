"""`grue compare runA runB` on two run directories: the paired per-prompt difference B - A of every metric,
checked against numbers worked out by hand; refused in one line when the runs share no prompts."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app

runner = CliRunner()

A_ROUGE, B_ROUGE = [0.2, 0.4, 0.3, 0.5], [0.5, 0.6, 0.4, 0.9]  # B - A: 0.3, 0.2, 0.1, 0.4
A_LOWER, B_LOWER = [1.0, 2.0, 3.0, 4.0], [2.0, 3.1, 3.9, 5.0]  # B - A: 1.0, 1.1, 0.9, 1.0 (lower is better)
PROMPTS = {f"t{i}": f"Harsh review {i}\nPolite version:" for i in range(5)}


def write_run(root: Path, name: str, algo: str, rouge: list[float], lower: list[float], ids: list[str],
              split: str = "test", distinct: float = 0.5, prompts: dict[str, str] = PROMPTS) -> Path:
    run = root / name
    (run / "predictions").mkdir(parents=True)
    rows = [{"id": i, "prompt": prompts[i], "generation": "g", "references": ["r"],
             "scores": {"rouge1": r, "lower": x}} for i, r, x in zip(ids, rouge, lower)]
    (run / "predictions" / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    doc = {"task": "tone", "algo": algo, "seed": 0,
           "metrics": {split: {"rouge1": sum(rouge) / len(rouge), "lower": sum(lower) / len(lower),
                               "distinct_1": distinct}},
           "higher_is_better": {"rouge1": True, "lower": False, "distinct_1": True}}
    (run / "results.json").write_text(json.dumps(doc))
    return run


@pytest.fixture
def two_runs(tmp_path):
    ids = ["t0", "t1", "t2", "t3"]
    a = write_run(tmp_path, "a", "zero_shot", A_ROUGE, A_LOWER, ids, distinct=0.61)
    b = write_run(tmp_path, "b", "ppo", B_ROUGE + [0.0], B_LOWER + [9.0], ids + ["t4"], distinct=0.72)  # one more
    return a, b


def test_the_paired_differences_are_the_hand_computed_ones(two_runs):
    from scipy import stats

    from grue.board.paired_runs import compare_runs

    (split,) = compare_runs(*map(str, two_runs)).splits
    assert (split.split, split.shared, split.n_a, split.n_b) == ("test", 4, 4, 5)  # t4 is B's alone: not paired
    rouge, lower = (next(p for p in split.paired if p.metric == m) for m in ("rouge1", "lower"))
    # rouge1: diffs 0.3, 0.2, 0.1, 0.4; mean 0.25; squared deviations sum to 0.05, sd = sqrt(0.05 / 3)
    assert rouge.diff == pytest.approx(0.25) and rouge.n == 4
    assert rouge.se == pytest.approx(math.sqrt(0.05 / 3) / 2)
    assert (rouge.mean_a, rouge.mean_b) == (pytest.approx(0.35), pytest.approx(0.6))
    assert rouge.p == pytest.approx(stats.ttest_rel(B_ROUGE, A_ROUGE).pvalue)  # t = 3.873, 3 dof: p = 0.0305
    # lower: diffs 1.0, 1.1, 0.9, 1.0; mean 1.0; squared deviations 0.02, sd = sqrt(0.02 / 3)
    assert lower.diff == pytest.approx(1.0) and lower.se == pytest.approx(math.sqrt(0.02 / 3) / 2)
    assert split.unpaired == [("distinct_1", 0.61, 0.72)]  # no per-prompt values: corpus-level


def test_the_report_gives_mean_se_n_and_a_one_line_verdict(two_runs):
    result = runner.invoke(app, ["compare", *map(str, two_runs)])
    assert result.exit_code == 0, result.output
    out = result.output
    # Holm over the two paired lines: lower's p (~1.5e-4) doubled stays below rouge1's 0.0305, which is kept
    assert "| rouge1 ↑ | 0.35 | 0.6 | +0.25 ± 0.06455 | 4 | 0.03047 | B better |" in out
    assert "| lower ↓ | 2.5 | 3.5 | +1 ± 0.04082 | 4 | 0.0002983 | A better |" in out  # higher is worse here
    assert "| distinct_1 ↑ | 0.61 | 0.72 | corpus-level: unpaired | | | |" in out
    assert "## test split: 4 prompts shared (A has 4, B 5)" in out
    assert "**Verdict (test, 4 prompts):** B better on rouge1; A better on lower." in out


def test_no_significant_difference_when_the_pairs_disagree(tmp_path):
    ids = ["t0", "t1", "t2", "t3"]
    a = write_run(tmp_path, "a", "zero_shot", A_ROUGE, A_LOWER, ids)
    b = write_run(tmp_path, "b", "ppo", [0.3, 0.3, 0.4, 0.4], A_LOWER, ids)  # diffs +0.1, -0.1, +0.1, -0.1
    out = runner.invoke(app, ["compare", str(a), str(b)]).output
    assert "| rouge1 ↑ | 0.35 | 0.35 | +0 ± 0.05774 | 4 | 1 | no significant difference |" in out
    assert "| lower ↓ | 2.5 | 2.5 | +0 ± 0 | 4 | 1 | no significant difference |" in out  # identical on every prompt
    assert "**Verdict (test, 4 prompts):** no significant difference on 2 of 2 paired metric(s)." in out


def _refused(*args: str) -> str:
    result = runner.invoke(app, ["compare", *args])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and result.output.count("\n") == 1, result.output
    return result.output


def test_runs_without_a_shared_prompt_or_split_are_refused_in_one_line(tmp_path):
    a = write_run(tmp_path, "a", "zero_shot", A_ROUGE, A_LOWER, ["t0", "t1", "t2", "t3"])
    other_ids = write_run(tmp_path, "b", "ppo", [0.1], [1.0], ["t4"])
    assert "share no prompt of the test split" in _refused(str(a), str(other_ids))
    other_split = write_run(tmp_path, "c", "ppo", A_ROUGE, A_LOWER, ["t0", "t1", "t2", "t3"], split="val")
    assert "different splits (A: test; B: val)" in _refused(str(a), str(other_split))
    reworded = write_run(tmp_path, "d", "ppo", A_ROUGE, A_LOWER, ["t0", "t1", "t2", "t3"],
                         prompts={**PROMPTS, "t2": "Another prompt"})
    assert "prompt 't2' of the test split reads differently" in _refused(str(a), str(reworded))
    assert "--split val: A reports test" in _refused(str(a), str(other_split / "results.json"), "--split", "val")


def test_a_folder_of_runs_is_still_compared_as_a_result_set(two_runs, tmp_path):
    """Only two run directories are paired; a runs folder keeps the seed-aggregate comparison."""
    result = runner.invoke(app, ["compare", str(tmp_path), str(two_runs[0])])
    assert result.exit_code == 0 and result.output.startswith("# grue compare\n"), result.output
    assert "--split goes with two run directories" in _refused(str(tmp_path), "paper", "--split", "test")
