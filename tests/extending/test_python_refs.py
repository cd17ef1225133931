"""`python:` references: a module by name or a file by path, called on the batch, checked on the way out."""
from __future__ import annotations

import textwrap

import pytest

from grue.data.sample import Sample
from grue.extend.errors import ExtensionError
from grue.extend.python_ref import add_search_dir, checked_values, load_callable
from grue.extend.user_metric import UserMetricScorer
from grue.extend.user_reward import UserReward
from grue.metrics.base import MetricInputs

SOURCE = textwrap.dedent('''\
    from grue.extend import metric


    @metric(higher_is_better=False)
    def length(prompts, generations, references, meta):
        return [float(len(g.split())) for g in generations]


    def echo_meta(prompts, generations, references, meta):
        return [float(m["weight"]) * len(r) for m, r in zip(meta, references)]
''')
SAMPLES = [Sample("a", "p1", ("r1", "r2"), {"weight": 2}), Sample("b", "p2", ("r3",), {"weight": 5})]


@pytest.fixture
def module_folder(tmp_path, clean_extensions, monkeypatch):
    folder = tmp_path / "lab"
    (folder / "lab_scores").mkdir(parents=True)
    (folder / "lab_scores" / "__init__.py").write_text("")
    (folder / "lab_scores" / "funcs.py").write_text(SOURCE)
    monkeypatch.chdir(tmp_path)
    add_search_dir(folder)  # as a task file in that folder would
    return folder


def test_a_module_by_name_and_a_file_by_path_name_the_same_function(module_folder):
    by_module = load_callable("python:lab_scores.funcs:echo_meta", "reward")
    by_file = load_callable("python:lab/lab_scores/funcs.py:echo_meta", "reward")
    batch = (["p1", "p2"], ["g", "g"], [["r1", "r2"], ["r3"]], [{"weight": 2}, {"weight": 5}])
    assert by_module(*batch) == by_file(*batch) == [4.0, 5.0]


def test_a_reward_sees_references_and_meta_and_a_lower_is_better_function_is_negated(module_folder):
    assert UserReward("python:lab_scores.funcs:echo_meta")(SAMPLES, ["x", "y"]) == [4.0, 5.0]
    assert UserReward("python:lab_scores.funcs:length")(SAMPLES, ["one two", "one"]) == [-2.0, -1.0]


def test_a_metric_reports_per_sample_values_their_mean_and_its_direction(module_folder):
    scorer = UserMetricScorer("python:lab_scores.funcs:length")
    inputs = MetricInputs(prompts=["a", "b", "c"], generations=["one two", "one", "one two three"],
                          references=[["x"], ["y"], ["z"]])
    value = scorer.compute(inputs)["python:lab_scores.funcs:length"]
    assert value.per_sample == [2.0, 1.0, 3.0] and value.corpus == 2.0
    assert scorer.higher_is_better == {"python:lab_scores.funcs:length": False}


@pytest.mark.parametrize("values, expected", [
    ([1.0], "returned 1 values for 2 generations"),
    ([1.0, float("inf")], "returned inf at index 1"),
    ([1.0, "2"], "returned a str at index 1"),
    ({"a": 1}, "returned a dict"),
])
def test_what_a_function_returns_is_checked(values, expected):
    with pytest.raises(ExtensionError, match=expected):
        checked_values(values, 2, "reward 'python:x:y'")


def test_a_reference_without_a_function_is_refused(clean_extensions):
    with pytest.raises(ExtensionError, match="write python:<module>:<function>"):
        load_callable("python:only_a_module", "reward")
