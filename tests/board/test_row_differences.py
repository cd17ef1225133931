"""What differs between two rows of one task (`grue compare RUNS --rows A,B`), and the task table's comparison
columns (critic, regulariser) and its note on rows that did not spend PPO's tokens, on hand-built runs.

Every value asserted is written in the fixture below: PPO with a separate critic, 4 epochs, k1 in the reward
adaptive to 0.5 from 0.05; GRPO with 4 samples per prompt under the paper's k3 in the loss at 0.04 (the
regulariser as runs from before `kl.placement` record it) and 1.025x PPO's tokens.
"""
from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.compare import RowNotFound, pick_rows
from grue.board.numbers.row_differences import differences, differences_text
from grue.board.tables.task_tables import task_table

KL = {"init_coef": 0.05, "target": 0.5, "k_beta": 0.2}


def config(algo: str, seed: int, **groups: dict) -> dict:
    return {"task": "imdb", "algo": algo, "profile": "mini", "seed": seed, "output_dir": f"runs/{algo}",
            "device": "cpu", "tracking": {"project": f"p-{algo}"}, "eval": {"save_every": len(algo)}, "model": {"policy": "fixture:tiny-gpt2", "value_model": "separate"},
            "ppo": {"total_steps": 6144, "epochs": 4, "learning_rate": 1e-5}, "kl": dict(KL), **groups}


def row(root: Path, algo: str, tokens: float, seeds: int = 2, name: str = "", **groups: dict) -> None:
    for seed in range(seeds):
        metrics = {s: {"sentiment": 0.6 + 0.01 * seed, "perplexity": 30.0} for s in ("val", "test")}
        doc = results_doc("imdb", algo, seed, metrics)
        doc["config"] = config(algo, seed, **groups)
        doc["cost"] = {"train_generated_tokens": tokens, "train_seconds": 10.0}
        write_run(root, doc, f"{name or algo}-s{seed}")


def board_fixture(root: Path) -> None:
    row(root, "ppo", 6144)
    row(root, "grpo", 6298, grpo={"kl": "loss", "beta": 0.04, "group_size": 4})  # 6298 / 6144 = 1.025


def invoke(*args: str):
    """`grue compare ...` through the real command line, so a usage error prints as the user sees it."""
    from cli import app

    return CliRunner().invoke(app, ["compare", *args])


def test_two_rows_differ_in_their_facts_and_their_read_config_keys(tmp_path):
    board_fixture(tmp_path)
    a, b = pick_rows(str(tmp_path), "ppo", "grpo")
    lines = {line.what: line for line in differences(a, b)}
    assert (lines["critic"].a, lines["critic"].b) == ("separate", "none")
    assert (lines["regulariser"].a, lines["regulariser"].b) == ("k1 in reward, adaptive to 0.5/token from 0.05",
                                                                "k3 in loss, fixed 0.04")
    assert (lines["group size"].a, lines["group size"].b) == ("1", "4") and lines["group size"].differs
    assert (lines["epochs"].a, lines["epochs"].b) == ("4", "4") and not lines["epochs"].differs
    assert lines["train tokens"].b == "6298 (1.025x A's tokens: not within 2%)" and lines["train tokens"].differs
    assert (lines["grpo.group_size"].a, lines["grpo.group_size"].b) == ("(not read)", "4")  # PPO reads no grpo group
    assert (lines["algo"].a, lines["algo"].b) == ("ppo", "grpo")
    assert not {"output_dir", "seed", "device", "tracking.project", "eval.save_every"} & set(lines)  # not what a run computes
    assert "ppo.epochs" not in lines  # the same on both sides
    assert differences_text(list(lines.values())).startswith("critic separate vs none; regulariser k1 in reward")


def test_grue_compare_rows_prints_the_differences(tmp_path):
    board_fixture(tmp_path)
    result = invoke(str(tmp_path), "--rows", "ppo,grpo", "--out", str(tmp_path / "d.md"))
    assert result.exit_code == 0, result.output
    assert "| critic | separate | none | ≠ |" in result.output
    assert "| grpo.kl | (not read) | loss | ≠ |" in result.output
    assert (tmp_path / "d.md").read_text().startswith("# grue compare --rows")


def test_a_bad_row_name_is_one_line_naming_the_valid_rows(tmp_path):
    board_fixture(tmp_path)
    row(tmp_path, "ppo", 6144, name="ppo-lr", ppo={"total_steps": 6144, "epochs": 4, "learning_rate": 3e-5})
    result = invoke(str(tmp_path), "--rows", "ppo,grpo")
    assert result.exit_code == 2
    message = [line for line in result.output.splitlines() if "no row" in line]
    assert len(message) == 1, result.output
    assert "no row 'ppo' on imdb; valid rows: grpo, ppo@" in message[0]
    assert "(ppo.learning_rate=1e-05)" in message[0] and "(ppo.learning_rate=3e-05)" in message[0]
    named = message[0].split("valid rows: ")[1].split(", ")[1].split(" ")[0]
    assert invoke(str(tmp_path), "--rows", f"{named},grpo").exit_code == 0


