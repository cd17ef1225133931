"""Mini NarrativeQA: SYNTHETIC story summaries with questions and two answers each, generated here.

No question-answering corpus over stories installs from the package registries (research/offline_assets.md
(e)), so the mini profile writes its own: a summary of six sentences (a hero, a home town, a found object,
its lost owner, a helper, a pursuer, a journey and an ending), and three questions about it, each with a
short answer and a longer one, as NarrativeQA's two annotators give. Every question's answer is stated in
the summary. Splits use different stories. Deterministic in the seed; rows come out in the hub schema
(`document.id`, `document.summary.text`, `question.text`, `answers[].text`).
Scores on this data say nothing about the paper's task.
"""
from __future__ import annotations

import random

from grue.data.hub import Row

STORIES = {"train": 150, "val": 40, "test": 40}
QUESTIONS_PER_STORY = 3

HEROES = [("Mira", "she", "her"), ("Tobias", "he", "his"), ("Elena", "she", "her"), ("Jonah", "he", "his"),
          ("Ada", "she", "her"), ("Felix", "he", "his"), ("Nora", "she", "her"), ("Silas", "he", "his")]
JOBS = ["baker", "fisherman", "blacksmith", "shepherd", "weaver", "carpenter", "miller", "candle maker"]
PLACES = ["Elderbrook", "Stonehaven", "Willowmere", "Ashford", "Marrowby", "Greycliff", "Thornwick", "Larkspur"]
SETTLEMENTS = ["village", "harbour town", "mountain town", "river town"]
HOMES = ["cottage", "workshop", "kitchen", "barn"]
OBJECTS = ["silver compass", "locked diary", "golden key", "painted map", "broken clock", "jade ring"]
OWNERS = [("Captain Harlow", "sailor"), ("Madame Ivers", "singer"), ("Old Benedict", "clockmaker"),
          ("Lady Merrow", "painter"), ("Doctor Quill", "physician"), ("Master Rook", "astronomer")]
RELATIONS = ["cousin", "best friend", "older brother", "grandmother", "neighbour"]
FRIENDS = ["Pip", "Rosa", "Hamish", "Lina", "Bram", "Tess"]
VILLAINS = [("a greedy merchant named Voss", "Voss"), ("the smuggler Kestrel", "Kestrel"),
            ("a cruel baron called Drummond", "Drummond"), ("the thief Nettle", "Nettle")]
DESTINATIONS = ["the capital", "the island of Corran", "the monastery on the hill", "the northern lighthouse"]


def story(rng: random.Random) -> tuple[str, list[tuple[str, list[str]]]]:
    """(summary, [(question, [short answer, long answer])...]) for one generated story."""
    hero, pron, poss = rng.choice(HEROES)
    job, place, settlement, home = rng.choice(JOBS), rng.choice(PLACES), rng.choice(SETTLEMENTS), rng.choice(HOMES)
    obj, (owner, owner_job), relation = rng.choice(OBJECTS), rng.choice(OWNERS), rng.choice(RELATIONS)
    friend, (villain_long, villain), destination = rng.choice(FRIENDS), rng.choice(VILLAINS), rng.choice(DESTINATIONS)
    summary = " ".join([
        f"{hero} is a young {job} who lives in the {settlement} of {place}.",
        f"One winter {pron} finds a {obj} hidden under the floor of {poss} {home}.",
        f"The {obj} once belonged to {owner}, a {owner_job} who vanished many years before.",
        f"With the help of {poss} {relation} {friend}, {hero} sets out for {destination} to return it.",
        f"On the way they are chased by {villain_long}, who wants the {obj} for himself.",
        f"In the end {hero} hands the {obj} to the daughter of {owner}, and {villain} is caught by the guards.",
    ])
    questions = [
        (f"Where does {hero} live?", [place, f"in the {settlement} of {place}"]),
        (f"What does {hero} find under the floor?", [f"a {obj}", f"the {obj} of {owner}"]),
        (f"Who helps {hero} on the journey?", [friend, f"{poss} {relation} {friend}"]),
        (f"Who chases {hero} and {friend}?", [villain, villain_long]),
        (f"Who does {hero} give the {obj} to?", [f"{owner}'s daughter", f"the daughter of {owner}"]),
        (f"What was {owner}'s job?", [owner_job, f"{owner} was a {owner_job}"]),
        (f"Where does {hero} travel to?", [destination, f"to {destination}"]),
        (f"What is {hero}'s job?", [job, f"a young {job}"]),
    ]
    return summary, rng.sample(questions, QUESTIONS_PER_STORY)


def story_rows(seed: int) -> dict[str, list[Row]]:
    """Hub-schema rows (one per question) per split; every split has its own stories."""
    out: dict[str, list[Row]] = {}
    for k, (split, n) in enumerate(STORIES.items()):
        rng = random.Random(seed * 1019 + k)
        rows: list[Row] = []
        for s in range(n):
            summary, questions = story(rng)
            doc = {"id": f"synthetic-story-{split}-{s}", "summary": {"text": summary}}
            rows.extend({"document": doc, "question": {"text": q}, "answers": [{"text": a} for a in answers]}
                        for q, answers in questions)
        out[split] = rows
    return out
