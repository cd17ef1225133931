"""``rougeL_max``: NarrativeQA's ROUGE-L, maximised over the references, as the paper's column was computed.

The reference code (after UnifiedQA's NarrativeQA evaluation) scored each reference with py-rouge 1.1:
``Rouge(metrics=["rouge-l"], limit_length=True, length_limit=100, length_limit_type="words",
alpha=0.5, weight_factor=1.2, stemming=True)`` and kept the best F. py-rouge applies ``weight_factor``
(meant for ROUGE-W) to ROUGE-L as well: precision and recall are raised to the power 1/1.2 before the
F-measure. That is a quirk of the library, but the paper's NarrativeQA numbers contain it (a partial
match scores a few points higher than plain ROUGE-L F), so it is the default here, variant "py-rouge".
Variant "rouge-score" (option ``rougeL_max_variant``) is plain ROUGE-L F1 of Google's rouge-score
with Porter stemming on the same length-limited texts.

The "py-rouge" variant follows py-rouge's pipeline, written out here because the package itself no
longer imports on current setuptools (it needs ``pkg_resources``) and its ``word_tokenize`` needs punkt:
- lines are sentences; the text is cut after ``rouge_length_limit`` whitespace words (100);
- each sentence is lower-cased, every character outside [a-z0-9] becomes a space, and it is split by
  NLTK's Treebank tokenizer with "cannot" kept whole (punkt would not split a text without punctuation,
  so this is exactly ``word_tokenize``);
- tokens longer than 3 characters are replaced from py-rouge's WordNet exception table (read from the
  installed py-rouge distribution) or else stemmed with NLTK's original Porter algorithm;
- the overlap is the summary-level union LCS (for each reference sentence, the union of its LCS with
  every generated sentence, each token counted at most as often as it occurs in the generation).
Empty texts score 0.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricUnavailable, MetricValue
from grue.metrics.lcs import union_lcs_hits
from grue.metrics.references import require_references
from grue.metrics.registry import register
from grue.metrics.rouge import rouge_l, rouge_tokens
from grue.metrics.text import text_cache, treebank_tokens

VARIANTS = ("py-rouge", "rouge-score")
ALPHA = 0.5           # F = P R / ((1 - alpha) P + alpha R): the harmonic mean
WEIGHT_FACTOR = 1.2   # the reference configuration's weight_factor, applied by py-rouge to P and R
_NOT_ALNUM = re.compile("[^a-z0-9]")
_EXCEPTION_TABLES = ("rouge/wordnet_key_value.txt", "rouge/wordnet_key_value_special_cases.txt")

Sentences = tuple[tuple[str, ...], ...]


@lru_cache(maxsize=1)
def stem_exceptions() -> dict[str, str]:
    """py-rouge's word -> stem table (WordNet forms plus the ROUGE-1.5.5 special cases)."""
    from importlib import metadata

    try:
        dist = metadata.distribution("py-rouge")
    except metadata.PackageNotFoundError:
        raise MetricUnavailable("rougeL_max (variant py-rouge) needs the py-rouge package: pip install py-rouge") from None
    table: dict[str, str] = {}
    for name in _EXCEPTION_TABLES:
        for line in open(dist.locate_file(name), encoding="utf-8"):
            word, stem = line.strip().split("|")
            table[word] = stem
    return table


@lru_cache(maxsize=1)
def _porter() -> Any:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer(PorterStemmer.ORIGINAL_ALGORITHM)


@lru_cache(maxsize=1 << 16)
def _stem(token: str) -> str:
    if len(token) <= 3:
        return token
    table = stem_exceptions()
    return table[token] if token in table else _porter().stem(token)


def truncated_lines(text: str, limit: int) -> list[str]:
    """The text's lines, whitespace-normalised, cut after ``limit`` words in all (py-rouge's "words" limit)."""
    lines, used = [], 0
    for line in text.split("\n"):
        words = line.split()
        lines.append(" ".join(words[: limit - used]))
        used += len(words)
        if used >= limit:
            break
    return lines


@text_cache
def sentence_tokens(line: str) -> tuple[str, ...]:
    """One line as py-rouge tokenises and stems it."""
    cleaned = _NOT_ALNUM.sub(" ", line.lower()).strip().replace("cannot", "_cannot_")
    stemmed = " ".join(_stem(token) for token in treebank_tokens(cleaned))
    return tuple(stemmed.replace("_cannot_", "cannot").split())


def prepare(text: str, limit: int) -> Sentences:
    return tuple(sentence_tokens(line) for line in truncated_lines(text, limit))


def py_rouge_l(generation: Sentences, reference: Sentences) -> float:
    """py-rouge's ROUGE-L F with ``weight_factor`` applied to precision and recall."""
    gen_len, ref_len = sum(map(len, generation)), sum(map(len, reference))
    if gen_len == 0 or ref_len == 0:
        return 0.0
    hits = union_lcs_hits(reference, generation)
    precision = (hits / gen_len) ** (1 / WEIGHT_FACTOR)
    recall = (hits / ref_len) ** (1 / WEIGHT_FACTOR)
    if precision == 0 or recall == 0:
        return 0.0
    return precision * recall / ((1 - ALPHA) * precision + ALPHA * recall)


class RougeLMaxScorer:
    """Best ROUGE-L over a sample's references on length-limited texts; corpus value: the mean."""

    names = ("rougeL_max",)
    higher_is_better = {"rougeL_max": True}

    def __init__(self, length_limit: int, variant: str = "py-rouge") -> None:
        if variant not in VARIANTS:
            raise ValueError(f"rougeL_max_variant must be one of {', '.join(VARIANTS)}, not {variant!r}")
        self.length_limit = length_limit
        self.variant = variant
        if variant == "py-rouge":
            stem_exceptions()  # a machine without py-rouge learns so when the scorer is built

    def score(self, generation: str, references: Sequence[str]) -> float:
        if self.variant == "py-rouge":
            gen = prepare(generation, self.length_limit)
            return max(py_rouge_l(gen, prepare(ref, self.length_limit)) for ref in references)
        gen = rouge_tokens(self._cut(generation))
        return max(rouge_l(rouge_tokens(self._cut(ref)), gen) for ref in references)

    def _cut(self, text: str) -> str:
        return " ".join(text.split()[: self.length_limit])

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "rougeL_max")
        values = [self.score(gen, refs) for gen, refs in zip(inputs.generations, inputs.references)]
        return {"rougeL_max": MetricValue(corpus=sum(values) / len(values) if values else 0.0, per_sample=values)}


@register(higher_is_better=RougeLMaxScorer.higher_is_better)
def build_rouge_l_max(ctx: MetricContext) -> RougeLMaxScorer:
    """Options: ``rouge_length_limit`` (100 words), ``rougeL_max_variant`` ("py-rouge" or "rouge-score")."""
    return RougeLMaxScorer(length_limit=int(ctx.options.get("rouge_length_limit", 100)),
                           variant=str(ctx.options.get("rougeL_max_variant", "py-rouge")))
