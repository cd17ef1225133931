"""Submissions a board can check: two tiny PPO seeds are bundled, added to an empty board and exported with a
Verified mark; the same bundle with a metric edited, a prediction removed, the config edited, a checksum
broken or a file replaced by a directory is refused with one line naming the problem, and the board is
left byte for byte as it was."""
from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grue.board.submit.archive import member_problems
from grue.board.submit.assets import BOARD_FILE
from grue.board.submit.manifest import MANIFEST, file_entry
from grue.commands.leaderboard import leaderboard_app
from grue.config import load_config
from grue.run.runner import Run

runner = CliRunner()


@pytest.fixture(scope="module")
def two_seeds(tiny_model_dirs, tmp_path_factory) -> Path:
    """Two seeds of one tiny IMDB PPO setting (two iterations each, an evaluation after the first)."""
    out = tmp_path_factory.mktemp("submit") / "runs"
    for seed in (0, 1):
        args = ["task=imdb", "profile=mini", "algo=ppo", f"seed={seed}", f"model.policy={tiny_model_dirs.policy}",
                f"reward.model={tiny_model_dirs.classifier}", "data.max_train=16", "data.max_val=6",
                "data.max_test=6", "rollout.max_new_tokens=6", "rollout.min_new_tokens=6",
                "generation.max_new_tokens=6", "generation.min_new_tokens=6", "ppo.steps_per_update=24",
                "ppo.total_steps=48", "ppo.rollout_batch_size=4", "ppo.batch_size=12", "eval.eval_every=1",
                "eval.batch_size=6", f"output_dir={out}", "threads=1"]
        Run(load_config(args), args).execute()
    return out


@pytest.fixture(scope="module")
def bundle(two_seeds, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("bundles") / "ppo.grue.tar.gz"
    result = runner.invoke(leaderboard_app, ["bundle", str(two_seeds), f"out={out}"])
    assert result.exit_code == 0, result.output
    assert "seeds 0, 1" in result.output
    return out


def make_board(path: Path, classifier: str) -> Path:
    """A board whose own sentiment classifier (`board.yaml`) is the tiny one the test runs trained with: a
    board re-scores with its own scorers, never the one a submitted config names."""
    path.mkdir(parents=True, exist_ok=True)
    (path / BOARD_FILE).write_text(f"metric_options:\n  sentiment_model: {classifier}\n")
    return path


def read_members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path) as tar:
        return {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}


def write_members(path: Path, files: dict[str, bytes], remanifest: bool = True, directory: str | None = None) -> Path:
    """An archive of `files`; with `remanifest` the manifest lists the files' new checksums (a tamperer's
    edit); `directory`: that name is a directory (holding one file) instead of a file."""
    files = dict(files)
    if remanifest:
        manifest = json.loads(files[MANIFEST])
        manifest["files"] = {n: file_entry(b) for n, b in files.items() if n != MANIFEST}
        files[MANIFEST] = json.dumps(manifest).encode()
    with tarfile.open(path, "w:gz") as tar:
        for name, data in sorted(files.items()):
            if name == directory:
                info = tarfile.TarInfo(name)
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
                name, data = f"{name}/lines.jsonl", data
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def seed_file(files: dict[str, bytes], seed: int, name: str) -> str:
    return next(n for n in files if f"-seed{seed}-" in n and n.endswith(name))


