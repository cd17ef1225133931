"""The console of every command and the live progress of long work: one bar, with the numbers a researcher
watches. It sits in the runtime layer so that assets, rewards, training and commands all print through it
without reaching up into the run layer.

On a terminal it is a rich progress bar. Piped into a log (nohup, a scheduler, CI) a bar would print
nothing until it finishes and then one line cut at the console's width, so there it is plain lines
instead: one when a step starts, then one every `LINE_INTERVAL_S` seconds (or at every step of a
short bar: iterations, epochs), and one when it ends, each with elapsed time, an estimate of the time
left and the bar's numbers. Long lines wrap rather than being cut.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Iterator, Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

console = Console(stderr=True)
LINE_INTERVAL_S = 30.0  # at most one progress line this often in a piped log (a long evaluation)
EVERY_STEP_UP_TO = 50   # bars with at most this many steps (iterations, epochs) print every step


class Bar(Protocol):
    def advance(self, n: int = 1, info: str | None = None) -> None: ...


def _progress() -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[info]}"),
                    console=console, transient=False)


@contextmanager
def progress_bar(description: str, total: int, completed: int = 0) -> Iterator[Bar]:
    if not console.is_terminal:
        bar = LineBar(description, total, completed)
        yield bar
        bar.finish()
        return
    with _progress() as progress:
        task_id = progress.add_task(description, total=total, completed=completed, info="")
        yield RichBar(progress, task_id)


class RichBar:
    def __init__(self, progress: Progress, task_id: int) -> None:
        self.progress, self.task_id = progress, task_id

    def advance(self, n: int = 1, info: str | None = None) -> None:
        fields = {} if info is None else {"info": info}
        self.progress.update(self.task_id, advance=n, **fields)


def clock(seconds: float) -> str:
    """0:42, 12:05, 1:02:03."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class LineBar:
    """Progress as plain lines for logs (see the module docstring for when a line is printed)."""

    def __init__(self, description: str, total: int, completed: int = 0, interval_s: float = LINE_INTERVAL_S,
                 now=time.monotonic) -> None:
        self.description, self.total, self.done, self.start_done = description, total, completed, completed
        self.interval_s, self.now = interval_s, now
        self.started = self.last_line = now()
        self.info = ""
        self._print(f"{description}: started ({completed}/{total})" if completed else f"{description}: started")

    def _print(self, text: str) -> None:
        console.out(f"[grue] {text}", highlight=False)  # no markup, never cut at the console's width

    def line(self) -> str:
        elapsed = self.now() - self.started
        text = f"{self.description}: {self.done}/{self.total}, {clock(elapsed)} elapsed"
        steps = self.done - self.start_done
        if 0 < steps and self.done < self.total:
            text += f", ~{clock(elapsed / steps * (self.total - self.done))} left"
        return text + (f"  {self.info}" if self.info else "")

    def advance(self, n: int = 1, info: str | None = None) -> None:
        self.done += n
        if info is not None:
            self.info = info
        due = self.total <= EVERY_STEP_UP_TO or self.now() - self.last_line >= self.interval_s
        if due and self.done < self.total:
            self._print(self.line())
            self.last_line = self.now()

    def finish(self) -> None:
        self._print(self.line().replace(f"{self.done}/{self.total}, ", f"{self.done}/{self.total} done, ", 1))


def tenths(total: int, say: Callable[[str], None], what: str) -> Callable[[int], None]:
    """A `progress(done)` that says "<what>: done/total" as the count passes each tenth of `total`, for
    long work done in many small chunks before a run's bar starts (sampling a thousand queries, scoring
    DPO's answers under the reference): minutes of it, where a line per chunk would bury the log."""
    next_tenth = 1

    def report(done: int) -> None:
        nonlocal next_tenth
        if total > 0 and done * 10 >= next_tenth * total:
            say(f"{what}: {done}/{total}")
            next_tenth = done * 10 // total + 1
    return report
