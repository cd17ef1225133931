"""The board's question beside the paper's Table 2: "Is the critic worth its cost?", asked once per critic.

PPO keeps a value model; the critic-free methods (GRPO, RLOO, REINFORCE++ and REINFORCE++-baseline: the
registry's unmasked `critic_free` entries) spend the same generated tokens without one. Which critic PPO
had decides what the question means, so it is asked separately of each kind the board's PPO rows record
(results.json `config.model.value_model`, grue/board/numbers/run_facts.py):
- `shared`: a value head on the policy's own trunk, so PPO's value loss also trains the policy's trunk;
- `separate`: a value model of its own (the paper's).
One answer per kind; a side never mixes the two kinds. Each side is one PPO row (PPO from the initial model,
Supervised+PPO from the supervised run): the row the board selected for it when that row has the kind,
else the kind's row with the best validation task score (the board's own selection rule, within the kind).

A critic-free row of the same start is a candidate when it is comparable under the comparison contract
(DESIGN.md section 4): its mean training tokens within 2 % of the PPO row's (budget.py), the same KL
regulariser (grue/train/regulariser.py; a row whose config records none is kept and said so), 2+ seeds.
Every candidate faces PPO in its own Welch test over seeds, inside the task's Holm family with the Table 2
claims (questions.py). No candidate is picked first: picking the best one on the same data and testing it
alone would let "the reverse is significant" through more often than alpha. So each verdict holds at the
family's level:
- "yes": on some side PPO is significantly better than every candidate, and no candidate is
  significantly better than PPO on any side;
- "no", "the reverse is significant": some candidate is significantly better than PPO;
- "no", "no significant difference": neither;
- "not testable": no candidate, no PPO row, or fewer than two seeds.
The detail names the critic judged, the PPO row's regulariser, every candidate with its Holm-adjusted p,
the rows left out and why (tokens as a ratio of PPO's), and the training seconds of each row.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from grue.board.numbers.aggregate import VARIANT_KEYS
from grue.board.numbers.budget import TOKEN_TOLERANCE, at_equal_tokens, tokens_ratio_text
from grue.board.numbers.run_facts import CRITIC_KINDS, NOT_RECORDED
from grue.board.task_info import algo_label

__all__ = ["TOKEN_TOLERANCE", "QUESTION_ID", "Arm", "CriticComparison", "CriticQuestion", "critic_questions",
           "question_id", "question_text", "needs_text", "critic_answer"]

QUESTION_ID = "critic_worth_cost"
QUESTION = "Is the critic worth its cost? (PPO vs each critic-free method at equal generated tokens)"
SIDES = (("ppo", None), ("supervised_ppo", "supervised"))  # the critic's side and the warm start it shares
KIND_WORDS = {"shared": "shared-trunk critic (model.value_model=shared: PPO's value loss also trains the "
                        "policy's trunk)",
              "separate": "separate critic (model.value_model=separate: a value model of its own)",
              NOT_RECORDED: "critic not recorded (results.json records no model.value_model)"}
ROW_KEYS = ["algo"] + VARIANT_KEYS


@dataclass(frozen=True)
class Arm:
    """One board row of one algorithm on the report split: its per-seed scores and what it spent."""

    algo: str
    variant: tuple
    setting_label: str
    scores: tuple[float, ...]
    tokens: float
    seconds: float
    critic: str
    regulariser: str

    @property
    def name(self) -> str:
        """The algorithm's id, with its setting when the algorithm has several rows ("ppo [kl.target=0.1]")."""
        return self.algo + (f" [{self.setting_label}]" if self.setting_label else "")

    @property
    def label(self) -> str:
        return algo_label(self.algo) + (f" [{self.setting_label}]" if self.setting_label else "")


@dataclass(frozen=True)
class CriticComparison:
    """One claim of the family: `critic` (a PPO row) beats `rival` (a critic-free row) on the score."""

    side: str
    critic: Arm
    rival: Arm


@dataclass
class CriticQuestion:
    """The question for one critic kind: its comparisons and what its detail adds."""

    kind: str
    comparisons: list[CriticComparison] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def question_id(kind: str) -> str:
    return f"{QUESTION_ID}_{kind}" if kind in CRITIC_KINDS else QUESTION_ID


def question_text(kind: str) -> str:
    if kind in CRITIC_KINDS:
        return (f"Is the critic worth its cost? ({'shared-trunk' if kind == 'shared' else 'separate'} critic: "
                "PPO vs each critic-free method at equal generated tokens)")
    return QUESTION


