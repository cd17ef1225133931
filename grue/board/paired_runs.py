"""`grue compare runA runB` on two run directories: the paired per-prompt difference of every metric.

Two runs scored on the same prompts answer "is B better than A?" with one seed each, where a comparison
of seed means cannot (one seed per side is "not testable"): pairing each prompt's score in B with the
same prompt's score in A leaves out how hard the prompt was, so what varies is the methods' difference
alone. For each metric with per-prompt values (a run's `predictions/<split>.jsonl` `scores`): the mean of
B - A over the prompts both runs scored, its standard error (sd / sqrt(n)) and n, a two-sided paired
t-test, Holm-corrected over every paired line of the report. Metrics with a corpus value only (BLEU,
distinct-n, perplexity...) have nothing to pair: they are listed as "corpus-level: unpaired" with both
values. The runs must share a split and, in it, prompts (same ids, same prompt text); else one error line.
"""
from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from grue.errors import GrueUserError
from grue.storage.run_layout import RESULTS, predictions_file

ALPHA = 0.05
SPLIT_ORDER = ("val", "test")


class NotPaired(GrueUserError, ValueError):
    """Two runs whose prompts cannot be paired (no shared split or prompt, a prompt id with other text)."""


def is_run_dir(spec: str) -> bool:
    """A run's own directory (its results.json inside), or that results.json itself."""
    path = Path(spec)
    return (path.is_dir() and (path / RESULTS).is_file()) or (path.is_file() and path.name == RESULTS)


@dataclass(frozen=True)
class Run:
    path: Path
    doc: dict[str, Any]

    @property
    def label(self) -> str:
        facts = [str(self.doc.get(k)) for k in ("task", "algo") if self.doc.get(k) is not None]
        seed = self.doc.get("seed")
        return f"{self.path} ({', '.join(facts + ([f'seed {seed}'] if seed is not None else []))})"

    def metrics(self, split: str) -> dict[str, Any]:
        return (self.doc.get("metrics") or {}).get(split) or {}

    def direction(self, metric: str) -> Optional[bool]:
        value = (self.doc.get("higher_is_better") or {}).get(metric)
        return value if isinstance(value, bool) else None


