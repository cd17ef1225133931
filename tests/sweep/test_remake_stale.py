"""`grue sweep --remake-stale`: a complete cell made before a fix that changes its numbers is made again, and
its old run is kept where no board counts it.

The board study's IMDB NLPO cells were made before revision 1; the sweep skipped them as complete, and the only
way to remake them was to delete their folders by hand."""
from __future__ import annotations

import json

from sweep_helpers import base_args, books, records, sweep

from grue.board.numbers.collect import collect
from grue.results.revisions import CURRENT


def _mark_made_before(run, revision=0, commit="0123456789abcdef0123456789abcdef01234567"):
    doc = json.loads((run / "results.json").read_text())
    doc["code_revision"], doc["git_commit"] = revision, commit
    (run / "results.json").write_text(json.dumps(doc))
    return doc


def test_a_stale_cell_is_remade_and_its_old_run_moves_into_the_books(tiny_imdb_args, tmp_path):
    runs = tmp_path / "runs"
    args = [*base_args(tiny_imdb_args, runs), "algo=nlpo,ppo", "seed=0", "--no-export"]
    assert sweep(*args).exit_code == 0
    (nlpo,) = runs.glob("imdb-mini-nlpo-seed0-*")
    (ppo,) = runs.glob("imdb-mini-ppo-seed0-*")
    old = _mark_made_before(nlpo)
    _mark_made_before(ppo)  # PPO's numbers are not changed by revision 1: never remade

    listed = sweep(*args, "--dry-run")
    assert "complete (skipped); made before revision 1" in listed.output and "--remake-stale" in listed.output
    assert "0 to run" in listed.output
    planned = sweep(*args, "--dry-run", "--remake-stale")
    assert "complete (remade); made before revision 1" in planned.output and "1 to run" in planned.output
    assert json.loads((nlpo / "results.json").read_text()) == old  # a dry run moves nothing

    remade = sweep(*args, "--remake-stale")
    assert remade.exit_code == 0, remade.output
    new = json.loads((nlpo / "results.json").read_text())
    assert new["code_revision"] == CURRENT and new["git_commit"] != old["git_commit"]
    (aside,) = (books(runs) / "replaced").iterdir()
    assert aside.name == f"{nlpo.name}@0123456"
    assert json.loads((aside / "results.replaced.json").read_text()) == old
    assert not (aside / "results.json").exists() and not (aside / "run.json").exists()
    assert [r["status"] for r in records(runs)][-2:] == ["replaced", "complete"]
    assert json.loads((ppo / "results.json").read_text())["code_revision"] == 0

    found = collect([runs])  # the board sees one NLPO seed, the new one, and nothing skipped
    assert sorted(r.doc["algo"] for r in found.runs) == ["nlpo", "ppo"] and not found.skipped
    assert next(r for r in found.runs if r.doc["algo"] == "nlpo").doc == new

    again = sweep(*args, "--remake-stale", "--dry-run")
    assert "made before revision" not in again.output and "0 to run" in again.output


def test_a_run_whose_commit_this_checkout_cannot_place_is_named_not_remade(tiny_imdb_args, tmp_path):
    runs = tmp_path / "runs"
    args = [*base_args(tiny_imdb_args, runs), "algo=nlpo", "seed=0", "--no-export"]
    assert sweep(*args).exit_code == 0
    (nlpo,) = runs.glob("imdb-mini-nlpo-seed0-*")
    doc = json.loads((nlpo / "results.json").read_text())
    doc.pop("code_revision")
    doc["git_commit"] = "f" * 40  # no such commit here
    (nlpo / "results.json").write_text(json.dumps(doc))
    listed = sweep(*args, "--remake-stale", "--dry-run")
    assert "cannot place" in listed.output and "complete (skipped)" in listed.output and "0 to run" in listed.output


def test_the_set_aside_folder_is_named_by_a_commit_id_only(tmp_path):
    from types import SimpleNamespace

    from grue.sweep.stale import staleness

    run = tmp_path / "imdb-mini-nlpo-seed0-00000000"
    run.mkdir()
    books = SimpleNamespace(run_dir=lambda cell: SimpleNamespace(results=run / "results.json"))
    cell = SimpleNamespace(cfg=SimpleNamespace(algo="nlpo"))
    for given, named in (("../../elsewhere", ""), ("abcdef0123", "abcdef0"), (None, "")):
        (run / "results.json").write_text(json.dumps({"code_revision": 0, "git_commit": given}))
        found = staleness(books, cell)
        assert found.certain and found.commit == named
