"""Compare two result sets metric by metric: difference, significance, and which side is better.

A side is a directory of runs, an exported `leaderboard.json`, or `paper` (the published rows).
Rows are matched on task, algorithm, split and metric, and on the reward when both name one
(spelling-insensitive: "rouge_avg" = "Rouge-Avg"); when one side has a single reward for the pair
it is used and the mismatch noted. Each matched metric gets Welch's test from the two sides'
mean, std and seed count, Holm-corrected over the whole report; a side without a std or with
fewer than two seeds makes the line "not testable", and it still shows the difference. Rows of
one algorithm in different settings (kl.target=0.1 vs null) stay apart and are matched to the
other side's row of the same setting label when it has one. A corpus count (unique_n) grows with
the number of samples scored, so it gets no verdict unless both sides scored the same number.
The paper's rows come on grue's split and scale (reference.py), so no line subtracts a percentage
from a fraction.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd

from grue.errors import GrueUserError
from grue.board.numbers.aggregate import aggregate, seed_frame
from grue.board.numbers.collect import collect
from grue.board.metric_info import COUNT_METRICS, direction, metric_order
from grue.board.numbers.reference import PAPER, reference_frame
from grue.board.numbers.stats import Welch, holm, verdict, welch_from_stats
from grue.board.tables.table import fmt_count

COMPARE_COLUMNS: list[str] = ["task", "algo", "split", "metric", "higher_is_better", "reward_a", "reward_b",
                              "setting_a", "setting_b", "profile_a", "profile_b", "mean_a", "std_a", "n_a", "mean_b",
                              "std_b", "n_b", "diff", "t", "p", "p_holm", "verdict", "note"]
OPTIONAL_COLUMNS: dict[str, object] = {"setting": "", "setting_label": "", "n_samples": math.nan}  # older exports lack them


def load_side(spec: str) -> tuple[pd.DataFrame, str]:
    """A side's aggregate rows and a description of where they came from."""
    if spec == PAPER:
        return reference_frame(), "the paper's published numbers (leaderboard/paper_results.json)"
    path = Path(spec)
    if path.is_file() and path.suffix == ".json":
        rows = pd.DataFrame(json.loads(path.read_text(encoding="utf-8"))["rows"])
        rows["reward"] = rows["reward"].fillna("")
        rows = rows.assign(**{k: v for k, v in OPTIONAL_COLUMNS.items() if k not in rows})
        rows[["setting", "setting_label"]] = rows[["setting", "setting_label"]].fillna("")
        for column in ("mean", "std", "n", "n_samples"):
            rows[column] = pd.to_numeric(rows[column], errors="coerce")
        if "source" in rows:
            rows = rows[rows["source"].fillna("runs") == "runs"]
        return rows, f"exported board {path}"
    found = collect([path])
    skipped = f", {len(found.skipped)} skipped" if found.skipped else ""
    return aggregate(seed_frame(found.runs)), f"{len(found.runs)} run(s) under {path}{skipped}"


def norm_reward(reward: object) -> str:
    return re.sub(r"[^a-z0-9]", "", str(reward or "").lower())


def _pairs(a: pd.DataFrame, b: pd.DataFrame) -> list[tuple[pd.Series, pd.Series, str]]:
    out = []
    b_groups = {k: g for k, g in b.groupby(["task", "algo", "split", "metric"], sort=False)}
    for ra in a.itertuples(index=False):
        candidates = b_groups.get((ra.task, ra.algo, ra.split, ra.metric))
        if candidates is None:
            continue
        same = candidates[[norm_reward(r) == norm_reward(ra.reward) for r in candidates["reward"]]]
        note = ""
        if same.empty and candidates["reward"].nunique() == 1:
            same, note = candidates, f"rewards differ ({ra.reward or '—'} vs {candidates['reward'].iloc[0] or '—'})"
        same_setting = same[same["setting_label"] == ra.setting_label]
        if not same_setting.empty:
            same = same_setting
        for rb in same.itertuples(index=False):
            out.append((ra, rb, note))
    return out


def _sizes_differ(metric: str, size_a: float, size_b: float) -> str:
    """Why a corpus count cannot be compared ('' when it can): counts grow with the samples scored."""
    if metric not in COUNT_METRICS:
        return ""
    if not (math.isfinite(size_a) and math.isfinite(size_b)):
        return "not comparable: a corpus count, and a side's number of samples is unknown"
    if size_a != size_b:
        return f"not comparable: a corpus count over {size_a:.0f} vs {size_b:.0f} samples"
    return ""


