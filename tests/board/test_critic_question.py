"""The board's "Is the critic worth its cost?" on hand-built results files whose answer is computed here.

Each row's seeds get the sentiment values written below, one constant perplexity (so every row's
naturalness score is the same constant and the GRUE score is an affine map of sentiment: Welch's p on
the score is Welch's p on sentiment), a recorded config (its critic and its KL regulariser) and the
generated tokens and seconds of results.json's `cost`. The expected p-values are scipy's Welch test on
those lists and a Holm step written out below, so a board that picks the best candidate first, corrects
with Bonferroni, or leaves a candidate out of the family fails.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from scipy import stats

from board_fixtures import results_doc, write_run
from grue.board.build import BoardOptions, build_board
from grue.board.numbers.critic_question import QUESTION_ID
from grue.board.numbers.stats import NOT_TESTABLE

PPO_KL = {"init_coef": 0.05, "target": 0.5, "k_beta": 0.2}  # "k1 in reward, adaptive to 0.5/token from 0.05"
PPO = [0.70, 0.72, 0.74, 0.71]
CLOSE = [0.69, 0.71, 0.70, 0.73]     # Welch p against PPO ~0.44
FAR = [0.60, 0.62, 0.61, 0.63]       # ~1.1e-4
BETWEEN = [0.66, 0.69, 0.67, 0.70]   # ~0.024: Holm's x2 keeps it below 0.05 among three, Bonferroni's x3 does not


def config(algo: str, seed: int, value_model: str = "separate", kl: dict | None = None,
           **groups: dict) -> dict:
    """A results config with what the board reads of it: the algorithm, its critic, its KL group."""
    return {"task": "imdb", "algo": algo, "profile": "mini", "seed": seed,
            "model": {"policy": "fixture:tiny-gpt2", "value_model": value_model},
            "ppo": {"total_steps": 6144, "epochs": 4}, "kl": dict(kl or PPO_KL), **groups}


def arm(root: Path, algo: str, values: list[float] | None, tokens: float | None = 6144, seconds: float = 100.0,
        value_model: str = "separate", record_config: bool = True, **groups: dict) -> None:
    """One row: a seed per value (sentiment on val and test), `tokens` generated per seed."""
    for seed, value in enumerate(values or [0.5, 0.5]):
        metrics = {split: {"sentiment": value, "perplexity": 30.0} for split in ("val", "test")}
        doc = results_doc("imdb", algo, seed, metrics)
        if record_config:
            doc["config"] = config(algo, seed, value_model, **groups)
        if tokens is not None:
            doc["cost"] = {"train_generated_tokens": tokens, "train_seconds": seconds + seed}
        write_run(root, doc, f"imdb-{algo}-{value_model}-{tokens}-s{seed}")


def questions(root: Path):
    return build_board([root], BoardOptions(with_paper=False)).questions.set_index("question_id")


def welch_p(a: list[float], b: list[float]) -> float:
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def holm_by_hand(ps: list[float]) -> list[float]:
    """Holm's step-down adjustment written out: the i-th smallest p times (m - i), a running maximum, capped at 1."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = running
    return out


def adjusted_in_detail(detail: str) -> dict[str, float]:
    """'candidates tested, Holm-adjusted p: GRPO vs PPO 0.439, ...' -> {'GRPO': 0.439, ...}."""
    listed = detail.split("candidates tested, Holm-adjusted p: ")[1].split(";")[0]
    return {m[0]: float(m[1]) for m in re.findall(r"([\w+-]+(?: \[[^\]]*\])?) vs PPO[^,]*? ([0-9.e+-]+)(?:,|$)",
                                                  listed)}


def test_every_candidate_is_tested_against_ppo_with_holm_over_them_all(tmp_path):
    arm(tmp_path, "ppo", PPO)
    arm(tmp_path, "grpo", CLOSE, grpo={"kl": "reward", "group_size": 4})
    arm(tmp_path, "rloo", FAR, rloo={"k": 4})
    arm(tmp_path, "reinforce_pp", BETWEEN, tokens=6200)  # 1.009x PPO's tokens: within 2 %
    got = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]
    raw = {"GRPO": welch_p(PPO, CLOSE), "RLOO": welch_p(PPO, FAR), "REINFORCE++": welch_p(PPO, BETWEEN)}
    expected = dict(zip(raw, holm_by_hand(list(raw.values()))))
    assert adjusted_in_detail(got["detail"]) == pytest.approx(expected, rel=2e-3)
    assert expected["REINFORCE++"] < 0.05 < 3 * raw["REINFORCE++"]  # Holm, not Bonferroni, is what passes
    # PPO beats RLOO and REINFORCE++ but not GRPO: not better than every candidate, and none better than it
    assert got["answer"] == "no" and got["detail"].startswith("no significant difference")
    evidence = re.findall(r"vs (\w+) [0-9.]+ \(n=4\) on score: .*? p=([0-9.e+-]+), Holm p=([0-9.e+-]+)",
                          got["evidence"])
    assert {algo: float(p) for algo, p, _ in evidence} == pytest.approx(
        {"grpo": raw["GRPO"], "rloo": raw["RLOO"], "reinforce_pp": raw["REINFORCE++"]}, rel=2e-3)


