"""reward.dense=critic: per-token rewards from a critic's spans, combined with the task reward, cached."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from grue.data.sample import Sample
from grue.rewards.critic.cache import JudgementCache
from grue.rewards.critic.dense_reward import DenseCriticReward
from grue.rewards.critic.template import load_template
from grue.train.rl.kl import kl_penalised_rewards


class ScriptedCritic:
    """Test double: answers from a script keyed by the generation's text, and counts what it was asked."""

    identity = "scripted"

    def __init__(self, script: dict[str, str | None]) -> None:
        self.script, self.asked = script, []

    def judge(self, prompts):
        self.asked.extend(prompts)
        return [next((a for text, a in self.script.items() if f"Continuation: {text}\n" in p), "")
                for p in prompts]


class ConstantReward:
    name = "constant"

    def __init__(self, values):
        self.values = values

    def __call__(self, samples, generations):
        return list(self.values)


def episodes(tokenizer, texts, width):
    """A rollout-shaped batch: each text's tokens, then padding."""
    rows = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    actions = torch.zeros(len(rows), width, dtype=torch.long)
    valid = torch.zeros(len(rows), width)
    for i, ids in enumerate(rows):
        actions[i, :len(ids)] = torch.tensor(ids)
        valid[i, :len(ids)] = 1.0
    return SimpleNamespace(actions=actions, valid=valid, last_index=(valid.sum(1).long() - 1)), [len(r) for r in rows]


GOOD, BAD = "The film was a delight", "a boring mess"
SAMPLES = [Sample(id="0", prompt="Review:", references=[]), Sample(id="1", prompt="Review:", references=[])]


def dense_reward(tmp_path, critic, values=(0.5, -1.0), **weights):
    return DenseCriticReward(ConstantReward(values), critic, load_template("sentiment"), JudgementCache(tmp_path),
                             **weights)


def test_tokens_in_marked_spans_get_alpha2_and_the_last_token_alpha1_times_the_task_reward(tmp_path, tiny_tokenizer):
    critic = ScriptedCritic({GOOD: f'Positive: "{GOOD}"', BAD: "None identified"})
    reward = dense_reward(tmp_path, critic, alpha_extrinsic=2.0, alpha_intrinsic=0.25)
    rollout, lengths = episodes(tiny_tokenizer, [GOOD, BAD], width=12)
    task = torch.tensor(reward(SAMPLES, [GOOD, BAD]))
    dense = reward.token_rewards(SAMPLES, [GOOD, BAD], task, rollout, tiny_tokenizer)
    good = torch.full((lengths[0],), 0.25)
    good[-1] += 2.0 * 0.5
    assert torch.allclose(dense[0, :lengths[0]], good)
    assert torch.all(dense[0, lengths[0]:] == 0)
    bad = torch.zeros(12)
    bad[lengths[1] - 1] = 2.0 * -1.0
    assert torch.allclose(dense[1], bad)
    stats = reward.iteration_stats()
    assert stats["reward/extrinsic_mean"] == pytest.approx(-0.25)
    assert stats["reward/intrinsic_sum_mean"] == pytest.approx(lengths[0] / 2)
    assert (stats["critic/spans"], stats["critic/none"], stats["critic/spans_matched"]) == (1, 1, 1)
    assert reward.iteration_stats()["critic/asked"] == 0  # counting starts afresh


def test_the_kl_penalty_is_added_to_a_per_token_reward_as_to_a_terminal_one():
    valid = torch.tensor([[1.0, 1.0, 0.0]])
    logp, ref = torch.tensor([[-1.0, -2.0, 0.0]]), torch.tensor([[-1.5, -1.0, 0.0]])
    dense = torch.tensor([[0.2, 1.2, 0.0]])
    rewards, kl = kl_penalised_rewards(dense, logp, ref, valid, torch.tensor([1]), beta=0.1)
    assert torch.allclose(rewards, torch.tensor([[0.2 - 0.05, 1.2 + 0.1, 0.0]]))
    terminal, _ = kl_penalised_rewards(torch.tensor([1.0]), logp, ref, valid, torch.tensor([1]), beta=0.1)
    assert torch.allclose(terminal, torch.tensor([[-0.05, 1.0 + 0.1, 0.0]]))


