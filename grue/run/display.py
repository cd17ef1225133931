"""The live progress display of a run: one bar, with the numbers a researcher watches."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

console = Console(stderr=True)


def _progress() -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[info]}"),
                    console=console, transient=False)


@contextmanager
def progress_bar(description: str, total: int, completed: int = 0) -> Iterator["Bar"]:
    with _progress() as progress:
        task_id = progress.add_task(description, total=total, completed=completed, info="")
        yield Bar(progress, task_id)


class Bar:
    def __init__(self, progress: Progress, task_id: int) -> None:
        self.progress, self.task_id = progress, task_id

    def advance(self, n: int = 1, info: str | None = None) -> None:
        fields = {} if info is None else {"info": info}
        self.progress.update(self.task_id, advance=n, **fields)

    def info(self, text: str) -> None:
        self.progress.update(self.task_id, info=text)


def rl_status(stats: dict, last_val: dict | None) -> str:
    text = (f"reward {stats['reward_mean']:.3f}  KL {stats['kl']:.3f}  beta {stats['next_kl_coef']:.3g}")
    if last_val:
        key = next(iter(last_val))
        text += f"  val {key} {last_val[key]:.3f}"
    return text
