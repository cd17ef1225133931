"""A submission is what it claims (issue 41): two real tiny IMDB PPO seeds are bundled, then tampered as a
submitter who lies would: results claiming a reward or an initial model their config does not give, one run
submitted as two seeds (in one bundle, or against a seed the board holds), generations copied from the
references, a perplexity claimed without weights, a declared seed left out, another data split's digest,
generations that the bundled weights do not produce. Each is refused with one line naming the problem, or accepted with the right label on its row;
the tiny run itself (a mini model, 6 test samples) is labelled non-standard and kept out of the overall board."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from grue.board.submit import claims
from grue.board.submit.manifest import MANIFEST
from grue.board.submit.verify import Tolerance, verify_bundle
from grue.commands.leaderboard import leaderboard_app
from grue.config import load_config
from grue.run.runner import Run
from test_submit_bundles import read_members, seed_file, snapshot, write_members

runner = CliRunner()


@pytest.fixture(scope="module")
def two_seeds(tiny_model_dirs, tmp_path_factory) -> Path:
    """Two seeds of one tiny IMDB PPO setting (one PPO update each)."""
    out = tmp_path_factory.mktemp("claims") / "runs"
    for seed in (0, 1):
        args = ["task=imdb", "profile=mini", "algo=ppo", f"seed={seed}", f"model.policy={tiny_model_dirs.policy}",
                f"reward.model={tiny_model_dirs.classifier}", "data.max_train=16", "data.max_val=6",
                "data.max_test=6", "rollout.max_new_tokens=6", "rollout.min_new_tokens=6",
                "generation.max_new_tokens=6", "generation.min_new_tokens=6", "ppo.steps_per_update=24",
                "ppo.total_steps=24", "ppo.rollout_batch_size=4", "ppo.batch_size=12", "eval.eval_every=1",
                "eval.batch_size=6", f"output_dir={out}", "threads=1"]
        Run(load_config(args), args).execute()
    return out


@pytest.fixture(scope="module")
def bundle(two_seeds, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("claims-bundles") / "ppo.grue.tar.gz"
    result = runner.invoke(leaderboard_app, ["bundle", str(two_seeds), f"out={out}"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(autouse=True)
def board_settings(tmp_path, tiny_model_dirs) -> Path:
    """Each test's board (`tmp_path/board`) re-scores with the tiny classifier the runs used, as its
    maintainer's board.yaml says (a board's scorers are its own: grue/board/submit/assets.py)."""
    board = tmp_path / "board"
    board.mkdir()
    (board / "board.yaml").write_text(f"metric_options:\n  sentiment_model: {tiny_model_dirs.classifier}\n")
    return board


def _edit_results(files: dict[str, bytes], seed: int, edit) -> None:
    name = seed_file(files, seed, "results.json")
    doc = json.loads(files[name])
    edit(doc)
    files[name] = json.dumps(doc).encode()


def _only_seed(files: dict[str, bytes], seed: int) -> dict[str, bytes]:
    """The bundle's files without the other seed (the manifest lists this seed alone)."""
    keep = {n: b for n, b in files.items() if not n.startswith("runs/") or f"-seed{seed}-" in n}
    manifest = json.loads(keep[MANIFEST])
    manifest["seeds"] = [s for s in manifest["seeds"] if s["seed"] == seed]
    manifest["declared_seeds"] = [seed]
    keep[MANIFEST] = json.dumps(manifest).encode()
    return keep


def _copy_seed_outputs(files: dict[str, bytes], source: int, target: int) -> None:
    """Seed `target` made to hold seed `source`'s generations and metrics (its own config and seed kept)."""
    for name in [n for n in files if f"-seed{source}-" in n and "/predictions/" in n]:
        files[seed_file(files, target, name.split("/", 2)[2])] = files[name]
    claimed = json.loads(files[seed_file(files, source, "results.json")])
    _edit_results(files, target, lambda doc: doc.update(metrics=claimed["metrics"], splits=claimed["splits"]))


def _add(tmp_path: Path, files: dict[str, bytes], board: Path | None = None, name: str = "t"):
    tampered = write_members(tmp_path / f"{name}.grue.tar.gz", files)
    board = board or tmp_path / "board"
    return runner.invoke(leaderboard_app, ["add", str(tampered), f"board={board}"]), board


def _refused(result, board: Path, before, expected: str) -> None:
    assert result.exit_code == 2, result.output
    assert "the board is unchanged" in result.output.splitlines()[0]
    assert any(re.search(expected, line) for line in result.output.splitlines()[1:]), result.output
    assert snapshot(board) == before


