"""METEOR with the offline WordNet, against NLTK's own scorer and a hand-worked value."""
import pytest
from nltk.translate.meteor_score import meteor_score

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers
from grue.metrics.wordnet import load_wordnet


@pytest.fixture(scope="module")
def meteor():
    scorers = build_scorers(["meteor"], MetricContext())
    assert scorers.unavailable == {}, scorers.unavailable

    def score(gens, refs):
        inputs = MetricInputs(prompts=[""] * len(gens), generations=gens, references=refs)
        return scorers.compute(inputs)["meteor"]

    return score


def test_identical_sentence_by_hand(meteor):
    # 6 matches in 1 chunk: penalty 0.5 * (1/6)^3, F-mean 1
    assert meteor(["the cat sat on the mat"], [["the cat sat on the mat"]]).corpus == pytest.approx(1 - 0.5 / 216)


def test_matches_nltk_with_synonyms_and_several_references(meteor):
    wordnet = load_wordnet()
    refs = ["the cat sat on the mat", "a feline was sitting on a rug"]
    hyp = "a feline sat on the rug"
    expected = meteor_score([r.split() for r in refs], hyp.split(), wordnet=wordnet)
    assert meteor([hyp], [refs]).corpus == pytest.approx(expected)
    assert expected == pytest.approx(max(meteor_score([r.split()], hyp.split(), wordnet=wordnet) for r in refs))


def test_wordnet_is_real_and_knows_irregular_forms():
    wordnet = load_wordnet()
    assert wordnet.get_version() == "3.0"
    assert "goose" in {lemma.name() for s in wordnet.synsets("geese") for lemma in s.lemmas()}


def test_irregular_verb_is_a_synonym_match(meteor):
    # NLTK matches synonyms of the Porter stems: "ran" stays "ran", and only WordNet's exception
    # list (here: lemminflect) leads it to "run". One match in one chunk: 1 - 0.5 * 1^3.
    assert meteor(["ran"], [["run"]]).corpus == pytest.approx(0.5)


def test_degenerate_inputs(meteor):
    value = meteor(["", "ha ha ha ha", "日本語 ✓", "word " * 3000], [["a cat"], ["ha"], ["日本語"], ["word"]])
    assert value.per_sample[0] == 0.0
    assert all(0.0 <= v <= 1.0 for v in value.per_sample)


def test_missing_wordnet_is_unavailable_with_a_reason(monkeypatch, tmp_path):
    monkeypatch.setenv("GRUE_WORDNET_DIR", str(tmp_path / "nowhere"))
    load_wordnet.cache_clear()
    try:
        scorers = build_scorers(["meteor"], MetricContext())
        assert "does not exist" in scorers.unavailable["meteor"]
    finally:
        load_wordnet.cache_clear()


def test_memoised_lookups_score_as_plain_nltk_on_review_text(meteor):
    """The scorer remembers synsets and stems per word; over real review text (words recurring across
    samples, so the memos are hit) every sample scores as NLTK's own call with the plain reader."""
    from grue.assets.rotten_tomatoes import rotten_tomatoes_rows
    from grue.metrics.text import treebank_tokens

    texts = [text for text, _ in rotten_tomatoes_rows()[:60]]
    gens = [" ".join(t.split()[::-1]) for t in texts[:30]]  # same words, other order: chunks and synonyms vary
    refs = [[texts[i], texts[i + 30]] for i in range(30)]
    got = meteor(gens, refs).per_sample
    wordnet = load_wordnet()
    expected = [meteor_score([treebank_tokens(r) for r in rs], treebank_tokens(g), wordnet=wordnet)
                for g, rs in zip(gens, refs)]
    assert got == pytest.approx(expected, abs=1e-12)
    assert len(set(round(v, 6) for v in got)) > 10  # a real spread, not a constant
