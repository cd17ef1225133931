"""Crowdsourcing exchange: the batch CSV out, a platform's results CSV back in, beside local answers,
and comparisons out to the learned-reward comparisons file."""
from __future__ import annotations

import csv
import io

import pytest

from grue.human.comparisons_export import export_comparisons
from grue.human.crowd_export import batch_csv
from grue.human.crowd_import import Imported, ImportRefused, import_results
from grue.human.frame import choices_frame, ratings_frame
from grue.rewards.learned.comparisons import latest_answers, read_comparisons
from human_fixtures import answer_all, build_study


def _batch(study) -> list[dict]:
    return list(csv.DictReader(io.StringIO(batch_csv(study))))


def _results(rows: list[dict], path):
    """A results file in Mechanical Turk's layout: Input.<column>, Answer.<field>, WorkerId, WorkTimeInSeconds."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _mturk_row(batch_row: dict, worker: str, answers: dict, status: str = "Approved") -> dict:
    return {"HITId": f"H{batch_row['item_id']}", "AssignmentId": f"A{worker}{batch_row['item_id']}",
            "WorkerId": worker, "AssignmentStatus": status, "WorkTimeInSeconds": "31",
            **{f"Input.{k}": v for k, v in batch_row.items()}, **{f"Answer.{k}": v for k, v in answers.items()}}


def _pick(texts: list[str], word: str) -> int:
    """The attention check's position when there is one, else the first text containing `word`."""
    for marker in ("attention check", word):
        for position, text in enumerate(texts):
            if marker in text:
                return position
    raise AssertionError(f"no {word!r} among {texts}")


def _workers(study, answers, workers=("W1", "W2", "W3")) -> list[dict]:
    """Results rows as the platform returns them: each batch row answered by distinct workers."""
    return [_mturk_row(r, worker, answers(r)) for r in _batch(study) for worker in workers]


def test_the_batch_has_one_row_per_item_so_the_platform_gives_it_to_distinct_workers(tmp_path):
    study, _ = build_study(tmp_path)
    rows = _batch(study)
    assert sorted(r["item_id"] for r in rows) == sorted(study.items)  # each item once, attention checks included
    assert "assignment" not in rows[0]
    text = batch_csv(study)
    for info in study.systems.values():
        assert info["algo"] not in text and info["run"] not in text


def test_imported_ratings_land_beside_local_answers(tmp_path):
    study, tokens = build_study(tmp_path)
    answer_all(study, tokens["rater-01"], lambda item, order: {"sentiment": "5", "coherence": "5"})
    rows = _workers(study, lambda r: {"sentiment": "2", "coherence": "3"})
    rows[0]["AssignmentStatus"] = "Rejected"
    assert import_results(study, _results(rows, tmp_path / "results.csv")) == Imported(len(rows) - 1, rejected=1)
    frame = ratings_frame(study)
    assert set(frame["source"]) == {"local", "import:results.csv"}
    imported = frame[frame["source"] != "local"]
    assert set(imported["rater"]) == {"mturk:W1", "mturk:W2", "mturk:W3"}
    assert (imported.loc[imported["axis"] == "sentiment", "value"] == 2).all()
    assert (imported["seconds"] == 31).all()


@pytest.mark.parametrize("change, message", [
    ({"Answer.sentiment": "9"}, "between 1 and 5"),
    ({"Input.item_id": "item-999"}, "unknown item"),
    ({"WorkerId": ""}, "no WorkerId"),
    ({"Answer.coherence": ""}, "missing answer for coherence"),
    ({"WorkTimeInSeconds": "soon"}, "not a number"),
    ({"WorkTimeInSeconds": "nan"}, "not a finite, non-negative number"),
    ({"WorkTimeInSeconds": "-4"}, "not a finite, non-negative number"),
])
def test_one_bad_row_imports_nothing(tmp_path, change, message):
    study, _ = build_study(tmp_path)
    rows = _workers(study, lambda r: {"sentiment": "2", "coherence": "3"})
    rows[5].update(change)
    with pytest.raises(ImportRefused, match=message):
        import_results(study, _results(rows, tmp_path / "results.csv"))
    assert ratings_frame(study).empty


def test_importing_the_same_file_twice_is_refused(tmp_path):
    study, _ = build_study(tmp_path)
    path = _results(_workers(study, lambda r: {"sentiment": "2", "coherence": "3"}, workers=("W1",)),
                    tmp_path / "results.csv")
    assert import_results(study, path).stored == len(study.items)
    with pytest.raises(ImportRefused, match="imported before"):
        import_results(study, path)
    assert len(ratings_frame(study)) == 2 * len(study.items)


def test_a_worker_answering_an_item_twice_in_one_file_is_refused(tmp_path):
    study, _ = build_study(tmp_path)
    row = _mturk_row(_batch(study)[0], "W1", {"sentiment": "2", "coherence": "3"})
    with pytest.raises(ImportRefused, match="line 3: mturk:W1 answered item-01 already on line 2"):
        import_results(study, _results([row, dict(row)], tmp_path / "results.csv"))