def test_malformed_refused_and_missing_answers_give_no_intrinsic_reward_and_are_counted(tmp_path, tiny_tokenizer):
    texts = [GOOD, BAD, "dogs run in the park"]
    critic = ScriptedCritic({GOOD: "I'm sorry, I can't do that.", BAD: "The review is fine.",
                             "dogs run in the park": 'Positive: "cats"'})
    reward = dense_reward(tmp_path, critic, values=(0.0, 0.0, 0.0))
    rollout, _ = episodes(tiny_tokenizer, texts, width=10)
    samples = SAMPLES + [Sample(id="2", prompt="Review:", references=[])]
    dense = reward.token_rewards(samples, texts, torch.zeros(3), rollout, tiny_tokenizer)
    assert torch.all(dense == 0)
    stats = reward.iteration_stats()
    assert (stats["critic/refusal"], stats["critic/malformed"], stats["critic/spans_unmatched"]) == (1, 1, 1)


def test_judgements_are_cached_so_a_resumed_run_does_not_ask_again(tmp_path, tiny_tokenizer):
    script = {GOOD: f'Positive: "{GOOD}"', BAD: 'Negative: "boring"'}
    rollout, _ = episodes(tiny_tokenizer, [GOOD, BAD], width=12)
    first_critic = ScriptedCritic(script)
    first = dense_reward(tmp_path, first_critic)
    before = first.token_rewards(SAMPLES, [GOOD, BAD], torch.tensor([0.5, -1.0]), rollout, tiny_tokenizer)
    assert len(first_critic.asked) == 2
    (tmp_path / "torn.jsonl").write_text('{"key": "abc", "answer": "Positi')  # a half-written file elsewhere
    resumed_critic = ScriptedCritic(script)
    resumed = dense_reward(tmp_path, resumed_critic)  # a new process: the cache is read back from disk
    after = resumed.token_rewards(SAMPLES, [GOOD, BAD], torch.tensor([0.5, -1.0]), rollout, tiny_tokenizer)
    assert resumed_critic.asked == [] and torch.equal(before, after)
    assert resumed.iteration_stats()["critic/cached"] == 2


def test_a_different_critic_or_template_asks_again(tmp_path, tiny_tokenizer):
    rollout, _ = episodes(tiny_tokenizer, [GOOD], width=8)
    dense_reward(tmp_path, ScriptedCritic({})).token_rewards(SAMPLES[:1], [GOOD], torch.zeros(1), rollout, tiny_tokenizer)
    other = ScriptedCritic({})
    other.identity = "another model"
    dense_reward(tmp_path, other).token_rewards(SAMPLES[:1], [GOOD], torch.zeros(1), rollout, tiny_tokenizer)
    assert len(other.asked) == 1


def test_failed_answers_are_not_cached(tmp_path, tiny_tokenizer):
    rollout, _ = episodes(tiny_tokenizer, [GOOD], width=8)
    down = ScriptedCritic({GOOD: None})
    reward = dense_reward(tmp_path, down)
    reward.token_rewards(SAMPLES[:1], [GOOD], torch.zeros(1), rollout, tiny_tokenizer)
    assert reward.iteration_stats()["critic/failed"] == 1
    up = ScriptedCritic({GOOD: "None identified"})
    dense_reward(tmp_path, up).token_rewards(SAMPLES[:1], [GOOD], torch.zeros(1), rollout, tiny_tokenizer)
    assert len(up.asked) == 1


def test_the_summarisation_critic_sees_the_extrinsic_score(tmp_path, tiny_tokenizer):
    critic = ScriptedCritic({})
    reward = DenseCriticReward(ConstantReward([0.42]), critic, load_template("summarisation"), JudgementCache(tmp_path))
    rollout, _ = episodes(tiny_tokenizer, [GOOD], width=8)
    reward.token_rewards(SAMPLES[:1], [GOOD], torch.tensor([0.42]), rollout, tiny_tokenizer)
    assert "Summary Score: 4.2/10" in critic.asked[0] and f"Summary: {GOOD}" in critic.asked[0]