def _critic_free(warm_start: str | None) -> set[str]:
    """The unmasked critic-free methods with this warm start (their masked variants face NLPO, not PPO)."""
    from grue.train.registry import algorithm_names, get_algorithm

    algos = [get_algorithm(name) for name in algorithm_names()]
    return {a.name for a in algos if a.critic_free and a.warm_start == warm_start and "nlpo" not in a.reads}


def _run_facts(raw: pd.DataFrame) -> pd.DataFrame:
    """Per run (row, seed): its recorded tokens, seconds, critic and regulariser (NaN / '' where unrecorded)."""
    keys = ROW_KEYS + ["seed"]
    out = raw.drop_duplicates(keys)[[c for c in keys + ["train_generated_tokens", "train_seconds", "critic",
                                                        "regulariser"] if c in raw]].copy()
    for column, missing in (("train_generated_tokens", math.nan), ("train_seconds", math.nan),
                            ("critic", NOT_RECORDED), ("regulariser", NOT_RECORDED)):
        if column not in out:
            out[column] = missing
    return out


def _mean(values: pd.Series) -> float:
    values = values.dropna()
    return float(values.mean()) if len(values) else math.nan


def _text(values: pd.Series) -> str:
    texts = sorted({str(v) for v in values.dropna() if str(v)})
    return "; ".join(texts) if texts else NOT_RECORDED


def _arms(scores: pd.DataFrame, facts: pd.DataFrame, algos: set[str]) -> list[Arm]:
    """The rows of `algos` in per-seed `scores` (one split), with their costs and facts."""
    arms = []
    rows = scores[scores["algo"].isin(algos)]
    for key, group in rows.groupby(ROW_KEYS, sort=True):
        named = dict(zip(ROW_KEYS, key))
        runs = group[ROW_KEYS + ["seed"]].merge(facts, on=ROW_KEYS + ["seed"], how="left")
        arms.append(Arm(named["algo"], tuple(named[k] for k in VARIANT_KEYS), named["setting_label"],
                        tuple(float(v) for v in group["score"].dropna()), _mean(runs["train_generated_tokens"]),
                        _mean(runs["train_seconds"]), _text(runs["critic"]), _text(runs["regulariser"])))
    return arms


def _validation_score(every: pd.DataFrame, arm: Arm) -> float:
    """The arm's mean validation task score over seeds (the board's selection criterion); -inf without one."""
    rows = every[(every["algo"] == arm.algo) & (every["split"] == "val")]
    for column, value in zip(VARIANT_KEYS, arm.variant):
        rows = rows[rows[column] == value]
    value = _mean(rows["task_score"]) if "task_score" in rows else math.nan
    return value if math.isfinite(value) else -math.inf


def _side_arm(kind_arms: list[Arm], selected: set[tuple], every: pd.DataFrame) -> Arm:
    """The selected row when it has this kind, else the kind's row with the best validation task score."""
    chosen = [a for a in kind_arms if (a.algo, *a.variant) in selected]
    if chosen:
        return chosen[0]
    return max(kind_arms, key=lambda a: (_validation_score(every, a), a.variant))


def _tokens_reason(arm: Arm, rival: Arm) -> str:
    """Why the two rows' tokens do not compare: the ratio, or which side (by name) recorded none. Naming
    the side matters: "GRPO (generated tokens not recorded)" once stood beside a GRPO that had recorded
    1,600 while PPO's file recorded none (issue 47)."""
    unrecorded = [a.label for a in (rival, arm) if not math.isfinite(a.tokens)]
    if not unrecorded:
        return tokens_ratio_text(rival.tokens, arm.tokens, algo_label(arm.algo))
    recorded = f"{rival.tokens:.0f} tokens; " if math.isfinite(rival.tokens) else ""
    return f"{recorded}generated tokens not recorded for {' and '.join(unrecorded)}"


def _why_not(arm: Arm, rival: Arm) -> str:
    """Why `rival` is no candidate against `arm` ('' when it is one): every reason, not the first."""
    reasons = []
    if not at_equal_tokens(rival.tokens, arm.tokens):
        reasons.append(_tokens_reason(arm, rival))
    if NOT_RECORDED not in (arm.regulariser, rival.regulariser) and arm.regulariser != rival.regulariser:
        reasons.append(f"another regulariser: {rival.regulariser}")
    if len(rival.scores) < 2:
        reasons.append(f"{len(rival.scores)} seed(s)")
    return " and ".join(reasons)