def test_every_bad_row_is_listed_with_its_count_and_physical_line(tmp_path):
    study, _ = build_study(tmp_path)
    rows = _workers(study, lambda r: {"sentiment": "2", "coherence": "3"})
    rows[0]["Input.prompt"] = "a prompt\nover two lines"  # record 1 spans lines 2-3; record 2 starts on line 4
    for row in rows[1:8]:
        row["Answer.sentiment"] = "9"
    with pytest.raises(ImportRefused) as err:
        import_results(study, _results(rows, tmp_path / "results.csv"))
    assert "7 problems" in str(err.value) and "line 4: sentiment must be between 1 and 5" in str(err.value)
    assert ratings_frame(study).empty


@pytest.mark.parametrize("content", ["", "WorkerId,Input.item_id,Answer.sentiment\n"])
def test_an_empty_or_header_only_results_file_is_refused(tmp_path, content):
    study, _ = build_study(tmp_path)
    path = tmp_path / "results.csv"
    path.write_text(content)
    with pytest.raises(ImportRefused, match="nothing imported"):
        import_results(study, path)


def test_a_utf16_results_file_says_to_resave_it_as_utf8(tmp_path):
    study, _ = build_study(tmp_path)
    rows = [_mturk_row(r, "W1", {"sentiment": "2", "coherence": "3"}) for r in _batch(study)[:3]]
    path = _results(rows, tmp_path / "results.csv")
    path.write_bytes(path.read_text().encode("utf-16"))
    with pytest.raises(ImportRefused, match="not UTF-8 .looks like UTF-16.*re-save as UTF-8"):
        import_results(study, path)


def test_imported_comparison_choices_map_back_through_the_rows_candidate_order(tmp_path):
    study, _ = build_study(tmp_path, kind="comparisons", algos=("zero_shot", "ppo", "nlpo"))
    rows = _workers(study, lambda r: {"choice": str(_pick([r[f"candidate_{i}"] for i in range(3)], "cheerful"))})
    import_results(study, _results(rows, tmp_path / "results.csv"))
    judged = choices_frame(study)
    picked = judged.loc[~judged["gold"], "chosen"].map(lambda s: study.systems[s]["algo"])
    assert set(picked) == {"nlpo"}  # the cheerful texts are nlpo's in the fixture
    assert judged.loc[judged["gold"], "correct"].all()


def _cheerful_choices(study, edit):
    """Every batch row answered by three workers with the cheerful candidate's position, each row with the
    slot column of the earlier one-row-per-assignment batches, then passed through `edit` (what a
    platform's export may do to the columns)."""
    rows = _workers(study, lambda r: {"choice": str(_pick([r[f"candidate_{i}"] for i in range(3)], "cheerful"))})
    return [edit({**row, "Input.assignment": row["WorkerId"][1:]}) for row in rows]


@pytest.mark.parametrize("edit", [
    lambda row: {k: v for k, v in row.items() if k != "Input.assignment"},  # the platform dropped the column
    lambda row: {**row, "Input.assignment": str(4 - int(row["Input.assignment"]))},  # slots renumbered
])
def test_comparison_choices_follow_the_texts_the_rater_saw_whatever_the_slot_column(tmp_path, edit):
    study, _ = build_study(tmp_path, kind="comparisons", algos=("zero_shot", "ppo", "nlpo"))
    import_results(study, _results(_cheerful_choices(study, edit), tmp_path / "results.csv"))
    judged = choices_frame(study)
    assert set(judged.loc[~judged["gold"], "chosen"].map(lambda s: study.systems[s]["algo"])) == {"nlpo"}


@pytest.mark.parametrize("edit, message", [
    (lambda row: {**row, "Input.assignment": "7"}, "assignment '7' is not one of the study's slots 1..3"),
    (lambda row: {**row, "Input.candidate_1": "a text nobody generated"}, "candidate_1's text is not one of"),
    (lambda row: {k: v for k, v in row.items() if not k.startswith(("Input.candidate_", "Input.assignment"))},
     "cannot tell which candidate was chosen"),
])
def test_a_comparison_row_whose_order_cannot_be_known_imports_nothing(tmp_path, edit, message):
    study, _ = build_study(tmp_path, kind="comparisons", algos=("zero_shot", "ppo", "nlpo"))
    rows = _cheerful_choices(study, lambda row: row)
    rows[4] = edit(rows[4])
    rows = [{k: row.get(k, "") for k in rows[4]} for row in rows]  # one header for every row
    with pytest.raises(ImportRefused, match=message):
        import_results(study, _results(rows, tmp_path / "results.csv"))
    assert choices_frame(study).empty


def test_comparisons_export_to_the_learned_reward_file(tmp_path):
    study, tokens = build_study(tmp_path, kind="comparisons", algos=("zero_shot", "ppo"))
    for token in tokens.values():
        answer_all(study, token, lambda item, order: {
            "choice": str(_pick([item.candidates[i].text for i in order], "upbeat"))})
    out = tmp_path / "comparisons.jsonl"
    assert export_comparisons(study, out) == 6 * 3  # six prompts x three raters; attention checks left out
    records = latest_answers(read_comparisons(out))
    assert len(records) == 18
    for record in records:
        assert record.k == 2 and record.labeler.startswith("human:rater-")
        assert "upbeat" in record.candidates[record.chosen].text
        assert record.candidates[record.chosen].source.endswith("imdb-ppo-s0")
