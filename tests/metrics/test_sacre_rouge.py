"""sacrebleu-based metrics and ROUGE against their reference libraries, plus hand-worked ROUGE cases."""
import random

import pytest
import sacrebleu
from rouge_score import rouge_scorer

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers
from grue.metrics.rouge import ROUGE_TYPES
from grue.metrics.text import split_sentences

GENS = ["Der Hund läuft im Park.", "Ich mag Äpfel, sehr!", "Guten Morgen"]
REFS = [["Der Hund rennt im Park.", "Ein Hund läuft im Park."], ["Ich mag Äpfel sehr."], ["Guten Morgen!"]]


def compute(names, gens=GENS, refs=REFS, **options):
    inputs = MetricInputs(prompts=[""] * len(gens), generations=gens, references=refs)
    scorers = build_scorers(names, MetricContext(options=options))
    assert scorers.unavailable == {}
    return scorers.compute(inputs)


def test_sacrebleu_chrf_ter_match_the_library_with_variable_reference_counts():
    streams = [[r[0] for r in REFS], [r[1] if len(r) > 1 else None for r in REFS]]
    out = compute(["sacrebleu", "chrf", "ter"], sacrebleu_tokenize="intl")
    assert out["sacrebleu"].corpus == pytest.approx(sacrebleu.corpus_bleu(GENS, streams, tokenize="intl").score / 100)
    assert out["chrf"].corpus == pytest.approx(sacrebleu.corpus_chrf(GENS, streams).score / 100)
    assert out["ter"].corpus == pytest.approx(sacrebleu.corpus_ter(GENS, streams).score / 100)
    for i, (gen, refs) in enumerate(zip(GENS, REFS)):
        assert out["chrf"].per_sample[i] == pytest.approx(sacrebleu.sentence_chrf(gen, refs).score / 100)
        assert out["ter"].per_sample[i] == pytest.approx(sacrebleu.sentence_ter(gen, refs).score / 100)
        expected = sacrebleu.sentence_bleu(gen, refs, tokenize="intl").score / 100  # effective order, exp smoothing
        assert out["sacrebleu"].per_sample[i] == pytest.approx(expected)


def test_ter_is_lower_is_better():
    scorers = build_scorers(["ter", "chrf"], MetricContext())
    assert {k: v for s in scorers.scorers for k, v in s.higher_is_better.items()} == {"ter": False, "chrf": True}


def test_rouge_takes_the_best_reference_and_averages_samples():
    lib = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    out = compute(["rouge1", "rouge2", "rougeL"])
    for name in ("rouge1", "rouge2", "rougeL"):
        best = [max(lib.score(r, g)[name].fmeasure for r in refs) for g, refs in zip(GENS, REFS)]
        assert out[name].per_sample == pytest.approx(best)
        assert out[name].corpus == pytest.approx(sum(best) / len(best))


def test_all_four_equal_rouge_score_on_multi_sentence_texts():
    rng = random.Random(4)
    words = "The film's plot was not good; acting, however, is great! Stories were running quickly. 2019 movies".split()

    def text():
        return " ".join(rng.choice(words) for _ in range(rng.randint(0, 40)))

    gens = [text() for _ in range(30)]
    refs = [[text() for _ in range(rng.randint(1, 3))] for _ in range(30)]
    out = compute(list(ROUGE_TYPES), gens=gens, refs=refs)
    lib = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=True)
    def lines(t):  # rouge-score reads newline-separated sentences
        return "\n".join(split_sentences(t))

    for name in ROUGE_TYPES:
        best = [max(lib.score(lines(r), lines(g))[name].fmeasure for r in rs) for g, rs in zip(gens, refs)]
        assert out[name].per_sample == pytest.approx(best, abs=1e-12)


def test_rouge_lsum_is_summary_level_over_sentences():
    out = compute(["rougeL", "rougeLsum"], gens=["the cat sat. the dog ran."], refs=[["the dog ran. the cat sat."]])
    assert out["rougeL"].corpus == pytest.approx(0.5)  # one LCS of 3 of 6 tokens
    assert out["rougeLsum"].corpus == pytest.approx(1.0)  # every reference sentence fully recovered


def test_rouge_uses_the_stemmer():
    out = compute(["rouge1"], gens=["dogs running"], refs=[["dog runs"]])
    assert out["rouge1"].corpus == pytest.approx(1.0)
