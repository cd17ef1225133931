"""The human rows of the paper's Table 2, answered from ratings studies with the paper's own test:
Tukey HSD between algorithms on each axis.

A claim "A beats B" holds when A's mean is significantly higher (Tukey adjusted p < 0.05) on at
least one axis and significantly lower on none. A question is "yes" when at least one of its claims
holds and none is significantly reversed, "no" otherwise, and "not testable" when the study lacks
the algorithms. The question ids are the leaderboard's (`grue.board.numbers.questions.HUMAN_QUESTIONS`).
"""
from __future__ import annotations

import pandas as pd

from grue.board.numbers.reference import paper_table2
from grue.human.report import build_report
from grue.human.study import Study

ALPHA = 0.05
CLAIMS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "rl_gt_sup_human": ("RL > Supervised (human)?", [("ppo", "supervised"), ("nlpo", "supervised")]),
    "suprl_gt_sup_human": ("Supervised+RL > Supervised (human)?",
                           [("supervised_ppo", "supervised"), ("supervised_nlpo", "supervised")]),
    "supnlpo_gt_supppo_human": ("Supervised+NLPO > Supervised+PPO (human)?", [("supervised_nlpo", "supervised_ppo")]),
}
ANSWER_COLUMNS = ["task", "question_id", "question", "answer", "evidence", "paper_answer"]


def _direction(tukey: pd.DataFrame, better: str, worse: str) -> tuple[int, str]:
    """+1 if `better` is significantly above `worse`, -1 if significantly below, 0 otherwise; and why."""
    for _, row in tukey.iterrows():
        if {row["group1"], row["group2"]} == {better, worse}:
            diff = row["meandiff"] if row["group2"] == better else -row["meandiff"]
            sign = (1 if diff > 0 else -1) if row["p_adj"] < ALPHA else 0
            return sign, f"{diff:+.3f} (p_adj {row['p_adj']:.3g})"
    return 0, "not in the study"


def answer_questions(study: Study, qualify: bool = False) -> pd.DataFrame:
    report = build_report(study, qualify=qualify)
    algo_of = {study.system_label(s): info["algo"] for s, info in study.systems.items()}
    tukey = {axis: table.replace({"group1": algo_of, "group2": algo_of}) for axis, table in report.tukey.items()}
    present = set(algo_of.values())
    paper = paper_table2()["answers"]
    rows = []
    for qid, (question, claims) in CLAIMS.items():
        testable = [(b, w) for b, w in claims if {b, w} <= present]
        holds, reversed_, evidence = False, False, []
        for better, worse in testable:
            signs = {axis: _direction(table, better, worse) for axis, table in tukey.items()}
            ups = [s for s, _ in signs.values()]
            holds |= 1 in ups and -1 not in ups
            reversed_ |= -1 in ups and 1 not in ups
            evidence.append(f"{better} vs {worse}: " + ", ".join(f"{axis} {why}" for axis, (_, why) in signs.items()))
        answer = "not testable" if not testable else ("yes" if holds and not reversed_ else "no")
        lacking = "the study has no " + " or ".join(f"{b} vs {w}" for b, w in claims)
        rows.append([study.task, qid, question, answer, "; ".join(evidence) or lacking, paper.get(qid, {}).get(study.task)])
    return pd.DataFrame(rows, columns=ANSWER_COLUMNS)
