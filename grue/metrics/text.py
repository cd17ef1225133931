"""Tokenisation and sentence splitting shared by the metrics, all offline and deterministic.

The reference tools tokenise with NLTK's ``word_tokenize`` or spaCy, both of which need downloaded
models (punkt, en_core_web_sm). These stand-ins need nothing: a regex sentence splitter and NLTK's
Treebank-style word tokenizer applied per sentence, which is what ``word_tokenize`` does after punkt.
"""
from __future__ import annotations

import re
from functools import lru_cache

_WORD_OR_PUNCT = re.compile(r"\w+|[^\w\s]")
_WORD = re.compile(r"\w+")
# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) before whitespace, or at a newline.
_SENTENCE_END = re.compile(r"(?<=[.!?][\"')\]])\s+|(?<=[.!?])\s+|\s*\n+\s*")


def word_punct_tokens(text: str) -> list[str]:
    """Lower-cased runs of word characters and single punctuation marks."""
    return _WORD_OR_PUNCT.findall(text.lower())


def word_tokens(text: str) -> list[str]:
    """Lower-cased word tokens with punctuation dropped (what the COCO caption tokenizer keeps)."""
    return _WORD.findall(text.lower())


def split_sentences(text: str) -> list[str]:
    """Sentences of a text: newlines always split, and . ! ? followed by whitespace split."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


@lru_cache(maxsize=1)
def _treebank():
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer()


def treebank_tokens(text: str) -> list[str]:
    """NLTK's ``word_tokenize`` without punkt: Treebank tokenisation of each regex-split sentence."""
    tokenizer = _treebank()
    return [tok for sentence in split_sentences(text) for tok in tokenizer.tokenize(sentence)]