def critic_questions(every: pd.DataFrame, picked: pd.DataFrame, raw: pd.DataFrame) -> list[CriticQuestion]:
    """The critic questions of one task: `every` holds per-seed scores of all its rows (all splits), `picked`
    the board's selected rows on the report split, `raw` the per-run metric rows of that split."""
    split = picked["split"].iloc[0] if not picked.empty else None
    on_split = every[every["split"] == split]
    facts = _run_facts(raw)
    selected = {tuple(r) for r in picked[ROW_KEYS].drop_duplicates().itertuples(index=False)}
    questions: dict[str, CriticQuestion] = {}
    for critic, warm_start in SIDES:
        critics = _arms(on_split, facts, {critic})
        rivals = _arms(on_split, facts, _critic_free(warm_start))
        for kind in sorted({a.critic for a in critics}):
            question = questions.setdefault(kind, CriticQuestion(kind))
            arm = _side_arm([a for a in critics if a.critic == kind], selected, every)
            left_out = [(r, why) for r in rivals if (why := _why_not(arm, r))]
            question.comparisons += [CriticComparison(critic, arm, r) for r in rivals if not _why_not(arm, r)]
            question.notes.append(f"{arm.label}: regulariser {arm.regulariser}, {arm.tokens:.0f} tokens"
                                  if math.isfinite(arm.tokens) else
                                  f"{arm.label}: regulariser {arm.regulariser}, generated tokens not recorded")
            if left_out:
                question.notes.append(f"not comparable with {arm.label} (tokens within {TOKEN_TOLERANCE:.0%}, the "
                                      "same regulariser, 2+ seeds): "
                                      + ", ".join(f"{r.label} ({why})" for r, why in left_out))
            tested = [c.rival for c in question.comparisons if c.critic == arm]
            if tested:
                question.notes.append("training seconds " + ", ".join(
                    f"{a.label} {a.seconds:.0f}" if math.isfinite(a.seconds) else f"{a.label} not recorded"
                    for a in [arm, *tested]))
    if not questions:  # no PPO row: asked all the same, to say what it needs
        return [CriticQuestion("")]
    return [questions[k] for k in sorted(questions, key=lambda k: (k not in CRITIC_KINDS, k))]


def needs_text() -> str:
    """What an untestable answer lacks."""
    names = ", ".join(algo_label(a) for a in sorted(_critic_free(None)))
    return (f"needs PPO and a critic-free method ({names}) at equal generated tokens (within "
            f"{TOKEN_TOLERANCE:.0%}, results.json cost.train_generated_tokens) under the same regulariser, "
            "2+ seeds each")


def _p(x: float) -> str:
    return f"{x:.3g}"


def critic_answer(question: CriticQuestion, outcomes: list[tuple[CriticComparison, object, float]],
                  alpha: float) -> tuple[str, str]:
    """Answer and detail from each comparison's Welch test and Holm-adjusted p (see the module docstring)."""
    tested = [(c, t, p) for c, t, p in outcomes if t.testable and math.isfinite(p)]
    notes = "; ".join([w for w in (KIND_WORDS.get(question.kind, ""), *question.notes) if w])
    if not tested:
        return "not testable", "; ".join([needs_text(), *([notes] if notes else [])])
    listed = "candidates tested, Holm-adjusted p: " + ", ".join(
        f"{c.rival.label} vs {c.critic.label} {_p(p)}" for c, t, p in tested)
    reversed_ = [c for c, t, p in tested if p < alpha and t.diff < 0]
    if reversed_:
        return "no", "; ".join(["the reverse is significant: " + ", ".join(
            f"{c.rival.name} > {c.critic.name}" for c in reversed_), listed, notes])
    held = []
    for side in dict.fromkeys(c.side for c, _, _ in outcomes):
        mine = [(c, t, p) for c, t, p in outcomes if c.side == side]
        if all(t.testable and p < alpha and t.diff > 0 for _, t, p in mine):
            held.append(mine[0][0].critic.label)
    if held:
        return "yes", "; ".join([f"{' and '.join(held)} significantly better than every candidate", listed, notes])
    return "no", "; ".join(["no significant difference: PPO is not significantly better than every candidate, "
                            "nor any candidate than PPO", listed, notes])
