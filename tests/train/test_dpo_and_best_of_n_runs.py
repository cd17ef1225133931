"""Whole runs of DPO and best-of-n on the tiny models: results file with its cost, board rows, refusals.

IMDB mini with the tiny models (tests/conftest.py `tiny_imdb_args`); DPO trains on 24 answered 4-way
comparisons (tests/train/dpo_fixtures.py), best-of-n samples 3 six-token continuations per prompt.
"""
from __future__ import annotations

import json

import pytest
import torch

from dpo_fixtures import praise_comparisons
from grue.board.build import build_board
from grue.board.export import board_markdown
from grue.config import ConfigError, config_hash, load_config
from grue.data.sample import Sample
from grue.results.schema import validate_results
from grue.run.best_of_n import BestOfN, pick_best
from grue.run.runner import Run

DPO = ["dpo.batch_size=8", "dpo.learning_rate=1e-4", "dpo.warmup_steps=0", "dpo.save_every=2"]


def run(args):
    return Run(load_config(args), args).execute()


def results(path):
    return json.loads((path / "results.json").read_text())


def killed_at_step_3(args, output_dir, monkeypatch):
    """Run `args` into `output_dir` until a simulated kill at the start of step 3 (checkpoints written so far
    stay), with the trainer's real step restored afterwards."""
    from grue.train.offline import dpo as dpo_module

    real_step = dpo_module.DPOTrainer.train_step

    def step_or_kill(self):
        if self.step == 2:
            raise KeyboardInterrupt("simulated kill")
        return real_step(self)

    with monkeypatch.context() as patch:
        patch.setattr(dpo_module.DPOTrainer, "train_step", step_or_kill)
        with pytest.raises(KeyboardInterrupt):
            run([*args, f"output_dir={output_dir}"])


