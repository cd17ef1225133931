"""SummaC-ZS, intent accuracy and BLEURT with tiny random models, against unbatched direct computations."""
import pytest
import torch

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import build_scorers
from metric_helpers import direct_probs

NLI_LABELS = ("ENTAILMENT", "NEUTRAL", "CONTRADICTION")
DOCS = ["The film was a delight. The plot makes no sense. Dogs run in the park.", "A tedious mess."]
SUMMARIES = ["The film was a delight. Dogs run!", "I highly recommend this movie."]


def build(name, **options):
    scorers = build_scorers([name], MetricContext(options=options))
    assert scorers.unavailable == {}, scorers.unavailable
    return scorers


def summac_by_hand(path, doc, summary, use_ent=True, use_con=False):
    doc_sents = [s.strip() for s in doc.replace(". ", ".|").split("|")]
    summ_sents = [s.strip() for s in summary.replace(". ", ".|").split("|")]
    per_sentence = []
    for h in summ_sents:
        probs = torch.stack([direct_probs(path, p, h).softmax(-1) for p in doc_sents])
        ent, con = probs[:, 0].max().item(), probs[:, 2].max().item()
        per_sentence.append(ent - con if use_ent and use_con else ent if use_ent else 1 - con)
    return sum(per_sentence) / len(per_sentence)


@pytest.mark.parametrize("use_ent,use_con", [(True, False), (True, True), (False, True)])
def test_summac_zs_matches_the_pairwise_grid(classifier_dir, use_ent, use_con):
    path = classifier_dir(NLI_LABELS)
    scorers = build("summaczs", summac_model=path, summac_use_ent=use_ent, summac_use_con=use_con,
                    summac_batch_size=3)
    out = scorers.compute(MetricInputs(prompts=DOCS, generations=SUMMARIES, references=[]))["summaczs"]
    expected = [summac_by_hand(path, d, s, use_ent, use_con) for d, s in zip(DOCS, SUMMARIES)]
    assert out.per_sample == pytest.approx(expected, abs=1e-5)
    assert out.corpus == pytest.approx(sum(expected) / 2, abs=1e-5)


def test_summac_reads_the_document_from_meta_and_scores_empty_summaries_zero(classifier_dir):
    scorers = build("summaczs", summac_model=classifier_dir(NLI_LABELS))
    inputs = MetricInputs(prompts=["summarize:", "summarize:"], generations=["", "A tedious mess."], references=[],
                          meta=[{"document": DOCS[0]}, {"document": DOCS[1]}])
    out = scorers.compute(inputs)["summaczs"]
    assert out.per_sample[0] == 0.0
    assert out.per_sample[1] == pytest.approx(direct_probs(classifier_dir(NLI_LABELS), DOCS[1], "A tedious mess.")
                                              .softmax(-1)[0].item(), abs=1e-5)


def test_intent_accuracy_uses_the_training_format_and_gold_labels(classifier_dir):
    path = classifier_dir(("inform", "question", "directive", "commissive"))
    prompts = ["hi there <EOU> how are you?", "what now <EOU> tell me"]
    gens = ["I am fine.", "no"]
    predicted = [int(direct_probs(path, f"{p.split('<EOU>')[-1].strip()} <EOU> {g}").argmax()) for p, g in zip(prompts, gens)]
    gold = [predicted[0], ("inform", "question", "directive", "commissive")[(predicted[1] + 1) % 4]]
    scorers = build("intent_accuracy", intent_model=path)
    out = scorers.compute(MetricInputs(prompts=prompts, generations=gens, references=[],
                                       meta=[{"intent": gold[0]}, {"intent": gold[1]}]))["intent_accuracy"]
    assert out.per_sample == [1.0, 0.0] and out.corpus == 0.5


def test_bleurt_is_the_best_reference_regression_score(classifier_dir):
    path = classifier_dir(("score",))
    gens, refs = ["the cat sat", ""], [["a cat sat", "the dog ran"], ["nothing"]]
    scorers = build("bleurt", bleurt_checkpoint=path, bleurt_batch_size=2)
    out = scorers.compute(MetricInputs(prompts=["", ""], generations=gens, references=refs))["bleurt"]
    expected = [max(direct_probs(path, r, g)[0].item() for r in rs) for g, rs in zip(gens, refs)]
    assert out.per_sample == pytest.approx(expected, abs=1e-5)


def test_a_classifier_is_not_a_bleurt_checkpoint(classifier_dir):
    scorers = build_scorers(["bleurt"], MetricContext(options={"bleurt_checkpoint": classifier_dir(NLI_LABELS)}))
    assert "outputs" in scorers.unavailable["bleurt"]


@pytest.mark.parametrize("name,option", [("bleurt", "bleurt_checkpoint"), ("summaczs", "summac_model"),
                                         ("intent_accuracy", "intent_model")])
def test_missing_models_are_unavailable_with_a_reason(name, option, tmp_path):
    scorers = build_scorers([name], MetricContext(options={option: str(tmp_path / "no-such-model")}))
    assert name in scorers.unavailable and "not available" in scorers.unavailable[name]