def load_run(spec: str) -> Run:
    path = Path(spec)
    path = path.parent if path.is_file() else path
    try:
        doc = json.loads((path / RESULTS).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise NotPaired(f"{path / RESULTS} is not a JSON results file ({err})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("metrics"), dict):
        raise NotPaired(f"{path / RESULTS} has no 'metrics' object: not a finished run's results file")
    return Run(path, doc)


def _number(value: Any) -> Optional[float]:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if ok else None


def direction_of(a: Run, b: Run, metric: str) -> Optional[bool]:
    """Whether higher is better, as either run's results file declares it (None: no direction)."""
    return a.direction(metric) if a.direction(metric) is not None else b.direction(metric)


def _rows(run: Run, split: str) -> dict[str, dict[str, Any]]:
    """The split's prediction records by id (checked as any predictions file is: the file is data)."""
    from grue.commands.predictions import read_predictions

    path = predictions_file(run.path, split)
    if not path.is_file():
        raise NotPaired(f"{run.path} reports the {split} split but has no {path.relative_to(run.path)}: "
                        "nothing to pair per prompt")
    return {row["id"]: row for row in read_predictions(path)}


@dataclass(frozen=True)
class Paired:
    """B - A of one metric over the prompts both runs scored."""

    metric: str
    higher_is_better: Optional[bool]
    mean_a: float
    mean_b: float
    diff: float
    se: float      # NaN below two pairs
    n: int
    p: float       # two-sided paired t-test; NaN below two pairs


def paired_stats(metric: str, a: list[float], b: list[float], higher_is_better: Optional[bool]) -> Paired:
    from scipy import stats

    diffs = [y - x for x, y in zip(a, b)]
    n = len(diffs)
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(n) if n > 1 else math.nan
    if n < 2:
        p = math.nan
    elif se == 0:  # every prompt moved by the same amount: certain, or no change at all
        p = 1.0 if mean == 0 else 0.0
    else:
        p = float(2 * stats.t.sf(abs(mean / se), n - 1))
    return Paired(metric, higher_is_better, statistics.fmean(a), statistics.fmean(b), mean, se, n, p)


@dataclass
class SplitComparison:
    split: str
    shared: int
    n_a: int
    n_b: int
    paired: list[Paired]
    unpaired: list[tuple[str, Any, Any]]  # corpus-level metric, A's value, B's value
    one_side: list[str]                   # metrics only one run reports


def compare_split(a: Run, b: Run, split: str) -> SplitComparison:
    rows_a, rows_b = _rows(a, split), _rows(b, split)
    shared = [i for i in rows_a if i in rows_b]
    if not shared:
        raise NotPaired(f"the two runs share no prompt of the {split} split ({len(rows_a)} and {len(rows_b)} "
                        "prompts, no id in common): a paired comparison needs the same prompts")
    for i in shared:
        if rows_a[i].get("prompt") != rows_b[i].get("prompt"):
            raise NotPaired(f"prompt {i!r} of the {split} split reads differently in the two runs (other data or "
                            "prompt format): a paired comparison needs the same prompts")
    metrics_a, metrics_b = a.metrics(split), b.metrics(split)
    paired, unpaired = [], []
    for metric in [m for m in metrics_a if m in metrics_b]:
        pairs = [(x, y) for i in shared
                 if (x := _number((rows_a[i].get("scores") or {}).get(metric))) is not None
                 and (y := _number((rows_b[i].get("scores") or {}).get(metric))) is not None]
        if pairs:
            values_a, values_b = [x for x, _ in pairs], [y for _, y in pairs]
            paired.append(paired_stats(metric, values_a, values_b, direction_of(a, b, metric)))
        else:
            unpaired.append((metric, metrics_a[metric], metrics_b[metric]))
    one_side = sorted(set(metrics_a) ^ set(metrics_b))
    return SplitComparison(split, len(shared), len(rows_a), len(rows_b), paired, unpaired, one_side)


def shared_splits(a: Run, b: Run, only: Optional[str] = None) -> list[str]:
    splits_a, splits_b = set(a.doc["metrics"]), set(b.doc["metrics"])
    common = sorted(splits_a & splits_b, key=lambda s: (SPLIT_ORDER.index(s) if s in SPLIT_ORDER else 9, s))
    if only is not None:
        if only not in common:
            raise NotPaired(f"--split {only}: A reports {', '.join(sorted(splits_a)) or 'no split'}, B "
                            f"{', '.join(sorted(splits_b)) or 'no split'}; pick a split both report")
        return [only]
    if not common:
        raise NotPaired(f"the runs report different splits (A: {', '.join(sorted(splits_a)) or 'none'}; B: "
                        f"{', '.join(sorted(splits_b)) or 'none'}): a paired comparison needs the same prompts")
    return common


@dataclass
class RunComparison:
    a: Run
    b: Run
    splits: list[SplitComparison]

    def holm(self) -> dict[tuple[str, str], float]:
        """Holm-corrected p of every paired line of the report, by (split, metric)."""
        from grue.board.numbers.stats import holm

        keys = [(c.split, p.metric) for c in self.splits for p in c.paired]
        return dict(zip(keys, holm([p.p for c in self.splits for p in c.paired])))


def compare_runs(spec_a: str, spec_b: str, split: Optional[str] = None) -> RunComparison:
    """Every split both runs report, compared prompt by prompt; NotPaired when nothing can be paired."""
    a, b = load_run(spec_a), load_run(spec_b)
    if a.doc.get("task") != b.doc.get("task"):
        raise NotPaired(f"the runs are of different tasks ({a.doc.get('task')} vs {b.doc.get('task')}): "
                        "a paired comparison needs the same prompts")
    return RunComparison(a, b, [compare_split(a, b, s) for s in shared_splits(a, b, split)])


def verdict(line: Paired, p_holm: float) -> str:
    if not math.isfinite(p_holm):
        return "not testable (fewer than two prompts)"
    if p_holm >= ALPHA:
        return "no significant difference"
    if line.higher_is_better is None:
        return "B higher (no better direction)" if line.diff > 0 else "A higher (no better direction)"
    return "B better" if (line.diff > 0) == line.higher_is_better else "A better"


def _g(x: Any, sign: str = "") -> str:
    number = _number(x)
    return "–" if number is None else f"{number:{sign}.4g}"


def _prompts(n: int) -> str:
    return f"{n} prompt" if n == 1 else f"{n} prompts"


def _split_verdict(split: SplitComparison, verdicts: dict[str, str]) -> str:
    """The one line a reader takes away from a split: which side is better on which metrics."""
    parts = []
    for side in ("B better", "A better", "B higher (no better direction)", "A higher (no better direction)"):
        names = [m for m, v in verdicts.items() if v == side]
        if names:
            parts.append(f"{side} on {', '.join(names)}")
    rest = sum(v == "no significant difference" for v in verdicts.values())
    if rest:
        parts.append(f"no significant difference on {rest} of {len(verdicts)} paired metric(s)")
    untested = sum(v.startswith("not testable") for v in verdicts.values())
    if untested:
        parts.append(f"{untested} not testable (fewer than two prompts)")
    return f"**Verdict ({split.split}, {_prompts(split.shared)}):** " + ("; ".join(parts) or "no metric to pair") + "."


def paired_report(result: RunComparison) -> str:
    """Markdown: per split, every metric's paired B - A (mean ± se, n, Holm p, verdict), the corpus-level
    metrics unpaired, and a one-line verdict."""
    lines = ["# grue compare: paired by prompt", "", f"- A: {result.a.label}", f"- B: {result.b.label}",
             "- Per prompt both runs scored: B − A; its mean ± standard error (sd/√n) over the n prompts; "
             f"two-sided paired t-test, p Holm-corrected over every paired line below; α = {ALPHA}."]
    p_holm = result.holm()
    for split in result.splits:
        subset = "" if split.shared == split.n_a == split.n_b else f" (A has {split.n_a}, B {split.n_b})"
        lines += ["", f"## {split.split} split: {_prompts(split.shared)} shared{subset}", "",
                  "| metric | A | B | B − A (mean ± se) | n | Holm p | verdict |",
                  "|---|---:|---:|---:|---:|---:|---|"]
        verdicts = {}
        for line in split.paired:
            arrow = {True: " ↑", False: " ↓"}.get(line.higher_is_better, "")
            p = p_holm[(split.split, line.metric)]
            verdicts[line.metric] = verdict(line, p)
            lines.append(f"| {line.metric}{arrow} | {_g(line.mean_a)} | {_g(line.mean_b)} | {_g(line.diff, '+')} ± "
                         f"{_g(line.se)} | {line.n} | {_g(p)} | {verdicts[line.metric]} |")
        for metric, value_a, value_b in split.unpaired:
            arrow = {True: " ↑", False: " ↓"}.get(direction_of(result.a, result.b, metric), "")
            lines.append(f"| {metric}{arrow} | {_g(value_a)} | {_g(value_b)} | corpus-level: unpaired | | | |")
        if split.one_side:
            lines += ["", f"_Reported by one run only: {', '.join(split.one_side)}._"]
        lines += ["", _split_verdict(split, verdicts)]
    return "\n".join(lines) + "\n"
