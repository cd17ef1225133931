"""`grue label ...` under the README's promise: no output over an input, no silently accepted answer, a bad
input is one line and exit code 2 before any work (no model is loaded or trained)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from cli import app
from grue.rewards.learned.comparisons import Candidate, Comparison, append_comparisons, latest_answers, read_comparisons

runner = CliRunner()


def refused(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
    return result.output


def query(qid: str) -> Comparison:
    return Comparison(qid, "The film was", (Candidate(" good.", "m"), Candidate(" bad.", "m")), task="imdb")


@pytest.fixture
def queries(tmp_path):
    path = tmp_path / "labels.jsonl"
    append_comparisons(path, [query("q1"), query("q2")])
    return path


@pytest.fixture
def answered(tmp_path):
    """A folder holding a comparisons file with answers, and another file of the user's."""
    folder = tmp_path / "study"
    folder.mkdir()
    path = folder / "labels.jsonl"
    append_comparisons(path, [q.answer(i % 2, "alice") for i, q in enumerate(query(f"q{i}") for i in range(6))])
    (folder / "notes.txt").write_text("mine")
    return path


def results(tmp_path, rows: list[str], header: str = "WorkerId,AssignmentStatus,WorkTimeInSeconds,Input.query_id,"
                                                      "Answer.chosen"):
    path = tmp_path / "results.csv"
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def test_export_csv_refuses_to_write_over_its_queries(queries):
    before = queries.read_bytes()
    assert "would destroy it" in refused("label", "export-csv", f"queries={queries}", f"out={queries}")
    assert queries.read_bytes() == before


def test_import_csv_refuses_an_out_that_is_the_results_file(queries, tmp_path):
    path = results(tmp_path, ["W1,Approved,3,q1,0"])
    before = path.read_bytes()
    assert "would destroy it" in refused("label", "import-csv", f"queries={queries}", f"answers={path}", f"out={path}")
    assert path.read_bytes() == before


@pytest.mark.parametrize("command", ["export-csv", "import-csv"])
def test_an_unknown_argument_is_refused_not_ignored(queries, tmp_path, command):
    args = [f"queries={queries}", f"out={tmp_path / 'x.csv'}"]
    if command == "import-csv":
        args = [f"queries={queries}", f"answers={results(tmp_path, ['W1,Approved,3,q1,0'])}"]
    assert "unknown argument colour=" in refused("label", command, *args, "colour=red")
    assert latest_answers(read_comparisons(queries)) == []


@pytest.mark.parametrize("row, message", [
    ("W1,Approved,nan,q1,0", "line 2: time 'nan' is not a finite, non-negative number"),
    ("W1,Approved,-3,q1,0", "line 2: time '-3' is not a finite, non-negative number"),
    ("W1,Approved,abc,q1,0", "line 2: time 'abc' is not a number of seconds"),
    (",Approved,3,q1,0", "line 2: no worker id in WorkerId"),
    ("W1,Approved,3,q9,0", "line 2: query 'q9' is not in the queries file"),
    ("W1,Approved,3,q1,2", "line 2: chosen 2 is not a candidate index (0..1)"),
    ("W1,Approved,3,q1", "line 2: 4 fields where the header has 5"),
])
def test_a_bad_answer_row_imports_nothing(queries, tmp_path, row, message):
    path = results(tmp_path, ["W2,Approved,4,q2,1", row])
    out = refused("label", "import-csv", f"queries={queries}", f"answers={path}")
    assert message.replace("line 2", "line 3") in out and "nothing imported" in out
    assert latest_answers(read_comparisons(queries)) == []


def test_rejected_assignments_are_left_out_and_counted(queries, tmp_path):
    path = results(tmp_path, ["W1,Approved,3,q1,0", "W2,Rejected,3,q2,1"])
    result = runner.invoke(app, ["label", "import-csv", f"queries={queries}", f"answers={path}"])
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert "1 answers appended" in said and "1 rejected on the platform left out" in said
    assert [(a.query_id, a.labeler) for a in latest_answers(read_comparisons(queries))] == [("q1", "W1")]


@pytest.mark.parametrize("content, message", [
    ("", "is empty (no header line)"),
    ("WorkerId,Input.query_id,Answer.chosen\n", "has a header but no records"),
    ("WorkerId,Input.query_id\nW1,q1\n", "no chosen or Answer.chosen column"),
])
def test_an_empty_or_header_only_results_file_is_refused(queries, tmp_path, content, message):
    path = tmp_path / "results.csv"
    path.write_text(content)
    assert message in refused("label", "import-csv", f"queries={queries}", f"answers={path}")


def test_a_utf16_results_file_says_to_resave_it(queries, tmp_path):
    path = results(tmp_path, ["W1,Approved,3,q1,0"])
    path.write_bytes(path.read_text().encode("utf-16"))
    assert "not UTF-8 (looks like UTF-16" in refused("label", "import-csv", f"queries={queries}", f"answers={path}")


