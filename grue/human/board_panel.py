"""The leaderboard's human section, built from ratings studies: Figure 2 (c)-(d), the per-algorithm
human scores beside the paper's published ones, and Table 2's human rows answered from the studies.
The board calls `human_section(study_dirs)` and places its Markdown, HTML and figure.

The paper's numbers count only raters who passed its qualification, so by default the studies' rows
do too (`qualify`: the report's rules, attention checks first), and the page says which was applied."""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from html import escape
from pathlib import Path

import pandas as pd

from grue.board.task_info import algo_label, algo_rank
from grue.human.figure import figure2_human
from grue.human.questions import answer_questions
from grue.human.scores import human_scores, paper_human_scores
from grue.human.study import load_study

HUMAN_PAGE = "human.html"
FIGURE = "human_figure2.png"
TABLE_COLUMNS = ["source", "task", "algorithm", "axis", "mean", "95% interval", "n", "raters", "alpha"]


@dataclass(frozen=True)
class HumanSection:
    scores: pd.DataFrame  # this board's studies and the paper's rows, display-ready
    questions: pd.DataFrame
    figure_png: bytes | None
    qualified: bool = True  # raters failing the qualification rules were left out


def _who(section: HumanSection) -> str:
    return ("Only raters who pass the study's qualification rules (attention checks, reading time, agreement; "
            "docs/human.md) are counted, as in the paper." if section.qualified else
            "Every rater is counted (qualification not applied), unlike the paper's qualified numbers.")


def _display(frame: pd.DataFrame) -> pd.DataFrame:
    def interval(row) -> str:
        return "" if math.isnan(row["ci_low"]) else f"{row['ci_low']:.2f}-{row['ci_high']:.2f}"

    frame = frame.assign(rank=frame["algo"].map(algo_rank), is_paper=frame["source"].str.startswith("paper"))
    frame = frame.sort_values(["task", "is_paper", "rank", "algo", "axis"])  # the studies first, then the paper
    return pd.DataFrame({
        "source": frame["source"], "task": frame["task"], "algorithm": frame["algo"].map(algo_label),
        "axis": frame["axis"], "mean": frame["mean"].map(lambda v: f"{v:.2f}"),
        "95% interval": frame.apply(interval, axis=1), "n": frame["n"].astype(int), "raters": frame["raters"],
        "alpha": frame["alpha"].map(lambda v: "" if math.isnan(v) else f"{v:.3f}")}, columns=TABLE_COLUMNS)


def human_section(study_dirs: Iterable[Path | str], qualify: bool = True) -> HumanSection:
    """Everything the board shows about human studies; the paper's rows only for the studied tasks."""
    dirs = list(study_dirs)
    ours = human_scores(dirs, qualify)
    paper = paper_human_scores()
    paper = paper[paper["task"].isin(set(ours["task"]))]
    studies = [load_study(d) for d in dirs]
    questions = [answer_questions(s, qualify) for s in studies if s.kind == "ratings"]
    return HumanSection(_display(pd.concat([ours, paper], ignore_index=True)) if not ours.empty else _display(ours),
                        pd.concat(questions, ignore_index=True) if questions else pd.DataFrame(),
                        figure2_human(ours, paper) if not ours.empty else None, qualify)


def _md_table(frame: pd.DataFrame) -> str:
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def section_markdown(section: HumanSection, figure_name: str = FIGURE) -> str:
    parts = ["## Human studies", "", "Mean ratings (1-5) per algorithm and axis; the paper's published studies "
             f"as reference rows. {_who(section)}", "", _md_table(section.scores), ""]
    if not section.questions.empty:
        parts += ["### Table 2, human rows (Tukey HSD on the study's ratings)", "",
                  _md_table(section.questions[["task", "question", "answer", "paper_answer", "evidence"]]), ""]
    if section.figure_png is not None:
        parts += [f"![Figure 2 (c)-(d) from human studies]({figure_name})", ""]
    return "\n".join(parts)


def section_html(section: HumanSection, figure_name: str = FIGURE) -> str:
    def table(frame: pd.DataFrame, id_: str) -> str:
        head = "".join(f"<th>{escape(str(c))}</th>" for c in frame.columns)
        body = "".join(
            ('<tr class="ref">' if str(row[0]).startswith("paper") else "<tr>")  # reference rows, as the board marks them
            + "".join(f"<td>{escape(str(v))}</td>" for v in row) + "</tr>" for row in frame.itertuples(index=False))
        return f'<table id="{id_}" class="sortable"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'

    parts = ['<section id="human"><h2>Human studies</h2>',
             "<p>Mean ratings (1-5) per algorithm and axis; the paper's published studies as reference rows. "
             f"{escape(_who(section))}</p>",
             table(section.scores, "human-scores")]
    if section.figure_png is not None:
        parts.append(f'<img src="{figure_name}" alt="Figure 2 (c)-(d) from human studies">')
    if not section.questions.empty:
        parts += ["<h3>Table 2, human rows (Tukey HSD on the study's ratings)</h3>",
                  table(section.questions[["task", "question", "answer", "paper_answer", "evidence"]], "human-questions")]
    parts.append("</section>")
    return "\n".join(parts)


def write_section(section: HumanSection, out: Path, nav: list[tuple[str, str]] | None = None) -> list[Path]:
    """Write human.md, human.html (a page in the board site's style, with `nav` links) and the figure
    into `out`; returns the paths."""
    from grue.board.render.html import page
    from grue.storage.atomic import atomic_write_text

    out.mkdir(parents=True, exist_ok=True)
    nav = nav or [("Overview", "index.html"), ("Human studies", HUMAN_PAGE)]
    written = [out / "human.md", out / HUMAN_PAGE]
    atomic_write_text(written[0], section_markdown(section))
    atomic_write_text(written[1], page("GRUE leaderboard", "Human studies", nav, HUMAN_PAGE, section_html(section)))
    if section.figure_png is not None:
        written.append(out / FIGURE)
        written[-1].write_bytes(section.figure_png)
    return written
