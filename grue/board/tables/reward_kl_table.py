"""The label-budget panel's reward-vs-KL table: each arm's oracle score beside how far it moved from the
reference (grue.board.numbers.reward_kl), so arms are compared at controlled KL as Ziegler et al. do."""
from __future__ import annotations

import math

import pandas as pd

from grue.board.metric_info import direction
from grue.board.numbers.reward_kl import arm_label
from grue.board.tables.table import Cell, Column, Row, Table

NOT_RECORDED = "not recorded"


def _kl_cell(arm: pd.Series, key: str, std_key: str | None = None) -> Cell | str:
    if arm["kind"] == "zero_shot":
        return Cell(0.0, tooltip="zero-shot is the reference itself")
    value = arm[key]
    if not math.isfinite(value):
        return NOT_RECORDED
    std = arm[std_key] if std_key else math.nan
    return Cell(float(value), float(std), n=int(arm["kl_seeds"]))


def reward_kl_table(arms: pd.DataFrame, metric: str, split: str, profile: str) -> Table:
    """One row per arm of `arms` (one profile's rows of reward_kl_arms)."""
    table = Table(f"Oracle reward against KL — profile {profile}",
                  [Column("arm", "Arm", numeric=False), Column("seeds", "Seeds")],
                  [Column("oracle", f"{split} {metric}", direction(metric)),
                   Column("kl_episode", "KL/episode, last iteration (nats)"),
                   Column("kl_episode_mean", "KL/episode, mean over iterations"),
                   Column("kl_token", "KL/token, last iteration"),
                   Column("kl_seeds", "Seeds with KL")], anchor=f"reward-kl-{profile}")
    for _, arm in arms.iterrows():
        rl = arm["kind"] != "zero_shot"
        table.rows.append(Row({"arm": arm_label(arm), "seeds": str(int(arm["n"]))},
                              {"oracle": Cell(float(arm["mean"]), float(arm["std"]), n=int(arm["n"])),
                               "kl_episode": _kl_cell(arm, "kl_episode", "kl_episode_std"),
                               "kl_episode_mean": _kl_cell(arm, "kl_episode_mean"),
                               "kl_token": _kl_cell(arm, "kl_token"),
                               "kl_seeds": str(int(arm["kl_seeds"])) if rl else "—"}))
    table.notes.append("KL: results.json's training_kl, the per-token log-ratio to the reference; per episode it "
                       "is summed over an episode's generated tokens (nats, Ziegler's unit), per token averaged "
                       "over the tokens. Mean ± std over the seeds that recorded it. Zero-shot is the reference "
                       "(KL 0). Compare oracle scores at similar KL.")
    missing = [arm_label(a) for _, a in arms.iterrows() if a["kind"] != "zero_shot" and not math.isfinite(a["kl_episode"])]
    if missing:
        table.notes.append(f"{NOT_RECORDED}: runs written before results.json recorded training_kl, left off the "
                           f"figure: {'; '.join(missing)}.")
    partial = [arm_label(a) for _, a in arms.iterrows() if a["kind"] != "zero_shot" and 0 < a["kl_seeds"] < a["n"]]
    if partial:
        table.notes.append(f"KL from fewer seeds than the score (older runs without training_kl): {'; '.join(partial)}.")
    return table