@pytest.fixture
def no_training(monkeypatch):
    """Fail the test if a reward model is built or trained: every refusal must come first."""
    from grue.rewards.learned import model, training

    def forbidden(*args, **kwargs):
        raise AssertionError("work started before the refusal")

    monkeypatch.setattr(model.RewardModel, "from_backbone", classmethod(forbidden))
    monkeypatch.setattr(training, "fit_reward_model", forbidden)


def test_train_refuses_an_out_that_holds_its_comparisons_and_deletes_nothing(answered, no_training):
    out = refused("label", "train", "task=imdb", "profile=mini", f"comparisons={answered}", f"out={answered.parent}")
    assert "holds the input" in out
    assert (answered.parent / "notes.txt").read_text() == "mine" and len(read_comparisons(answered)) == 6


def test_train_refuses_a_folder_it_did_not_write(answered, tmp_path, no_training):
    other = tmp_path / "mine"
    other.mkdir()
    (other / "thesis.tex").write_text("years of work")
    assert "grue did not write (it holds thesis.tex" in refused("label", "train", "task=imdb", "profile=mini",
                                                                 f"comparisons={answered}", f"out={other}")
    assert (other / "thesis.tex").exists()


def test_train_refuses_an_unwritable_or_file_valued_out_before_training(answered, tmp_path, no_training):
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    assert "is a file, not a directory" in refused("label", "train", "task=imdb", "profile=mini",
                                                   f"comparisons={answered}", f"out={a_file}")
    assert "is a file, not a directory" in refused("label", "train", "task=imdb", "profile=mini",
                                                   f"comparisons={answered}", f"out={a_file / 'rm'}")


def test_a_retrained_model_killed_mid_save_leaves_the_old_one(tmp_path):
    from grue.storage.outputs import replace_directory

    out = tmp_path / "rm"
    replace_directory(out, lambda d: (d / "reward_model.json").write_text('{"version": 1}'))

    def killed(directory):
        (directory / "head.pt").write_text("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        replace_directory(out, killed)
    assert json.loads((out / "reward_model.json").read_text()) == {"version": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rm"]  # no temporary left behind
    replace_directory(out, lambda d: (d / "reward_model.json").write_text('{"version": 2}'))
    assert json.loads((out / "reward_model.json").read_text()) == {"version": 2}


@pytest.mark.parametrize("labeler, message", [
    ("sentimnet", "labeler=sentimnet: unknown reward 'sentimnet'"),
    ("distinct_1", "distinct_1 is a corpus-level metric"),
])
def test_mock_refuses_a_labeler_that_cannot_judge(queries, labeler, message):
    assert message in refused("label", "mock", "task=imdb", "profile=mini", f"queries={queries}", f"labeler={labeler}")
    assert latest_answers(read_comparisons(queries)) == []


def _fake_run(root, name, lines):
    run = root / name
    (run / "predictions").mkdir(parents=True)
    (run / "predictions" / "test.jsonl").write_text("".join(line + "\n" for line in lines))
    return run


def test_win_rate_refuses_a_run_against_itself(tmp_path):
    run = _fake_run(tmp_path, "a", [json.dumps({"id": "1", "generation": "g"})])
    assert "are the same run" in refused("label", "win-rate", "task=imdb", "profile=mini", f"a={run}",
                                         f"b={tmp_path / 'a' / '.'}", "labeler=sentiment")


@pytest.mark.parametrize("bad", ['{"generation": "g"}', '{"id": "2", "generation": 5}', "[1]", "{torn"])
def test_win_rate_names_bad_prediction_lines(tmp_path, bad):
    good = json.dumps({"id": "1", "generation": "g"})
    a = _fake_run(tmp_path, "a", [good, bad])
    b = _fake_run(tmp_path, "b", [good])
    out = refused("label", "win-rate", "task=imdb", "profile=mini", f"a={a}", f"b={b}", "labeler=sentiment",
                  f"out={tmp_path / 'judged.jsonl'}")
    assert f"{a / 'predictions' / 'test.jsonl'}: 1 problem: line 2:" in out
    assert not (tmp_path / "judged.jsonl").exists()


def test_mock_refuses_both_labeler_noises_naming_both_keys(queries):
    out = refused("label", "mock", "task=imdb", "profile=mini", f"queries={queries}", "labeler=sentiment",
                  "reward.labeler_temperature=1", "reward.labeler_error_rate=0.2")
    assert "reward.labeler_temperature=1 and reward.labeler_error_rate=0.2" in out


def test_mock_with_a_reference_metric_on_queries_without_references_is_one_line(queries):
    out = refused("label", "mock", "task=imdb", "profile=mini", f"queries={queries}", "labeler=chrf")
    assert "labeler mock:chrf cannot score these queries" in out and "no reference" in out
    assert latest_answers(read_comparisons(queries)) == []
