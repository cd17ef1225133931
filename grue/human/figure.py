"""Figure 2 (c)-(d) from human studies: per task, one bar per algorithm with its 95% interval,
(c) the task axis and (d) coherence; the paper's published means as black diamonds where the
paper rated the same algorithm. Colours and order are the leaderboard's."""
from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import pandas as pd  # noqa: E402

from grue.board.task_info import algo_colour  # noqa: E402
from grue.board.task_info import algo_label, algo_rank  # noqa: E402
from grue.human.protocol import SCALE  # noqa: E402

PANELS = (("task", "(c) human task rating"), ("naturalness", "(d) human naturalness (coherence)"))


def figure2_human(scores: pd.DataFrame, paper: pd.DataFrame) -> bytes:
    """PNG bytes of the two panels for the tasks the studies cover."""
    tasks = sorted(scores["task"].unique())
    algos = sorted(scores["algo"].unique(), key=algo_rank)
    fig, axes = plt.subplots(2, 1, figsize=(max(5.0, 1.6 * len(tasks) + 3), 6.4), sharex=True)
    width = 0.8 / max(1, len(algos))
    for ax, (role, title) in zip(axes, PANELS):
        ours, theirs = scores[scores["role"] == role], paper[paper["role"] == role]
        paper_labelled = False
        for i, algo in enumerate(algos):
            for j, task in enumerate(tasks):
                x = j + (i - (len(algos) - 1) / 2) * width
                row = ours[(ours["task"] == task) & (ours["algo"] == algo)]
                if not row.empty:
                    r = row.iloc[0]
                    ax.bar(x, r["mean"], width, color=algo_colour(algo),
                           yerr=[[r["mean"] - r["ci_low"]], [r["ci_high"] - r["mean"]]], capsize=3,
                           label=algo_label(algo) if j == 0 else None)
                ref = theirs[(theirs["task"] == task) & (theirs["algo"] == algo)]
                if not ref.empty:
                    ax.plot(x, ref.iloc[0]["mean"], "D", color="black", ms=5,
                            label=None if paper_labelled else "paper's mean")
                    paper_labelled = True
        ax.set_xticks(range(len(tasks)), tasks)
        ax.set_ylim(*SCALE)
        ax.set_title(title, fontsize=10, loc="left")
        ax.set_ylabel("mean rating (1-5)")
        ax.grid(axis="y", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    axes[0].legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()
