"""make-study: the same prompts for every algorithm, seeded, one run per algorithm, clear refusals;
and the seeded assignment of items to raters."""
from __future__ import annotations

import stat
from collections import Counter

import pytest

from grue.human.make_study import StudyRequest, make_study
from grue.human.order import assign, candidate_order
from grue.human.study import StudyError, load_study
from human_fixtures import build_study, write_run


def test_every_algorithm_is_rated_on_the_same_sampled_prompts(tmp_path):
    study, _ = build_study(tmp_path, algos=("zero_shot", "ppo", "nlpo"), samples=5)
    per_system = {s: {i.sample_id for i in study.judged_items() if i.candidates[0].system == s} for s in study.systems}
    assert len(per_system) == 3 and all(len(ids) == 5 for ids in per_system.values())
    assert len({frozenset(ids) for ids in per_system.values()}) == 1
    assert sum(item.gold is not None for item in study.items.values()) == 2


def test_the_sample_size_defaults_to_the_papers(tmp_path):
    write_run(tmp_path / "runs", "imdb", "ppo")
    with pytest.raises(StudyError, match="samples=100: the runs share 12 test prompts"):
        make_study(tmp_path / "study", StudyRequest("ratings", "imdb", (tmp_path / "runs",)))
    write_run(tmp_path / "runs", "cnn_dailymail", "ppo")
    with pytest.raises(StudyError, match="samples=50"):
        make_study(tmp_path / "study", StudyRequest("ratings", "cnn_dailymail", (tmp_path / "runs",)))


def test_a_study_is_reproducible_from_its_seed(tmp_path):
    first, _ = build_study(tmp_path / "a", seed=3)
    again, _ = build_study(tmp_path / "b", seed=3)
    other, _ = build_study(tmp_path / "c", seed=4)

    def content(study):
        return [(i.id, i.sample_id, i.candidates) for i in study.items.values()]

    assert content(first) == content(again)
    assert content(first) != content(other)
    assert load_study(first.root).items == first.items


def test_the_lowest_seed_run_of_each_algorithm_is_used(tmp_path):
    runs = tmp_path / "runs"
    write_run(runs, "imdb", "ppo", seed=2)
    write_run(runs, "imdb", "ppo", seed=1)
    study, _ = make_study(tmp_path / "study", StudyRequest("ratings", "imdb", (runs,), samples=3))
    assert [info["seed"] for info in study.systems.values()] == [1]


@pytest.mark.parametrize("request_args, message", [
    ({"algos": ("ppo", "nlpo")}, "no finished imdb run of nlpo; found: ppo, zero_shot"),
    ({"kind": "comparisons", "algos": ("ppo",)}, "needs at least 2 algorithms"),
    ({"task": "totto"}, "no finished totto runs"),
    ({"samples": 0}, "ask for 1..12"),
    ({"raters_per_item": 4, "pool": 3}, "pool of at least 4"),
    ({"raters_per_item": 0}, "at least one rater"),
])
def test_bad_requests_are_refused_and_write_nothing(tmp_path, request_args, message):
    runs = tmp_path / "runs"
    for algo in ("zero_shot", "ppo"):
        write_run(runs, "imdb", algo)
    fields = {"kind": "ratings", "task": "imdb", "runs": (runs,), "samples": 4, **request_args}
    with pytest.raises((StudyError, ValueError), match=message):
        make_study(tmp_path / "study", StudyRequest(**fields))
    assert not (tmp_path / "study" / "study.json").exists()


def test_an_existing_study_is_never_overwritten(tmp_path):
    study, _ = build_study(tmp_path)
    with pytest.raises(StudyError, match="already holds a study"):
        build_study(tmp_path)
    assert load_study(study.root).items == study.items


def test_mixed_profiles_are_refused(tmp_path):
    write_run(tmp_path / "runs", "imdb", "ppo")
    write_run(tmp_path / "runs" / "paper", "imdb", "nlpo", profile="paper")
    with pytest.raises(StudyError, match="several profiles"):
        make_study(tmp_path / "study", StudyRequest("ratings", "imdb", (tmp_path / "runs",), samples=3))


def test_rater_links_are_private_to_the_owner(tmp_path):
    study, tokens = build_study(tmp_path)
    links = (study.root / "links.txt")
    assert stat.S_IMODE(links.stat().st_mode) == 0o600
    assert links.read_text().splitlines() == [f"{r} /r/{t}" for r, t in tokens.items()]
    assert not any(t in (study.root / "study.json").read_text() for t in tokens.values())


def test_each_item_goes_to_distinct_raters_and_loads_are_even():
    items = [f"i{n}" for n in range(10)]
    lists = assign(items, ["g1"], [f"r{n}" for n in range(4)], per_item=3, seed=0)
    holders = Counter(item for rater_items in lists.values() for item in set(rater_items))
    assert all(holders[item] == 3 for item in items) and holders["g1"] == 4
    sizes = [len(v) for v in lists.values()]
    assert max(sizes) - min(sizes) <= 1 and sum(sizes) == 10 * 3 + 4
    assert assign(items, ["g1"], [f"r{n}" for n in range(4)], per_item=3, seed=0) == lists
    assert len({tuple(v) for v in assign(items, [], ["a", "b", "c"], 3, seed=0).values()}) == 3  # own orders


def test_candidate_orders_are_seeded_permutations():
    orders = {rater: candidate_order(0, rater, "item-1", 4) for rater in ("a", "b", "c", "d", "e")}
    assert all(sorted(order) == [0, 1, 2, 3] for order in orders.values())
    assert len({tuple(o) for o in orders.values()}) > 1
    assert candidate_order(0, "a", "item-1", 4) == orders["a"]