CONTRADICTIONS = {
    "reward": (lambda doc: doc.update(reward="intent"), r"-seed0-\S+/results\.json: reward 'intent' is not its "
                                                         r"config's 'sentiment'"),
    "init_model": (lambda doc: doc.update(init_model="gpt2-large"), r"-seed0-\S+/results\.json: init_model "
                                                                     r"'gpt2-large' is not the model its config starts"),
    "comparable_to_paper": (lambda doc: doc.update(comparable_to_paper=True),
                            r"results\.json: comparable_to_paper True is not its config's False"),
}


@pytest.mark.parametrize("key", list(CONTRADICTIONS))
def test_results_contradicting_their_config_are_refused_with_the_key_named(key, bundle, tmp_path):
    edit, expected = CONTRADICTIONS[key]
    files = read_members(bundle)
    _edit_results(files, 0, edit)
    board = tmp_path / "board"
    (board / "runs").mkdir(parents=True, exist_ok=True)
    before = snapshot(board)
    result, _ = _add(tmp_path, files, board)
    _refused(result, board, before, expected)


def test_one_run_submitted_as_two_seeds_in_one_bundle_is_refused(bundle, tmp_path):
    files = read_members(bundle)
    _copy_seed_outputs(files, source=0, target=1)
    board = tmp_path / "board"
    (board / "runs").mkdir(parents=True, exist_ok=True)
    before = snapshot(board)
    result, _ = _add(tmp_path, files, board)
    _refused(result, board, before, r"-seed1-\S+ and runs/\S+-seed0-\S+ have identical (test|val) generations: one "
                                    r"run submitted as two seeds")


def test_a_seed_repeating_one_the_board_holds_is_refused(bundle, tmp_path):
    files = read_members(bundle)
    first, board = _add(tmp_path, _only_seed(dict(files), 0), name="seed0")
    assert first.exit_code == 0, first.output
    before = snapshot(board)
    _copy_seed_outputs(files, source=0, target=1)
    result, _ = _add(tmp_path, _only_seed(files, 1), board, name="seed1")
    _refused(result, board, before, r"-seed1-\S+: its test, val generations are those of \S+-seed0-\S+, a seed the "
                                    r"board already holds")


def _honest_claims(tmp_path: Path, files: dict[str, bytes]) -> dict[str, bytes]:
    """What a tamperer who re-scores their own edit claims: the board's re-scored values (any tolerance)."""
    probe = write_members(tmp_path / "probe.grue.tar.gz", files)
    from grue.board.submit.assets import read_board_settings

    settings, _ = read_board_settings(tmp_path / "board")
    verdict = verify_bundle(probe, tmp_path / "probe", Tolerance(relative=1e9, absolute=1e9), settings=settings)
    for seed in verdict.seeds:
        metrics = {split: {m: r.get("rescored", r.get("claimed")) for m, r in records.items() if "claimed" in r}
                   for split, records in seed.metrics.items()}
        _edit_results(files, seed.doc["seed"], lambda doc: doc.update(metrics=metrics))
    return files


def test_generations_copied_from_the_references_are_flagged_on_the_row(bundle, tmp_path):
    files = read_members(bundle)
    name = seed_file(files, 0, "predictions/test.jsonl")
    rows = [json.loads(line) for line in files[name].decode().splitlines()]
    assert all(r["references"] and r["references"][0].strip() for r in rows)
    files[name] = "".join(json.dumps({**r, "generation": r["references"][0]}) + "\n" for r in rows).encode()
    result, board = _add(tmp_path, _honest_claims(tmp_path, files))
    assert result.exit_code == 0, result.output
    assert "test: 6 of 6 generations copied from the references" in result.output
    out = tmp_path / "export"
    assert runner.invoke(leaderboard_app, ["export", f"runs={board / 'runs'}", f"out={out}", "format=md"]).exit_code == 0
    board_md = (out / "leaderboard.md").read_text()
    assert re.search(r"\| PPO \| sentiment \|.*generations copied from the references", board_md)


def test_degenerate_outputs_are_named():
    from grue.data.sample import Sample

    samples = [Sample(f"s{i}", f"prompt {i}", (f"ref {i}", "other")) for i in range(4)]
    assert claims.degenerate_labels(samples, ["a", "b", "c", "d"]) == []
    assert claims.degenerate_labels(samples, ["ref 0", "ref 1", "c", "d"]) == ["2 of 4 generations copied from the "
                                                                                "references"]
    assert claims.degenerate_labels(samples, ["", " ", "c", "d"]) == ["2 of 4 generations empty"]
    assert claims.degenerate_labels(samples, ["same"] * 4) == ["all 4 generations are one text"]


