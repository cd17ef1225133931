"""`algo=all` is every method once plus the paper's six; the composed forms are axes of their own; a cell that
cannot start as set is refused before any work with what it needs, and the others still run (issue 46)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from cli import app
from grue.sweep.grid import every_method, expand
from grue.sweep.orchestrate import describe, plan
from grue.train.registry import algorithm_names, get_algorithm

PAPER_SIX = ("zero_shot", "supervised", "ppo", "nlpo", "supervised_ppo", "supervised_nlpo")


def test_all_is_every_method_in_its_own_form_and_the_paper_s_six():
    methods = every_method()
    assert set(PAPER_SIX) <= set(methods)
    composed = [n for n in algorithm_names() if get_algorithm(n).warm_start or get_algorithm(n).mask]
    assert set(composed) & set(methods) == {"nlpo", "supervised_ppo", "supervised_nlpo"}
    assert {"grpo", "dpo", "best_of_n"} <= set(methods) and "supervised_grpo" not in methods
    assert len(methods) == len(set(methods))


def test_the_init_axis_adds_each_method_s_warm_start_and_drops_it_where_none_is_taken():
    cells = expand(["task=imdb", "algo=all", "init=none,supervised", "seed=0", "profile=mini"])
    algos = [c.cfg.algo for c in cells]
    warm = {n for n in algorithm_names() if get_algorithm(n).warm_start == "supervised" and not get_algorithm(n).mask}
    assert set(algos) == set(every_method()) | warm  # supervised_grpo, supervised_dpo, ... and no error on zero_shot
    assert len(algos) == len(set(algos))  # algo=ppo init=supervised and algo=supervised_ppo are one cell


@pytest.fixture
def grid_args(tmp_path):
    # distill's preset names its teacher (the supervised run); without one it cannot start
    return ["task=imdb", "profile=mini", "seed=0", "algo=zero_shot,distill", "grpo.teacher.model=null",
            f"output_dir={tmp_path / 'runs'}"]


def test_a_cell_that_cannot_start_is_refused_in_the_dry_run_with_what_it_needs(grid_args):
    sweep = plan(grid_args)
    distill = next(c for c in sweep.cells if c.cfg.algo == "distill")
    zero = next(c for c in sweep.cells if c.cfg.algo == "zero_shot")
    assert list(sweep.refused) == [distill.hash] and "grpo.teacher.model=" in sweep.refused[distill.hash][0]
    assert [c.hash for c in sweep.todo(False)] == [zero.hash]
    lines = describe(sweep)
    line = next(l for l in lines if l.startswith(distill.key))
    assert "refused: algo=distill distils from a teacher" in line and "\n" not in line
    assert "1 to run, 1 refused before any work" in lines[-1]


def test_a_sweep_of_refused_cells_alone_starts_nothing_and_exits_non_zero(grid_args, tmp_path):
    args = [a if not a.startswith("algo=") else "algo=distill" for a in grid_args]
    result = CliRunner().invoke(app, ["sweep", *args, "--no-export"])
    assert result.exit_code == 1, result.output
    assert "1 of 1 cell(s) refused before any work" in result.output
    assert not list((tmp_path / "runs").glob("imdb-mini-distill-*"))  # no run directory was made


def test_mini_dpo_cells_make_their_own_comparisons_and_are_not_refused(tmp_path):
    """On the mini profile DPO defaults to dpo.comparisons=auto, so `algo=all` has no DPO cell waiting on a hand
    step; on the paper profile the file is still the user's to give."""
    sweep = plan(["task=imdb,commongen", "profile=mini", "seed=0", "algo=dpo,supervised_dpo",
                  f"output_dir={tmp_path / 'runs'}"])
    assert sweep.refused == {} and len(sweep.todo(False)) == 4
    assert {c.cfg.dpo.comparisons for c in sweep.cells} == {"auto"}
    paper = plan(["task=imdb", "seed=0", "algo=dpo", f"output_dir={tmp_path / 'paper'}"])
    assert "dpo.comparisons" in next(iter(paper.refused.values()))[0]
