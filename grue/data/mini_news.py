"""Mini CNN/DailyMail: SYNTHETIC news articles and highlights, generated here from templates.

No article/summary corpus installs from the package registries (research/offline_assets.md (e)), so the
mini profile writes its own: each article reports one event (a fire, a match, a company's hiring, a study,
a council decision) in six or seven sentences, half of them background, quotes or colour; its highlights
restate the two or three key facts in other words, one per line, as CNN/DailyMail's do. Generation is
deterministic in the seed. Rows come out in the hub schema (`id`, `article`, `highlights`).
Scores on this data say nothing about the paper's task.
"""
from __future__ import annotations

import random
from typing import Callable

from grue.data.hub import Row

SIZES = {"train": 400, "val": 100, "test": 100}

CITIES = ["Leeds", "Bristol", "Glasgow", "Cardiff", "Norwich", "York", "Dundee", "Exeter", "Bath", "Derby",
          "Hull", "Oxford", "Preston", "Swansea", "Belfast", "Chester"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
FIRST = ["Sarah", "James", "Priya", "Tom", "Amira", "David", "Helen", "Marco", "Grace", "Owen", "Leila", "Peter"]
LAST = ["Hughes", "Patel", "Morgan", "Clarke", "Evans", "Byrne", "Shaw", "Khan", "Reid", "Walsh", "Price", "Lowe"]
BUILDINGS = ["warehouse", "block of flats", "primary school", "shopping centre", "hotel", "furniture factory"]
TEAMS = ["Rovers", "United", "Athletic", "Wanderers", "City", "Albion", "Town", "Rangers"]
INDUSTRIES = ["software", "engineering", "food", "energy", "shipping", "medical devices"]
ANIMALS = [("crows", "recognise human faces"), ("octopuses", "solve simple puzzles"),
           ("bees", "count up to four"), ("goats", "read human expressions"), ("rats", "play hide and seek")]
FACILITIES = ["swimming pool", "library", "bus station", "sports centre", "concert hall"]


def _name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _fire(rng: random.Random) -> tuple[list[str], list[str]]:
    city, day, place, who = rng.choice(CITIES), rng.choice(DAYS), rng.choice(BUILDINGS), _name(rng)
    people, stations, hours, treated = rng.randint(20, 300), rng.randint(2, 9), rng.randint(2, 12), rng.randint(2, 9)
    article = [f"A fire broke out at a {place} in {city} on {day}, forcing {people} people to leave the area.",
               f"Crews from {stations} fire stations spent {hours} hours bringing the blaze under control.",
               f"{who}, a spokesperson for the fire service, said the cause was still being investigated.",
               f"\"We are grateful to everyone who stayed away while our crews worked,\" {who.split()[0]} said.",
               f"No one was seriously hurt, although {treated} people were treated for smoke inhalation.",
               f"Neighbours described seeing thick black smoke rising over {city} for most of the afternoon.",
               "Roads around the site are expected to stay closed until the end of the week."]
    highlights = [f"Fire at a {place} in {city} forced {people} people from the area.",
                  f"{treated} people treated for smoke inhalation; the cause is not yet known.",
                  f"Crews from {stations} stations needed {hours} hours to control the blaze."]
    return article, highlights


def _match(rng: random.Random) -> tuple[list[str], list[str]]:
    home, away = (f"{c} {t}" for c, t in zip(rng.sample(CITIES, 2), rng.sample(TEAMS, 2)))
    a, b = rng.randint(2, 5), rng.randint(0, 1)
    scorer, manager, crowd, minute = _name(rng), _name(rng), rng.randint(4, 40) * 1000, rng.randint(60, 90)
    article = [f"{home} beat {away} {a}-{b} on {rng.choice(DAYS)} in front of {crowd} supporters.",
               f"{scorer} scored twice, including the decisive goal in the {minute}th minute.",
               f"The result lifts {home} to the top of the table for the first time this season.",
               f"\"The players never stopped running,\" said manager {manager}.",
               f"{away} had won their previous four games and arrived as favourites.",
               "Both sides will play again next weekend before the winter break."]
    highlights = [f"{home} won {a}-{b} against {away}.", f"{scorer} scored twice for the winners.",
                  f"{home} go top of the table."]
    return article, highlights


def _hiring(rng: random.Random) -> tuple[list[str], list[str]]:
    city, industry, boss = rng.choice(CITIES), rng.choice(INDUSTRIES), _name(rng)
    company = f"{rng.choice(LAST)} {rng.choice(['Systems', 'Group', 'Industries', 'Labs'])}"
    jobs, money, years = rng.randint(2, 60) * 10, rng.randint(5, 90), rng.randint(2, 6)
    article = [f"{company}, the {city}-based {industry} firm, said on {rng.choice(DAYS)} it would hire {jobs} people.",
               f"The company plans to invest {money} million pounds in a new site over the next {years} years.",
               f"Chief executive {boss} said demand had grown faster than expected since the spring.",
               "Most of the new roles will be in manufacturing and research.",
               f"Local leaders welcomed the news, saying {city} had lost many jobs in recent years.",
               "The firm was founded twenty years ago in a small office above a bakery."]
    highlights = [f"{company} will hire {jobs} people in {city}.",
                  f"The {industry} firm is investing {money} million pounds over {years} years."]
    return article, highlights


def _study(rng: random.Random) -> tuple[list[str], list[str]]:
    city, lead = rng.choice(CITIES), _name(rng)
    animal, skill = rng.choice(ANIMALS)
    tested, share = rng.randint(12, 200), rng.randint(55, 95)
    article = [f"Researchers at the University of {city} say {animal} can {skill}, according to a new study.",
               f"The team tested {tested} animals and found that {share} percent passed the main task.",
               f"\"We were surprised by how quickly they learned,\" said {lead}, who led the work.",
               "The experiments took place over two years in the wild and in the laboratory.",
               "Other scientists said the results should now be repeated by independent groups.",
               "The findings were published in a peer-reviewed journal this week."]
    highlights = [f"Study from the University of {city} finds {animal} can {skill}.",
                  f"{share} percent of {tested} animals tested passed the main task."]
    return article, highlights


def _council(rng: random.Random) -> tuple[list[str], list[str]]:
    city, place, leader = rng.choice(CITIES), rng.choice(FACILITIES), _name(rng)
    cost, year = rng.randint(3, 80), rng.randint(2026, 2031)
    votes_for, votes_against = rng.randint(20, 40), rng.randint(2, 19)
    article = [f"{city} council has approved plans for a new {place} costing {cost} million pounds.",
               f"Councillors voted {votes_for} to {votes_against} in favour on {rng.choice(DAYS)} evening.",
               f"Council leader {leader} said the {place} would open in {year}.",
               "Opponents argued that the money should be spent on repairing roads instead.",
               f"The old {place} closed three years ago after the roof was found to be unsafe.",
               "Work on the site is expected to begin early next year."]
    highlights = [f"{city} council approves a {cost} million pound {place}.",
                  f"The vote was {votes_for} to {votes_against}; the {place} should open in {year}."]
    return article, highlights


EVENTS: list[Callable[[random.Random], tuple[list[str], list[str]]]] = [_fire, _match, _hiring, _study, _council]


def news_rows(seed: int) -> dict[str, list[Row]]:
    """Hub-schema rows for each split; each split has its own random stream, so sizes do not interact."""
    out: dict[str, list[Row]] = {}
    for k, (split, n) in enumerate(SIZES.items()):
        rng = random.Random(seed * 1009 + k)
        rows = []
        for i in range(n):
            article, highlights = rng.choice(EVENTS)(rng)
            rows.append({"id": f"synthetic-news-{split}-{i}", "article": " ".join(article),
                         "highlights": "\n".join(highlights)})
        out[split] = rows
    return out
