"""Concept coverage with lemmatisation, by hand."""
import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.coverage import concept_coverage
from grue.metrics.registry import build_scorers


@pytest.mark.parametrize("generation,concepts,expected", [
    ("The dogs ran across the park.", ["dog", "run", "park"], 1.0),
    ("The dogs ran.", ["dog", "run", "park"], 2 / 3),
    ("Geese flew over the children.", ["goose", "fly", "child"], 1.0),
    ("She saw a dog", ["see", "dog_N", "cat_N"], 2 / 3),
    ("", ["dog"], 0.0),
    ("dog dog dog dog", ["dog", "cat"], 0.5),
    ("Le café est délicieux", ["café"], 1.0),
])
def test_coverage_by_hand(generation, concepts, expected):
    assert concept_coverage(generation, concepts) == pytest.approx(expected)


def test_no_concepts_is_an_error():
    with pytest.raises(ValueError):
        concept_coverage("a dog", [])


def test_corpus_is_the_mean_over_samples():
    inputs = MetricInputs(prompts=["", ""], generations=["dogs run", "a cat"], references=[],
                          meta=[{"concepts": ["dog", "run"]}, {"concepts": ["cat", "sit"]}])
    value = build_scorers(["coverage"], MetricContext()).compute(inputs)["coverage"]
    assert value.per_sample == [1.0, 0.5] and value.corpus == pytest.approx(0.75)