def test_the_tiny_run_is_non_standard_and_kept_out_of_the_overall_board(bundle, two_seeds, tmp_path):
    result = runner.invoke(leaderboard_app, ["add", str(bundle), f"board={tmp_path / 'board'}"])
    assert result.exit_code == 0, result.output
    assert re.search(r"non-standard \(data\.max_test, data\.max_train, data\.max_val, \.\.\.\)", result.output)
    record = json.loads(next((tmp_path / "board" / "runs").glob("*/verification.json")).read_text())
    assert {"data.max_test", "model.policy", "generation.max_new_tokens"} <= set(record["claims"]["non_standard"])
    assert record["claims"]["generations"] == "generations not tied to a model"
    out = tmp_path / "export"
    runs = tmp_path / "board" / "runs"
    assert runner.invoke(leaderboard_app, ["export", f"runs={runs}", f"out={out}", "format=md,json"]).exit_code == 0
    text = (out / "leaderboard.md").read_text()
    assert re.search(r"\| PPO \| sentiment \|.*✓ verified · non-standard", text)
    overall = [r for r in json.loads((out / "leaderboard.json").read_text())["overall"] if r["source"] == "runs"]
    assert overall == []  # its only row is non-standard: no headline rank
    # the same runs on a user's own board (no verification record) are ranked as before
    mine = tmp_path / "mine"
    assert runner.invoke(leaderboard_app, ["export", f"runs={two_seeds}", f"out={mine}", "format=json"]).exit_code == 0
    assert [r for r in json.loads((mine / "leaderboard.json").read_text())["overall"] if r["source"] == "runs"]


def test_a_config_with_the_presets_standard_keys_is_standard(two_seeds):
    config = json.loads(next(two_seeds.glob("*/results.json")).read_text())["config"]
    preset = claims.preset_of("imdb", "ppo", "mini")
    assert "data.max_test" in claims.preset_differences(config, preset)
    for key in claims.STANDARD_KEYS:
        section, _, leaf = key.rpartition(".")
        (claims._lookup(config, section) if section else config)[leaf] = claims._lookup(preset, key)
    assert claims.preset_differences(config, preset) == []
    paper = claims.preset_of("imdb", "ppo", "paper")
    assert "model.policy" in claims.preset_differences(config, paper)  # the mini model claimed as paper


@pytest.fixture(scope="module")
def zero_shot_bundle(tiny_model_dirs, tmp_path_factory) -> Path:
    """A tiny zero-shot run of the same data and model, bundled (zero-shot saves no weights)."""
    out = tmp_path_factory.mktemp("claims-zero") / "runs"
    args = ["task=imdb", "profile=mini", "algo=zero_shot", "seed=0", f"model.policy={tiny_model_dirs.policy}",
            f"reward.model={tiny_model_dirs.classifier}",
            "data.max_train=16", "data.max_val=6", "data.max_test=6", "generation.max_new_tokens=6",
            "generation.min_new_tokens=6", "eval.batch_size=6", f"output_dir={out}", "threads=1"]
    Run(load_config(args), args).execute()
    target = out.parent / "zero.grue.tar.gz"
    assert runner.invoke(leaderboard_app, ["bundle", str(out), f"out={target}"]).exit_code == 0
    return target


def test_a_claimed_perplexity_neither_anchors_nor_ranks(two_seeds, zero_shot_bundle, tmp_path):
    """The issue's case: PPO seeds whose perplexity the board re-scored from their weights, and a zero-shot
    setting claiming perplexity 1.01 without weights. The claim is shown flagged "reported"; PPO's IMDB
    naturalness stays its own (1.0, the least perplexed trusted row), not 1.01 / its perplexity."""
    from grue.board.build import build_board

    board = tmp_path / "board"
    weighted = tmp_path / "weighted"
    assert runner.invoke(leaderboard_app, ["bundle", str(two_seeds), f"out={weighted}", "weights=yes"]).exit_code == 0
    [ppo] = list(weighted.glob("*.grue.tar.gz"))
    assert runner.invoke(leaderboard_app, ["add", str(ppo), f"board={board}"]).exit_code == 0
    files = read_members(zero_shot_bundle)
    name = next(n for n in files if n.endswith("/results.json"))
    doc = json.loads(files[name])
    for split in doc["metrics"]:
        doc["metrics"][split]["perplexity"] = 1.01
    files[name] = json.dumps(doc).encode()
    result, _ = _add(tmp_path, files, board, name="zero")
    assert result.exit_code == 0 and "as reported: val perplexity, test perplexity" in result.output, result.output

    built = build_board([board / "runs"])
    fit = built.fits[("runs", "mini", "imdb", "test")].transforms["perplexity"]
    assert "1.01" not in fit.describe, fit.describe
    ours = built.entries[(built.entries["source"] == "runs") & (built.entries["split"] == "test")]
    ppo_entry = ours[ours["algo"] == "ppo"]
    assert float(ppo_entry["naturalness_score"].iloc[0]) == pytest.approx(1.0)
    zero = ours[ours["algo"] == "zero_shot"]
    assert "perplexity" in zero["missing_metrics"].iloc[0]  # its claim enters no score
    out = tmp_path / "export"
    assert runner.invoke(leaderboard_app, ["export", f"runs={board / 'runs'}", f"out={out}", "format=md"]).exit_code == 0
    text = (out / "leaderboard.md").read_text()
    assert "perplexity: reported: the submitter's value, not re-computed by the board" in text
    zero_rows = [line for line in text.splitlines() if line.startswith("| Zero-Shot |")]
    assert zero_rows and all("**1.01" not in line and "1.01" in line for line in zero_rows)  # shown, never best


