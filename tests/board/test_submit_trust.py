"""The board's trust boundary (issue 41), attacked as a maintainer facing a submitter who lies: each case is
a real tiny run's bundle, tampered, and `grue leaderboard add` refuses it with one line naming the problem
and leaves the board as it was, or the board shows it unverified. Code execution first (a placed helper
named as a metric, an installed module named as one), then forged verification (a self-written record, a
run folder the board never added, a nested or sibling copy of a verified run), then planted scorers and
data, interpolation, archive limits, machine paths and Markdown escaping."""
from __future__ import annotations

import gzip
import io
import json
import re
import shutil
import sys
import tarfile
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from grue.board.submit.manifest import MANIFEST, file_entry
from grue.commands.leaderboard import leaderboard_app
from test_submit_bundles import bundle, make_board, read_members, seed_file, snapshot, two_seeds, write_members  # noqa: F401

runner = CliRunner()


def _refused(result, board: Path, before, expected: str) -> list[str]:
    """The add was refused whole, the board untouched, and one line matches `expected`."""
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("refused ") and "the board is unchanged" in lines[0], result.output
    hits = [line for line in lines[1:] if re.search(expected, line)]
    assert hits, result.output
    assert snapshot(board) == before
    return hits


def _board(tmp_path: Path, classifier: str) -> tuple[Path, dict]:
    board = make_board(tmp_path / "board", classifier)
    (board / "runs").mkdir(parents=True, exist_ok=True)
    return board, snapshot(board)


def _edit_config(files: dict[str, bytes], seed: int, edit) -> None:
    """The same edit in the seed's config.yaml and in the config its results.json records."""
    name = seed_file(files, seed, "config.yaml")
    config = yaml.safe_load(files[name])
    edit(config)
    files[name] = yaml.safe_dump(config, sort_keys=False).encode()
    name = seed_file(files, seed, "results.json")
    doc = json.loads(files[name])
    edit(doc["config"])
    files[name] = json.dumps(doc).encode()


def _rehash(files: dict[str, bytes], seeds=(0, 1)) -> None:
    """What a careful tamperer does after editing configs: every recorded hash and the setting made to agree."""
    from omegaconf import OmegaConf

    from grue.board.submit.bundle import setting_fields
    from grue.config import config_hash

    manifest = json.loads(files[MANIFEST])
    for seed in seeds:
        doc = json.loads(files[seed_file(files, seed, "results.json")])
        digest = config_hash(OmegaConf.create(doc["config"]))
        doc["config_hash"] = digest
        files[seed_file(files, seed, "results.json")] = json.dumps(doc).encode()
        files[seed_file(files, seed, "config_hash.txt")] = digest.encode()
        next(e for e in manifest["seeds"] if e["seed"] == seed)["config_hash"] = digest
        manifest["setting"] = setting_fields(doc)
    files[MANIFEST] = json.dumps(manifest).encode()


def _add(tmp_path: Path, files: dict[str, bytes], board: Path, name: str = "t", **how):
    tampered = write_members(tmp_path / f"{name}.grue.tar.gz", files, **how)
    return runner.invoke(leaderboard_app, ["add", str(tampered), f"board={board}"])


def _run_name(files: dict[str, bytes], seed: int) -> str:
    return seed_file(files, seed, "results.json").split("/")[1]


# --- no submitter code ------------------------------------------------------------------------------------

HELPER = """from pathlib import Path
Path({marker!r}).write_text("imported")
def score(prompts, generations, references, meta):
    Path({marker!r}).write_text("called")
    return [1.0] * len(generations)
score.higher_is_better = True
"""


def test_a_placed_helper_is_refused_and_a_metric_naming_it_is_never_run(bundle, tiny_model_dirs, tmp_path,
                                                                         monkeypatch):
    marker = tmp_path / "marker.txt"
    board, before = _board(tmp_path, tiny_model_dirs.classifier)
    files = read_members(bundle)
    run = _run_name(files, 0)
    placed = dict(files)
    placed[f"runs/{run}/logs/helper.py"] = HELPER.format(marker=str(marker)).encode()
    _refused(_add(tmp_path, placed, board, "first"), board, before, rf"'runs/{run}/logs/helper\.py': not a log a run "
                                                                     r"writes")

    # the file is there anyway (an older board, a pull request): the second bundle names it as a metric
    helper = board / "runs" / run / "logs" / "helper.py"
    helper.parent.mkdir(parents=True)
    helper.write_text(HELPER.format(marker=str(marker)))
    before = snapshot(board)
    monkeypatch.chdir(board)  # where the relative reference would be found
    ref = f"python:runs/{run}/logs/helper.py:score"
    for seed in (0, 1):
        _edit_config(files, seed, lambda c: c["eval"]["metrics"].append(ref))
    _rehash(files)
    hits = _refused(_add(tmp_path, files, board, "second"), board, before,
                    r"config\.yaml: eval\.metrics\[\d+\] names code .*nothing was imported")
    assert len(hits) == 2 and {_run_name(files, 0), _run_name(files, 1)} == {h.split("/")[1] for h in hits}  # each seed
    assert not marker.exists()


