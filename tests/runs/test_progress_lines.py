"""Progress in a piped log: plain lines with elapsed time, never a bar cut at the console's width."""
from __future__ import annotations

from grue.runtime import console as display
from grue.runtime.console import LineBar, clock


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def lines_of(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line]


def test_a_short_bar_prints_every_step_with_elapsed_and_time_left(capsys):
    now = FakeClock()
    bar = LineBar("nlpo imdb", 4, now=now)
    for _ in range(3):
        now.t += 10
        bar.advance(1, "reward 0.612  KL 0.010")
    now.t += 10
    bar.advance(1)
    bar.finish()
    out = lines_of(capsys)
    assert out[0] == "[grue] nlpo imdb: started"
    assert out[1] == "[grue] nlpo imdb: 1/4, 0:10 elapsed, ~0:30 left  reward 0.612  KL 0.010"
    assert out[3] == "[grue] nlpo imdb: 3/4, 0:30 elapsed, ~0:10 left  reward 0.612  KL 0.010"
    assert out[-1].startswith("[grue] nlpo imdb: 4/4 done, 0:40 elapsed") and len(out) == 5


def test_a_long_bar_prints_at_most_one_line_per_interval(capsys):
    now = FakeClock()
    bar = LineBar("evaluating val", 1000, interval_s=30, now=now)
    for _ in range(1000):
        now.t += 0.1  # 100 s in all
        bar.advance()
    bar.finish()
    out = lines_of(capsys)
    assert len(out) == 1 + 3 + 1  # started, at 30/60/90 s, done
    assert "evaluating val: 300/1000, 0:30 elapsed, ~1:10 left" in out[1]


def test_a_resumed_bar_estimates_from_the_steps_it_ran(capsys):
    now = FakeClock()
    bar = LineBar("ppo imdb", 10, completed=8, now=now)
    now.t += 60
    bar.advance()
    assert lines_of(capsys)[-1] == "[grue] ppo imdb: 9/10, 1:00 elapsed, ~1:00 left"


def test_lines_are_not_cut_at_a_narrow_console(capsys, monkeypatch):
    monkeypatch.setattr(display.console, "width", 40)
    bar = LineBar("supervised epoch 1/1", 2, now=FakeClock())
    bar.advance(1, "loss 3.210 " * 8)
    assert any(("loss 3.210 " * 8).strip() in line for line in lines_of(capsys))  # on one line, whole


def test_clock():
    assert (clock(42), clock(725), clock(3723)) == ("0:42", "12:05", "1:02:03")
