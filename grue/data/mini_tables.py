"""Mini ToTTo: SYNTHETIC Wikipedia-style tables with highlighted cells and one-sentence descriptions.

No table-to-text corpus installs from the package registries (research/offline_assets.md (e)), so the
mini profile writes its own tables in ToTTo's schema: career statistics (a club cell may span two
seasons), filmographies, election results and discographies (a header spanning two columns). One row's cells
are highlighted, and two annotators' sentences (different wordings of the same facts) describe them;
train examples keep one, as ToTTo's train split does. Deterministic in the seed.
Scores on this data say nothing about the paper's task.
"""
from __future__ import annotations

import random
from typing import Any, Callable

from grue.data.hub import Row

SIZES = {"train": 400, "val": 100, "test": 100}

FIRST = ["Alan", "Maria", "Kenji", "Sofia", "Lars", "Chloe", "Ravi", "Ines", "Tomasz", "Aoife", "Diego", "Hana"]
LAST = ["Brennan", "Okafor", "Lindqvist", "Moreau", "Castillo", "Nakamura", "Petrov", "Doyle", "Haddad", "Varga"]
CLUBS = ["Harbour City", "Northfield United", "Real Costa", "FC Brenner", "Ashton Rovers", "Sporting Lume"]
LEAGUES = ["Premier Division", "First League", "Serie B", "Championship"]
FILMS = ["The Quiet Harbour", "Glass Mountains", "A Winter in Lisbon", "Night Train", "The Last Orchard",
         "Paper Kites", "Under the Lanterns", "The Cartographer"]
ROLES = ["Anna", "the detective", "Captain Reyes", "the narrator", "Mrs. Holt", "Leo", "the young king"]
PARTIES = ["Green Party", "Labour Party", "Liberal Party", "Conservative Party", "Independent"]
CITIES = ["Aberdeen", "Lyon", "Graz", "Utrecht", "Porto", "Malmo", "Leuven", "Turku"]
BANDS = ["The Velvet Tides", "Northern Static", "Copper Lanterns", "Blue Meridian", "The Owl Choir"]
ALBUMS = ["Salt and Smoke", "Low Light", "Open Water", "City of Bells", "Hollow Sun", "Second Spring"]
LABELS = ["Island Records", "Sub Pop", "Domino", "Rough Trade", "Warp"]


def cell(value: Any, header: bool = False, row_span: int = 1, column_span: int = 1) -> dict[str, Any]:
    return {"value": str(value), "is_header": header, "row_span": row_span, "column_span": column_span}


