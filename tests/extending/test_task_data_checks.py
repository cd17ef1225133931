"""A user's task data and a Python task file's loader are checked where grue takes them over (issue 45):
every problem counted and the first named with its file and record, one error and never a traceback or a
silent accept: duplicate ids, a null prompt field, an object where a reference belongs, a CSV row shorter
or longer than its header, a garbage parquet file, and a loader that raises, exits or returns a list or no
test split."""
from __future__ import annotations

import json
import textwrap

import pytest

from grue.config import load_config
from grue.extend.errors import ExtensionError
from tasks import get_task


def load(task_file):
    cfg = load_config([f"task={task_file}", "profile=mini", "algo=zero_shot"])
    return get_task(cfg.task).loader(cfg)


def rewrite_split(user_task, split: str, edit) -> None:
    path = user_task.parent / "data" / f"{split}.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    edit(rows)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def refused(user_task, *expected: str) -> str:
    with pytest.raises(ExtensionError) as caught:
        load(user_task)
    for text in expected:
        assert text in str(caught.value), str(caught.value)
    return str(caught.value)


def test_the_untouched_folder_loads(user_task):
    assert {len(v) for v in load(user_task).values()} <= {6, 12}


def test_duplicate_ids_are_refused(user_task):
    rewrite_split(user_task, "test", lambda rows: rows[3].update(id=rows[1]["id"]))
    refused(user_task, "test.jsonl", "line 4: id 'test0-1' is also the id on line 2")


def test_every_bad_record_is_counted(user_task):
    def edit(rows):
        rows[0]["text"] = None                  # a null prompt field
        rows[2]["gist"] = {"text": "nested"}    # an object where a reference belongs
    rewrite_split(user_task, "val", edit)
    message = refused(user_task, "val.jsonl", "2 problems")
    assert "line 1: field(s) 'text' of the prompt template are empty (null)" in message
    assert "line 3: field(s) gist, topic hold a dict where a reference text" in message


def test_a_csv_row_shorter_or_longer_than_its_header_is_refused_with_its_line(user_task):
    csv = user_task.parent / "data" / "test.csv"
    user_task.write_text(user_task.read_text().replace("test: data/test.jsonl", "test: data/test.csv"))
    for body, cells in (("t1,hello,hi\n", 3), ("t1,hello,hi,film,extra\n", 5)):
        csv.write_text("id,text,gist,topic\n" + "t0,a film,a film,film\n" + body)
        refused(user_task, f"test.csv: 1 problem: line 3: {cells} fields where the header has 4")


def test_a_garbage_parquet_file_is_refused(user_task):
    (user_task.parent / "data" / "test.parquet").write_bytes(b"PAR1 this is not a parquet file")
    user_task.write_text(user_task.read_text().replace("test: data/test.jsonl", "test: data/test.parquet"))
    with pytest.raises(ExtensionError, match="not a readable parquet file"):
        load_config([f"task={user_task}", "profile=mini", "algo=zero_shot"])  # its fields are read at load


LOADERS = {
    "returns_a_list": ("return [Sample('a', 'p', ('r',))]", "the loader returned a list"),
    "no_test_split": ("return {'train': [s('a')], 'val': [s('b')]}", "no 'test' split"),
    "raises": ("raise FileNotFoundError('corpus.txt')", "the task's loader raised FileNotFoundError: corpus.txt"),
    "exits": ("import sys; sys.exit(1)", "the task's loader called sys.exit(1)"),
    "bad_samples": ("return {'train': [s('a'), s('a')], 'val': [Sample('b', None, ('r',))], 'test': [s('c', ())]}",
                    "3 problems"),
}


@pytest.mark.parametrize("case", list(LOADERS))
def test_a_python_task_loader_is_checked(case, user_task):
    body, expected = LOADERS[case]
    task = user_task.parent / f"loader_{case}.py"
    task.write_text(textwrap.dedent(f'''\
        from grue.config.task_spec import TaskSpec
        from grue.data.sample import Sample


        def s(i, refs=("r",)):
            return Sample(i, "p " + i, refs)


        def load(cfg):
            {body}


        TASK = TaskSpec(name="loader_{case}", title="t", source="test", task_metrics=("rouge1",),
                        naturalness_metrics=(), loader=load)
    '''))
    message = refused(task, str(task), expected)
    if case == "bad_samples":
        assert "share the id 'a'" in message and "as its prompt, not a text" in message
        assert "has no non-blank reference" in message
