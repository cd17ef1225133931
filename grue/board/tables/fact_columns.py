"""The comparison columns of a task table: each RL row's critic and KL regulariser, and which rows did not
spend PPO's generated tokens.

A referee reads a row's score only beside what it was trained under (DESIGN.md section 4, the comparison
contract): the critic (`shared` trunk, `separate`, or `none` for a critic-free method) and the regulariser
(grue/train/regulariser.py's description) come from each run's recorded config (board aggregate columns
`critic`, `regulariser`); they show only when some row of the table records one. The note under the table
names every RL row whose mean training tokens lie outside 2 % of its PPO row's (PPO for methods trained
from the initial model, Supervised+PPO for warm-started ones, NLPO for the masked ones), as a ratio, since
those rows are not compared at equal tokens.
"""
from __future__ import annotations

import math

import pandas as pd

from grue.board.numbers.budget import TOKEN_TOLERANCE, at_equal_tokens, tokens_ratio_text
from grue.board.tables.table import Column
from grue.board.task_info import algo_label

# Text columns after the metrics: a referee's context for each row, placed last so that at 1280 px the
# task and naturalness metrics stay in view (tests/board/test_board_layout.py).
FACT_COLUMNS: list[Column] = [Column("critic", "Critic", numeric=False), Column("regulariser", "Regulariser", numeric=False)]
FACT_NOTE = ("Critic: shared = a value head on the policy's own trunk (model.value_model=shared: PPO's value loss "
             "also trains the policy), separate = a value model of its own, none = a critic-free method; "
             "Regulariser: where the KL term sits (reward or loss), its estimator (k1, k3) and its coefficient "
             "rule (adaptive to a target from an initial beta, or fixed), read from each run's recorded config.")


def fact_columns(frame: pd.DataFrame) -> list[Column]:
    """The fact columns some run row of `frame` (aggregate rows of one table) records."""
    ours = frame[frame["source"] == "runs"] if "source" in frame else frame
    return [c for c in FACT_COLUMNS if c.key in ours and (ours[c.key].fillna("") != "").any()]


def fact_labels(group: pd.DataFrame, columns: list[Column], source: str) -> dict[str, str]:
    """One row's fact labels ('' for the paper's rows and where a fact does not apply)."""
    if source != "runs":
        return {c.key: "" for c in columns}
    return {c.key: str(group[c.key].iloc[0]) if isinstance(group[c.key].iloc[0], str) else "" for c in columns}


def reference_algo(algo: str) -> str | None:
    """The PPO row an RL method's tokens are held to: PPO, Supervised+PPO (warm-started) or NLPO (masked)."""
    from grue.train.registry import find_algorithm

    entry = find_algorithm(algo)
    if entry is None or entry.trains != "rl":
        return None
    if "nlpo" in entry.reads:
        return "supervised_nlpo" if entry.warm_start == "supervised" else "nlpo"
    return "supervised_ppo" if entry.warm_start == "supervised" else "ppo"


def token_note(frame: pd.DataFrame) -> str:
    """'' when every RL row with recorded tokens is within 2 % of its PPO row's, else the rows that are not."""
    ours = frame[frame["source"] == "runs"] if "source" in frame else frame
    if "train_generated_tokens" not in ours or ours.empty:
        return ""
    rows = ours.drop_duplicates(["profile", "algo", "setting", "reward", "init_model"])
    failing = []
    for record in rows.itertuples(index=False):
        reference = reference_algo(record.algo)
        if reference is None or reference == record.algo or not math.isfinite(record.train_generated_tokens):
            continue
        theirs = rows[(rows["algo"] == reference) & (rows["profile"] == record.profile)]["train_generated_tokens"]
        if theirs.dropna().empty:
            continue
        tokens = float(theirs.dropna().mean())
        if not at_equal_tokens(record.train_generated_tokens, tokens):
            label = algo_label(record.algo) + (f" [{record.setting_label}]" if record.setting_label else "")
            failing.append(f"{label} ({tokens_ratio_text(record.train_generated_tokens, tokens, algo_label(reference))})")
    if not failing:
        return ""
    return (f"Not at equal generated tokens (within {TOKEN_TOLERANCE:.0%} of its PPO row's mean train tokens): "
            + ", ".join(failing) + "; compare these rows' scores with that in mind.")


def comparisons_note(frame: pd.DataFrame) -> str:
    """What each preference (DPO) row of `frame` trained on: where its comparisons came from, how many answers
    by which labeler, and each file's digest (one per seed where grue made each seed's file); '' without one."""
    ours = frame[frame["source"] == "runs"] if "source" in frame else frame
    if "comparisons" not in ours:
        return ""
    rows = ours[ours["comparisons"].fillna("") != ""].drop_duplicates(["profile", "algo", "setting"])
    parts = []
    for record in rows.itertuples(index=False):
        label = algo_label(record.algo) + (f" [{record.setting_label}]" if record.setting_label else "")
        digests = f" (sha256 {record.comparisons_sha256.replace('; ', ', ')})" if record.comparisons_sha256 else ""
        parts.append(f"{label}: {record.comparisons}{digests}")
    if not parts:
        return ""
    return ("Comparisons each preference row trained on (results.json comparisons): `made` = grue made them with "
            "the task's own reward as labeler (dpo.comparisons=auto, one file per seed), else the user's file by "
            "name; then the answers, their labeler and each file's SHA-256: " + "; ".join(parts) + ".")
