"""Errors found late, found early (issue 47): a record deep in a data file that lacks a field, a bad JSON line,
and a python: metric or reward of the wrong shape are one `error:` line from `grue config` (and from
`grue run` before it builds anything), naming the file, the line and what to do."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from typer.testing import CliRunner

from cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def _config(user_task, *extra):
    return runner.invoke(app, ["config", f"task={user_task}", "profile=mini", *extra])


def _one_error(result) -> str:
    assert result.exit_code == 2, result.output + repr(result.exception)
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in result.output, result.output
    return " ".join(result.output.split())


def _metric(user_task, body: str) -> None:
    (user_task.parent / "my_metrics.py").write_text(textwrap.dedent(f'''\
        from grue.extend import metric


        @metric(higher_is_better=True)
        def topic_hit(prompts, generations, references, meta):
            {body}
        '''), encoding="utf-8")


def test_a_record_missing_a_field_deep_in_a_file_is_refused_by_grue_config(user_task):
    path = user_task.parent / "data" / "train.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    del rows[9]["gist"]  # line 10 of 12: the first record (all a header check reads) is whole
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    said = _one_error(_config(user_task))
    assert f"{path}: 1 problem: line 10: the record lacks field(s) 'gist'" in said, said
    assert "fix or remove those records" in said


def test_a_bad_json_line_deep_in_a_file_is_refused_by_grue_config(user_task):
    path = user_task.parent / "data" / "test.jsonl"
    lines = path.read_text().splitlines()
    lines[4] = '{"id": "t4", "text": "unclosed'
    path.write_text("\n".join(lines) + "\n")
    said = _one_error(_config(user_task))
    assert f"{path}: 1 problem: line 5: not JSON" in said, said


def test_a_metric_returning_too_few_values_is_refused_with_its_file_and_line(user_task):
    _metric(user_task, "return [1.0]")
    said = _one_error(_config(user_task))
    assert "metric 'python:my_metrics.py:topic_hit' returned 1 values for 4 generations" in said, said
    assert "(my_metrics.py:4)" in said  # where its definition starts: the decorator and "must return one finite float per generation" in said


def test_a_metric_returning_texts_is_refused(user_task):
    _metric(user_task, "return [m['topic'] for m in meta]")
    said = _one_error(_config(user_task))
    assert "returned a str at index 0; expected a float" in said, said


def test_a_reward_is_tried_only_where_the_run_optimises_it(user_task):
    (user_task.parent / "my_rewards.py").write_text(
        "def overlap(prompts, generations, references, meta):\n    return [float('nan')] * len(generations)\n")
    said = _one_error(_config(user_task, "algo=ppo"))
    assert "reward 'python:my_rewards.py:overlap' returned nan at index 0" in said and "(my_rewards.py:1)" in said
    assert _config(user_task, "algo=zero_shot").exit_code == 0  # zero-shot never calls the reward


def test_a_sound_metric_passes_and_grue_config_imports_no_torch(user_task):
    code = ("import sys; from typer.testing import CliRunner; from cli import app; "
            f"r = CliRunner().invoke(app, ['config', 'task={user_task}', 'profile=mini']); "
            "assert r.exit_code == 0, r.output; assert 'code_sha256' in r.output; "
            "print(sorted(m for m in ('torch', 'transformers', 'pandas', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "HOME": str(user_task.parent)})
    assert out.returncode == 0 and out.stdout.strip().endswith("[]"), out.stdout + out.stderr


def test_grue_run_refuses_a_bad_metric_before_it_builds_anything(user_task, tiny_model_dirs, tmp_path):
    _metric(user_task, "return 0.5")
    result = runner.invoke(app, ["run", f"task={user_task}", "profile=mini", "algo=zero_shot", "threads=1",
                                 f"model.policy={tiny_model_dirs.policy}", f"output_dir={tmp_path / 'runs'}"])
    said = _one_error(result)
    assert "returned a float; expected a list of 4 floats" in said and "nothing was started" in said, said
    assert not list((tmp_path / "runs").glob("*/config.yaml"))