def test_overhead_compares_training_time_with_the_same_time_without_the_critic():
    from grue.rewards.critic.overhead import iteration_overhead, run_overhead

    log = [{"iteration": 1, "rollout_s": 3.0, "update_s": 1.0, "critic/wall_s": 2.0},
           {"iteration": 2, "rollout_s": 5.0, "update_s": 1.0, "critic/wall_s": 0.0},  # all answers cached
           {"iteration": 2, "split": "val"}]                                           # not a training line
    assert iteration_overhead(log[0]) == pytest.approx(2.0) and iteration_overhead(log[1]) == pytest.approx(1.0)
    assert run_overhead(log) == {"iterations": 2, "train_s": 10.0, "critic_s": 2.0, "ratio": pytest.approx(1.25)}


def test_the_same_text_twice_in_a_batch_is_asked_once(tmp_path, tiny_tokenizer):
    critic = ScriptedCritic({GOOD: f'Positive: "{GOOD}"'})
    reward = dense_reward(tmp_path, critic)
    rollout, _ = episodes(tiny_tokenizer, [GOOD, GOOD], width=8)
    dense = reward.token_rewards(SAMPLES, [GOOD, GOOD], torch.zeros(2), rollout, tiny_tokenizer)
    assert len(critic.asked) == 1 and torch.equal(dense[0], dense[1]) and dense[0, 0] == pytest.approx(0.2)


class SilentCritic:
    """Test double: an endpoint that never answers (every judgement None), with its last error."""

    identity = "silent"
    last_error = "HTTP 503 from http://critic.example/v1/chat/completions"

    def judge(self, prompts):
        return [None] * len(prompts)


def test_a_critic_that_never_answers_is_reported_and_stops_the_run_past_the_failure_share(tmp_path, tiny_tokenizer,
                                                                                           capsys):
    from grue.rewards.critic.dense_reward import MAX_FAILED_SHARE, MIN_JUDGED_TO_STOP, CriticUnavailable

    reward = dense_reward(tmp_path, SilentCritic(), values=(0.0, 0.0))
    rollout, _ = episodes(tiny_tokenizer, [GOOD, BAD], width=10)
    for batch in range(MIN_JUDGED_TO_STOP // 2 - 1):  # below the number of judgements a verdict needs
        reward.token_rewards(SAMPLES, [f"{GOOD} {batch}", BAD], torch.zeros(2), rollout, tiny_tokenizer)
    assert "2 of 2 judgements unanswered (HTTP 503" in capsys.readouterr().err
    with pytest.raises(CriticUnavailable, match=f"above the {MAX_FAILED_SHARE:.0%} limit.*HTTP 503"):
        reward.token_rewards(SAMPLES, [f"{GOOD} last", BAD], torch.zeros(2), rollout, tiny_tokenizer)


def test_a_critic_failing_now_and_then_only_warns(tmp_path, tiny_tokenizer, capsys):
    from grue.rewards.critic.dense_reward import MIN_JUDGED_TO_STOP

    critic = ScriptedCritic({GOOD: "None identified", BAD: None})  # half the judgements fail: not above the share
    reward = dense_reward(tmp_path, critic, values=(0.0, 0.0))
    rollout, _ = episodes(tiny_tokenizer, [GOOD, BAD], width=10)
    for _ in range(MIN_JUDGED_TO_STOP):
        reward.token_rewards(SAMPLES, [GOOD, BAD], torch.zeros(2), rollout, tiny_tokenizer)
    assert "1 of 2 judgements unanswered" in capsys.readouterr().err


def test_an_answer_in_the_paper_s_format_gives_its_negative_spans_their_sign_and_counts_the_empty_heading(
        tmp_path, tiny_tokenizer):
    answer = f'Positive spans: None identified\nNegative spans:\n[Span 1]: "{BAD}"\n'
    reward = dense_reward(tmp_path, ScriptedCritic({BAD: answer, GOOD: "Positive spans: None identified\n"
                                                                       "Negative spans: None identified"}),
                          alpha_extrinsic=1.0, alpha_intrinsic=0.5)
    rollout, lengths = episodes(tiny_tokenizer, [BAD, GOOD], width=12)
    dense = reward.token_rewards(SAMPLES, [BAD, GOOD], torch.zeros(2), rollout, tiny_tokenizer)
    assert torch.allclose(dense[0, :lengths[0]], torch.full((lengths[0],), -0.5))
    assert torch.all(dense[1] == 0)
    stats = reward.iteration_stats()
    assert (stats["critic/spans"], stats["critic/none"], stats["critic/malformed"]) == (1, 1, 0)
    assert stats["critic/none_under_heading"] == 3  # Positive in the first answer, both in the second