def compare_frames(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Matched metrics of two aggregates with difference, Welch test, Holm p and verdict."""
    rows = []
    for ra, rb, note in _pairs(a, b):
        test = welch_from_stats(ra.mean, ra.std, ra.n, rb.mean, rb.std, rb.n)
        if not test.testable and (not math.isfinite(ra.n) or not math.isfinite(rb.n)):
            test = replace(test, reason="not testable: a side's seed count is not published")
        sizes = _sizes_differ(ra.metric, ra.n_samples, rb.n_samples)
        if sizes:  # out of the Holm family: it is no test at all
            test = replace(test, t=math.nan, dof=math.nan, p=math.nan, reason=sizes)
        rows.append({"task": ra.task, "algo": ra.algo, "split": ra.split, "metric": ra.metric,
                     "higher_is_better": direction(ra.metric, {ra.metric: bool(ra.higher_is_better)}),
                     "reward_a": ra.reward, "reward_b": rb.reward, "setting_a": ra.setting_label,
                     "setting_b": rb.setting_label,
                     "profile_a": ra.profile, "profile_b": rb.profile, "mean_a": ra.mean, "std_a": ra.std, "n_a": ra.n,
                     "mean_b": rb.mean, "std_b": rb.std, "n_b": rb.n, "diff": ra.mean - rb.mean, "t": test.t,
                     "p": test.p, "welch": test, "note": note})
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=COMPARE_COLUMNS)
    frame["p_holm"] = holm(list(frame["p"]))
    frame["verdict"] = [_verdict(r.welch, r.p_holm, r.higher_is_better) for r in frame.itertuples()]
    return frame[COMPARE_COLUMNS]


def _verdict(test: Welch, p_holm: float, higher_is_better: bool | None) -> str:
    """'A better' / 'B better' / no difference; a metric without a better direction only says which is higher."""
    if higher_is_better is None:
        names = {"a better": "A higher (no better direction)", "b better": "B higher (no better direction)"}
    else:
        names = {"a better": "A better", "b better": "B better"}
    text = verdict(test, p_holm, True if higher_is_better is None else higher_is_better)
    return names.get(text, text)


SUMMARY_BUCKETS: tuple[str, ...] = ("A better", "B better", "no significant difference", "no better direction",
                                    "not comparable", "not testable")


def _bucket(text: str) -> str:
    if text in SUMMARY_BUCKETS:
        return text
    if "no better direction" in text:
        return "no better direction"
    return "not comparable" if text.startswith("not comparable") else "not testable"


def _fmt(x: float, sign: str = "") -> str:
    """4 significant digits, but counts (unique_2 ~ 47620) in full rather than in e-notation."""
    if x is None or not math.isfinite(x):
        return "–"
    return f"{x:{sign}.0f}" if abs(x) >= 1000 else f"{x:{sign}.4g}"


def _side(mean: float, std: float, n: float, count: bool) -> str:
    """'0.6021 ± 0.012 (n=5)'; a corpus count as an integer (table.fmt_count)."""
    spread = f" ± {fmt_count(std, spread=True) if count else _fmt(std)}" if math.isfinite(std) else ""
    seeds = f" (n={int(n)})" if math.isfinite(n) else " (n=?)"
    return f"{fmt_count(mean) if count else _fmt(mean)}{spread}{seeds}"


def report(result: pd.DataFrame, desc_a: str, desc_b: str) -> str:
    """A readable Markdown report: header, warnings, a table per task, a summary line."""
    lines = ["# grue compare", "", f"- A: {desc_a}", f"- B: {desc_b}"]
    if result.empty:
        return "\n".join(lines + ["", "No metric matched on task, algorithm, split and reward."]) + "\n"
    profiles = sorted(set(result["profile_a"]) | set(result["profile_b"]))
    if len(profiles) > 1:
        lines.append(f"- Warning: profiles differ ({', '.join(profiles)}); the mini profile is not comparable to the paper "
                     "in absolute terms, so read the differences as orientation, not as a reproduction check.")
    lines.append("- Welch's t-test from mean, std and seed count per side; p Holm-corrected over every line below; α = 0.05.")
    for (task, algo, split, setting_a, setting_b), group in result.groupby(
            ["task", "algo", "split", "setting_a", "setting_b"], sort=True):
        rewards = f"reward {group['reward_a'].iloc[0] or '—'} vs {group['reward_b'].iloc[0] or '—'}"
        if setting_a or setting_b:
            rewards += f"; setting {setting_a or '—'} vs {setting_b or '—'}"
        lines += ["", f"## {task} / {algo} ({split}; {rewards})", "",
                  "| metric | A | B | A − B | Holm p | verdict |", "|---|---:|---:|---:|---:|---|"]
        order = metric_order(task, set(group["metric"]))
        for r in group.sort_values("metric", key=lambda m: m.map(order.index)).itertuples():
            arrow = {True: " ↑", False: " ↓"}.get(r.higher_is_better, "")
            lines.append(f"| {r.metric}{arrow} | {_side(r.mean_a, r.std_a, r.n_a, r.metric in COUNT_METRICS)} | "
                         f"{_side(r.mean_b, r.std_b, r.n_b, r.metric in COUNT_METRICS)} | "
                         f"{_fmt(r.diff, '+')} | {_fmt(r.p_holm)} | {r.verdict} |")
        notes = sorted({n for n in group["note"] if n})
        lines += [f"_{n}_" for n in notes]
    counts = result["verdict"].map(_bucket).value_counts()
    summary = ", ".join(f"{counts[k]} {k}" for k in SUMMARY_BUCKETS if k in counts)
    lines += ["", f"**Summary over {len(result)} metric(s):** {summary}."]
    return "\n".join(lines) + "\n"


def compare_sources(a: str, b: str) -> tuple[pd.DataFrame, str]:
    """Load both sides, compare them and return the frame and the Markdown report."""
    frame_a, desc_a = load_side(a)
    frame_b, desc_b = load_side(b)
    result = compare_frames(frame_a, frame_b)
    return result, report(result, desc_a, desc_b)


class RowNotFound(GrueUserError, ValueError):
    """A row name (or task) that the runs do not hold; the message names the valid ones on one line."""


def pick_rows(runs_dir: str, a: str, b: str, task: str | None = None):
    """The two named rows of one task under `runs_dir` (row_differences.py names them), or RowNotFound."""
    from grue.board.numbers.row_differences import board_rows, row_catalogue, row_names

    by_task = board_rows(collect([Path(runs_dir)]).runs)
    if task is not None and task not in by_task:
        raise RowNotFound(f"task {task!r} has no runs under {runs_dir}; tasks there: {', '.join(sorted(by_task)) or 'none'}")
    tasks = [task] if task is not None else [t for t in sorted(by_task)
                                             if {a, b} <= set(row_names(by_task[t]))]
    if len(tasks) > 1:
        raise RowNotFound(f"rows {a!r} and {b!r} are on several tasks ({', '.join(tasks)}); add --task <one of them>")
    if not tasks:  # name the rows of the task the names come closest to
        near = [t for t in sorted(by_task) if {a, b} & set(row_names(by_task[t]))] or sorted(by_task)
        if not near:
            raise RowNotFound(f"{runs_dir} holds no finished runs; nothing to compare")
        tasks = near[:1]
    names = row_names(by_task[tasks[0]])
    for name in (a, b):
        if name not in names:
            raise RowNotFound(f"no row {name!r} on {tasks[0]}; valid rows: {row_catalogue(by_task[tasks[0]])}")
    if a == b:
        raise RowNotFound(f"--rows names {a!r} twice; give two different rows of {tasks[0]}")
    return names[a], names[b]


def rows_report(row_a, row_b, name_a: str, name_b: str) -> str:
    """Markdown: what differs between two rows of one task (facts always, then the differing config keys)."""
    from grue.board.numbers.row_differences import differences

    lines = ["# grue compare --rows", "", f"- A: `{name_a}`, {row_a.describe()}",
             f"- B: `{name_b}`, {row_b.describe()}", f"- task: {row_a.task}", "",
             "| | A | B | differs |", "|---|---|---|---|"]
    found = differences(row_a, row_b)
    for line in found:
        cells = [text.replace("|", "\\|") for text in (line.what, line.a, line.b)]
        lines.append(f"| {' | '.join(cells)} | {'≠' if line.differs else ''} |")
    if row_a.config is None or row_b.config is None:
        lines += ["", "_A row records no config (results.json `config`): its config keys cannot be compared._"]
    lines += ["", "_Facts: critic (model.value_model, none for a critic-free method), KL regulariser, samples per "
              "prompt, epochs per rollout, mean train tokens (B as a ratio of A), seeds. Then every config key that "
              "differs in the groups either algorithm reads; '(not read)': that algorithm does not read the group._"]
    return "\n".join(lines) + "\n"
