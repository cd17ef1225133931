"""The paper presets of the six non-IMDB tasks resolve, and say what the paper's tables say."""
from __future__ import annotations

import pytest

from grue.config import load_config
from grue.metrics.registry import known_metrics
from grue.train.registry import algorithm_names
from tasks import get_task

ALGOS = algorithm_names()

TASKS = ("commongen", "cnn_dailymail", "totto", "wmt16", "narrativeqa", "dailydialog")
RL_ALGOS = ("ppo", "nlpo", "supervised_ppo", "supervised_nlpo")


def test_every_declared_reward_is_known_to_the_registry():
    from grue.rewards.registry import reward_names

    known = set(reward_names())
    for task in TASKS:
        assert set(get_task(task).rewards) <= known, task


def cfg(task: str, algo: str, *extra: str):
    return load_config([f"task={task}", f"algo={algo}", *extra])


@pytest.mark.parametrize("algo", ALGOS)
@pytest.mark.parametrize("task", TASKS)
def test_every_task_and_algorithm_resolves_on_the_paper_profile(task, algo):
    c = cfg(task, algo)
    assert (c.task, c.algo, c.profile) == (task, algo, "paper")
    assert c.reward.name in get_task(task).rewards
    assert c.generation.max_new_tokens > 0 and c.rollout.max_new_tokens > 0


@pytest.mark.parametrize("task", TASKS)
def test_task_declares_known_metrics_data_and_hidden_references(task):
    spec = get_task(task)
    assert set(spec.metrics) <= set(known_metrics())
    assert spec.loader is not None and spec.runnable("paper") and spec.runnable("mini")
    assert spec.data_description["paper"] and spec.data_description["mini"]
    assert spec.test_references_hidden == (task in ("commongen", "totto"))


@pytest.mark.parametrize("task", TASKS)
def test_backbones(task):
    c = cfg(task, "ppo")
    expected = ("gpt2", "causal") if task == "dailydialog" else ("t5-base", "seq2seq")
    assert (c.model.policy, c.model.kind) == expected


# Iterations = total steps / steps per update, as the spec's tables give them (grue_spec.md 2.2-2.7).
UPDATES = {
    "commongen": {"ppo": 200, "nlpo": 200, "supervised_ppo": 100, "supervised_nlpo": 100},
    "cnn_dailymail": {"ppo": 100, "nlpo": 100, "supervised_ppo": 50, "supervised_nlpo": 50},
    "totto": {"ppo": 100, "nlpo": 100, "supervised_ppo": 100, "supervised_nlpo": 100},
    "narrativeqa": {"ppo": 100, "nlpo": 100, "supervised_ppo": 200, "supervised_nlpo": 200},
    "wmt16": {"ppo": 50, "nlpo": 50, "supervised_ppo": 100, "supervised_nlpo": 100},
    "dailydialog": {"ppo": 100, "nlpo": 100, "supervised_ppo": 50, "supervised_nlpo": 50},
}


@pytest.mark.parametrize("algo", RL_ALGOS)
@pytest.mark.parametrize("task", TASKS)
def test_update_counts_match_the_tables(task, algo):
    c = cfg(task, algo)
    assert c.ppo.total_steps % c.ppo.steps_per_update == 0
    assert c.ppo.total_steps // c.ppo.steps_per_update == UPDATES[task][algo]


@pytest.mark.parametrize("algo", RL_ALGOS)
@pytest.mark.parametrize("task", TASKS)
def test_shared_ppo_settings(task, algo):
    c = cfg(task, algo)
    assert (c.ppo.batch_size, c.ppo.epochs) == (64, 5)
    assert (c.ppo.gamma, c.ppo.gae_lambda, c.ppo.clip_range, c.ppo.vf_coef) == (0.99, 0.95, 0.2, 0.5)


# (task, algo) -> (kl.init_coef, kl.target), spec 3.4's list.
KL = {
    ("commongen", "ppo"): (0.001, 2.0), ("commongen", "supervised_ppo"): (0.01, 1.0),
    ("cnn_dailymail", "nlpo"): (0.001, 0.2), ("cnn_dailymail", "supervised_nlpo"): (0.01, 0.2),
    ("totto", "ppo"): (0.001, 2.0), ("totto", "supervised_ppo"): (0.01, 0.2),
    ("narrativeqa", "nlpo"): (0.001, 1.0), ("narrativeqa", "supervised_nlpo"): (0.001, 0.2),
    ("wmt16", "ppo"): (0.001, 0.2), ("wmt16", "supervised_nlpo"): (0.001, 0.2),
    ("dailydialog", "ppo"): (0.2, 0.5), ("dailydialog", "supervised_ppo"): (0.2, 0.5),
}


@pytest.mark.parametrize(("task", "algo"), KL)
def test_kl_controller_settings(task, algo):
    c = cfg(task, algo)
    assert (c.kl.init_coef, c.kl.target) == KL[task, algo]


