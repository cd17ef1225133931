"""Reference perplexity against direct, unbatched computations with tiny random models."""
import math

import pytest
import torch

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.lm import PerplexityScorer, sliding_windows
from grue.metrics.registry import build_scorers

REFS = [["The film was a delight from start to finish."],
        ["A tedious, boring mess that wastes its cast.", "I highly recommend this movie to everyone!"],
        ["dogs run in the park while the sun sets. " * 3]]
PROMPTS = ["review:", "review: tedious", "park"]


def inputs(refs=REFS):
    prompts = (PROMPTS * len(refs))[: len(refs)]
    return MetricInputs(prompts=prompts, generations=[""] * len(refs), references=refs)


def ppl(policy, refs=REFS, **kw):
    opts = dict(stride=512, max_length=1024, batch_size=4) | kw
    return PerplexityScorer(policy, **opts).compute(inputs(refs))["perplexity"].corpus


def stream_ids(policy, refs):
    text = "\n\n".join(r for rs in refs for r in rs)
    return policy.tokenizer(text, add_special_tokens=False)["input_ids"]


@pytest.mark.parametrize("n,length,stride", [(1, 4, 2), (10, 4, 2), (10, 4, 3), (37, 16, 5), (64, 64, 63), (100, 8, 3)])
def test_windows_score_every_position_but_the_first_exactly_once(n, length, stride):
    scored = []
    for begin, end, first in sliding_windows(n, length, stride):
        assert end - begin <= length and begin < first  # at least one token of context
        scored += range(first, end)
    assert scored == list(range(1, n))


def test_a_stride_leaving_no_context_is_refused_and_capped(tiny_gpt2):
    with pytest.raises(ValueError):
        sliding_windows(10, 4, 4)
    assert PerplexityScorer(tiny_gpt2, stride=512, max_length=1024, batch_size=1).stride == 63


def test_one_window_equals_a_single_forward_pass(tiny_gpt2):
    ids = torch.tensor([stream_ids(tiny_gpt2, REFS[:2])])
    assert ids.shape[1] <= 64  # fits the model's 64 positions
    with torch.no_grad():
        loss = tiny_gpt2.model(input_ids=ids, labels=ids).loss  # mean over the n-1 predicted tokens
    assert ppl(tiny_gpt2, REFS[:2]) == pytest.approx(math.exp(loss.item()), rel=1e-5)


def test_sliding_window_matches_the_unbatched_recipe_counted_per_token(tiny_gpt2):
    ids = stream_ids(tiny_gpt2, REFS)
    length, stride = 16, 6
    total, count, prev_end = 0.0, 0, 0
    for begin in range(0, len(ids), stride):  # the Hugging Face recipe, one window at a time
        end = min(begin + length, len(ids))
        window = torch.tensor([ids[begin:end]])
        target = window.clone()
        target[:, : -(end - prev_end)] = -100
        with torch.no_grad():
            loss = tiny_gpt2.model(input_ids=window, labels=target).loss
        n = int((target[:, 1:] != -100).sum())
        total, count, prev_end = total + loss.item() * n, count + n, end
        if end == len(ids):
            break
    expected = math.exp(total / count)
    for batch_size in (1, 3, 8):  # padding rows must not change anything
        assert ppl(tiny_gpt2, max_length=length, stride=stride, batch_size=batch_size) == pytest.approx(expected, rel=1e-5)


def test_window_is_capped_by_the_model_positions(tiny_gpt2):
    long_refs = [["the sun sets in the park " * 40]]  # far more than 64 tokens
    assert PerplexityScorer(tiny_gpt2, stride=512, max_length=1024, batch_size=2).max_length == 64
    assert math.isfinite(ppl(tiny_gpt2, long_refs))


def test_seq2seq_is_reference_given_prompt(tiny_t5):
    tok, model = tiny_t5.tokenizer, tiny_t5.model
    total, count = 0.0, 0
    for prompt, refs in zip(PROMPTS, REFS):
        for ref in refs:
            enc = tok(prompt, text_target=ref, return_tensors="pt")
            with torch.no_grad():
                loss = model(input_ids=enc["input_ids"], labels=enc["labels"]).loss
            total, count = total + loss.item() * enc["labels"].shape[1], count + enc["labels"].shape[1]
    got = PerplexityScorer(tiny_t5, stride=512, max_length=1024, batch_size=2).compute(inputs())
    assert got["perplexity"].corpus == pytest.approx(math.exp(total / count), rel=1e-5)


def test_training_mode_is_restored(tiny_gpt2):
    tiny_gpt2.model.train()
    try:
        a, b = ppl(tiny_gpt2), ppl(tiny_gpt2)
        assert a == b  # dropout was off while scoring
        assert tiny_gpt2.model.training
    finally:
        tiny_gpt2.model.eval()


def test_unicode_references(tiny_gpt2):
    assert math.isfinite(ppl(tiny_gpt2, [["Ein schöner Film — 日本語 ✓"], [""]]))


def test_no_reference_text_is_an_error_not_a_number(tiny_gpt2):
    with pytest.raises(ValueError, match="reference"):
        ppl(tiny_gpt2, [[""], []])


def test_without_a_policy_it_is_unavailable_with_a_reason():
    scorers = build_scorers(["perplexity", "msttr"], MetricContext())
    assert "no model was given" in scorers.unavailable["perplexity"]
    assert "msttr" not in scorers.unavailable


def test_registered_and_lower_is_better(tiny_gpt2):
    scorers = build_scorers(["perplexity"], MetricContext(policy=tiny_gpt2, options={"perplexity_stride": 8}))
    assert scorers.scorers[0].higher_is_better == {"perplexity": False}
    assert scorers.compute(inputs())["perplexity"].corpus > 1


def test_models_without_logits_to_keep_give_the_same_value(tiny_gpt2):
    scorer = PerplexityScorer(tiny_gpt2, stride=6, max_length=16, batch_size=3)
    kept = scorer.compute(inputs())["perplexity"].corpus
    scorer._can_keep_logits = False
    assert scorer.compute(inputs())["perplexity"].corpus == pytest.approx(kept, rel=1e-6)