def test_rows_goes_with_one_runs_directory_and_two_names(tmp_path):
    board_fixture(tmp_path)
    assert "give only that directory" in invoke(str(tmp_path), "paper", "--rows", "ppo,grpo").output
    assert "two row names separated by a comma" in invoke(str(tmp_path), "--rows", "ppo").output
    assert "--rows A,B" in invoke(str(tmp_path)).output
    try:
        pick_rows(str(tmp_path), "ppo", "grpo", task="commongen")
    except RowNotFound as err:
        assert "tasks there: imdb" in str(err)
    else:
        raise AssertionError("a task without runs must be refused")


def test_the_task_table_shows_critic_and_regulariser_and_names_rows_off_ppo_s_tokens(tmp_path):
    board_fixture(tmp_path)
    row(tmp_path, "rloo", 6200, rloo={"k": 4})  # 1.009x: within 2 %, not named
    board = build_board([tmp_path], BoardOptions(with_paper=False))
    table = task_table(board.agg, "imdb", "test", with_paper=False)
    rows = {r.labels["algo"]: r for r in table.rows}
    assert (rows["PPO"].cells["critic"], rows["GRPO"].cells["critic"]) == ("separate", "none")
    assert rows["GRPO"].cells["regulariser"] == "k3 in loss, fixed 0.04"
    assert rows["RLOO"].cells["regulariser"] == "k1 in reward, adaptive to 0.5/token from 0.05"
    note = next(n for n in table.notes if n.startswith("Not at equal generated tokens"))
    assert "GRPO (1.025x PPO's tokens)" in note and "RLOO" not in note


def test_rloo_s_paper_step_reads_as_one_epoch_whatever_ppo_epochs_says(tmp_path):
    row(tmp_path, "rloo", 6144, rloo={"k": 4})
    row(tmp_path, "rloo_paper", 6144, rloo={"k": 4, "steps": "single"})
    a, b = pick_rows(str(tmp_path), "rloo", "rloo_paper")
    lines = {line.what: line for line in differences(a, b)}
    assert (lines["epochs"].a, lines["epochs"].b) == ("4", "1 (single unclipped step)")
    assert (lines["rloo.steps"].a, lines["rloo.steps"].b) == ("ppo", "single")  # unrecorded: the default it ran at


def test_the_board_lists_what_sets_each_rl_row_apart_from_its_ppo_row(tmp_path):
    from grue.board.export import board_markdown

    board_fixture(tmp_path)
    row(tmp_path, "rloo", 6144, rloo={"k": 4})
    text = board_markdown(build_board([tmp_path], BoardOptions(with_paper=False)))
    table = text.split("## What differs from PPO")[1].split("\n## ")[0]
    lines = {line.split(" | ")[2]: line for line in table.splitlines() if line.startswith("| imdb |")}
    assert set(lines) == {"grpo", "rloo"}  # PPO is no pair of its own
    assert "critic none vs separate; regulariser k3 in loss, fixed 0.04 vs k1 in reward, adaptive to 0.5/token " \
           "from 0.05; group size 4 vs 1; train tokens 6298 (1.025x PPO's tokens: not within 2%) vs 6144" in lines["grpo"]
    assert "regulariser" not in lines["rloo"] and "train tokens" not in lines["rloo"]  # the same as PPO's
    # RLOO's own keys (every one 'not read' by PPO) are counted, not listed; the pair's command lists them
    assert "rloo.k" not in lines["rloo"] and "the row's own rloo settings (" in lines["rloo"]
    a, b = pick_rows(str(tmp_path), "ppo", "rloo")
    own = [line.what for line in differences(a, b) if line.differs and line.a == "(not read)"]
    assert "rloo.k" in own and f"the row's own rloo settings ({len(own)} keys)" in lines["rloo"]


def test_a_config_from_before_a_field_existed_reads_as_its_default_and_a_removed_key_is_no_difference(tmp_path):
    """A PPO run recorded before `kl.placement`/`kl.estimator` existed (and with GRPO's since-removed
    `grpo.beta` in its unread grpo section) against a GRPO run of today under PPO's regulariser: the kl group
    does not differ, and no removed key is listed; the paper's placement does differ."""
    row(tmp_path, "ppo", 6144, grpo={"beta": 0.04, "kl": "loss", "group_size": 64})
    row(tmp_path, "grpo", 6144, kl={**KL, "placement": "reward", "estimator": "k1"}, grpo={"group_size": 4})
    row(tmp_path, "grpo_paper", 6144, kl={**KL, "placement": "loss", "estimator": "k3"}, grpo={"group_size": 4})
    a, b = pick_rows(str(tmp_path), "ppo", "grpo")
    listed = {line.what for line in differences(a, b) if line.differs and not line.fact}
    assert not {k for k in listed if k.startswith("kl.")}, listed
    assert "grpo.beta" not in listed and "grpo.kl" not in listed
    a, b = pick_rows(str(tmp_path), "ppo", "grpo_paper")
    lines = {line.what: line for line in differences(a, b)}
    assert (lines["kl.placement"].a, lines["kl.placement"].b) == ("reward", "loss")
    assert (lines["kl.estimator"].a, lines["kl.estimator"].b) == ("k1", "k3")
