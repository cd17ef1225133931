"""BERTScore with the packaged all-MiniLM-L6-v2 encoder, against bert-score itself."""
import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers

MINI = {"bertscore_model": "packaged:minilm", "bertscore_num_layers": 6}


@pytest.fixture(scope="module")
def bertscore():
    scorers = build_scorers(["bertscore"], MetricContext(options=MINI))
    assert scorers.unavailable == {}, scorers.unavailable
    return scorers


@pytest.mark.slow
def test_known_value_and_best_reference(bertscore):
    inputs = MetricInputs(prompts=["", ""], generations=["the cat sat on the mat", "the cat sat on the mat"],
                          references=[["a cat was sitting on the mat"], ["zebra", "a cat was sitting on the mat"]])
    value = bertscore.compute(inputs)["bertscore"]
    assert value.per_sample == pytest.approx([0.9029, 0.9029], abs=1e-4)  # measured with bert-score directly


@pytest.mark.slow
def test_matches_bert_score_and_handles_degenerate_text(bertscore):
    gens = ["", "ha ha ha ha ha", "Über café 日本語 ✓", "word " * 2000]
    refs = [["a cat"], ["ha"], ["café 日本語"], ["word"]]
    value = bertscore.compute(MetricInputs(prompts=[""] * 4, generations=gens, references=refs))["bertscore"]
    direct = bertscore.scorers[0].scorer.score(gens[1:], refs[1:])[2].tolist()
    assert value.per_sample[0] == 0.0
    assert value.per_sample[1:] == pytest.approx(direct, abs=1e-6)


def test_hub_model_missing_offline_is_unavailable_and_local_dirs_need_layers(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    scorers = build_scorers(["bertscore"], MetricContext(options={"bertscore_model": "roberta-large"}))
    assert "not available" in scorers.unavailable["bertscore"]
    with pytest.raises(ValueError, match="num_layers"):
        build_scorers(["bertscore"], MetricContext(options={"bertscore_model": str(tmp_path)}))
