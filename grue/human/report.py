"""`grue human report`: a study's statistics, optionally after the paper's rater-qualification
filter, as Markdown, a standalone HTML page and JSON.

Ratings: the per-system table (summary.py), one-way ANOVA per axis and Tukey HSD for every pair.
Comparisons: win rates by majority and by single judgment with a binomial test. Both: each
rater's workload, attention checks passed and median time per item, and who was filtered out.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape

from grue.human.frame import choices_frame, ratings_frame
from grue.human.pairwise import win_rates
from grue.human.qualification import Rules, attention_checks, is_gold, unqualified
from grue.human.pvalue import format_p
from grue.human.significance import Anova, anova, tukey
from grue.human.study import Study
from grue.human.summary import summarise


@dataclass
class Report:
    study: Study
    excluded: dict[str, list[str]]
    raters: pd.DataFrame
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    anova: dict[str, Anova] = field(default_factory=dict)
    tukey: dict[str, pd.DataFrame] = field(default_factory=dict)
    wins: pd.DataFrame = field(default_factory=pd.DataFrame)

    @property
    def systems(self) -> list[str]:
        return sorted({self.study.system_label(s) for s in self.study.systems})


def _rater_table(frame: pd.DataFrame, kind: str) -> pd.DataFrame:
    """Per rater: judged items, attention checks seen and passed, median seconds per item."""
    gold = is_gold(frame, kind)
    per_item = frame.drop_duplicates(["rater", "item"])
    per_item_gold = gold.loc[per_item.index]
    table = pd.DataFrame({
        "items": per_item[~per_item_gold].groupby("rater").size(),
        "checks": per_item[per_item_gold].groupby("rater").size(),
        "checks_passed": attention_checks(frame, kind).groupby(level="rater").sum(),
        "median_seconds": per_item.groupby("rater")["seconds"].median(),
    }).fillna({"items": 0, "checks": 0, "checks_passed": 0})
    return table.astype({"items": int, "checks": int, "checks_passed": int}).rename_axis("rater").reset_index()


def build_report(study: Study, qualify: bool = False, rules: Rules = Rules(), level: str = "interval") -> Report:
    """The study's statistics; with `qualify`, raters breaking the paper's rules are left out of them."""
    frame = ratings_frame(study) if study.kind == "ratings" else choices_frame(study)
    excluded = unqualified(frame, study.kind, rules) if qualify else {}
    report = Report(study, excluded, _rater_table(frame, study.kind))
    judged = frame[~is_gold(frame, study.kind) & ~frame["rater"].isin(excluded)]
    if study.kind == "ratings":
        report.summary = summarise(judged, study.axes, level, study.scale)
        for axis in study.axes:
            on_axis = judged[judged["axis"] == axis]
            report.anova[axis] = anova(on_axis)
            report.tukey[axis] = tukey(on_axis)
    else:
        report.wins = win_rates(judged, report.systems)
    return report


P_COLUMNS = {"p_adj", "p_value"}


def _fmt(value) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "—"
        return f"{value:.1e}" if 0 < abs(value) < 0.001 else f"{value:.3f}"
    return str(value)


def _p_cell(value) -> str:
    return format_p(value) if isinstance(value, float) else _fmt(value)


def _cell(column: str, value) -> str:
    return _p_cell(value) if column in P_COLUMNS else _fmt(value)


def _markdown_table(frame: pd.DataFrame) -> str:
    if frame.empty:
        return "(no data)\n"
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(_cell(c, v) for c, v in zip(frame.columns, row)) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _heading(report: Report) -> str:
    study = report.study
    systems = ", ".join(f"{study.system_label(s)} ({info['run']})" for s, info in study.systems.items())
    return (f"{study.kind} study, task {study.task}, {len(study.judged_items())} judged items, "
            f"{study.raters_per_item} raters per item. Systems: {systems}.")


def render_markdown(report: Report) -> str:
    parts = [f"# Human study report: {report.study.root.name}\n", _heading(report) + "\n", "## Raters\n",
             _markdown_table(report.raters)]
    if report.excluded:
        parts.append("Left out by the qualification rules: " + "; ".join(
            f"{rater} ({', '.join(reasons)})" for rater, reasons in sorted(report.excluded.items())) + "\n")
    if report.study.kind == "ratings":
        parts += ["## Per system and axis\n", _markdown_table(report.summary)]
        for axis, result in report.anova.items():
            parts.append(f"## {axis}: one-way ANOVA F = {_fmt(result.f)}, p = {_p_cell(result.p)} "
                         f"({result.groups} systems, {result.n} ratings); Tukey HSD (meandiff = group2 - group1)\n")
            parts.append(_markdown_table(report.tukey[axis]))
    else:
        parts += ["## Win rates (two-sided binomial test against 50:50)\n", _markdown_table(report.wins)]
    return "\n".join(parts)


def render_html(report: Report) -> str:
    env = Environment(loader=PackageLoader("grue.human", "templates"), autoescape=select_autoescape())
    env.filters["fmt"] = _fmt
    env.globals.update(cell=_cell, zip=zip)
    env.filters["pfmt"] = _p_cell
    return env.get_template("report.html").render(report=report, heading=_heading(report))


def to_json(report: Report) -> dict:
    """Plain data for other tools (NaN becomes None)."""
    def records(frame: pd.DataFrame) -> list[dict]:
        return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
                for row in frame.to_dict(orient="records")]

    return {"study": str(report.study.root), "kind": report.study.kind, "task": report.study.task,
            "excluded": report.excluded, "raters": records(report.raters), "summary": records(report.summary),
            "anova": {axis: vars(result) for axis, result in report.anova.items()},
            "tukey": {axis: records(table) for axis, table in report.tukey.items()}, "wins": records(report.wins)}
