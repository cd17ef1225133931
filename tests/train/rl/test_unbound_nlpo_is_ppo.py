"""NLPO whose mask keeps every token is PPO: the same samples, the same updates, the same scores.

On the board study NLPO's mask almost never bound (it keeps at least 100 tokens, rollouts sample from the top
50), and CommonGen's seed-0 NLPO run equalled PPO's to the last digit, yet seeds 1 and 2 of the same commit
differed from their first rollout: one row's tie at top-k's boundary (NLPO keeps finished rows in the batch)
sent every row to the whole-vocabulary draw (tests/policy/test_sampling_row_independence.py). This pins the
identity on a whole run: any difference left must come from the mask. Rows end early here (min length 1), so
NLPO's kept-in finished rows and PPO's dropped ones both occur. The tiny model's rows never tie, so this run
would not have caught that bug (the unit test does); it fails when NLPO's path changes the distribution in a way
the mask's count misses (a processor that rescaled the kept logits failed it). The updates are equal to the last
bit since the decode loop drops ended rows from the mask's batch as from PPO's: with finished rows kept in, the
rollout's log-probabilities rounded differently (a DailyDialog mini seed flipped a token at iteration 7)."""
from __future__ import annotations

import json

import pytest

from grue.config import load_config
from grue.run.runner import Run


def _run(args):
    path = Run(load_config(args), args).execute()
    log = [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    return log, json.loads((path / "results.json").read_text())


def test_nlpo_with_a_mask_that_keeps_everything_trains_as_ppo(tiny_imdb_args, tmp_path):
    for seed in (1, 2):
        base = [*tiny_imdb_args, f"seed={seed}", "rollout.top_k=5", "rollout.min_new_tokens=1", "nlpo.mask_at_eval=false"]
        ppo_log, ppo = _run([*base, "algo=ppo", f"output_dir={tmp_path / 'ppo'}"])
        nlpo_log, nlpo = _run([*base, "algo=nlpo", "nlpo.top_p=1.0", "nlpo.min_tokens_to_keep=100000",
                               f"output_dir={tmp_path / 'nlpo'}"])
        assert all(r["nlpo/mask_bound_fraction"] == 0.0 for r in nlpo_log)
        for key in ("tokens", "episodes", "reward_mean"):  # the same samples
            assert [r[key] for r in nlpo_log] == [r[key] for r in ppo_log], (seed, key)
        for key in ("kl", "loss/policy", "loss/value"):  # the same updates, to the last bit: the same batches
            assert [r[key] for r in nlpo_log] == [r[key] for r in ppo_log], key
        assert nlpo["metrics"] == ppo["metrics"]
