"""`grue demo` (what `make demo` runs): IMDB on the mini profile, zero-shot and PPO, then the board.

PPO rather than NLPO: at the paper's mask settings NLPO samples almost exactly as PPO does (README,
NLPO), so the demo spends its minutes on the comparison that shows a difference: the mini PPO preset
raised test sentiment over zero-shot by 3-7 standard errors on each of three seeds
(tasks/imdb.py, `scripts/measure_imdb_mini.py`).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Sequence

from grue.runtime.console import clock, console
from grue.storage.run_layout import results_file

DEMO_ALGOS = ("zero_shot", "ppo")
# Measured by the demo itself on 2 idle cores with an empty GRUE_CACHE: done in 7:16 (zero_shot 2:40 of which
# 1:42 training the classifier, ppo 4:34). `grue demo` prints these phase times at its end.
EXPECTED = ("about 8 minutes the first time on 2 idle cores (building the mini assets ~2 min, zero-shot ~1 min, "
            "PPO ~5 min); other jobs on the cores slow every phase; finished runs are reused when run again")
NEXT_COMMANDS = (
    ("grue sweep task=imdb profile=mini algo=zero_shot,ppo,nlpo seed=0,1,2", "three seeds each, resumable cell by cell"),
    ("grue leaderboard export runs={out} format=md,html out={out}/leaderboard", "the board with seeds and significance"),
    ("grue config task=imdb profile=mini algo=ppo --origins", "every setting of a run and where it came from"),
)


def _headline(run_dir: Path, metric: str, split: str = "test") -> float:
    import json

    return float(json.loads(results_file(run_dir).read_text())["metrics"][split][metric])


def _one_seed_block(runs: dict[str, Path]) -> list[str]:
    """What one seed can and cannot show: the paired per-prompt difference and its standard error."""
    from grue.board.numbers.paired import paired, prompt_scores

    base, trained = prompt_scores(runs["zero_shot"], "test", "sentiment"), prompt_scores(runs["ppo"], "test", "sentiment")
    _, gain, se = paired(trained, base)
    z = gain / se if se > 0 else float("nan")
    return [f"PPO against Zero-Shot on the same {len(base)} test prompts: sentiment {gain:+.3f} ± {se:.3f} "
            f"(paired per prompt, z = {z:.1f}).",
            "That is one training run per algorithm: it says how sure the difference is for these two runs, not "
            "for the algorithms. Another seed can move a gain of this size; seeds 0,1,2 (the sweep below) and the "
            "board's Welch tests tell the algorithm from the run."]


def demo_command(extra: Sequence[str]) -> None:
    from grue.board.export import export_board
    from grue.config import load_config
    from grue.config.read_groups import without_unread
    from grue.run.runner import Run

    out = "runs"
    for arg in extra:
        if arg.startswith("output_dir="):
            out = arg.split("=", 1)[1]
    console.print(f"[bold]grue demo[/]: {EXPECTED}. IMDB on the mini profile: {' and '.join(DEMO_ALGOS)}, then the board.",
                  highlight=False)
    started, runs, phases = time.monotonic(), {}, []
    for algo in DEMO_ALGOS:
        # one command line for both runs: a PPO setting means nothing to the zero-shot run, which drops it
        args = without_unread(["task=imdb", "profile=mini", f"algo={algo}", "seed=0", *extra], algo)
        cfg = load_config(args)
        console.print(f"\n[bold]== grue run {' '.join(args)}[/]", soft_wrap=True)
        phase = time.monotonic()
        runs[algo] = Run(cfg, args).execute()
        phases.append(f"{algo} {clock(time.monotonic() - phase)}")
    board_dir = Path(out) / "leaderboard"
    export_board([Path(out)], board_dir, ("md", "csv", "json", "html"))
    _closing(runs, board_dir, out, phases, time.monotonic() - started)


def results_lines(runs: dict[str, Path]) -> list[str]:
    """The closing table: one short line per run (under 50 columns, so it never wraps at 80)."""
    lines = [f"  {'algorithm':<12}{'sentiment ↑':>12}{'perplexity ↓':>14}"]
    for algo, run_dir in runs.items():
        lines.append(f"  {algo:<12}{_headline(run_dir, 'sentiment'):>12.3f}{_headline(run_dir, 'perplexity'):>14.1f}")
    return lines


def _closing(runs: dict[str, Path], board_dir: Path, out: str, phases: list[str], seconds: float) -> None:
    # Sentences wrap at the console's width (80 in a piped log); paths and commands never break (they are
    # copied), and the results table is narrow enough not to need it.
    say = lambda text="": console.print(text, highlight=False)  # noqa: E731
    whole = lambda text: console.print(text, soft_wrap=True, highlight=False)  # noqa: E731
    say("\n[bold]== Results[/] (test split, profile mini: not comparable to the paper)")
    for line in results_lines(runs):
        whole(line)
    for line in _one_seed_block(runs):
        say(line)
    say("\n[bold]== Where everything is[/]")
    for algo, run_dir in runs.items():
        whole(f"  {run_dir}/")
        say(f"      {algo}: config.yaml, results.json, predictions/, logs/{', model/' if (run_dir / 'model').is_dir() else ''}")
    whole(f"  {board_dir}/leaderboard.md, .csv, .json")
    say("      the tables")
    whole(f"  {board_dir}/site/index.html")
    say("      the board as a web page (open it in a browser)")
    say("\n[bold]== Next[/]")
    for command, why in NEXT_COMMANDS:
        whole(f"  {command.format(out=out)}")
        say(f"      {why}")
    say(f"\nDone in {clock(seconds)} ({', '.join(phases)}).")