def test_commongen_table_11():
    c = cfg("commongen", "supervised_nlpo")
    assert c.ppo.learning_rate == 2e-6 and c.ppo.ent_coef == 0.01 and c.ppo.steps_per_update == 1280
    assert (c.nlpo.top_p, c.nlpo.update_every) == (0.9, 20)
    assert (c.model.max_prompt_length, c.model.padding_side) == (20, "left")
    assert (c.rollout.do_sample, c.rollout.top_k) == (True, 50)
    assert (c.generation.do_sample, c.generation.num_beams) == (False, 5)
    assert (c.generation.min_new_tokens, c.generation.max_new_tokens) == (5, 20)
    s = cfg("commongen", "supervised").supervised
    assert (s.batch_size, s.epochs, s.learning_rate, s.lr_scheduler, s.weight_decay) == (8, 4, 1e-5, "cosine", 0.01)


def test_cnn_dailymail_table_16():
    c = cfg("cnn_dailymail", "ppo")
    assert c.ppo.steps_per_update == 5120 and c.ppo.learning_rate == 2e-6 and c.ppo.ent_coef == 0.0
    assert (c.model.max_prompt_length, c.model.truncation_side) == (512, "right")
    g = c.generation
    assert (g.do_sample, g.temperature, g.top_k, g.min_new_tokens, g.max_new_tokens) == (True, 0.7, 0, 50, 100)
    # Rollout top-k and mu come from inside the paper's sweeps.
    assert c.rollout.top_k in (50, 100)
    assert cfg("cnn_dailymail", "supervised_nlpo").nlpo.update_every in (10, 20, 30)
    s = cfg("cnn_dailymail", "supervised").supervised
    assert (s.batch_size, s.epochs, s.learning_rate, s.lr_scheduler, s.weight_decay) == (16, 2, 1e-4, "cosine", 0.1)


def test_totto_table_22_rollouts_differ_between_columns():
    assert cfg("totto", "nlpo").rollout.top_k == 0
    assert cfg("totto", "supervised_nlpo").rollout.top_k == 50
    assert cfg("totto", "ppo").ppo.learning_rate == 2e-6
    assert cfg("totto", "supervised_ppo").ppo.learning_rate == 5e-7
    g = cfg("totto", "zero_shot").generation
    assert (g.do_sample, g.num_beams, g.min_new_tokens, g.max_new_tokens) == (False, 5, 10, 50)
    s = cfg("totto", "supervised").supervised
    assert (s.batch_size, s.epochs, s.lr_scheduler) == (8, 4, "constant_with_warmup")


def test_narrativeqa_supervised_is_unifiedqa():
    for algo in ("supervised", "supervised_ppo", "supervised_nlpo"):
        assert cfg("narrativeqa", algo).model.supervised_init == "allenai/unifiedqa-t5-base"
    assert cfg("narrativeqa", "ppo").model.supervised_init is None
    c = cfg("narrativeqa", "supervised_ppo")
    assert (c.ppo.steps_per_update, c.ppo.learning_rate) == (2560, 5e-7)
    assert cfg("narrativeqa", "ppo").ppo.steps_per_update == 5120
    g = c.generation
    assert (g.do_sample, g.num_beams, g.max_new_tokens) == (False, 4, 50)
    assert c.rollout.max_new_tokens == 50  # not the reference code's implicit 20


def test_wmt16_table_29():
    assert cfg("wmt16", "nlpo").nlpo.top_p == 0.5
    assert cfg("wmt16", "supervised_nlpo").nlpo.top_p == 0.5
    c = cfg("wmt16", "ppo")
    assert c.ppo.learning_rate == 1e-6 and c.ppo.steps_per_update == 5120
    assert cfg("wmt16", "supervised_ppo").ppo.learning_rate == 5e-7
    assert (c.rollout.top_k, c.rollout.max_new_tokens) == (10, 128)
    g = c.generation
    assert (g.do_sample, g.num_beams, g.length_penalty, g.max_new_tokens) == (False, 4, 0.6, 128)
    assert c.model.max_prompt_length == 128


def test_dailydialog_table_32():
    c = cfg("dailydialog", "nlpo")
    assert c.ppo.learning_rate == 1e-6
    assert (c.model.max_prompt_length, c.model.padding_side, c.model.truncation_side) == (128, "left", "right")
    for gen in (c.rollout, c.generation):
        assert (gen.do_sample, gen.top_k, gen.min_new_tokens, gen.max_new_tokens) == (True, 20, 2, 50)
    assert c.reward.model == "rajkumarrrk/roberta-daily-dialog-intent-classifier"


def test_reference_code_values_stay_reachable_by_override():
    c = cfg("dailydialog", "supervised_ppo", "kl.target=0.05", "model.truncation_side=left")
    assert (c.kl.target, c.model.truncation_side) == (0.05, "left")
    assert cfg("commongen", "ppo", "rollout.top_k=0").rollout.top_k == 0
