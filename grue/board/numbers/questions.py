"""The paper's Table 2 questions answered from the user's runs, with the evidence behind each answer.

Each question is a set of one-sided claims "A beats B on a measure". Each claim is a Welch test over
seeds of the selected entries; the tests of one task form one family and are Holm-corrected. The
answer is "yes" when at least one claim holds significantly and none is significantly reversed, "no"
otherwise, and "not testable" when no claim has two seeds on both sides. The automatic questions
use the per-task GRUE score (mean of task and naturalness scores); the human-study questions
cannot be answered from runs and are listed as such. The paper's own answer is shown beside ours.
Beside them, today's question "Is the critic worth its cost?" (critic_question.py), once per critic kind
PPO's rows record, is answered by the same machinery: each of its comparisons (PPO against one critic-free
row) is one more test in the same family.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from grue.board.numbers.critic_question import critic_answer, critic_questions, question_id, question_text
from grue.board.numbers.reference import paper_table2
from grue.board.numbers.stats import ALPHA, NOT_TESTABLE, Welch, holm, welch
from grue.board.task_info import algo_label, algo_rank, grue_tasks

QUESTION_COLUMNS: list[str] = ["profile", "task", "question_id", "question", "answer", "detail", "evidence",
                               "paper_answer"]


@dataclass(frozen=True)
class Claim:
    """`better` beats `worse` on `measure` (a score column, or 'reward' for the optimised metric)."""

    better: str
    worse: str
    measure: str = "score"


QUESTIONS: list[tuple[str, str, list[Claim]]] = [
    ("needs_warm_start", "Needs warm start?",
     [Claim("supervised_ppo", "ppo"), Claim("supervised_nlpo", "nlpo")]),
    ("reward_hackable", "Easily reward hackable? (reward up vs zero-shot while naturalness falls)",
     [Claim("ppo", "zero_shot", "reward"), Claim("zero_shot", "ppo", "naturalness_score"),
      Claim("nlpo", "zero_shot", "reward"), Claim("zero_shot", "nlpo", "naturalness_score")]),
    ("rl_gt_sup_auto", "RL > Supervised (auto)?", [Claim("ppo", "supervised"), Claim("nlpo", "supervised")]),
    ("suprl_gt_sup_auto", "Supervised+RL > Supervised (auto)?",
     [Claim("supervised_ppo", "supervised"), Claim("supervised_nlpo", "supervised")]),
    ("supnlpo_gt_supppo_auto", "Supervised+NLPO > Supervised+PPO (auto)?", [Claim("supervised_nlpo", "supervised_ppo")]),
]
HUMAN_QUESTIONS: list[tuple[str, str]] = [
    ("rl_gt_sup_human", "RL > Supervised (human)?"),
    ("suprl_gt_sup_human", "Supervised+RL > Supervised (human)?"),
    ("supnlpo_gt_supppo_human", "Supervised+NLPO > Supervised+PPO (human)?"),
]


def _values(group: pd.DataFrame, raw: pd.DataFrame, algo: str, measure: str) -> list[float]:
    rows = group[group["algo"] == algo]
    if measure != "reward":
        return list(rows[measure].dropna())
    if rows.empty:
        return []
    reward, setting = rows["reward"].iloc[0], rows["setting"].iloc[0]
    picked = raw[(raw["algo"] == algo) & (raw["metric"] == reward) & (raw["reward"] == reward) & (raw["setting"] == setting)]
    if not picked.empty:  # lower-is-better rewards (TER) are negated so that "up" always means better
        sign = 1.0 if bool(picked["higher_is_better"].iloc[0]) else -1.0
        return [sign * v for v in picked["value"]]
    return list(rows["task_score"].dropna())  # the reward is no single metric: its task score stands in


def _side(algo: str, mean: float, n: int, present: frozenset[str]) -> str:
    if n:
        return f"{algo} {mean:.4f} (n={n})"
    return f"{algo}: no value reported" if algo in present else f"{algo}: no runs"


def _evidence(claim: Claim, test: Welch, p_adj: float, present: frozenset[str] = frozenset()) -> str:
    """One comparison's line; `present`: the algorithms with runs on the task (the others read 'no runs', those
    whose runs lack the measure, e.g. a naturalness score with no metric available, 'no value reported')."""
    head = (f"{_side(claim.better, test.mean_a, test.n_a, present)} vs "
            f"{_side(claim.worse, test.mean_b, test.n_b, present)} on {claim.measure}")
    if not test.testable:
        return f"{head}: {NOT_TESTABLE}" if not (test.n_a and test.n_b) else f"{head}: {test.reason}"
    return f"{head}: diff {test.diff:+.4f}, t={test.t:.2f}, p={test.p:.3g}, Holm p={p_adj:.3g}"


def _evidence_text(answer: str, outcomes: list[tuple[Claim, Welch, float]], present: frozenset[str] = frozenset()) -> str:
    """Each comparison behind an answer; none for an untestable one, whose detail already says what is missing."""
    return "" if answer == NOT_TESTABLE else " | ".join(_evidence(c, t, p, present) for c, t, p in outcomes)


def _needs(outcomes: list[tuple[Claim, Welch, float]]) -> str:
    """What a question lacks, e.g. 'needs Supervised+PPO and PPO runs, 2+ seeds each (PPO has 1)'."""
    short: dict[str, int] = {}
    for claim, test, _ in outcomes:
        for algo, n in ((claim.better, test.n_a), (claim.worse, test.n_b)):
            if n < 2:
                short[algo] = n
    if not short:
        return "; ".join(sorted({t.reason for _, t, _ in outcomes}))
    names = [algo_label(a) for a in sorted(short, key=algo_rank)]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    have = ", ".join(f"{algo_label(a)} has {n}" for a, n in sorted(short.items(), key=lambda kv: algo_rank(kv[0])) if n)
    return f"needs {listed} runs, 2+ seeds each" + (f" ({have})" if have else "")


def _answer(outcomes: list[tuple[Claim, Welch, float]], hack: bool) -> tuple[str, str]:
    tested = [(c, t, p) for c, t, p in outcomes if t.testable and math.isfinite(p)]
    if not tested:
        return NOT_TESTABLE, _needs(outcomes)
    holds = {id(c) for c, t, p in tested if p < ALPHA and t.diff > 0}
    reversed_ = [c for c, t, p in tested if p < ALPHA and t.diff < 0]
    if hack:  # both halves (reward up, naturalness down) must hold for the same algorithm
        pairs = [outcomes[i:i + 2] for i in range(0, len(outcomes), 2)]
        hacked = [a[0].better for a, b in pairs if id(a[0]) in holds and id(b[0]) in holds]
        return ("yes", f"hacked by {', '.join(hacked)}") if hacked else ("no", "no algorithm shows both halves significantly")
    if holds and not reversed_:
        return "yes", f"{len(holds)} of {len(tested)} tested comparison(s) significant"
    if reversed_:
        return "no", "the reverse is significant: " + ", ".join(f"{c.worse} > {c.better}" for c in reversed_)
    return "no", "no significant difference"


def answer_questions(picked: pd.DataFrame, raw_seeds: pd.DataFrame, every: pd.DataFrame | None = None) -> pd.DataFrame:
    """Answers per (profile, task) from per-seed scores of the selected entries (`picked`); `every` holds the
    per-seed scores of every entry (build.py's seed_scores), from which the critic question takes each critic
    kind's PPO row and every critic-free row (without it, only the selected entries)."""
    every = picked if every is None else every
    paper = paper_table2()["answers"]
    rows = []
    for (profile, task), group in picked.groupby(["profile", "task"], sort=True):
        split = group["split"].iloc[0]
        raw = raw_seeds[(raw_seeds["profile"] == profile) & (raw_seeds["task"] == task) & (raw_seeds["split"] == split)]
        entries = every[(every["profile"] == profile) & (every["task"] == task)]
        critic = critic_questions(entries, group, raw)
        present = frozenset(group["algo"])
        paper_task = task in grue_tasks()  # Table 2's questions concern the paper's tasks; the critic's, any task
        tests = [(qid, claim, welch(_values(group, raw, claim.better, claim.measure),
                                    _values(group, raw, claim.worse, claim.measure)))
                 for qid, _, claims in (QUESTIONS if paper_task else ()) for claim in claims]
        tests += [(question_id(q.kind), c, welch(c.critic.scores, c.rival.scores)) for q in critic for c in q.comparisons]
        adjusted = holm([t.p for _, _, t in tests])  # one family: Table 2's claims and every critic comparison
        for qid, text, claims in QUESTIONS if paper_task else ():
            outcomes = [(c, t, p) for (q, c, t), p in zip(tests, adjusted) if q == qid]
            answer, detail = _answer(outcomes, hack=qid == "reward_hackable")
            rows.append({"profile": profile, "task": task, "question_id": qid, "question": text, "answer": answer,
                         "detail": detail, "evidence": _evidence_text(answer, outcomes, present),
                         "paper_answer": paper.get(qid, {}).get(task)})
        for question in critic:
            qid = question_id(question.kind)
            outcomes = [(c, t, p) for (q, c, t), p in zip(tests, adjusted) if q == qid]
            answer, detail = critic_answer(question, outcomes, ALPHA)
            claims = [(Claim(c.critic.name, c.rival.name), t, p) for c, t, p in outcomes]
            rows.append({"profile": profile, "task": task, "question_id": qid, "question": question_text(question.kind),
                         "answer": answer, "detail": detail, "evidence": _evidence_text(answer, claims, present),
                         "paper_answer": None})
        for qid, text in HUMAN_QUESTIONS if paper_task else ():
            rows.append({"profile": profile, "task": task, "question_id": qid, "question": text,
                         "answer": "not answerable", "detail": "needs human ratings, not runs", "evidence": "",
                         "paper_answer": paper.get(qid, {}).get(task)})
    return pd.DataFrame(rows, columns=QUESTION_COLUMNS)
