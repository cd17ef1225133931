"""Every text metric on degenerate generations: no crash, finite values, the documented value for ''."""
import math

import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers

TEXT_METRICS = ["bleu", "bleu3", "bleu4", "sacrebleu", "chrf", "ter", "rouge1", "rouge2", "rougeL", "rougeLsum",
                "rougeL_max", "meteor", "cider", "coverage", "msttr", "distinct_1", "distinct_2", "entropy_1",
                "entropy_2", "unique_1", "unique_2"]
LONG = " ".join(f"word{i % 997}" for i in range(5000))
GENERATIONS = ["", "the the the the the the the the", "Über café — 日本語のテキスト ✓ 🙂", LONG, "A dog runs."]
# The long text's reference is short: TER's shift search on two long texts takes minutes (sacre.py).
REFERENCES = [["a dog runs in the park"], ["the cat"], ["café 日本語"], [" ".join(LONG.split()[:40])], ["A dog runs.", ""]]
META = [{"concepts": ["dog", "run"]}] * len(GENERATIONS)
# The value an empty generation gets, as each module documents.
EMPTY_VALUE = {"bleu": 0.0, "bleu3": 0.0, "bleu4": 0.0, "sacrebleu": 0.0, "chrf": 0.0, "ter": 1.0, "rouge1": 0.0,
               "rouge2": 0.0, "rougeL": 0.0, "rougeLsum": 0.0, "rougeL_max": 0.0, "meteor": 0.0, "cider": 0.0,
               "coverage": 0.0}


@pytest.fixture(scope="module")
def results():
    scorers = build_scorers(TEXT_METRICS, MetricContext())
    assert scorers.unavailable == {}
    inputs = MetricInputs(prompts=[""] * len(GENERATIONS), generations=GENERATIONS, references=REFERENCES, meta=META)
    return scorers.compute(inputs)


@pytest.mark.parametrize("name", TEXT_METRICS)
def test_values_are_finite_and_aligned(results, name):
    value = results[name]
    assert math.isfinite(value.corpus)
    if value.per_sample is not None:
        assert len(value.per_sample) == len(GENERATIONS)
        assert all(math.isfinite(v) for v in value.per_sample)


@pytest.mark.parametrize("name", sorted(EMPTY_VALUE))
def test_empty_generation_gets_the_documented_value(results, name):
    assert results[name].per_sample[0] == pytest.approx(EMPTY_VALUE[name])


@pytest.mark.parametrize("name", ["bleu", "sacrebleu", "rouge1", "meteor", "cider", "ter", "rougeL_max"])
def test_a_sample_without_references_is_refused(name):
    scorers = build_scorers([name], MetricContext())
    with pytest.raises(ValueError, match="reference"):
        scorers.compute(MetricInputs(prompts=["", ""], generations=["a", "b"], references=[["a"], []]))


def test_an_empty_corpus_gives_zeros_not_errors():
    scorers = build_scorers(TEXT_METRICS, MetricContext())
    out = scorers.compute(MetricInputs(prompts=[], generations=[], references=[], meta=[]))
    assert set(out) == set(TEXT_METRICS) and all(v.corpus == 0.0 for v in out.values())
