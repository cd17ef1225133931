"""Tokenisation and sentence splitting shared by the metrics, all offline and deterministic.

The reference tools tokenise with NLTK's ``word_tokenize`` or spaCy, both of which need downloaded
models (punkt, en_core_web_sm). These stand-ins need nothing: a regex sentence splitter and NLTK's
Treebank-style word tokenizer applied per sentence, which is what ``word_tokenize`` does after punkt.
The known difference: punkt learned which abbreviations do not end a sentence; the splitter here knows
only dotted initialisms ("U.S.", "e.g.") and a few titles ("Mr.", "Dr."), so after any other
abbreviation it starts a new sentence and Treebank then splits the period off ("approx" ".").

Several metrics of one evaluation tokenise the same texts the same way (METEOR and the diversity
statistics both use Treebank tokens; BLEU-3/4, CIDEr and Coverage use word tokens; ROUGE-Lsum and
SummaC split sentences), so every function here is memoised by text and returns tuples, which callers
cannot modify: the second metric gets the first one's work for free.
"""
from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"\w+")
# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) before whitespace, or at a newline.
_SENTENCE_END = re.compile(r"(?<=[.!?][\"')\]])\s+|(?<=[.!?])\s+|\s*\n+\s*")
# Enough for every text of a few thousand-sample evaluations; entries are small tuples of strings.
_CACHE_TEXTS = 1 << 16
# Abbreviations after which ". " does not end a sentence (punkt's most frequent non-breaking cases).
_NO_BREAK_AFTER = re.compile(r"(?:\b(?:[A-Za-z]\.){2,}|\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|vs)\.)$")


@lru_cache(maxsize=_CACHE_TEXTS)
def word_tokens(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens with punctuation dropped (what the COCO caption tokenizer keeps)."""
    return tuple(_WORD.findall(text.lower()))


@lru_cache(maxsize=_CACHE_TEXTS)
def split_sentences(text: str) -> tuple[str, ...]:
    """Sentences of a text: newlines always split, and . ! ? followed by whitespace split, except
    after the abbreviations of ``_NO_BREAK_AFTER``."""
    pieces, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        if "\n" not in end.group() and _NO_BREAK_AFTER.search(text, start, end.start()):
            continue
        pieces.append(text[start : end.start()])
        start = end.end()
    pieces.append(text[start:])
    return tuple(s.strip() for s in pieces if s.strip())


@lru_cache(maxsize=1)
def _treebank():
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


@lru_cache(maxsize=_CACHE_TEXTS)
def treebank_tokens(text: str) -> tuple[str, ...]:
    """NLTK's ``word_tokenize`` without punkt: Treebank tokenisation of each regex-split sentence.
    "It's live-action, isn't it?" -> It 's live-action , is n't it ?"""
    tokenizer = _treebank()
    return tuple(tok for sentence in split_sentences(text) for tok in tokenizer.tokenize(sentence))


@lru_cache(maxsize=_CACHE_TEXTS)
def lower_treebank_tokens(text: str) -> tuple[str, ...]:
    """Treebank tokens, each lower-cased afterwards (GEM-metrics' ``list_tokenized_lower``)."""
    return tuple(tok.lower() for tok in treebank_tokens(text))