def test_a_dpo_run_writes_its_results_and_cost_and_is_a_board_row(tiny_imdb_args, tmp_path):
    comparisons = praise_comparisons(tmp_path / "labels.jsonl", 24, task="imdb")
    path = run([*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={comparisons}", *DPO])
    doc = results(path)
    assert validate_results(doc) == [] and doc["algo"] == "dpo" and doc["reward"] is None
    log = [json.loads(line) for line in (path / "logs" / "train.jsonl").read_text().splitlines()]
    trained = 24 - log[-1]["heldout_comparisons"]
    assert [r["step"] for r in log] == list(range(1, -(-trained // 8) + 1))  # ceil(train answers / 8) steps
    assert doc["cost"]["train_generated_tokens"] == 0  # DPO samples nothing
    assert doc["cost"]["train_seconds"] == pytest.approx(sum(r["seconds"] for r in log), abs=0.1)
    assert doc["config"]["dpo"]["max_length"] == 6  # the task's rollout length, which the candidates had
    markdown = board_markdown(build_board([path]))
    assert "| DPO |" in markdown and "Train s" in markdown


def test_appending_answers_to_the_comparisons_file_makes_a_new_setting(tiny_imdb_args, tmp_path):
    comparisons = praise_comparisons(tmp_path / "labels.jsonl", 4)
    args = [*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={comparisons}"]
    before = load_config(args)
    praise_comparisons(comparisons, 1, seed=5)  # appended, as labelling tools do
    after = load_config(args)
    assert before.dpo.comparisons_sha256 != after.dpo.comparisons_sha256
    assert config_hash(before) != config_hash(after)
    assert config_hash(load_config([*tiny_imdb_args, "algo=ppo"])) == \
        config_hash(load_config([*tiny_imdb_args, "algo=ppo", f"dpo.comparisons={comparisons}"]))


def test_a_missing_or_ill_formed_comparisons_file_is_one_line_before_any_work(tiny_imdb_args, tmp_path):
    with pytest.raises(ConfigError, match=r"^dpo\.comparisons: no comparisons file at .*nope\.jsonl") as err:
        load_config([*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={tmp_path / 'nope.jsonl'}"])
    assert "\n" not in str(err.value)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query_id": "q", "prompt": "p", "candidates": [{"text": "a", "source": "s"}]}\n')
    with pytest.raises(ConfigError, match=r"dpo\.comparisons: .*line 1: 'candidates' must be a list of at least 2") as err:
        load_config([*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={bad}"])
    assert "\n" not in str(err.value)
    unanswered = tmp_path / "queries.jsonl"
    praise_comparisons(unanswered, 2)
    unanswered.write_text("".join(line + "\n" for line in unanswered.read_text().splitlines()[::2]))  # queries only
    with pytest.raises(ConfigError, match="holds no answered comparison"):
        load_config([*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={unanswered}"])


def test_dpo_without_a_comparisons_file_or_with_another_task_s_stops_in_preflight(tiny_imdb_args, tmp_path):
    from grue.run.preflight import PreflightError

    with pytest.raises(PreflightError, match="algo=dpo trains on a comparisons file: set dpo.comparisons"):
        run([*tiny_imdb_args, "algo=dpo", "dpo.comparisons=null"])  # the mini default (auto) left out
    other = praise_comparisons(tmp_path / "commongen.jsonl", 3, task="commongen")
    with pytest.raises(PreflightError, match="holds answers for task commongen, not imdb"):
        run([*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={other}"])
    assert not list((tmp_path / "runs").glob("*dpo*"))  # nothing was started


class ShareOfE:
    name = "e_share"

    def __call__(self, samples, generations):
        return [sum(c == "e" for c in g) / max(1, len(g)) for g in generations]


def test_best_of_n_keeps_the_argmax_of_its_samples_and_never_scores_below_best_of_one(tiny_causal_policy):
    from grue.config.schema import GenerationConfig

    sampling = GenerationConfig(do_sample=True, top_k=0, min_new_tokens=4, max_new_tokens=4)
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"] * 2)]
    reward = ShareOfE()

    def decode(n):
        torch.manual_seed(0)  # as evaluation seeds its stream
        best = BestOfN(sampling, reward, n, batch_size=3)
        torch.manual_seed(0)
        candidates, _ = best.candidates(tiny_causal_policy, samples)
        torch.manual_seed(0)
        picks, tokens = best(tiny_causal_policy, samples)
        return candidates, picks, tokens

    candidates, picks, tokens = decode(4)
    assert tokens == 4 * 4 * len(samples)  # n samples of 4 tokens per prompt
    for sample, texts, pick in zip(samples, candidates, picks):
        scores = reward([sample] * 4, texts)
        assert pick == texts[max(range(4), key=lambda i: (scores[i], -i))]  # the argmax, the earliest on a tie
    one_candidates, one_picks, one_tokens = decode(1)
    assert one_tokens == 4 * len(samples)
    assert [c[0] for c in candidates] == [c[0] for c in one_candidates]  # best-of-4 holds best-of-1's sample
    four, one = reward(samples, picks), reward(samples, one_picks)
    assert all(a >= b for a, b in zip(four, one)) and sum(four) > sum(one)
    assert pick_best([[0.1, 0.5, 0.5], [0.2, 0.1, 0.0]]) == [1, 0]
    torch.manual_seed(1)  # another evaluation stream and batch size: each sample's noise is keyed by its id
    rebatched, _ = BestOfN(sampling, reward, 4, batch_size=8).candidates(tiny_causal_policy, samples)
    assert rebatched == candidates


def test_a_best_of_n_run_records_its_sampled_tokens_and_reward(tiny_imdb_args):
    path = run([*tiny_imdb_args, "algo=best_of_n", "best_of_n.n=3"])
    doc = results(path)
    assert validate_results(doc) == [] and doc["reward"] == "sentiment"
    assert doc["cost"] == {"train_generated_tokens": 0, "train_seconds": 0.0,
                           "eval_generated_tokens": {"val": 3 * 6 * 6, "test": 3 * 6 * 6}}  # n x tokens x prompts
    assert "Best-of-n" in board_markdown(build_board([path]))


def test_best_of_n_refuses_a_label_schedule_before_any_work(tiny_imdb_args):
    from grue.run.preflight import PreflightError

    with pytest.raises(PreflightError, match="reward.schedule=offline trains its reward model during RL"):
        run([*tiny_imdb_args, "algo=best_of_n", "reward=learned", "reward.schedule=offline", "reward.labeler=sentiment"])


# the reference's log-probs are scored again on resume (not stored): the same answers, chunks and model
@pytest.mark.parametrize("budget", [[], ["dpo.max_steps=4"]], ids=["epoch", "max_steps"])
def test_an_interrupted_dpo_run_resumes_mid_epoch_to_the_same_final_metrics(tiny_imdb_args, tmp_path, monkeypatch,
                                                                           budget):
    comparisons = praise_comparisons(tmp_path / "labels.jsonl", 40)
    args = [*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={comparisons}", *DPO, "dpo.save_every=1", *budget]
    straight = results(run([*args, f"output_dir={tmp_path / 'a'}"]))
    killed_at_step_3(args, tmp_path / "b", monkeypatch)
    resumed = run([*args, f"output_dir={tmp_path / 'b'}"])
    assert results(resumed)["metrics"] == straight["metrics"]
    log = [json.loads(line) for line in (resumed / "logs" / "train.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == list(range(1, len(log) + 1)) and len(log) >= 4  # each step once
    assert [r["step"] for r in log if "reference_seconds" in r] == [1, 3]  # scored at the start and on resume
    assert "heldout_accuracy" in log[-1] and (not budget or len(log) == 4)  # max_steps: scored at its last step


def test_a_lora_dpo_run_checkpoints_its_adapters_only_and_resumes_to_the_same_metrics(tiny_imdb_args, tmp_path,
                                                                                      monkeypatch):
    from grue.policy import lora

    comparisons = praise_comparisons(tmp_path / "labels.jsonl", 40)
    args = [*tiny_imdb_args, "algo=dpo", f"dpo.comparisons={comparisons}", *DPO, "dpo.save_every=1",
            "model.lora.rank=4"]
    straight = results(run([*args, f"output_dir={tmp_path / 'a'}"]))
    killed_at_step_3(args, tmp_path / "b", monkeypatch)
    saved = sorted((tmp_path / "b").glob("**/checkpoints/step-*/state.pt"))
    policy_state = torch.load(saved[-1], map_location="cpu", weights_only=False)["policy"]
    assert policy_state and all(lora.is_adapter_key(k) for k in policy_state)  # no base weight saved
    resumed = run([*args, f"output_dir={tmp_path / 'b'}"])
    assert results(resumed)["metrics"] == straight["metrics"]