def test_every_result_records_its_splits_data_digest(two_seeds):
    from grue.results.digests import split_digest
    from tasks import get_task

    doc = json.loads(next(two_seeds.glob("*/results.json")).read_text())
    data = get_task("imdb").loader(load_config([f"{k}={v}" for k, v in (("task", "imdb"), ("profile", "mini"),
                                                                         ("data.max_val", 6), ("data.max_test", 6),
                                                                         ("data.max_train", 16))]))
    assert set(doc["data_sha256"]) == set(doc["metrics"]) == {"val", "test"}
    assert doc["data_sha256"]["test"] == split_digest(data["test"]) != doc["data_sha256"]["val"]


def test_a_seed_that_scored_other_data_is_refused(bundle, tmp_path):
    files = read_members(bundle)
    _edit_results(files, 1, lambda doc: doc["data_sha256"].update(test="0" * 64))
    board = tmp_path / "board"
    (board / "runs").mkdir(parents=True, exist_ok=True)
    before = snapshot(board)
    result, _ = _add(tmp_path, files, board)
    _refused(result, board, before, r"-seed1-\S+/results\.json: the test split's data digest 000000000000 is not "
                                    r"the board's \w{12}: the run scored other prompts or references")


def test_a_declared_seed_left_out_is_named(bundle, tmp_path):
    files = _only_seed(read_members(bundle), 0)
    manifest = json.loads(files[MANIFEST])
    manifest["declared_seeds"] = [0, 1, 2]  # what bundle wrote for a setting that ran three seeds
    files[MANIFEST] = json.dumps(manifest).encode()
    board = tmp_path / "board"
    (board / "runs").mkdir(parents=True, exist_ok=True)
    before = snapshot(board)
    result, _ = _add(tmp_path, files, board)
    _refused(result, board, before, r"manifest\.json declares seed\(s\) 1, 2 of this setting but the bundle does not "
                                    r"carry them")


