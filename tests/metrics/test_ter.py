"""grue's TER against sacrebleu's on random and review-like segments: the same edits, reference lengths
and scores, sequentially and with worker processes."""
import random

import pytest
import sacrebleu
from sacrebleu.metrics.lib_ter import translation_edit_rate as sacrebleu_edits

from grue.metrics.base import MetricInputs
from grue.metrics.parallel import parallel_map
from grue.metrics.ter import BeamEditDistance, TerScorer, shifted, translation_edit_rate, unchanged_from

WORDS = "the a film is was good bad not very story plot acting".split()


def random_pairs(seed, count, max_len):
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        vocabulary = WORDS[: rng.randint(2, len(WORDS))]
        pairs.append(([rng.choice(vocabulary) for _ in range(rng.randint(0, max_len))],
                      [rng.choice(vocabulary) for _ in range(rng.randint(0, max_len))]))
    return pairs


def test_edits_equal_sacrebleu_on_random_segments():
    pairs = random_pairs(0, 150, 18)
    assert [translation_edit_rate(h, r) for h, r in pairs] == [sacrebleu_edits(h, r) for h, r in pairs]


def test_edits_equal_sacrebleu_on_very_unequal_lengths():
    # the beam widens when one side is more than 50x longer than the other
    rng = random.Random(1)
    long = [rng.choice(WORDS[:3]) for _ in range(130)]
    for short in (["the"], ["film", "the"], []):
        assert translation_edit_rate(short, long) == sacrebleu_edits(short, long)
        assert translation_edit_rate(long, short) == sacrebleu_edits(long, short)


def test_a_shifted_block_costs_one_edit_by_hand():
    # "c d a b" -> "a b c d": one shift of the block "a b" (Snover et al.'s example pattern)
    assert translation_edit_rate("c d a b".split(), "a b c d".split()) == (1, 4)
    assert shifted(list("abcdef"), 3, 2, 0) == list("deabcf")


def test_scorer_equals_sacrebleu_corpus_and_sentence_ter():
    rng = random.Random(2)
    gens = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12))).capitalize() + "." for _ in range(70)]
    refs = [[" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12))) for _ in range(rng.randint(1, 2))]
            for _ in range(70)]
    inputs = MetricInputs(prompts=[""] * 70, generations=gens, references=refs)
    streams = [[r[k] if k < len(r) else None for r in refs] for k in range(2)]
    expected_corpus = sacrebleu.corpus_ter(gens, streams).score / 100
    expected = [sacrebleu.sentence_ter(g, r).score / 100 for g, r in zip(gens, refs)]
    for workers in (1, 2):  # 70 samples: enough for worker processes to start
        out = TerScorer(workers).compute(inputs)["ter"]
        assert out.corpus == pytest.approx(expected_corpus, abs=1e-12)
        assert out.per_sample == pytest.approx(expected, abs=1e-12)


def test_parallel_map_keeps_order_and_values():
    items = list(range(100))
    assert parallel_map(abs, [-i for i in items], 2) == items


def long_review_pairs(seed, count):
    from grue.assets.rotten_tomatoes import rotten_tomatoes_rows

    rng = random.Random(seed)
    words = " ".join(text for text, _ in rotten_tomatoes_rows()[:400]).lower().split()
    pairs = []
    for _ in range(count):
        start = rng.randrange(len(words) - 200)
        ref = words[start : start + rng.randint(60, 140)]
        hyp = [w for w in ref if rng.random() > 0.1]
        for _ in range(3):  # move a few blocks, so shifts are worth taking
            cut, size = rng.randrange(len(hyp)), rng.randint(1, 6)
            block, rest = hyp[cut : cut + size], hyp[:cut] + hyp[cut + size :]
            at = rng.randrange(len(rest) + 1)
            hyp = rest[:at] + block + rest[at:]
        hyp = [rng.choice(words) if rng.random() < 0.1 else w for w in hyp]
        pairs.append((hyp, ref))
    return pairs


def test_shift_candidates_distances_from_the_base_rows_are_exact_or_bounded():
    """BeamEditDistance.rows stops a candidate's rows early; what it returns is the exact distance,
    or, when the caller allows, a lower bound above ``at_most``."""
    rng = random.Random(4)
    early = 0
    for hyp, ref in long_review_pairs(5, 6):
        ed = BeamEditDistance(ref)
        base, _ = ed.rows(hyp)
        for _ in range(40):
            start, length = rng.randrange(len(hyp) - 6), rng.randint(1, 6)
            target = rng.choice([t for t in range(len(hyp) + 1) if not start <= t <= start + length])
            candidate = shifted(hyp, start, length, target)
            exact = BeamEditDistance(ref).distance(candidate)
            assert ed.distance(candidate, base, unchanged_from(start, length, target)) == exact
            at_most = exact - 3
            _, shortcut = ed.rows(candidate, base, unchanged_from(start, length, target), at_most=at_most)
            if shortcut is not None:
                early += 1
                value = base[-1][-1] + shortcut
                assert value == exact or at_most < value < exact  # exact, or a lower bound above at_most
    assert early > 50  # the shortcut is taken, so the checks above are about it


def test_edits_equal_sacrebleu_on_long_review_segments():
    """Segments of 60-140 words, longer than the beam, where shift candidates re-join the
    hypothesis's rows (the shortcut of BeamEditDistance.rows) and rows leave the beam."""
    pairs = long_review_pairs(3, 12)
    assert [translation_edit_rate(h, r) for h, r in pairs] == [sacrebleu_edits(h, r) for h, r in pairs]
