"""Matplotlib figures for the site: the paper's Figure 2 bars and Figure 4 learning curves.

Rendered off-screen (Agg) to PNG bytes, so the site needs no plotting library in the browser and
works offline. Colours are fixed per algorithm, so an algorithm looks the same on every page.
"""
from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
import pandas as pd  # noqa: E402

from grue.board.metric_info import direction, metric_labels  # noqa: E402
from grue.board.task_info import algo_colour, grue_tasks, naturalness_metrics, task_metrics  # noqa: E402
from grue.board.task_info import algo_label, algo_rank  # noqa: E402
from grue.board.numbers.reward_kl import arm_label  # noqa: E402


LINE_STYLES: tuple[str, ...] = ("-", "--", ":", "-.")
# a label schedule's line on the budget figure: (line style, marker); dashed lines are the levels'
SCHEDULE_STYLES: dict[str, tuple[str, str]] = {"offline": ("-", "o"), "batched": (":", "s"), "online": ("-.", "^")}


def _png(fig: plt.Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return buffer.getvalue()


def figure2(overall: pd.DataFrame, tasks: list[str], title: str) -> bytes:
    """Grouped bars per task: (a) task-preference score, (b) naturalness score, one bar per algorithm."""
    algos = sorted(overall["algo"], key=algo_rank)
    fig, axes = plt.subplots(2, 1, figsize=(max(5.0, 1.25 * len(tasks) + 2.5), 6.4), sharex=True)
    width = 0.8 / max(1, len(algos))
    for ax, (suffix, name) in zip(axes, (("task", "(a) task preference"), ("naturalness", "(b) naturalness"))):
        for i, algo in enumerate(algos):
            row = overall[overall["algo"] == algo].iloc[0]
            values = [row.get(f"{t}:{suffix}", math.nan) for t in tasks]
            xs = [j + (i - (len(algos) - 1) / 2) * width for j in range(len(tasks))]
            ax.bar(xs, [0 if not math.isfinite(v) else v for v in values], width, label=algo_label(algo),
                   color=algo_colour(algo))
        ax.set_xticks(range(len(tasks)), tasks, rotation=15)
        ax.set_ylim(0, 1)
        ax.set_title(name, fontsize=10, loc="left")
        ax.set_ylabel("score (1 = best)")
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    fig.suptitle(title, fontsize=10)
    return _png(fig)


def _draw_band(ax: plt.Axes, frame: pd.DataFrame, x: str, label_keys: list[str]) -> None:
    seen: dict[str, int] = {}  # an algorithm's colour is fixed, so its settings/rewards differ by line style
    for key, line in frame.groupby(label_keys, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        algo = key[0]
        style = LINE_STYLES[seen.get(algo, 0) % len(LINE_STYLES)]
        seen[algo] = seen.get(algo, 0) + 1
        line = line.sort_values(x)
        label = algo_label(algo) + (f" ({', '.join(str(k) for k in key[1:] if k)})" if any(key[1:]) else "")
        colour = algo_colour(algo)
        xs, mean = line[x].astype(float).to_numpy(), line["mean"].astype(float).to_numpy()
        std = line["std"].astype(float).fillna(0).to_numpy()
        if len(line) == 1:  # a zero-shot run has one evaluation: a point with its ±1 std bar, not a line
            ax.errorbar(xs, mean, yerr=std, label=label, color=colour, fmt="o", ms=5, capsize=3)
            continue
        ax.plot(xs, mean, label=label, color=colour, lw=1.4, ls=style, marker="o" if len(line) == 2 else None, ms=4)
        ax.fill_between(xs, mean - std, mean + std, color=colour, alpha=0.2, lw=0)


def _single_x(ax: plt.Axes, values: pd.Series) -> None:
    """A panel whose points all sit at one x gets that x as its only tick, not an axis from -0.04 to 0.04."""
    xs = set(values.astype(float))
    if len(xs) == 1:
        x = xs.pop()
        ax.set_xticks([x])
        ax.set_xlim(x - 1, x + 1)


def curve_metrics(task: str, logged: set[str]) -> list[str]:
    """The validation metrics drawn as curves: Figure 4 draws a GRUE task's first task metric; a task of the
    user's own has every task metric drawn (its own python: metric was missing from the curves: issue 47);
    then the naturalness metrics. Only metrics the runs logged."""
    own = task_metrics(task) if task not in grue_tasks() else task_metrics(task)[:1]
    return [m for m in dict.fromkeys(own + naturalness_metrics(task)) if m in logged]


def curves_figure(train: pd.DataFrame, evals: pd.DataFrame, task: str) -> bytes | None:
    """Figure 4 style: episodic reward vs tokens, then validation metrics vs iteration (mean ± 1 std)."""
    metrics = curve_metrics(task, set(evals.get("metric", [])))
    titles = metric_labels(metrics)
    panels = (["reward"] if not train.empty else []) + metrics
    if not panels:
        return None
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.2), squeeze=False)
    keys = ["algo", "reward", "setting_label"]
    for ax, panel in zip(axes[0], panels):
        if panel == "reward":
            data = train.sort_values("algo", key=lambda s: s.map(algo_rank))
            _draw_band(ax, data, "tokens", keys)
            _single_x(ax, data["tokens"])
            ax.set_xlabel("tokens generated (env steps)")
            ax.set_title("training reward (rollout mean)")
        else:
            data = evals[evals["metric"] == panel].sort_values("algo", key=lambda s: s.map(algo_rank))
            _draw_band(ax, data, "iteration", keys)
            _single_x(ax, data["iteration"])
            ax.set_xlabel("iteration")
            arrow = {True: " ↑", False: " ↓", None: ""}[direction(panel)]
            ax.set_title(f"val {titles[panel]}{arrow}")
        ax.grid(alpha=0.3)
    # beside the panels, not on them: long setting labels would cover the last panel's lines
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    return _png(fig)