def _name(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def _career(rng: random.Random) -> tuple[str, str, list, list, list[str]]:
    player, league, start = _name(rng), rng.choice(LEAGUES), rng.randint(1995, 2015)
    header = [cell(h, True) for h in ("Season", "Club", "League", "Apps", "Goals")]
    table, stats, shared = [header], [], rng.random() < 0.5  # shared: the first club spans two seasons
    clubs = rng.sample(CLUBS, 4)
    for k in range(4):
        season = f"{start + k}-{str(start + k + 1)[2:]}"
        club = clubs[0] if shared and k == 1 else clubs[k]
        apps, goals = rng.randint(10, 40), rng.randint(0, 25)
        stats.append((season, club, apps, goals))
        row = [cell(season)]  # not a header: ToTTo's heuristic would make every season above a column header
        if not (shared and k == 1):
            row.append(cell(club, row_span=2 if shared and k == 0 else 1))
        table.append(row + [cell(league), cell(apps), cell(goals)])
    k = rng.randrange(4)
    season, club, apps, goals = stats[k]
    offset = 0 if (shared and k == 1) else 1  # the spanned row has no club cell: it is the one above
    club_cell = [1, 1] if offset == 0 else [k + 1, 1]
    highlighted = [[k + 1, 0], club_cell, [k + 1, 2 + offset], [k + 1, 3 + offset]]
    sentences = [f"In the {season} season, {player} made {apps} appearances for {club} and scored {goals} goals.",
                 f"{player} scored {goals} goals in {apps} games for {club} in {season}."]
    return player, "Career statistics", table, highlighted, sentences


def _filmography(rng: random.Random) -> tuple[str, str, list, list, list[str]]:
    actor, start = _name(rng), rng.randint(1990, 2018)
    table = [[cell(h, True) for h in ("Year", "Title", "Role", "Notes")]]
    films = rng.sample(FILMS, 4)
    for k, film in enumerate(films):
        table.append([cell(start + 2 * k), cell(film), cell(rng.choice(ROLES)),
                      cell(rng.choice(["", "Debut", "Also producer", "Voice role"]))])
    k = rng.randrange(4) + 1
    year, film, role = (table[k][i]["value"] for i in range(3))
    sentences = [f"In {year}, {actor} played {role} in {film}.",
                 f"{actor} appeared as {role} in the {year} film {film}."]
    return actor, "Filmography", table, [[k, 0], [k, 1], [k, 2]], sentences


def _election(rng: random.Random) -> tuple[str, str, list, list, list[str]]:
    year, city = rng.randrange(1990, 2024, 4), rng.choice(CITIES)
    parties = rng.sample(PARTIES, 3)
    votes = sorted((rng.randint(5000, 60000) for _ in range(3)), reverse=True)
    total = sum(votes)
    table = [[cell(h, True) for h in ("Party", "Candidate", "Votes", "%")]]
    for party, v in zip(parties, votes):
        table.append([cell(party), cell(_name(rng)), cell(f"{v:,}"), cell(f"{100 * v / total:.1f}")])
    party, winner, v, pct = (table[1][i]["value"] for i in range(4))
    sentences = [f"{winner} of the {party} won the {year} {city} mayoral election with {v} votes ({pct}%).",
                 f"In the {year} election, {winner} ({party}) became mayor of {city} with {pct}% of the vote."]
    return f"{year} {city} mayoral election", "Results", table, [[1, 0], [1, 1], [1, 2], [1, 3]], sentences


def _discography(rng: random.Random) -> tuple[str, str, list, list, list[str]]:
    band, start = rng.choice(BANDS), rng.randint(1985, 2015)
    table = [[cell("Year", True), cell("Album", True), cell("Label", True), cell("Peak position", True, column_span=2)],
             [cell("", True), cell("", True), cell("", True), cell("UK", True), cell("US", True)]]
    for k, album in enumerate(rng.sample(ALBUMS, 4)):
        table.append([cell(start + 3 * k), cell(album), cell(rng.choice(LABELS)), cell(rng.randint(1, 60)),
                      cell(rng.randint(1, 90))])
    k = rng.randrange(4) + 2
    year, album, label, uk = (table[k][i]["value"] for i in range(4))
    sentences = [f"{band} released {album} on {label} in {year}; it peaked at number {uk} in the UK.",
                 f"The {year} album {album} by {band} reached number {uk} on the UK chart."]
    return f"{band} discography", "Studio albums", table, [[k, 0], [k, 1], [k, 2], [k, 3]], sentences


TABLES: list[Callable[[random.Random], tuple[str, str, list, list, list[str]]]] = [
    _career, _filmography, _election, _discography]


def table_rows(seed: int) -> dict[str, list[Row]]:
    """Hub-schema rows per split (train: one annotation, val/test: two), each split its own stream."""
    out: dict[str, list[Row]] = {}
    for k, (split, n) in enumerate(SIZES.items()):
        rng = random.Random(seed * 1021 + k)
        rows: list[Row] = []
        for i in range(n):
            title, section, table, highlighted, sentences = rng.choice(TABLES)(rng)
            kept = sentences[:1] if split == "train" else sentences
            rows.append({"example_id": f"synthetic-table-{split}-{i}", "table_page_title": title,
                         "table_section_title": section, "table": table, "highlighted_cells": highlighted,
                         "sentence_annotations": {"final_sentence": kept}})
        out[split] = rows
    return out
