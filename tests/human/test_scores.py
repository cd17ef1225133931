"""Human scores for the leaderboard, the paper's reference rows, and Table 2's human questions."""
from __future__ import annotations

import pytest
from scipy.stats import t as student_t

from grue.human.board_panel import human_section, section_html, section_markdown
from grue.human.frame import ratings_frame
from grue.human.questions import answer_questions
from grue.human.scores import human_scores, paper_human_scores
from human_fixtures import answer_all, build_study

TONE_RATING = {"flat": 2, "plain": 3, "upbeat": 4, "cheerful": 5}


def _rate_by_tone(study, tokens, spread: int = 0, ratings: dict[str, int] = TONE_RATING):
    for n, token in enumerate(tokens.values()):
        def rate(item, order, n=n):
            if item.gold:
                return {axis: str(item.gold["value"]) for axis in study.axes}
            tone = item.candidates[0].text.split()[1]
            wobble = ((n + int(item.sample_id.split("-")[1])) % 3 - 1) * spread
            return {axis: str(min(5, max(1, ratings[tone] + wobble))) for axis in study.axes}
        answer_all(study, token, rate)


def test_study_scores_are_the_mean_and_t_interval_of_each_algorithms_ratings(tmp_path):
    study, tokens = build_study(tmp_path, algos=("supervised", "ppo"), samples=6)
    _rate_by_tone(study, tokens, spread=1)
    scores = human_scores([study.root]).set_index(["algo", "axis"])
    frame = ratings_frame(study)
    for (algo, axis), row in scores.iterrows():
        system = next(s for s, info in study.systems.items() if info["algo"] == algo)
        values = frame[(frame["system"] == system) & (frame["axis"] == axis) & frame["gold"].isna()]["value"]
        half = student_t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / len(values) ** 0.5
        assert row["mean"] == pytest.approx(values.mean()) and row["n"] == 18 and row["raters"] == 3
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((values.mean() - half, values.mean() + half))
        assert row["role"] == ("naturalness" if axis == "coherence" else "task")


def test_paper_reference_rows_carry_the_published_numbers():
    paper = paper_human_scores()
    imdb_nlpo = paper[(paper["task"] == "imdb") & (paper["algo"] == "nlpo")].set_index("axis")
    assert imdb_nlpo.loc["sentiment", "mean"] == 3.61 and imdb_nlpo.loc["coherence", "alpha"] == 0.196
    assert imdb_nlpo.loc["sentiment", "source"] == "paper (Table 9)" and imdb_nlpo.loc["sentiment", "n"] == 300
    totto_sup = paper[(paper["task"] == "totto") & (paper["algo"] == "supervised")].set_index("axis")
    assert totto_sup.loc["correctness", "mean"] == 4.54 and totto_sup.loc["correctness", "n"] == 150
    assert set(paper["task"]) == {"imdb", "commongen", "cnn_dailymail", "totto", "dailydialog"}
    assert "NLPO without KL" in set(paper["algo"])  # the paper's variants keep their own names


def test_table2_human_questions_follow_the_tukey_tests(tmp_path):
    study, tokens = build_study(tmp_path, algos=("supervised", "ppo", "nlpo"), samples=8)
    _rate_by_tone(study, tokens, spread=1)  # cheerful (nlpo) 5 > upbeat (ppo) 4 > plain (supervised) 3, +-1
    answers = answer_questions(study).set_index("question_id")
    assert answers.loc["rl_gt_sup_human", "answer"] == "yes"
    assert answers.loc["rl_gt_sup_human", "paper_answer"]  # the paper's IMDB answer (a tick), shown beside
    assert answers.loc["suprl_gt_sup_human", "answer"] == "not testable"
    assert answers.loc["suprl_gt_sup_human", "evidence"] == (
        "the study has no supervised_ppo vs supervised or supervised_nlpo vs supervised")


def test_a_significantly_reversed_claim_answers_no(tmp_path):
    study, tokens = build_study(tmp_path, algos=("supervised", "ppo"), samples=8)
    _rate_by_tone(study, tokens, spread=1, ratings={"plain": 4, "upbeat": 2})  # supervised's texts above ppo's
    answers = answer_questions(study).set_index("question_id")
    assert answers.loc["rl_gt_sup_human", "answer"] == "no"
    assert "ppo vs supervised: sentiment -2.000" in answers.loc["rl_gt_sup_human", "evidence"]


def test_the_board_section_puts_the_study_beside_the_papers_rows(tmp_path):
    study, tokens = build_study(tmp_path, algos=("supervised", "ppo"), samples=6)
    _rate_by_tone(study, tokens, spread=1)
    section = human_section([study.root])
    sources = list(section.scores["source"])
    assert sources[:4] == ["study"] * 4 and set(sources[4:]) == {"paper (Table 9)"}  # IMDB only: the studied task
    ppo = section.scores[(section.scores["source"] == "study") & (section.scores["algorithm"] == "PPO")]
    assert list(ppo["mean"]) == [f"{v:.2f}" for v in human_scores([study.root]).query("algo == 'ppo'")
                                 .sort_values("axis")["mean"]]
    assert section.figure_png.startswith(b"\x89PNG")
    html = section_html(section)
    assert html.count('<tr class="ref">') == sources.count("paper (Table 9)")
    assert "RL &gt; Supervised (human)?" in html and "human_figure2.png" in section_markdown(section)