@pytest.fixture(scope="module")
def weighted_bundle(two_seeds, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("claims-weights")
    assert runner.invoke(leaderboard_app, ["bundle", str(two_seeds), f"out={out}", "weights=yes"]).exit_code == 0
    [path] = list(out.glob("*.grue.tar.gz"))
    return path


def test_with_weights_the_generations_are_regenerated_token_for_token(weighted_bundle, tmp_path):
    result = runner.invoke(leaderboard_app, ["add", str(weighted_bundle), f"board={tmp_path / 'board'}"])
    assert result.exit_code == 0, result.output
    assert result.output.count("generations tied to the bundle's weights: 8 prompt(s) regenerated token for "
                               "token") == 2
    out = tmp_path / "export"
    runs = tmp_path / "board" / "runs"
    assert runner.invoke(leaderboard_app, ["export", f"runs={runs}", f"out={out}", "format=md"]).exit_code == 0
    text = (out / "leaderboard.md").read_text()
    line = next(l for l in text.splitlines() if "Verified PPO sentiment:" in l)
    scored = line.split("the board's scorers (")[1].split(")")[0].split(", ")
    assert {"sentiment", "perplexity", "msttr"} <= set(scored) and "taken as reported" not in line
    assert "; generations tied to the bundle's weights: 8 prompt(s) regenerated token for token" in line


def test_generations_the_weights_do_not_produce_are_refused(weighted_bundle, tmp_path):
    files = read_members(weighted_bundle)
    for split in ("val", "test"):  # every generation moved to the next prompt: written by something else
        name = seed_file(files, 0, f"predictions/{split}.jsonl")
        rows = [json.loads(line) for line in files[name].decode().splitlines()]
        moved = [{**r, "generation": rows[(i + 1) % len(rows)]["generation"]} for i, r in enumerate(rows)]
        files[name] = "".join(json.dumps(r) + "\n" for r in moved).encode()
    files = _honest_claims(tmp_path, files)
    board = tmp_path / "board"
    (board / "runs").mkdir(parents=True, exist_ok=True)
    before = snapshot(board)
    result, _ = _add(tmp_path, files, board)
    _refused(result, board, before, r"-seed0-\S+/predictions/(val|test)\.jsonl: the generation of '\S+' is not what "
                                    r"the bundle's model generates for it \(token \d+: .* vs .*\): the generations do "
                                    r"not come from these weights")


def test_without_weights_the_page_says_what_the_mark_covers(bundle, tmp_path):
    assert runner.invoke(leaderboard_app, ["add", str(bundle), f"board={tmp_path / 'board'}"]).exit_code == 0
    out = tmp_path / "export"
    runs = tmp_path / "board" / "runs"
    assert runner.invoke(leaderboard_app, ["export", f"runs={runs}", f"out={out}", "format=md"]).exit_code == 0
    text = (out / "leaderboard.md").read_text()
    line = next(l for l in text.splitlines() if "Verified PPO sentiment:" in l)
    scored = line.split("the board's scorers (")[1].split(")")[0].split(", ")
    assert "sentiment" in scored and "perplexity" not in scored
    assert "taken as reported, not re-computed: perplexity" in line and "generations not tied to a model" in line


def test_a_flagged_candidate_keeps_its_entry_out_of_the_overall_board_under_either_reward_strategy():
    import pandas as pd

    from grue.board.numbers.overall import headline

    entry = {"source": "runs", "profile": "mini", "task": "imdb", "init_model": "m", "setting": "s", "setting_label": ""}
    agg = pd.DataFrame([{**entry, "algo": "ppo", "reward": "sentiment", "off_headline": True},
                        {**entry, "algo": "ppo", "reward": "other", "off_headline": False},
                        {**entry, "algo": "nlpo", "reward": "sentiment", "off_headline": False}])
    selected = pd.DataFrame([{**entry, "algo": a, "reward": r} for a, r in
                             (("ppo", "sentiment"), ("ppo", "other"), ("nlpo", "sentiment"))])
    assert list(zip(*[headline(selected, agg)[k] for k in ("algo", "reward")])) == [("ppo", "other"),
                                                                                   ("nlpo", "sentiment")]
    averaged = pd.DataFrame([{**entry, "algo": a, "reward": f"avg({r})"} for a, r in
                             (("ppo", "other,sentiment"), ("nlpo", "sentiment"))])
    assert list(headline(averaged, agg)["algo"]) == ["nlpo"]


def _claim_paper_profile(files: dict[str, bytes]) -> dict[str, bytes]:
    """Every seed's config and results say profile=paper, with the config hash a tamperer recomputes."""
    import yaml

    from grue.board.submit.verify import resolve_config
    from grue.config import config_hash

    manifest = json.loads(files[MANIFEST])
    for entry in manifest["seeds"]:
        prefix = entry["run"]
        config = yaml.safe_load(files[f"{prefix}/config.yaml"])
        config["profile"] = "paper"
        cfg, why = resolve_config(config)
        assert cfg is not None, why
        digest = config_hash(cfg)
        doc = json.loads(files[f"{prefix}/results.json"])
        doc.update(profile="paper", config=config, config_hash=digest, comparable_to_paper=True)
        files[f"{prefix}/config.yaml"] = yaml.safe_dump(config, sort_keys=False).encode()
        files[f"{prefix}/results.json"] = json.dumps(doc).encode()
        files[f"{prefix}/config_hash.txt"] = (digest + "\n").encode()
        entry["config_hash"] = digest
    manifest["setting"]["profile"] = "paper"
    files[MANIFEST] = json.dumps(manifest).encode()
    return files


def test_a_mini_run_claimed_as_paper_never_becomes_a_paper_row(bundle, tmp_path):
    """The mini data claimed as paper is refused by the board's own data check (assets.py); where the data is
    the paper's, the mini model and limits still label it non-standard (test_a_config_with_the_presets_...)."""
    board = tmp_path / "board"
    (board / "runs").mkdir(parents=True, exist_ok=True)
    before = snapshot(board)
    result, _ = _add(tmp_path, _claim_paper_profile(read_members(bundle)), board)
    _refused(result, board, before, r"-seed0-\S+/config\.yaml: data\.source is 'packaged:rotten-tomatoes', not the "
                                    r"board's '\S+' for imdb/paper")