LEVEL_DASHES = ["--", ":", "-.", (0, (5, 1, 1, 1, 1, 1))]


def level_label(level: pd.Series) -> str:
    """A reference level's legend entry: the algorithm, the oracle reward it was trained on (two oracle
    arms of one algorithm differ only there), its setting and its seeds."""
    name = algo_label(level["algo"]) + (f" on the oracle ({level['reward']})" if level["reward"] else "")
    name += f" ({level['setting_label']})" if level["setting_label"] else ""
    return f"{name}, {int(level['n'])} seed(s)"


def budget_figure(points: pd.DataFrame, levels: pd.DataFrame, metric: str, split: str) -> bytes | None:
    """The label-budget curve: (a) the oracle metric of RL on a learned reward against the comparisons
    it used, one line per label schedule, beside the levels of zero-shot and RL on the oracle itself;
    (b) the reward model's held-out accuracy against the same budgets. Mean ± 1 std over seeds."""
    if points.empty:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(9.6, 3.4))
    oracle_ax, accuracy_ax = axes
    for (algo, schedule), line in points.groupby(["algo", "schedule"], sort=True):
        line = line.sort_values("labels")
        label = f"{algo_label(algo)} on learned reward ({schedule})"
        ls, marker = SCHEDULE_STYLES.get(schedule, ("-", "o"))
        style = dict(color=algo_colour(algo), ls=ls, marker=marker, ms=5)
        oracle_ax.errorbar(line["labels"], line["mean"], yerr=line["std"].fillna(0), label=label, capsize=3, **style)
        accuracy_ax.plot(line["labels"], line["rm_accuracy"], label=label, **style)
    for i, (_, level) in enumerate(levels.iterrows()):
        # one algorithm's levels share a colour, so the dash pattern tells e.g. P(positive) from its
        # standardised form apart
        oracle_ax.axhline(level["mean"], color=algo_colour(level["algo"]), ls=LEVEL_DASHES[i % len(LEVEL_DASHES)],
                          lw=1, label=level_label(level))
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(sorted(set(points["labels"])), [str(v) for v in sorted(set(points["labels"]))])
        ax.minorticks_off()
        ax.set_xlabel("comparisons labelled")
        ax.grid(alpha=0.3)
    arrow = {True: " ↑", False: " ↓", None: ""}[direction(metric)]
    oracle_ax.set_title(f"{split} {metric}{arrow} (the oracle)")
    accuracy_ax.set_title("reward model held-out accuracy")
    oracle_ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(2.25, 1.0), frameon=False)
    return _png(fig)


def reward_kl_figure(arms: pd.DataFrame, metric: str, split: str) -> bytes | None:
    """Each arm of the label-budget study as one point: the oracle metric against the KL per episode at the
    end of RL (nats), mean ± 1 std over seeds both ways. Arms without a recorded KL are not drawn (the
    table beside it lists them). None when no RL arm has a KL (zero-shot's, 0 by definition, is no view)."""
    drawn = arms[arms["kl_episode"].notna() & arms["mean"].notna()]
    if (drawn["kind"] == "zero_shot").all():
        return None
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    oracle_markers = iter(("s", "P", "X", "*", "p", "h") * len(drawn))  # one per oracle arm (e.g. two reward scales)
    for _, arm in drawn.iterrows():
        marker = ({"zero_shot": "D"}.get(arm["kind"]) or (next(oracle_markers) if arm["kind"] == "oracle" else
                  SCHEDULE_STYLES.get(arm["schedule"], ("-", "o"))[1]))
        seeds = f"{int(arm['n'])} seed(s)" + (f", KL from {int(arm['kl_seeds'])}"
                                             if arm["kind"] != "zero_shot" and arm["kl_seeds"] < arm["n"] else "")
        ax.errorbar(arm["kl_episode"], arm["mean"], xerr=0 if math.isnan(arm["kl_episode_std"]) else arm["kl_episode_std"],
                    yerr=0 if math.isnan(arm["std"]) else arm["std"], fmt=marker, color=algo_colour(arm["algo"]),
                    mfc="white" if arm["kind"] == "learned" else None, ms=6, capsize=3,
                    label=f"{arm_label(arm)}, {seeds}")
        if arm["kind"] == "learned":
            ax.annotate(str(int(arm["labels"])), (arm["kl_episode"], arm["mean"]), textcoords="offset points",
                        xytext=(5, 4), fontsize=7)
    arrow = {True: " ↑", False: " ↓", None: ""}[direction(metric)]
    ax.set_xlabel("KL per episode at the end of RL (nats)")
    ax.set_ylabel(f"{split} {metric}{arrow} (the oracle)")
    ax.set_title("oracle reward against KL to the reference")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
    return _png(fig)