def test_ppo_better_than_every_candidate_says_yes_and_names_each(tmp_path):
    arm(tmp_path, "ppo", PPO, seconds=300)
    arm(tmp_path, "rloo", FAR, seconds=200, rloo={"k": 4})
    arm(tmp_path, "reinforce_pp", BETWEEN, seconds=190)
    got = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]
    assert got["answer"] == "yes" and got["detail"].startswith("PPO significantly better than every candidate")
    expected = holm_by_hand([welch_p(PPO, FAR), welch_p(PPO, BETWEEN)])
    assert adjusted_in_detail(got["detail"]) == pytest.approx(dict(zip(["RLOO", "REINFORCE++"], expected)), rel=2e-3)
    assert "training seconds PPO 302, REINFORCE++ 192, RLOO 202" in got["detail"]  # seconds + seed, over seeds 0-3
    assert "PPO: regulariser k1 in reward, adaptive to 0.5/token from 0.05, 6144 tokens" in got["detail"]
    assert got["paper_answer"] is None  # a question the paper did not ask


def test_a_candidate_beating_ppo_is_the_reverse_whichever_of_them_it_is(tmp_path):
    arm(tmp_path, "ppo", FAR)
    arm(tmp_path, "grpo", PPO, grpo={"kl": "reward", "group_size": 4})
    arm(tmp_path, "rloo", CLOSE, rloo={"k": 4})
    got = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]
    assert got["answer"] == "no"
    assert got["detail"].startswith("the reverse is significant: grpo > ppo, rloo > ppo")


def test_tokens_beyond_two_percent_of_ppo_s_leave_a_row_out_by_name_and_ratio(tmp_path):
    arm(tmp_path, "ppo", PPO)
    arm(tmp_path, "grpo", FAR, tokens=6300, grpo={"kl": "reward", "group_size": 4})  # 1.025x: out at 2 %, in at 10 %
    arm(tmp_path, "rloo", FAR, tokens=12288, rloo={"k": 4})
    arm(tmp_path, "reinforce_pp", FAR, tokens=6100)  # 0.993x: in
    got = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]
    assert "not comparable with PPO (tokens within 2%, the same regulariser, 2+ seeds): GRPO (1.025x PPO's " \
           "tokens), RLOO (2.000x PPO's tokens)" in got["detail"]
    assert list(adjusted_in_detail(got["detail"])) == ["REINFORCE++"]


def test_a_row_under_another_regulariser_is_no_candidate(tmp_path):
    arm(tmp_path, "ppo", PPO)
    arm(tmp_path, "grpo", FAR, grpo={"kl": "loss", "beta": 0.04, "group_size": 4})  # the paper's k3 in the loss
    arm(tmp_path, "rloo", FAR, rloo={"k": 4})
    got = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]
    assert "GRPO (another regulariser: k3 in loss, fixed 0.04)" in got["detail"]
    assert list(adjusted_in_detail(got["detail"])) == ["RLOO"]


def test_an_unread_group_in_a_resolved_config_is_not_ppo_s_regulariser(tmp_path):
    """A resolved config records every group: PPO's unread `grpo` section (grpo.kl=loss, as files from before
    kl.placement hold it) must not make PPO's regulariser GRPO's k3 in the loss."""
    arm(tmp_path, "ppo", PPO, grpo={"kl": "loss", "beta": 0.04, "group_size": 64})
    arm(tmp_path, "rloo", FAR, rloo={"k": 4}, grpo={"kl": "loss", "beta": 0.04, "group_size": 64})
    got = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]
    assert "PPO: regulariser k1 in reward, adaptive to 0.5/token from 0.05" in got["detail"]
    assert list(adjusted_in_detail(got["detail"])) == ["RLOO"]


