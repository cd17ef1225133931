"""The comparisons file: round trip, append-only answers, latest answer wins, refusals, torn lines."""
import json

import pytest

from grue.rewards.learned.comparisons import (Candidate, Comparison, ComparisonsFormatError, append_comparisons,
                                              latest_answers, read_comparisons, unanswered)


def query(qid: str, k: int = 4) -> Comparison:
    return Comparison(qid, "The film was", tuple(Candidate(f" option {i}.", "packaged:smollm2-135m") for i in range(k)),
                      task="imdb", sample_id="train-1")


def test_records_round_trip_through_the_file(tmp_path):
    path = tmp_path / "c.jsonl"
    q = query("q1")
    answered = q.answer(None, "alice", ranking=[2, 0, 3, 1], time_s=3.5, notes="close call")
    append_comparisons(path, [q, answered])
    back = read_comparisons(path)
    assert back[0].labeler is None and not back[0].answered
    assert back[1].chosen == 2 and back[1].ranking == (2, 0, 3, 1) and back[1].time_s == 3.5
    assert back[1].candidates == q.candidates and back[1].notes == "close call"
    assert json.loads(path.read_text().splitlines()[1])["schema_version"] == 1


def test_a_later_answer_is_a_new_record_and_wins(tmp_path):
    path = tmp_path / "c.jsonl"
    q = query("q1")
    append_comparisons(path, [q.answer(1, "alice"), q.answer(3, "bob")])
    append_comparisons(path, [q.answer(0, "alice")])
    assert len(path.read_text().splitlines()) == 3  # nothing overwritten
    latest = {a.labeler: a.chosen for a in latest_answers(read_comparisons(path))}
    assert latest == {"alice": 0, "bob": 3}


def test_a_later_skip_withdraws_the_earlier_answer():
    q = query("q1")
    assert latest_answers([q.answer(1, "alice"), q.answer(None, "alice")]) == []


def test_unanswered_queries_resume_where_labelling_stopped():
    queries = [query("q1"), query("q2"), query("q3")]
    assert [q.query_id for q in unanswered(queries, [queries[1].answer(0, "mock:x")], "mock:x")] == ["q1", "q3"]


def test_a_torn_last_line_is_skipped_and_the_next_append_starts_clean(tmp_path):
    path = tmp_path / "c.jsonl"
    append_comparisons(path, [query("q1")])
    with open(path, "a") as handle:
        handle.write('{"query_id": "q2", "pro')  # killed mid-append
    assert [r.query_id for r in read_comparisons(path)] == ["q1"]
    append_comparisons(path, [query("q3")])
    with pytest.raises(ComparisonsFormatError, match="line 2: not JSON"):  # no longer last: now it is an error
        read_comparisons(path)


@pytest.mark.parametrize("change, message", [
    ({"chosen": 4}, "not a candidate index"),
    ({"chosen": 1, "labeler": None}, "needs a 'labeler'"),
    ({"ranking": [0, 1, 1, 2], "labeler": "a"}, "must order all candidate indices"),
    ({"ranking": [1, 0, 2, 3], "chosen": 0, "labeler": "a"}, "first index of 'ranking'"),
    ({"candidates": [{"text": "x", "source": "m"}]}, "at least 2"),
    ({"chosen": True, "labeler": "a"}, "wrong type"),
    ({"schema_version": 2}, "schema_version"),
    ({"chosen": 1, "labeler": " "}, "'labeler' is empty"),
    ({"chosen": 1, "labeler": "a", "time_s": float("nan")}, "not a finite, non-negative"),
    ({"chosen": 1, "labeler": "a", "time_s": -3}, "not a finite, non-negative"),
])
def test_malformed_records_are_refused_with_file_and_line(tmp_path, change, message):
    path = tmp_path / "c.jsonl"
    row = {**query("q1").to_json(), **change}
    path.write_text(json.dumps(query("q0").to_json()) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(ComparisonsFormatError, match=message) as err:
        read_comparisons(path)
    assert f"{path}: 1 problem: line 2:" in str(err.value)


def test_every_bad_line_is_listed_with_the_count(tmp_path):
    path = tmp_path / "c.jsonl"
    good = json.dumps(query("q0").to_json())
    path.write_text("\n".join([good, "not json", good, '"a string"', json.dumps({"query_id": "x"})]) + "\n")
    with pytest.raises(ComparisonsFormatError) as err:
        read_comparisons(path)
    message = str(err.value)
    assert "3 problems" in message
    assert all(f"line {n}:" in message for n in (2, 4, 5)) and "line 1:" not in message


def test_a_file_that_is_not_utf8_says_so_instead_of_a_decode_traceback(tmp_path):
    from grue.storage.inputs import InputError

    path = tmp_path / "c.jsonl"
    path.write_bytes((json.dumps(query("q0").to_json()) + "\n").encode("utf-16"))
    with pytest.raises(InputError, match="not UTF-8 .looks like UTF-16"):
        read_comparisons(path)
