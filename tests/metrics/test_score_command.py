"""`grue score`: generations made elsewhere, scored into a results document the leaderboard accepts."""
import json

import pytest

from grue.commands.score import read_predictions, score
from grue.data.sample import Sample
from grue.results.schema import validate_results

SAMPLES = [Sample("a", "dog, run", ("A dog runs.",), {"concepts": ["dog", "run"]}),
           Sample("b", "cat, sit", ("The cat sits.", "A cat is sitting."), {"concepts": ["cat", "sit"]})]


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_references_and_meta_come_from_the_task_split(tmp_path):
    preds = write(tmp_path / "p.jsonl", [{"id": "a", "generation": "A dog runs."},
                                         {"id": "b", "generation": "a cat sat down"}])
    doc = score("commongen", preds, "val", ["bleu4", "coverage", "msttr", "perplexity"], tmp_path / "results.json",
                samples=SAMPLES, profile="mini", scored_predictions=tmp_path / "scored.jsonl")
    assert validate_results(json.loads((tmp_path / "results.json").read_text())) == []
    assert doc["metrics"]["val"]["coverage"] == pytest.approx(1.0)  # "sat" covers "sit"
    assert "perplexity" in doc["metrics_unavailable"] and "perplexity" not in doc["metrics"]["val"]
    assert doc["higher_is_better"]["coverage"] is True
    scored = [json.loads(line) for line in (tmp_path / "scored.jsonl").read_text().splitlines()]
    assert scored[0]["scores"]["coverage"] == 1.0


def test_references_in_the_file_win_and_need_no_task_samples(tmp_path):
    preds = write(tmp_path / "p.jsonl", [{"id": 1, "generation": "the cat", "references": "the cat"},
                                         {"id": 2, "generation": "a dog", "references": ["a dog", "dogs"]}])
    doc = score("wmt16", preds, "test", ["chrf", "ter"], tmp_path / "r.json")
    assert doc["metrics"]["test"]["chrf"] == pytest.approx(1.0)
    assert doc["metrics"]["test"]["ter"] == pytest.approx(0.0)


def test_reference_metrics_without_references_fail_clearly(tmp_path):
    preds = write(tmp_path / "p.jsonl", [{"id": "zz", "generation": "x"}])
    with pytest.raises(ValueError, match="reference"):
        score("wmt16", preds, "test", ["chrf"], tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("lines,message", [
    (['{"id": 1}'], "generation"), (['{"id": 1, "generation": "a"}', '{"id": 1, "generation": "b"}'], "duplicate"),
    (["not json"], "not JSON"), ([], "no predictions")])
def test_malformed_files_are_refused_with_the_line(tmp_path, lines, message):
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(lines))
    with pytest.raises(ValueError, match=message):
        read_predictions(path)
