"""Every finished run's model/ gets a README.md in the hub's model-card format: the metadata round-trips through
huggingface_hub's own ModelCard parser and carries each split's mean over the setting's seeds; the body has every
seed's value, the config, how to load the model and the citations; `grue eval` of the run writes it again."""
from __future__ import annotations

import json
import statistics

import pytest
import yaml
from huggingface_hub import ModelCard, ModelCardData
from typer.testing import CliRunner

from cli import app
from grue.results.model_card import PAPER_BIBTEX, hub_id, metadata
from tiny_ppo import run_tiny_ppo, tiny_ppo_args


@pytest.fixture(scope="module")
def two_seeds(tiny_model_dirs, tmp_path_factory):
    out = tmp_path_factory.mktemp("cards") / "runs"
    return [run_tiny_ppo(tiny_model_dirs, out, seed, "tracking.tensorboard=false") for seed in (0, 1)]


def test_the_card_round_trips_through_the_hub_parser_with_the_seeds_mean(two_seeds):
    first, second = two_seeds
    docs = [json.loads((run / "results.json").read_text()) for run in two_seeds]
    card = ModelCard.load(first / "model" / "README.md")
    written = yaml.safe_load((first / "model" / "README.md").read_text().split("---\n")[1])
    assert card.data.to_dict() == written  # nothing lost or added by the hub's parser
    assert ModelCard(str(card)).data.to_dict() == written and ModelCardData(**written).to_dict() == written
    assert card.data.library_name == "transformers" and card.data.pipeline_tag == "text-generation"
    assert {"grue", "grue-imdb", "ppo", "reinforcement-learning"} <= set(card.data.tags)
    assert card.data.model_name == first.name
    got = {(r.dataset_split, r.metric_type): r.metric_value for r in card.data.eval_results}
    for split, source in (("val", "validation"), ("test", "test")):
        for metric in docs[0]["metrics"][split]:
            mean = statistics.fmean(d["metrics"][split][metric] for d in docs)
            assert got[(source, metric)] == pytest.approx(mean, abs=1e-6), (split, metric)
    assert len(got) == sum(len(docs[0]["metrics"][s]) for s in ("val", "test"))
    extra = card.data.to_dict()["grue"]
    assert extra["seeds"] == [0, 1] and extra["config_hash"] == {"0": docs[0]["config_hash"], "1": docs[1]["config_hash"]}


def test_the_body_has_every_seed_the_config_loading_and_citations(two_seeds):
    first, second = two_seeds
    docs = [json.loads((run / "results.json").read_text()) for run in two_seeds]
    text = (first / "model" / "README.md").read_text()
    assert "| split | metric | mean ± std | seed 0 | seed 1 |" in text
    row = next(line for line in text.splitlines() if line.startswith("| test | sentiment |"))
    assert row.endswith(f"| {docs[0]['metrics']['test']['sentiment']:.4g} | {docs[1]['metrics']['test']['sentiment']:.4g} |")
    assert (first / "config.yaml").read_text().strip() in text  # the resolved config, as written
    assert f'AutoModelForCausalLM.from_pretrained("{first / "model"}")' in text
    assert PAPER_BIBTEX in text and "@software{grue," in text
    # the first seed's card was written again when the second finished: both list both seeds
    assert (second / "model" / "README.md").read_text().count("| seed 0 | seed 1 |") == 1


def test_grue_eval_of_a_run_writes_its_card_again(two_seeds, tiny_model_dirs, tmp_path, monkeypatch):
    first = two_seeds[0]
    card = first / "model" / "README.md"
    card.unlink()
    monkeypatch.chdir(tmp_path)
    args = [a for a in tiny_ppo_args(tiny_model_dirs, tmp_path) if not a.startswith(
        ("task=", "profile=", "algo=", "seed=", "model.policy=", "output_dir="))]
    result = CliRunner().invoke(app, ["eval", f"model={first}", "split=val", *args], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert card.is_file() and ModelCard.load(card).data.to_dict()["grue"]["seeds"] == [0, 1]
    assert list((tmp_path / "evals").glob("eval-imdb-mini-ppo-*/results.json"))  # the evaluation itself, apart


def test_hub_references_become_base_model_and_dataset():
    assert hub_id("packaged:smollm2-135m") == "HuggingFaceTB/SmolLM2-135M-Instruct"
    assert hub_id("lvwerra/gpt2-imdb") == "lvwerra/gpt2-imdb"
    assert hub_id("/models/policy") is None and hub_id("packaged:rotten-tomatoes") is None and hub_id(None) is None
    doc = {"task": "imdb", "profile": "paper", "algo": "nlpo", "seed": 3, "reward": "sentiment",
           "init_model": "lvwerra/gpt2-imdb", "config_hash": "ab", "comparable_to_paper": True,
           "config": {"model": {"kind": "causal", "policy": "lvwerra/gpt2-imdb"}, "data": {"source": "stanfordnlp/imdb"}},
           "splits": {"test": {"source": "test", "n_samples": 5000}}, "metrics": {"test": {"sentiment": 0.6, "perplexity": 33.0}}}
    meta = metadata([doc], "imdb-paper-nlpo")
    assert meta["base_model"] == "lvwerra/gpt2-imdb" and meta["datasets"] == ["stanfordnlp/imdb"]
    [result] = meta["model-index"][0]["results"]
    assert result["dataset"] == {"type": "stanfordnlp/imdb", "name": "IMDB (paper profile)", "split": "test"}
    assert [m["type"] for m in result["metrics"]] == ["sentiment", "perplexity"]  # Table 1's task metric first