def test_an_installed_module_named_as_a_metric_or_reward_is_not_imported(bundle, tiny_model_dirs, tmp_path,
                                                                        monkeypatch):
    marker = tmp_path / "imported.txt"
    (tmp_path / "mods").mkdir()
    (tmp_path / "mods" / "grue_trust_probe.py").write_text(HELPER.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    board, before = _board(tmp_path, tiny_model_dirs.classifier)
    for key, edit in {"metric": lambda c: c["eval"]["metrics"].append("python:grue_trust_probe:score"),
                      "reward": lambda c: c["reward"].update(name="python:grue_trust_probe:score")}.items():
        files = read_members(bundle)
        _edit_config(files, 1, edit)
        _refused(_add(tmp_path, files, board, key), board, before, r"names code \('python:grue_trust_probe:score'\)")
    assert not marker.exists() and "grue_trust_probe" not in sys.modules


def test_while_add_runs_no_reference_is_imported_even_past_the_screen(tmp_path, monkeypatch):
    from grue.extend.errors import ExtensionError
    from grue.extend.python_ref import load_callable, no_code

    marker = tmp_path / "imported.txt"
    (tmp_path / "grue_trust_probe2.py").write_text(HELPER.format(marker=str(marker)))
    monkeypatch.syspath_prepend(str(tmp_path))
    with no_code("a board runs no code a bundle names"), pytest.raises(ExtensionError, match="is not imported"):
        load_callable("python:grue_trust_probe2:score", "metric")
    assert not marker.exists()


# --- only what add verified counts --------------------------------------------------------------------------

def _export(board: Path, out: Path) -> str:
    result = runner.invoke(leaderboard_app, ["export", f"runs={board / 'runs'}", f"out={out}", "format=md"])
    assert result.exit_code == 0, result.output
    return result.output


def _forge(run_dir: Path, sentiment: float = 0.99, seed: int | None = None) -> None:
    """Forged numbers with a self-written verification record that matches them."""
    from grue.board.submit.manifest import sha256_of

    doc = json.loads((run_dir / "results.json").read_text())
    for split in doc["metrics"]:
        doc["metrics"][split]["sentiment"] = sentiment
        doc["metrics"][split]["perplexity"] = 5.0
    if seed is not None:
        doc["seed"] = doc["config"]["seed"] = seed
    (run_dir / "results.json").write_text(json.dumps(doc))
    record = json.loads((run_dir / "verification.json").read_text()) if (run_dir / "verification.json").exists() \
        else {"status": "verified", "metrics": {}}
    record["results_sha256"] = sha256_of(run_dir / "results.json")
    (run_dir / "verification.json").write_text(json.dumps(record))


def test_forged_records_unadded_folders_and_copies_of_a_verified_run_never_show_verified(
        bundle, two_seeds, tiny_model_dirs, tmp_path):
    from grue.board.numbers.collect import collect

    board = make_board(tmp_path / "board", tiny_model_dirs.classifier)
    assert runner.invoke(leaderboard_app, ["add", str(bundle), f"board={board}"]).exit_code == 0
    runs = board / "runs"
    honest = sorted(runs.iterdir())
    assert all(r.verified for r in collect([runs]).runs) and len(collect([runs]).runs) == 2

    # a run folder the board never added, with a self-written record that matches its results
    dropped = runs / honest[0].name.replace("seed0", "seed7")
    shutil.copytree(honest[0], dropped)
    _forge(dropped, seed=7)
    # a nested copy of a verified run, named to sort first, with better numbers and its own record
    nested = honest[1] / "aaa"
    shutil.copytree(honest[1], nested, ignore=shutil.ignore_patterns("aaa"))
    _forge(nested)
    # a sibling copy with the verified run's very files under another name, sorting before it
    sibling = runs / ("0" + honest[0].name)
    shutil.copytree(honest[0], sibling)

    found = collect([runs])
    by_path = {r.path: r for r in found.runs}
    assert by_path[dropped].verified is False
    assert nested not in by_path and any(s.path == nested and "never nested" in s.reasons[0] for s in found.skipped)
    assert honest[0] in by_path and by_path[honest[0]].verified and sibling not in by_path  # the copy never displaces it
    assert by_path[honest[1]].doc["metrics"]["test"]["sentiment"] != 0.99
    output = _export(board, tmp_path / "export")
    assert "(2 verified)" in output and "3 run(s) counted" in output

    # a board that only has in-folder records (no store of its own) shows nothing verified
    shutil.rmtree(board / ".grue-verified")
    assert not any(r.verified for r in collect([runs]).runs)


def test_a_bundle_carrying_extra_results_or_its_own_verification_record_is_refused(bundle, tiny_model_dirs,
                                                                                   tmp_path):
    board, before = _board(tmp_path, tiny_model_dirs.classifier)
    files = read_members(bundle)
    run = _run_name(files, 0)
    for extra, why in {f"runs/{run}/sub/results.json": "nothing is nested deeper in a run",
                       f"runs/{run}/verification.json": "not a file a run has",
                       f"runs/{run}/predictions/train.jsonl": "a split the results do not report",
                       "runs/another-run/results.json": "is not a seed the manifest lists"}.items():
        tampered = dict(files)
        tampered[extra] = files[seed_file(files, 0, "results.json")]
        _refused(_add(tmp_path, tampered, board, "extra"), board, before, rf"{re.escape(extra)}'?: .*{why}")


# --- no submitter assets, no submitter data ------------------------------------------------------------------

def test_a_scorer_model_or_data_named_by_the_submitter_is_refused(bundle, tiny_model_dirs, tmp_path):
    board, before = _board(tmp_path, tiny_model_dirs.classifier)
    planted = board / "runs" / "earlier-run" / "model"  # a classifier shipped in an earlier bundle
    cases = {"eval.metric_options.sentiment_model": lambda c: c["eval"]["metric_options"].update(
                 sentiment_model=str(planted)),
             "eval.metric_options.bertscore_model": lambda c: c["eval"]["metric_options"].update(bertscore_model="me/x"),
             "data.source": lambda c: c["data"].update(source="runs/earlier-run/logs")}
    for key, edit in cases.items():
        files = read_members(bundle)
        _edit_config(files, 0, edit)
        hits = _refused(_add(tmp_path, files, board, "asset"), board, before,
                        rf"config\.yaml: {re.escape(key)} .*(re-scores only with what it has installed|its own data only)")
        assert len(hits) == 1


def test_the_board_rescores_with_its_own_classifier_not_the_runs(bundle, tiny_tokenizer, tmp_path):
    """The runs trained (and scored) with their reward.model; a board with another classifier re-scores with
    its own, so their claimed sentiment no longer holds."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(1)
    other = tmp_path / "board-classifier"
    BertForSequenceClassification(BertConfig(vocab_size=len(tiny_tokenizer), hidden_size=32, num_hidden_layers=1,
                                             num_attention_heads=2, intermediate_size=64, max_position_embeddings=128,
                                             num_labels=2, pad_token_id=0)).save_pretrained(other)
    tiny_tokenizer.save_pretrained(other)
    board, before = _board(tmp_path, str(other))
    result = runner.invoke(leaderboard_app, ["add", str(bundle), f"board={board}"])
    _refused(result, board, before, r"test sentiment is claimed as \S+ but the predictions re-score to")


# --- no interpolation ----------------------------------------------------------------------------------------

def test_an_interpolation_is_refused_and_never_resolved(bundle, tiny_model_dirs, tmp_path, monkeypatch):
    secret = "s3cr3t-value-41"
    monkeypatch.setenv("GRUE_TEST_SECRET", secret)
    board, before = _board(tmp_path, tiny_model_dirs.classifier)
    for value in ("${oc.env:GRUE_TEST_SECRET}", "x${data.source}"):
        files = read_members(bundle)
        _edit_config(files, 0, lambda c: c["data"].update(prompt_suffix=value))
        result = _add(tmp_path, files, board, "interp")
        hits = _refused(result, board, before, r"config\.yaml: data\.prompt_suffix holds an interpolation")
        assert len(hits) == 1 and secret not in result.output and "packaged:" not in hits[0]


# --- limits --------------------------------------------------------------------------------------------------

class _Zeros(io.RawIOBase):
    def __init__(self, n: int) -> None:
        self.left = n

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def _verify(path: Path, tmp_path: Path):
    from grue.board.submit.verify import verify_bundle

    staging = tmp_path / "staging"
    verdict = verify_bundle(path, staging)
    return verdict, [p for p in staging.rglob("*") if p.is_file()] if staging.exists() else []


def test_a_gzip_bomb_is_refused_while_streaming_and_never_written(bundle, tmp_path):
    files = read_members(bundle)
    name = seed_file(files, 0, "logs/train.jsonl")
    size = 256 * 2 ** 20
    path = tmp_path / "bomb.grue.tar.gz"
    with gzip.open(path, "wb", compresslevel=9) as raw, tarfile.open(fileobj=raw, mode="w|") as tar:
        for member, data in sorted(files.items()):
            if member == name:
                info = tarfile.TarInfo(member)
                info.size = size
                tar.addfile(info, _Zeros(size))
            else:
                info = tarfile.TarInfo(member)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    assert size / path.stat().st_size > 500  # a ~1,000:1 bomb
    verdict, written = _verify(path, tmp_path)
    assert len(verdict.problems) == 1 and "compression bomb" in verdict.problems[0], verdict.problems
    assert written == []


def _header_only(path: Path, members: list[tarfile.TarInfo]) -> Path:
    """An archive of headers whose data never follows: a claim, refused before any data is read."""
    path.write_bytes(gzip.compress(b"".join(m.tobuf(tarfile.GNU_FORMAT) for m in members)))
    return path


def test_a_huge_file_a_sparse_file_and_too_many_files_are_refused_from_their_headers(tmp_path):
    big = tarfile.TarInfo("runs/r/logs/train.jsonl")
    big.size = 2 * 2 ** 30
    verdict, written = _verify(_header_only(tmp_path / "big.tar.gz", [big]), tmp_path)
    assert verdict.problems == ["archive member 'runs/r/logs/train.jsonl' holds 2147483648 bytes, more than the "
                                "536870912 one file of a bundle may"] and written == []

    sparse = tarfile.TarInfo("runs/r/logs/train.jsonl")
    sparse.type = tarfile.GNUTYPE_SPARSE
    from grue.board.submit.archive import member_problems

    assert member_problems([sparse]) == ["unsafe archive member 'runs/r/logs/train.jsonl': a sparse file (a bundle "
                                         "holds plain files only)"]

    many = tmp_path / "many.grue.tar.gz"
    with tarfile.open(many, "w:gz") as tar:
        for i in range(20_000):
            info = tarfile.TarInfo(f"runs/r/logs/l{i}.jsonl")
            tar.addfile(info, io.BytesIO(b""))
    verdict, written = _verify(many, tmp_path)
    assert verdict.problems == ["the archive holds more than the 2000 members a bundle may (stopped reading there)"]
    assert written == []


# --- no machine paths ----------------------------------------------------------------------------------------

def test_a_bundle_carries_no_path_of_the_machine_that_made_it(bundle, two_seeds):
    files = read_members(bundle)
    for name, data in files.items():
        if not name.endswith(".safetensors"):
            assert str(two_seeds) not in data.decode("utf-8", "replace"), name
    config = yaml.safe_load(files[seed_file(files, 0, "config.yaml")])
    assert config["output_dir"] == "runs"
    from grue.board.submit.bundle import portable_results

    warm = portable_results({"init_model": "/home/me/runs/imdb-mini-supervised-seed0-0123abcd/model", "config": {}})
    assert warm["init_model"] == "runs/imdb-mini-supervised-seed0-0123abcd/model"


def test_a_bundle_carrying_an_absolute_path_is_refused(bundle, tiny_model_dirs, tmp_path):
    board, before = _board(tmp_path, tiny_model_dirs.classifier)
    files = read_members(bundle)
    _edit_config(files, 0, lambda c: c.update(output_dir="/home/someone/runs"))
    _refused(_add(tmp_path, files, board, "out"), board, before, r"config\.yaml: output_dir is a path on the "
                                                                  r"submitter's machine")
    files = read_members(bundle)
    name = seed_file(files, 1, "results.json")
    doc = json.loads(files[name])
    doc["init_model"] = "/home/someone/runs/imdb-mini-supervised-seed1-0123abcd/model"
    files[name] = json.dumps(doc).encode()
    _refused(_add(tmp_path, files, board, "init"), board, before, r"results\.json: init_model is a run directory on the "
                                                                   r"submitter's machine")
    files = read_members(bundle)
    files["README.md"] = files["README.md"].replace(b"<this run's model/ directory>", b"/home/someone/model")
    _refused(_add(tmp_path, files, board, "card"), board, before, r"README\.md: its loading example reads the model "
                                                                   r"from a path on the submitter's machine")


# --- what the Markdown export shows --------------------------------------------------------------------------

def test_markdown_escapes_names_and_texts():
    from grue.board.render.markdown import render_document
    from grue.board.tables.table import Column, Row, Table

    table = Table("<b>IMDB</b>", [Column("name", "name", numeric=False)], [Column("gen", "generation", numeric=False)],
                  [Row({"name": "<script>alert(1)</script>"}, {"gen": "a | b `code` *x*\nnext | row"})])
    text = render_document("board", [table], appendix=["- `<img src=x onerror=alert(1)>`: skipped"])
    assert "<script>" not in text and "<img" not in text and "<b>" not in text
    row = next(line for line in text.splitlines() if "alert(1)" in line and line.startswith("| &lt;"))
    assert row == r"| &lt;script&gt;alert(1)&lt;/script&gt; | a \| b \`code\` \*x\* next \| row |"
    assert row.count(" | ") == 1  # two cells: no pipe or line break of the texts opened another
