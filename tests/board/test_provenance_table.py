"""The board says which grue commit and libraries made each task's runs, and names the rows whose seeds mix them.

The board study's seeds were made across sessions by many commits (one of them fixed a sampler bug that changed
draws), and IMDB's zero-shot and some PPO seeds under another transformers release; a row groups seeds by
config hash, which cannot show either."""
from __future__ import annotations

import json

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.export import board_markdown
from grue.board.render.site import write_site
from grue.board.tables.provenance_table import mixed_rows, provenance_table


def _run(root, algo, seed, commit, transformers="5.25.0", day="2026-12-04"):
    doc = results_doc("imdb", algo, seed, {"test": {"sentiment": 0.6 + seed / 100}})
    doc.update(git_commit=commit, created=f"{day}T10:00:00+00:00",
               versions={"grue": "0.1.0", "torch": "2.13.0+cpu", "transformers": transformers})
    return write_run(root, doc)


def test_one_line_per_commit_and_libraries_with_the_rows_it_made(tmp_path):
    _run(tmp_path, "ppo", 0, "a" * 40, transformers="5.24.0", day="2026-12-02")
    _run(tmp_path, "ppo", 1, "b" * 40, day="2026-12-04")
    _run(tmp_path, "grpo", 0, "b" * 40, day="2026-12-05")
    _run(tmp_path, "grpo", 1, "b" * 40, day="2026-12-04")
    table = provenance_table(build_board([tmp_path], BoardOptions(with_paper=False)))
    lines = [(r.labels["commit"], r.labels["libraries"], r.cells["runs"].mean, r.cells["made"], r.cells["rows"])
             for r in table.rows]
    assert lines == [("aaaaaaaa", "torch 2.13.0+cpu, transformers 5.24.0", 1, "2026-12-02", "PPO"),
                     ("bbbbbbbb", "torch 2.13.0+cpu, transformers 5.25.0", 3, "2026-12-04 to 2026-12-05", "PPO, GRPO")]
    mixed = table.notes[-1]
    assert "imdb PPO (2 commits, 2 library versions)" in mixed and "GRPO" not in mixed


def test_rows_made_by_one_commit_say_so_and_the_page_carries_the_table(tmp_path):
    for seed in (0, 1):
        _run(tmp_path, "ppo", seed, "c" * 40)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    assert mixed_rows(board.found.runs) == []
    text = board_markdown(board).split("## Code versions of the runs")[1]
    assert "| imdb | mini | cccccccc | torch 2.13.0+cpu, transformers 5.25.0 | 2 |" in text
    assert "Every row's seeds were made by one commit" in text
    site = tmp_path / "site"
    write_site(board, site)
    assert "cccccccc" in (site / "index.html").read_text()


def test_a_run_without_a_commit_is_not_recorded_not_dropped(tmp_path):
    _run(tmp_path, "ppo", 0, None)
    _run(tmp_path, "ppo", 1, "d" * 40)
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    commits = [r.labels["commit"] for r in provenance_table(board).rows]
    assert sorted(commits) == ["dddddddd", "not recorded"]
    assert mixed_rows(board.found.runs) == ["imdb PPO (2 commits)"]


def test_seeds_made_on_two_kinds_of_machine_are_named_and_unrecorded_ones_are_not_counted(tmp_path):
    avx2 = {"cpu": "Some CPU", "cpu_capability": "AVX2", "accelerator": None}
    avx512 = {"cpu": "Some CPU", "cpu_capability": "AVX512", "accelerator": None}
    for algo, kinds in (("ppo", (avx2, avx512, None)), ("grpo", (avx2, avx2, None))):
        for seed, kind in enumerate(kinds):
            run = _run(tmp_path, algo, seed, "e" * 40)
            if kind:
                doc = json.loads((run / "results.json").read_text())
                doc["hardware"] = kind
                (run / "results.json").write_text(json.dumps(doc))
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    assert mixed_rows(board.found.runs) == ["imdb PPO (2 kinds of machine: Some CPU, AVX2; Some CPU, AVX512)"]


def test_a_run_records_the_kind_of_machine_and_no_host(monkeypatch):
    import socket

    import torch

    from grue.results.hardware import hardware, hardware_label

    record = hardware("cpu")
    assert record["cpu_capability"] == torch.backends.cpu.get_cpu_capability() and record["accelerator"] is None
    assert socket.gethostname() not in json.dumps(record)
    assert hardware_label(record) == ", ".join(v for v in (record["cpu"], record["cpu_capability"]) if v)
    assert hardware_label(None) is None and hardware_label({"cpu": None}) is None
