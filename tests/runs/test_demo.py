"""The demo on the tiny models: both runs, the board written, and a closing block that says where
everything went, what one seed shows, and what to run next."""
from __future__ import annotations

import re

from grue.commands.demo import demo_command


def test_the_demo_ends_with_results_files_one_seed_caveat_and_next_steps(tiny_imdb_args, tmp_path, capsys):
    demo_command(tiny_imdb_args)
    err = capsys.readouterr().err
    text = " ".join(err.split())  # sentences wrap at the console's width (tests/cli/test_demo_closing.py)
    out = tmp_path / "runs"
    assert re.search(r"about \d+ minutes", err.splitlines()[0])  # the time is said up front
    assert (out / "leaderboard" / "leaderboard.md").is_file()
    assert (out / "leaderboard" / "site" / "index.html").is_file()
    assert re.search(r"PPO against Zero-Shot on the same 6 test prompts: sentiment [+-]\d\.\d{3} ± \d\.\d{3} "
                     r"\(paired per prompt, z = (-?[\d.]+|nan)\)", text)
    runs = sorted(p.name for p in out.glob("imdb-mini-*"))
    assert [r.split("-")[2] for r in runs] == ["ppo", "zero_shot"]
    for name in runs:
        assert f"{out / name}/" in err
    assert "site/index.html the board as a web page" in text
    assert "grue sweep task=imdb profile=mini algo=zero_shot,ppo,nlpo seed=0,1,2" in err
    assert re.search(r"Done in \d+:\d\d \(zero_shot \d+:\d\d, ppo \d+:\d\d\)", text)
