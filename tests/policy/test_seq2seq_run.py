"""A whole run with an encoder-decoder policy: load, supervised warm start, NLPO, checkpoints, evaluation."""
import json

import pytest

from grue.config import load_config
from grue.results.schema import validate_results
from grue.run.runner import Run


@pytest.mark.parametrize("algo", ["supervised_nlpo", "ppo"])
def test_a_seq2seq_run_writes_a_valid_results_file(tiny_imdb_args, tiny_t5_dir, algo):
    args = [*tiny_imdb_args, f"algo={algo}", f"model.policy={tiny_t5_dir}", "model.kind=seq2seq",
            "model.truncation_side=right"]
    path = Run(load_config(args), args).execute()
    doc = json.loads((path / "results.json").read_text())
    assert validate_results(doc) == []
    assert {"sentiment", "perplexity", "distinct_1"} <= set(doc["metrics"]["test"])
    assert json.loads((path / "model" / "config.json").read_text())["model_type"] == "t5"  # the trained policy
    train_log = [json.loads(l) for l in (path / "logs" / "train.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in train_log] == [1, 2, 3, 4, 5]
