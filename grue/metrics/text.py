"""Tokenisation and sentence splitting shared by the metrics, all offline and deterministic.

The reference tools tokenise with NLTK's ``word_tokenize`` or spaCy, both of which need downloaded
models (punkt, en_core_web_sm). These stand-ins need nothing: a regex sentence splitter and NLTK's
Treebank-style word tokenizer applied per sentence, which is what ``word_tokenize`` does after punkt.
The known difference: punkt learned which abbreviations do not end a sentence; the splitter here knows
only dotted initialisms ("U.S.", "e.g.") and a few titles ("Mr.", "Dr."), so after any other
abbreviation it starts a new sentence and Treebank then splits the period off ("approx" ".").

Several metrics of one evaluation tokenise the same texts the same way (METEOR and the diversity
statistics both use Treebank tokens; BLEU-3/4, CIDEr and Coverage use word tokens; ROUGE-Lsum and
SummaC split sentences), so every function here is memoised by text (``text_cache``) and returns
tuples, which callers cannot modify: the second metric gets the first one's work for free.
``ScorerSet.compute`` empties these caches when an evaluation is scored, so they hold one
evaluation's texts at most (and never more than TEXT_CACHE_SIZE per function).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, TypeVar

_WORD = re.compile(r"\w+")
# A sentence ends at . ! ? (optionally followed by closing quotes/brackets) before whitespace, or at a newline.
_SENTENCE_END = re.compile(r"(?<=[.!?][\"')\]])\s+|(?<=[.!?])\s+|\s*\n+\s*")
# Enough for every text of an evaluation of a few thousand samples, each with a few references.
TEXT_CACHE_SIZE = 1 << 14
_TEXT_CACHES: list = []
Fn = TypeVar("Fn", bound=Callable)


def text_cache(fn: Fn) -> Fn:
    """Memoise a function of one text for the current evaluation (see the module docstring)."""
    cached = lru_cache(maxsize=TEXT_CACHE_SIZE)(fn)
    _TEXT_CACHES.append(cached)
    return cached  # type: ignore[return-value]


def clear_text_caches() -> None:
    """Forget every memoised text (called when an evaluation has been scored)."""
    for cached in _TEXT_CACHES:
        cached.cache_clear()

# Abbreviations after which ". " does not end a sentence (punkt's most frequent non-breaking cases).
_NO_BREAK_AFTER = re.compile(r"(?:\b(?:[A-Za-z]\.){2,}|\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|vs)\.)$")


@text_cache
def word_tokens(text: str) -> tuple[str, ...]:
    """Lower-cased word tokens with punctuation dropped (what the COCO caption tokenizer keeps)."""
    return tuple(_WORD.findall(text.lower()))


@text_cache
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


# The flags the stdlib engine shares with the `regex` engine NLTK compiles with (its version bits are not).
_STDLIB_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE | re.ASCII | re.UNICODE
_RULE_LISTS = ("STARTING_QUOTES", "PUNCTUATION", "ENDING_QUOTES", "CONVERT_PARENTHESES")
_RULES = ("PARENS_BRACKETS", "DOUBLE_DASHES")
_PATTERN_LISTS = ("CONTRACTIONS2", "CONTRACTIONS3")


def _stdlib(pattern) -> re.Pattern:
    """The same pattern compiled by the stdlib ``re`` engine."""
    return pattern if isinstance(pattern, re.Pattern) else re.compile(pattern.pattern, pattern.flags & _STDLIB_FLAGS)


@lru_cache(maxsize=1)
def _treebank():
    """NLTK's Treebank word tokenizer with its fixed patterns run by the stdlib engine.

    NLTK >= 3.10 compiles every pattern with the third-party `regex` engine and runs each substitution
    under a timeout, a guard against caller-supplied patterns that backtrack without end. The
    tokenizer's own patterns are fixed and none backtracks that way, and the guarded calls made
    tokenisation most of METEOR's and the diversity statistics' time; compiled by ``re`` they give the
    same tokens (tested against NLTK's own tokenizer) several times faster."""
    from nltk.tokenize import NLTKWordTokenizer

    class StdlibTreebankTokenizer(NLTKWordTokenizer):
        pass

    for name in _RULE_LISTS:
        setattr(StdlibTreebankTokenizer, name, [(_stdlib(p), sub) for p, sub in getattr(NLTKWordTokenizer, name)])
    for name in _RULES:
        pattern, sub = getattr(NLTKWordTokenizer, name)
        setattr(StdlibTreebankTokenizer, name, (_stdlib(pattern), sub))
    for name in _PATTERN_LISTS:
        setattr(StdlibTreebankTokenizer, name, [_stdlib(p) for p in getattr(NLTKWordTokenizer, name)])
    return StdlibTreebankTokenizer()


@text_cache
def treebank_tokens(text: str) -> tuple[str, ...]:
    """NLTK's ``word_tokenize`` without punkt: Treebank tokenisation of each regex-split sentence.
    "It's live-action, isn't it?" -> It 's live-action , is n't it ?"""
    tokenizer = _treebank()
    return tuple(tok for sentence in split_sentences(text) for tok in tokenizer.tokenize(sentence))


@text_cache
def lower_treebank_tokens(text: str) -> tuple[str, ...]:
    """Treebank tokens, each lower-cased afterwards (GEM-metrics' ``list_tokenized_lower``)."""
    return tuple(tok.lower() for tok in treebank_tokens(text))
