"""rougeL_max against hand-worked values and against py-rouge 1.1 itself, configured as the reference code."""
import math
import sys
import types
from pathlib import Path

import pytest

from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.lcs import lcs_length, lcs_positions, match_masks
from grue.metrics.registry import build_scorers


def rouge_l_max(gens, refs, **options):
    inputs = MetricInputs(prompts=[""] * len(gens), generations=gens, references=refs)
    scorers = build_scorers(["rougeL_max"], MetricContext(options=options))
    assert scorers.unavailable == {}
    return scorers.compute(inputs)["rougeL_max"]


def test_weight_factor_raises_precision_and_recall_by_hand():
    # LCS "the cat on mat" = 4 of 6 tokens each side; py-rouge raises P and R to 1/1.2 before F
    value = rouge_l_max(["the cat sat on the mat"], [["the cat was on a mat"]])
    assert value.corpus == pytest.approx((4 / 6) ** (1 / 1.2))
    plain = rouge_l_max(["the cat sat on the mat"], [["the cat was on a mat"]], rougeL_max_variant="rouge-score")
    assert plain.corpus == pytest.approx(4 / 6)


def test_best_reference_and_length_limit_by_hand():
    ref = " ".join(f"w{i}" for i in range(100))
    long_gen = ref + " " + " ".join(f"junk{i}" for i in range(50))
    value = rouge_l_max([long_gen, "a b"], [[ref], ["x y", "a b c d"]])
    assert value.per_sample[0] == pytest.approx(1.0)  # cut to 100 words: identical texts
    p, r = 1.0, 0.5 ** (1 / 1.2)  # "a b" in "a b c d": P = 1, R = 1/2 before the weight factor
    assert value.per_sample[1] == pytest.approx(2 * p * r / (p + r))
    assert rouge_l_max([long_gen], [[ref]], rouge_length_limit=1000).corpus < 1


def test_unknown_variant_is_a_clear_error():
    with pytest.raises(ValueError, match="rougeL_max_variant must be one of"):
        rouge_l_max(["a"], [["a"]], rougeL_max_variant="perl")


def table_lcs_positions(a, b):
    """The textbook O(m n) table and its walk back (py-rouge's tie-break: drop a's token when that keeps
    the length), the oracle for the bit-vector walk."""
    m, n = len(a), len(b)
    table = [[0] * (n + 1) for _ in range(m + 1)]
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
    positions, i, j = [], m, n
    while i and j:
        if a[i - 1] == b[j - 1]:
            positions.append(i - 1)
            i, j = i - 1, j - 1
        elif table[i - 1][j] >= table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return positions[::-1]


def test_bit_parallel_lcs_matches_the_table():
    import random

    rng = random.Random(3)
    for _ in range(300):
        a = [rng.choice("abcd") for _ in range(rng.randint(0, 70))]  # > 64 tokens: more than one machine word
        b = [rng.choice("abcde") for _ in range(rng.randint(0, 70))]
        positions = lcs_positions(a, b)
        # the same alignment as the table's walk, not only one of the same length: the union of
        # alignments in summary-level ROUGE-L depends on which one is taken
        assert positions == table_lcs_positions(a, b)
        assert lcs_length(a, b) == len(positions)
        assert lcs_positions(a, b, match_masks(a)) == positions
        # the positions are increasing and spell a subsequence of b
        subsequence, it = [a[i] for i in positions], iter(b)
        assert positions == sorted(set(positions)) and all(token in it for token in subsequence)


@pytest.fixture(scope="module")
def py_rouge():
    """py-rouge 1.1 as the reference code configured it. Two shims, neither changing a score: its
    ``import pkg_resources`` (gone from current setuptools) gets a stand-in that finds its data files, and
    its ``word_tokenize`` runs without punkt (not installed), which cannot split its punctuation-free input."""
    import nltk

    if "pkg_resources" not in sys.modules:
        shim = types.ModuleType("pkg_resources")
        shim.resource_filename = lambda package, name: str(Path(sys.modules[package].__file__).parent / name)
        sys.modules["pkg_resources"] = shim
    from rouge import rouge as module

    module.Rouge.tokenize_text = staticmethod(lambda text, language="english": nltk.word_tokenize(
        text, language, preserve_line=True))
    return module.Rouge(metrics=["rouge-l"], max_n=4, limit_length=True, length_limit=100,
                        length_limit_type="words", apply_avg=True, apply_best=True, alpha=0.5,
                        weight_factor=1.2, stemming=True)


GENERATIONS = [
    "He cannot find the agreements; they're in Paris!",
    "The wolves were running quickly toward the villagers' houses",
    "Two lines\nwith the second one repeating the first one one one",
    "",
    " ".join(f"word{i % 37}" for i in range(140)),
    "Mary's brother -- a well-known pianist -- played 3 concertos in 2019.",
]
REFERENCES = [
    ["They cannot locate the agreement in Paris.", "the agreements are lost"],
    ["wolves ran toward the houses of the villagers", "The villagers ran"],
    ["the first one\nthe second one repeating", "one one one one"],
    ["an answer"],
    [" ".join(f"word{(i * 7) % 41}" for i in range(120))],
    ["Her brother, a famous pianist, played three concertos", "he played piano"],
]


def test_matches_py_rouge_itself(py_rouge):
    expected = [max(py_rouge.get_scores(gen, [ref])["rouge-l"]["f"] for ref in refs)
                for gen, refs in zip(GENERATIONS, REFERENCES)]
    assert rouge_l_max(GENERATIONS, REFERENCES).per_sample == pytest.approx(expected, abs=1e-12)
    assert not all(math.isclose(e, 0.0) for e in expected)  # the fixture exercises real overlaps
