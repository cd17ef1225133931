"""sacrebleu-based metrics and ROUGE against their reference libraries, plus hand-worked ROUGE cases."""
import pytest
import sacrebleu
from rouge_score import rouge_scorer

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers

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


def test_rouge_lsum_is_summary_level_over_sentences():
    out = compute(["rougeL", "rougeLsum"], gens=["the cat sat. the dog ran."], refs=[["the dog ran. the cat sat."]])
    assert out["rougeL"].corpus == pytest.approx(0.5)  # one LCS of 3 of 6 tokens
    assert out["rougeLsum"].corpus == pytest.approx(1.0)  # every reference sentence fully recovered


def test_rouge_uses_the_stemmer():
    out = compute(["rouge1"], gens=["dogs running"], refs=[["dog runs"]])
    assert out["rouge1"].corpus == pytest.approx(1.0)