def test_two_runs_bundle_add_to_an_empty_board_and_export_verified(bundle, two_seeds, tiny_model_dirs, tmp_path):
    from huggingface_hub import ModelCard

    files = read_members(bundle)
    assert not any("/model/" in name for name in files)  # no weights unless asked for
    manifest = json.loads(files[MANIFEST])
    assert [s["seed"] for s in manifest["seeds"]] == [0, 1] and manifest["model"] == {"included": False,
                                                                                       "published": None}
    assert set(manifest["files"]) == set(files) - {MANIFEST}
    for name, entry in manifest["files"].items():  # each checksum is the file's own
        assert entry == file_entry(files[name])
    for seed in (0, 1):
        for name in ("results.json", "config.yaml", "predictions/val.jsonl", "predictions/test.jsonl",
                     "logs/samples.jsonl"):
            seed_file(files, seed, name)
    env = json.loads(files["environment.json"])
    assert all(r["git_commit"] == json.loads(files[seed_file(files, 0, "results.json")])["git_commit"]
               for r in env["runs"].values()) and env["bundled_by"]["packages"]["torch"]
    card = ModelCard(files["README.md"].decode())
    assert card.data.to_dict()["grue"]["seeds"] == [0, 1]

    board = make_board(tmp_path / "board", tiny_model_dirs.classifier)
    result = runner.invoke(leaderboard_app, ["add", str(bundle), f"board={board}"])
    assert result.exit_code == 0, result.output
    assert "verified" in result.output and "as reported: val perplexity, test perplexity" in result.output
    added = sorted(p.name for p in (board / "runs").iterdir())
    assert added == sorted(p.name for p in two_seeds.iterdir())  # named as `grue run` names them
    record = json.loads((board / "runs" / added[0] / "verification.json").read_text())
    claimed = json.loads((two_seeds / added[0] / "results.json").read_text())["metrics"]
    assert record["metrics"]["test"]["sentiment"] == {"status": "re-scored", "claimed": claimed["test"]["sentiment"],
                                                      "rescored": pytest.approx(claimed["test"]["sentiment"], abs=1e-6)}
    assert record["metrics"]["val"]["perplexity"]["status"] == "as reported"

    out = tmp_path / "export"
    result = runner.invoke(leaderboard_app, ["export", f"runs={board / 'runs'}", f"out={out}", "format=md,json"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("2 run(s) counted (2 verified), 0 skipped")
    ppo_rows = [line for line in (out / "leaderboard.md").read_text().splitlines() if line.startswith("| PPO | sentiment |")]  # task tables
    assert ppo_rows and all("✓ verified" in line for line in ppo_rows)
    rows = [r for r in json.loads((out / "leaderboard.json").read_text())["rows"] if r["source"] == "runs"]
    assert rows and all(r["verified"] == 2 for r in rows)

    # the mark holds only for the results it verified
    results = board / "runs" / added[0] / "results.json"
    results.write_text(results.read_text().replace('"wall_time_s"', '"wall_time_s" ', 1))
    runner.invoke(leaderboard_app, ["export", f"runs={board / 'runs'}", f"out={out}", "format=md"])
    assert "✓ 1/2 seeds" in (out / "leaderboard.md").read_text()

    again = runner.invoke(leaderboard_app, ["add", str(bundle), f"board={board}"])
    assert again.exit_code == 2 and "the board already holds" in again.output


def _metric_edited(files):
    name = seed_file(files, 0, "results.json")
    doc = json.loads(files[name])
    doc["metrics"]["test"]["sentiment"] += 0.05
    files[name] = json.dumps(doc).encode()
    return files, {}


def _prediction_removed(files):
    name = seed_file(files, 1, "predictions/test.jsonl")
    files[name] = b"".join(files[name].splitlines(keepends=True)[:-1])
    return files, {}


def _config_edited(files):
    name = seed_file(files, 0, "config.yaml")
    text = files[name].decode()
    files[name] = text.replace("ppo:\n  learning_rate: 3.0e-05", "ppo:\n  learning_rate: 3.0e-04", 1).encode()
    assert files[name].decode() != text
    return files, {}


def _checksum_broken(files):
    name = seed_file(files, 1, "predictions/val.jsonl")
    files[name] = files[name].replace(b'"generation": "', b'"generation": "x', 1)
    return files, {"remanifest": False}


def _file_replaced_by_directory(files):
    return files, {"directory": seed_file(files, 0, "predictions/val.jsonl")}


TAMPERING = {
    "one metric edited": (_metric_edited, r"-seed0-\S+: test sentiment is claimed as \S+ but the predictions re-score to"),
    "one prediction removed": (_prediction_removed, r"-seed1-\S+/predictions/test\.jsonl: covers 5 of the 6 ids of the "
                                                    r"test split; missing 'test-"),
    "a config edited": (_config_edited, r"-seed0-\S+/config\.yaml resolves to config hash \w+ with this grue, not the "
                                        r"recorded"),
    "a checksum broken": (_checksum_broken, r"checksum mismatch: runs/\S+-seed1-\S+/predictions/val\.jsonl"),
    "a file replaced by a directory": (_file_replaced_by_directory, r"-seed0-\S+/predictions/val\.jsonl': not a folder "
                                                                    r"a run has"),  # refused from the headers
}


@pytest.mark.parametrize("case", list(TAMPERING))
def test_a_tampered_bundle_is_refused_with_the_problem_named_and_the_board_unchanged(case, bundle, tiny_model_dirs,
                                                                                    tmp_path):
    import re

    tamper, expected = TAMPERING[case]
    files, how = tamper(read_members(bundle))
    tampered = write_members(tmp_path / "tampered.grue.tar.gz", files, **how)
    board = make_board(tmp_path / "board", tiny_model_dirs.classifier)
    (board / "runs").mkdir(parents=True)
    (board / "index.md").write_text("a board with something on it already\n")
    before = snapshot(board)
    result = runner.invoke(leaderboard_app, ["add", str(tampered), f"board={board}"])
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith(f"refused {tampered}") and "the board is unchanged" in lines[0]
    assert any(re.search(expected, line) for line in lines[1:]), result.output
    assert snapshot(board) == before


def test_unsafe_archive_members_are_each_refused():
    def member(name, kind=tarfile.REGTYPE, link=""):
        info = tarfile.TarInfo(name)
        info.type, info.linkname = kind, link
        return info

    problems = member_problems([member("/etc/passwd"), member("runs/../../escape"), member("ok/link", tarfile.SYMTYPE,
                                "/etc"), member("ok/hard", tarfile.LNKTYPE, "ok/a"), member("ok/dev", tarfile.CHRTYPE),
                                member("ok/fifo", tarfile.FIFOTYPE), member("ok/a"), member("ok/a"),
                                member("ok/b"), member("ok/b/c"), member("C:/windows")])
    assert [p.split(":")[0] for p in problems] == [
        "unsafe archive member '/etc/passwd'", "unsafe archive member 'runs/../../escape'",
        "unsafe archive member 'ok/link'", "unsafe archive member 'ok/hard'", "unsafe archive member 'ok/dev'",
        "unsafe archive member 'ok/fifo'", "archive member 'ok/a' appears twice (a later copy would replace the first)",
        "unsafe archive member 'C", "archive member 'ok/b' is a file and also holds 'ok/b/c' as a directory"]
    assert "a link" in problems[2] and "a device file" in problems[4] and "climbs out" in problems[1]
    assert member_problems([member("manifest.json"), member("runs/r/results.json"), member("runs", tarfile.DIRTYPE),
                            member("runs", tarfile.DIRTYPE)]) == []


def test_a_bundle_that_climbs_out_writes_nothing_anywhere(tmp_path):
    evil = tmp_path / "in" / "evil.grue.tar.gz"
    evil.parent.mkdir()
    with tarfile.open(evil, "w:gz") as tar:
        for name in ("manifest.json", "../../outside.txt"):
            info = tarfile.TarInfo(name)
            info.size = 2
            tar.addfile(info, io.BytesIO(b"{}"))
    result = runner.invoke(leaderboard_app, ["add", str(evil), f"board={tmp_path / 'board'}"])
    assert result.exit_code == 2 and "climbs out of the bundle" in result.output
    assert not (tmp_path / "board").exists() and not list(tmp_path.rglob("outside.txt"))


def test_with_weights_the_board_rescores_perplexity_too(two_seeds, tiny_model_dirs, tmp_path):
    out = tmp_path / "bundles"
    assert runner.invoke(leaderboard_app, ["bundle", str(two_seeds), f"out={out}", "weights=yes"]).exit_code == 0
    [path] = list(out.glob("*.grue.tar.gz"))
    names = read_members(path)
    assert any(n.endswith("/model/model.safetensors") for n in names)
    assert any(n.endswith("/model/README.md") for n in names)  # each seed's own card
    board = make_board(tmp_path / "board", tiny_model_dirs.classifier)
    result = runner.invoke(leaderboard_app, ["add", str(path), f"board={board}"])
    assert result.exit_code == 0, result.output
    assert "as reported" not in result.output
    for run in (tmp_path / "board" / "runs").iterdir():
        record = json.loads((run / "verification.json").read_text())
        claimed = json.loads((run / "results.json").read_text())["metrics"]["val"]["perplexity"]
        assert record["metrics"]["val"]["perplexity"]["status"] == "re-scored"
        assert record["metrics"]["val"]["perplexity"]["rescored"] == pytest.approx(claimed, rel=1e-4)


def test_a_manifest_naming_files_outside_the_bundle_is_refused(bundle, tmp_path):
    files = read_members(bundle)
    manifest = json.loads(files[MANIFEST])
    manifest["files"]["../outside.txt"] = file_entry(b"{}")
    files[MANIFEST] = json.dumps(manifest).encode()
    tampered = write_members(tmp_path / "t.grue.tar.gz", files, remanifest=False)
    result = runner.invoke(leaderboard_app, ["add", str(tampered), f"board={tmp_path / 'board'}"])
    assert result.exit_code == 2 and "'../outside.txt' is not a file name a bundle can hold" in result.output
    assert not (tmp_path / "board").exists()


@pytest.mark.parametrize("device, expected", [("tpu", "device='tpu': use cpu, cuda or cuda:N"),
                                              ("cuda:99", "device=cuda:99: this machine has no such CUDA device")])
def test_an_unknown_or_absent_device_is_refused_before_the_bundle_is_opened(device, expected, tmp_path):
    """Issue 45: `grue leaderboard add device=tpu` ended in a traceback from torch."""
    from cli import app

    bundle = tmp_path / "b.grue.tar.gz"
    bundle.write_bytes(b"not read")
    result = runner.invoke(app, ["leaderboard", "add", str(bundle), f"board={tmp_path / 'board'}", f"device={device}"])
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert expected in result.output and not (tmp_path / "board").exists()