def test_each_critic_kind_gets_its_own_answer_in_one_family(tmp_path):
    """PPO rows of both critics: one answer per kind, each side one kind's row, all four tests one Holm family."""
    arm(tmp_path, "ppo", PPO, value_model="shared")
    arm(tmp_path, "ppo", FAR, value_model="separate")
    arm(tmp_path, "rloo", BETWEEN, rloo={"k": 4})
    got = questions(tmp_path)
    shared, separate = got.loc[f"{QUESTION_ID}_shared"], got.loc[f"{QUESTION_ID}_separate"]
    assert shared["question"].startswith("Is the critic worth its cost? (shared-trunk critic")
    assert "shared-trunk critic (model.value_model=shared" in shared["detail"]
    assert "separate critic (model.value_model=separate" in separate["detail"]
    assert "model.value_model=separate" not in shared["evidence"] and "model.value_model=shared" not in separate["evidence"]
    expected = holm_by_hand([welch_p(PPO, BETWEEN), welch_p(FAR, BETWEEN)])
    assert float(re.search(r"Holm p=([0-9.e+-]+)", shared["evidence"])[1]) == pytest.approx(expected[0], rel=2e-3)
    assert float(re.search(r"Holm p=([0-9.e+-]+)", separate["evidence"])[1]) == pytest.approx(expected[1], rel=2e-3)
    assert shared["answer"] == "yes"
    assert separate["answer"] == "no" and "the reverse is significant: rloo > ppo [model.value_model=separate]" \
        in separate["detail"]


def test_runs_without_recorded_tokens_cannot_answer_it(tmp_path):
    arm(tmp_path, "ppo", PPO, tokens=None)  # results files from before costs were recorded
    arm(tmp_path, "grpo", FAR, tokens=None, grpo={"kl": "reward", "group_size": 4})
    got = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]
    assert got["answer"] == NOT_TESTABLE and got["evidence"] == ""
    assert "needs PPO and a critic-free method" in got["detail"]
    assert "GRPO (generated tokens not recorded for GRPO and PPO" in got["detail"]


def test_the_side_that_recorded_no_tokens_is_the_one_named(tmp_path):
    arm(tmp_path, "ppo", PPO, tokens=None)   # PPO's results file records no cost
    arm(tmp_path, "grpo", FAR, tokens=1600, grpo={"kl": "reward", "group_size": 4})
    arm(tmp_path, "rloo", FAR, tokens=None, rloo={"k": 4})
    detail = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]["detail"]
    assert "GRPO (1600 tokens; generated tokens not recorded for PPO)" in detail
    assert "RLOO (generated tokens not recorded for RLOO and PPO)" in detail
    assert "GRPO (generated tokens not recorded" not in detail


def test_a_candidate_without_tokens_is_named_itself(tmp_path):
    arm(tmp_path, "ppo", PPO, tokens=6144)
    arm(tmp_path, "grpo", FAR, tokens=None, grpo={"kl": "reward", "group_size": 4})
    detail = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]["detail"]
    assert "GRPO (generated tokens not recorded for GRPO)" in detail and "for GRPO and PPO" not in detail


def test_runs_without_a_recorded_config_say_the_critic_is_not_recorded(tmp_path):
    arm(tmp_path, "ppo", PPO, record_config=False)
    arm(tmp_path, "rloo", FAR, record_config=False)
    got = questions(tmp_path).loc[QUESTION_ID]
    assert got["answer"] == "yes" and "critic not recorded" in got["detail"]


def test_a_board_without_critic_free_runs_asks_it_and_says_what_it_needs(tmp_path):
    arm(tmp_path, "zero_shot", [0.5, 0.51], tokens=0)
    arm(tmp_path, "ppo", PPO)
    got = questions(tmp_path).loc[f"{QUESTION_ID}_separate"]
    assert got["answer"] == NOT_TESTABLE and got["evidence"] == ""
    assert "GRPO" in got["detail"] and "REINFORCE++" in got["detail"]


def test_the_question_is_one_more_test_in_the_task_s_holm_family(tmp_path):
    """Table 2's claims and the critic's are corrected together: the Holm-adjusted p of every claim on the
    board, the critic's included, is Holm's correction of all their p-values as one family."""
    arm(tmp_path, "zero_shot", [0.50, 0.52, 0.49, 0.51], tokens=0)
    arm(tmp_path, "supervised", [0.55, 0.56, 0.54, 0.57], tokens=0)
    arm(tmp_path, "ppo", PPO)
    arm(tmp_path, "rloo", BETWEEN, rloo={"k": 4})
    arm(tmp_path, "reinforce_pp", CLOSE)
    answers = questions(tmp_path)
    pairs = [(float(p), float(adjusted)) for evidence in answers["evidence"]
             for p, adjusted in re.findall(r" p=([0-9.e+-]+), Holm p=([0-9.e+-]+)", evidence)]
    critic = answers.loc[f"{QUESTION_ID}_separate", "evidence"]
    assert critic.count("Holm p=") == 2 and len(pairs) >= 4  # the critic's two claims and Table 2's testable ones
    assert [a for _, a in pairs] == pytest.approx(holm_by_hand([p for p, _ in pairs]), rel=0.02)
    critic_ps = sorted(float(p) for p in re.findall(r" p=([0-9.e+-]+), Holm", critic))
    assert critic_ps == pytest.approx(sorted([welch_p(PPO, BETWEEN), welch_p(PPO, CLOSE)]), rel=2e-3)
