"""Mini WMT16: SYNTHETIC English-German sentence pairs, generated here from a small grammar and lexicon.

No English-German parallel text installs from the package registries (research/offline_assets.md (e)),
so the mini profile writes its own pairs: simple clauses (subject, verb, object, optional adjectives,
place, time, negation, two clauses joined by "and"), translated by rule with correct German gender,
case endings (weak adjective declension after the definite article), verb-second word order after a
fronted time phrase and "nicht" at the clause end. Deterministic in the seed; rows come out in the hub
schema (`translation` with `en` and `de`). Scores on this data say nothing about the paper's task.
"""
from __future__ import annotations

import random

from grue.data.hub import Row

SIZES = {"train": 400, "val": 100, "test": 100}

# (English, German, gender) -- gender m / f / n decides article and adjective endings.
SUBJECTS = [("man", "Mann", "m"), ("woman", "Frau", "f"), ("child", "Kind", "n"), ("dog", "Hund", "m"),
            ("cat", "Katze", "f"), ("teacher", "Lehrer", "m"), ("doctor", "Arzt", "m"), ("girl", "Mädchen", "n"),
            ("horse", "Pferd", "n"), ("friend", "Freund", "m"), ("cook", "Koch", "m"), ("singer", "Sängerin", "f"),
            ("student", "Studentin", "f")]
OBJECTS = [("book", "Buch", "n"), ("letter", "Brief", "m"), ("apple", "Apfel", "m"), ("key", "Schlüssel", "m"),
           ("door", "Tür", "f"), ("lamp", "Lampe", "f"), ("bag", "Tasche", "f"), ("cup", "Tasse", "f"),
           ("bottle", "Flasche", "f"), ("picture", "Bild", "n"), ("bread", "Brot", "n"), ("bicycle", "Fahrrad", "n"),
           ("table", "Tisch", "m"), ("ball", "Ball", "m"), ("flower", "Blume", "f"), ("glass", "Glas", "n"),
           ("car", "Auto", "n"), ("coat", "Mantel", "m"), ("chair", "Stuhl", "m")]
# (3rd person singular English, German, English base form for negation)
VERBS = [("sees", "sieht", "see"), ("finds", "findet", "find"), ("buys", "kauft", "buy"), ("holds", "hält", "hold"),
         ("carries", "trägt", "carry"), ("sells", "verkauft", "sell"), ("brings", "bringt", "bring"),
         ("takes", "nimmt", "take"), ("needs", "braucht", "need"), ("loses", "verliert", "lose"),
         ("cleans", "putzt", "clean"), ("paints", "malt", "paint"), ("washes", "wäscht", "wash")]
SUBJECT_ADJECTIVES = [("old", "alt"), ("young", "jung"), ("small", "klein"), ("tall", "groß"),
                      ("friendly", "freundlich"), ("tired", "müde")]
OBJECT_ADJECTIVES = [("old", "alt"), ("new", "neu"), ("small", "klein"), ("big", "groß"), ("red", "rot"),
                     ("green", "grün"), ("blue", "blau"), ("beautiful", "schön"), ("cheap", "billig"),
                     ("heavy", "schwer"), ("clean", "sauber")]
PLACES = [("in the park", "im Park"), ("in the kitchen", "in der Küche"), ("in the garden", "im Garten"),
          ("in the house", "im Haus"), ("in the shop", "im Laden"), ("at the school", "in der Schule"),
          ("in the city", "in der Stadt"), ("in the office", "im Büro"), ("at the station", "am Bahnhof")]
TIMES = [("today", "heute"), ("tomorrow", "morgen"), ("in the morning", "am Morgen"),
         ("every day", "jeden Tag"), ("in the evening", "am Abend"), ("again", "wieder")]

ARTICLES = {"nom": {"m": "der", "f": "die", "n": "das"}, "acc": {"m": "den", "f": "die", "n": "das"}}
# Weak adjective endings after the definite article: nominative -e, accusative -e except masculine -en.
ENDINGS = {"nom": {"m": "e", "f": "e", "n": "e"}, "acc": {"m": "en", "f": "e", "n": "e"}}


def noun_phrase(rng: random.Random, nouns: list, adjectives: list, case: str) -> tuple[str, str]:
    en_noun, de_noun, gender = rng.choice(nouns)
    if rng.random() < 0.5:
        en_adj, de_adj = rng.choice(adjectives)
        de_adj = de_adj + ENDINGS[case][gender] if not de_adj.endswith("e") else de_adj + ENDINGS[case][gender][1:]
        return f"the {en_adj} {en_noun}", f"{ARTICLES[case][gender]} {de_adj} {de_noun}"
    return f"the {en_noun}", f"{ARTICLES[case][gender]} {de_noun}"


def clause(rng: random.Random) -> tuple[str, str]:
    """One clause in one of five shapes; (English, German) without final punctuation."""
    subj_en, subj_de = noun_phrase(rng, SUBJECTS, SUBJECT_ADJECTIVES, "nom")
    obj_en, obj_de = noun_phrase(rng, OBJECTS, OBJECT_ADJECTIVES, "acc")
    verb_en, verb_de, verb_base = rng.choice(VERBS)
    shape = rng.randrange(5)
    if shape == 0:
        return f"{subj_en} {verb_en} {obj_en}", f"{subj_de} {verb_de} {obj_de}"
    if shape == 1:
        place_en, place_de = rng.choice(PLACES)
        return f"{subj_en} {verb_en} {obj_en} {place_en}", f"{subj_de} {verb_de} {obj_de} {place_de}"
    time_en, time_de = rng.choice(TIMES)
    if shape == 2:  # fronted time phrase: the German verb stays second
        return f"{time_en}, {subj_en} {verb_en} {obj_en}", f"{time_de} {verb_de} {subj_de} {obj_de}"
    if shape == 3:  # time after the verb in German, at the end in English
        return f"{subj_en} {verb_en} {obj_en} {time_en}", f"{subj_de} {verb_de} {time_de} {obj_de}"
    return f"{subj_en} does not {verb_base} {obj_en}", f"{subj_de} {verb_de} {obj_de} nicht"


def sentence_pair(rng: random.Random) -> tuple[str, str]:
    en, de = clause(rng)
    if rng.random() < 0.25:
        en2, de2 = clause(rng)
        en, de = f"{en} and {en2}", f"{de} und {de2}"
    return en[0].upper() + en[1:] + ".", de[0].upper() + de[1:] + "."


def translation_rows(seed: int) -> dict[str, list[Row]]:
    """Hub-schema rows per split; an English sentence never appears in two splits."""
    seen: set[str] = set()
    out: dict[str, list[Row]] = {}
    for k, (split, n) in enumerate(SIZES.items()):
        rng = random.Random(seed * 1013 + k)
        rows: list[Row] = []
        while len(rows) < n:
            en, de = sentence_pair(rng)
            if en not in seen:
                seen.add(en)
                rows.append({"translation": {"en": en, "de": de}})
        out[split] = rows
    return out
