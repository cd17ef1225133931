"""BERTScore with the packaged all-MiniLM-L6-v2 encoder, against bert-score itself."""
import random

import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.bertscore import _padded_in_chunk
from grue.metrics.registry import build_scorers

MINI = {"bertscore_model": "packaged:minilm", "bertscore_num_layers": 6}


@pytest.fixture(scope="module")
def bertscore():
    scorers = build_scorers(["bertscore"], MetricContext(options=MINI))
    assert scorers.unavailable == {}, scorers.unavailable
    return scorers


def bert_score_itself(cands, refs):
    from bert_score import score

    from grue.assets import resolve_model

    return score(cands, refs, model_type=resolve_model("packaged:minilm"), num_layers=6)[2].tolist()


@pytest.mark.slow
def test_known_value_and_best_reference(bertscore):
    inputs = MetricInputs(prompts=["", ""], generations=["the cat sat on the mat", "the cat sat on the mat"],
                          references=[["a cat was sitting on the mat"], ["zebra", "a cat was sitting on the mat"]])
    value = bertscore.compute(inputs)["bertscore"]
    assert value.per_sample == pytest.approx([0.9029, 0.9029], abs=1e-4)  # measured with bert-score directly


@pytest.mark.slow
def test_matches_bert_score_across_its_padding_chunks_and_degenerate_text(bertscore):
    # 60 candidates with 1-2 references each: more than one of bert-score's 64-pair chunks, lengths from 1
    # to 12 words, so its zeroed padding matters for some pairs
    rng = random.Random(5)
    words = "the a cat sat mat zebra quickly Über café 日本語 ✓ not never film plot 2019 ha !".split()
    gens = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(60)]
    refs = [[" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(rng.randint(1, 2))]
            for _ in range(60)]
    gens[0], refs[0] = "word " * 600, ["word"]  # truncated to the encoder's limit by both
    assert sum(map(len, refs)) > 64
    value = bertscore.compute(MetricInputs(prompts=[""] * 60, generations=gens, references=refs))["bertscore"]
    assert value.per_sample == pytest.approx(bert_score_itself(gens, refs), abs=1e-5)
    empty = bertscore.compute(MetricInputs(prompts=[""], generations=[""], references=[["a cat"]]))["bertscore"]
    assert empty.per_sample == [0.0]


def test_padding_chunks_mirror_bert_score_batches():
    lengths = [3] * 63 + [5] + [2, 2]  # chunk 1: all but the 5 are padded; chunk 2: equal lengths
    assert _padded_in_chunk(lengths) == [True] * 63 + [False] + [False, False]


def test_hub_model_missing_offline_is_unavailable_and_local_dirs_need_layers(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    scorers = build_scorers(["bertscore"], MetricContext(options={"bertscore_model": "roberta-large"}))
    assert "not available" in scorers.unavailable["bertscore"]
    with pytest.raises(ValueError, match="num_layers"):
        build_scorers(["bertscore"], MetricContext(options={"bertscore_model": str(tmp_path)}))
