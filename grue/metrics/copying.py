"""How much a generation copies its source (Ziegler et al. 2019, Tables 7-8: their summarisers became
"smart copiers"). Descriptive statistics any task can request:

- `novel_2grams`: share of the generation's word bigrams that do not occur in the source;
- `sentence_copy_rate`: 1 when some sentence of the generation (of at least 4 words) appears word for
  word in the source, else 0; the corpus value is the share of such generations;
- `first3_copy_rate`: 1 when the generation starts with the source's first 3 words.

The source is `meta["document"]` where the task provides it (CNN/DailyMail: the article without the
prompt's task prefix), else the prompt. Words are lower-cased with punctuation dropped.
"""
from __future__ import annotations

from typing import Sequence

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.registry import register
from grue.metrics.text import split_sentences, word_tokens

MIN_SENTENCE_WORDS = 4  # shorter "sentences" (fragments, names) match by chance


def _bigrams(words: Sequence[str]) -> set[tuple[str, str]]:
    return set(zip(words, words[1:]))


def novel_bigram_share(generation: str, source: str) -> float:
    words = word_tokens(generation)
    pairs = list(zip(words, words[1:]))
    if not pairs:
        return 0.0
    seen = _bigrams(word_tokens(source))
    return sum(p not in seen for p in pairs) / len(pairs)


def copies_a_sentence(generation: str, source: str) -> bool:
    padded = " " + " ".join(word_tokens(source)) + " "
    return any(len(w) >= MIN_SENTENCE_WORDS and f" {' '.join(w)} " in padded
               for w in (word_tokens(s) for s in split_sentences(generation)))


def copies_first_words(generation: str, source: str, n: int = 3) -> bool:
    head = word_tokens(source)[:n]
    return len(head) == n and word_tokens(generation)[:n] == head


class CopyScorer:
    names = ("novel_2grams", "sentence_copy_rate", "first3_copy_rate")
    higher_is_better = {"novel_2grams": True, "sentence_copy_rate": False, "first3_copy_rate": False}

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        sources = [(m or {}).get("document") or p for p, m in zip(inputs.prompts, list(inputs.meta) or
                                                                   [{}] * len(inputs.prompts))]
        per = {
            "novel_2grams": [novel_bigram_share(g, s) for g, s in zip(inputs.generations, sources)],
            "sentence_copy_rate": [float(copies_a_sentence(g, s)) for g, s in zip(inputs.generations, sources)],
            "first3_copy_rate": [float(copies_first_words(g, s)) for g, s in zip(inputs.generations, sources)],
        }
        return {name: MetricValue(sum(v) / len(v) if v else float("nan"), v) for name, v in per.items()}


@register(higher_is_better=CopyScorer.higher_is_better)
def _copy_statistics(ctx: MetricContext) -> CopyScorer:
    return CopyScorer()
