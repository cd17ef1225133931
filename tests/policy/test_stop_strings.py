"""Stop strings: the text is cut before the first of them before any metric or reward reads it, and in an RL
rollout the tokens after the one completing it are no actions (as after EOS)."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from grue.data.sample import Sample
from grue.policy.base import valid_actions
from grue.policy.batch import PromptBatch, Rollout
from grue.policy.stop_strings import Cut, cut, eval_stops, mask_after_stop, rollout_stops, tokens_to_stop
from tests.policy.rollout_settings import rollout_settings


def test_the_earliest_stop_in_the_text_wins_not_the_first_in_the_list():
    text = "x = 1\ndef f():\n\n    pass"
    assert cut(text, ["\n\n", "def "]) == Cut("x = 1\n", 6, "def ")
    assert cut(text, ["def ", "\n\n"]) == Cut("x = 1\n", 6, "def ")
    assert cut("ab\n\ncd\n", ["\n", "\n\n"]) == Cut("ab", 2, "\n\n")  # one offset: the longer stop is named


def test_a_stop_at_the_start_leaves_an_empty_text():
    assert cut("\n\nReturn the sum.", ["\n\n"]) == Cut("", 0, "\n\n")


def test_no_stop_found_or_none_given_keeps_the_whole_text():
    assert cut("Return the sum.", ["\n\n", "def "]) == Cut("Return the sum.", None, None)
    assert cut("a\n\nb", None) == Cut("a\n\nb") == cut("a\n\nb", [])


def test_cutting_twice_changes_nothing():
    once = cut("one. two\n\nthree", ["\n\n", "."])
    assert cut(once.text, ["\n\n", "."]) == Cut(once.text)


PIECES = ["ab", "c\n", "\nd", "ef"]  # a toy vocabulary: token i decodes to PIECES[i]


def _toy_decode(ids):
    return "".join(PIECES[i] for i in ids)


def test_the_token_that_completes_a_stop_spanning_two_tokens_is_found():
    ids = [0, 1, 2, 3]
    assert tokens_to_stop(ids, _toy_decode, ["\n\n"]) == 3   # "\n" ends token 1, "\n" starts token 2
    assert tokens_to_stop(ids, _toy_decode, ["c\n\nd"]) == 3
    assert tokens_to_stop(ids, _toy_decode, ["b"]) == 1
    assert tokens_to_stop(ids, _toy_decode, ["fe"]) is None
    assert tokens_to_stop(ids, _toy_decode, []) is None


def _rows(tokenizer, rows: list[list[str]], width: int) -> tuple[torch.Tensor, list[list[int]]]:
    """Actions built piece by piece (byte-level BPE decodes a concatenation to the concatenated text),
    EOS after each row, padding after that; and the ids of each row's pieces."""
    eos, pad = tokenizer.eos_token_id, tokenizer.pad_token_id
    table, pieces = [], []
    for row in rows:
        ids = [tokenizer.encode(piece, add_special_tokens=False) for piece in row]
        flat = [t for piece in ids for t in piece] + [eos]
        table.append(flat + [pad] * (width - len(flat)))
        pieces.append([len(piece) for piece in ids])
    return torch.tensor(table), pieces


def test_a_rollout_masks_the_tokens_after_the_stop_as_after_eos(tiny_tokenizer):
    rows = [["the", " film", "\n", "\n", "bad", " film"],   # the stop spans two tokens
            ["the", " film"],                              # EOS first: the stop is never written
            ["a", " boring", " film"],                     # no stop at all
            ["\n", "\n", "the"]]                           # the stop opens the text
    actions, pieces = _rows(tiny_tokenizer, rows, width=16)
    eos = tiny_tokenizer.eos_token_id
    valid = valid_actions(actions, eos)
    zeros = torch.zeros(actions.shape)
    rollout = Rollout(PromptBatch(torch.zeros(4, 1, dtype=torch.long), torch.ones(4, 1, dtype=torch.long)),
                      actions, valid, zeros, zeros)
    masked = mask_after_stop(rollout, tiny_tokenizer, eos, ["\n\n"])
    kept = [sum(pieces[0][:4]), valid[1].sum().item(), valid[2].sum().item(), sum(pieces[3][:2])]
    expected = torch.zeros(actions.shape)
    for row, n in enumerate(kept):
        expected[row, :int(n)] = 1
    assert torch.equal(masked.valid, expected)
    assert masked.last_index.tolist() == [int(n) - 1 for n in kept]  # the reward lands on the stop's last token
    texts = [tiny_tokenizer.decode([t for t, k in zip(a, v) if k and t != eos], skip_special_tokens=True)
             for a, v in zip(masked.actions.tolist(), masked.valid.tolist())]
    assert texts == ["the film\n\n", "the film", "a boring film", "\n\n"]
    assert torch.equal(rollout.valid, valid)  # the input is left as it was


def _first_stop_by_scan(ids, decode, stop):
    """The independent count: grow the prefix one token at a time until its text holds the stop."""
    for n in range(1, len(ids) + 1):
        if stop in decode(ids[:n]):
            return n
    return None


def test_rl_episodes_reward_the_cut_text_and_end_at_the_stop(tiny_causal_policy):
    from grue.policy.load import frozen_copy
    from grue.train.rl.rollout import sample_episodes

    policy = tiny_causal_policy
    ref = frozen_copy(policy.model)
    samples = [Sample(id=str(i), prompt=p, references=[]) for i, p in enumerate(["The film was", "dogs run in the"])]
    seen: list[list[str]] = []

    def reward(batch, generations):
        seen.append(list(generations))
        return [float(len(g)) for g in generations]

    gen = rollout_settings(max_new_tokens=12)
    whole = sample_episodes(policy, samples, gen, 2, reward, ref, seed=0, iteration=0)
    text = whole.generations[0]
    assert len(text) >= 6, text
    stop = text[3:5]  # in the middle of the first episode's text, wherever the tokens fall
    stopped = sample_episodes(policy, samples, gen, 2, reward, ref, seed=0, iteration=0, stops=[stop])
    assert torch.equal(stopped.rollout.actions, whole.rollout.actions)  # the same episodes, keyed noise
    assert seen[1] == [g[:g.find(stop)] if stop in g else g for g in whole.generations]
    assert stopped.task_reward.tolist() == [float(len(g)) for g in seen[1]]
    eos = policy.eos_id
    for row in range(len(samples)):
        ids = [t for t, k in zip(whole.rollout.actions[row].tolist(), whole.rollout.valid[row].tolist())
               if k and t != eos]
        n = _first_stop_by_scan(ids, lambda x: policy.tokenizer.decode(x, skip_special_tokens=True), stop)
        expected = whole.rollout.valid[row].sum().item() if n is None else n
        assert stopped.rollout.valid[row].sum().item() == expected
    assert stopped.rollout.valid[0].sum() < whole.rollout.valid[0].sum()  # the first episode really got shorter
    from grue.train.rl.kl import kl_penalised_rewards

    r = stopped.rollout  # what the update reads: no KL and no reward after the stop; the reward on its last token
    rewards, kl = kl_penalised_rewards(stopped.task_reward, r.raw_logp, stopped.ref_logp, r.valid, r.last_index, 0.1)
    after = r.valid == 0
    assert after[0].any() and (rewards[after] == 0).all() and (kl[after] == 0).all()
    last = r.last_index[0]
    assert rewards[0, last].item() == pytest.approx(stopped.task_reward[0].item() - 0.1 * kl[0, last].item(), abs=1e-5)


def test_a_metric_scores_the_cut_text_and_the_predictions_say_where(monkeypatch):
    from grue.metrics.base import MetricContext
    from grue.metrics.registry import build_scorers
    from grue.run import evaluate

    generated = ["the cat sat\n\nimport os", "a dog ran"]
    monkeypatch.setattr(evaluate, "generate", lambda *a, **k: list(generated))
    cfg = SimpleNamespace(seed=0, generation=SimpleNamespace(stop=["\n\n"]), eval=SimpleNamespace(batch_size=2))
    samples = [Sample("p0", "Say:", ("the cat sat",)), Sample("p1", "Say:", ("a dog ran",))]
    scorers = build_scorers(["rouge1"], MetricContext(device="cpu", policy=None, options={}))
    result = evaluate.evaluate_split(cfg, None, scorers, samples)
    # cut: both generations equal their reference (ROUGE-1 1.0); uncut the first would score
    # F1 = 2 * (3/5 * 3/3) / (3/5 + 3/3) = 0.75
    assert [p["scores"]["rouge1"] for p in result.predictions] == pytest.approx([1.0, 1.0])
    assert result.metrics["rouge1"] == pytest.approx(1.0)
    first, second = result.predictions
    assert (first["generation"], first["stopped_at"], first["stop"]) == ("the cat sat", 11, "\n\n")
    assert (second["generation"], second["stopped_at"], second["stop"]) == ("a dog ran", None, None)


def test_without_stop_strings_the_predictions_keep_their_old_fields(monkeypatch):
    from grue.metrics.base import MetricContext
    from grue.metrics.registry import build_scorers
    from grue.run import evaluate

    monkeypatch.setattr(evaluate, "generate", lambda *a, **k: ["the cat sat\n\nimport os"])
    cfg = SimpleNamespace(seed=0, generation=SimpleNamespace(stop=None), eval=SimpleNamespace(batch_size=2))
    scorers = build_scorers(["rouge1"], MetricContext(device="cpu", policy=None, options={}))
    result = evaluate.evaluate_split(cfg, None, scorers, [Sample("p0", "Say:", ("the cat sat",))])
    assert set(result.predictions[0]) == {"id", "prompt", "generation", "references", "scores"}
    assert result.predictions[0]["scores"]["rouge1"] == pytest.approx(0.75)


def test_rollouts_follow_generation_stop_unless_rollout_stop_is_set():
    from grue.config import load_config

    assert rollout_stops(load_config(["algo=ppo"])) == () == eval_stops(load_config(["algo=ppo"]))
    both = load_config(["algo=ppo", 'generation.stop=["\\n\\n","def "]'])
    assert eval_stops(both) == rollout_stops(both) == ("\n\n", "def ")
    own = load_config(["algo=ppo", 'generation.stop=["\\n\\n"]', "rollout.stop=[]"])
    assert rollout_stops(own) == () and eval_stops(own) == ("\n\n",)


def test_the_trainer_hands_its_rollouts_the_stop_strings(monkeypatch):
    from grue.train.rl import trainer as trainer_module

    seen = {}
    monkeypatch.setattr(trainer_module, "sample_episodes", lambda *a, **k: seen.update(k))
    cfg = SimpleNamespace(rollout=SimpleNamespace(stop=None), generation=SimpleNamespace(stop=["\n\n"]),
                          ppo=SimpleNamespace(rollout_batch_size=4), seed=0, kl=SimpleNamespace(temperature=None))
    fake = SimpleNamespace(cfg=cfg, policy=None, reward_fn=None, ref_model=None, rollout_processors=None, iteration=0)
    trainer_module.RLTrainer.rollout_round(fake, [])
    assert seen["stops"] == ("\n\n",)


def test_unset_stop_strings_keep_every_hash_and_a_set_one_is_a_new_setting():
    from grue.config import config_hash, load_config

    plain = config_hash(load_config(["algo=ppo"]))
    assert config_hash(load_config(["algo=ppo", "generation.stop=null", "rollout.stop=null"])) == plain
    assert config_hash(load_config(["algo=ppo", 'generation.stop=["\\n\\n"]'])) != plain


def test_best_of_n_candidates_are_cut_before_the_reward_picks_one(tiny_causal_policy):
    from grue.run.best_of_n import BestOfN

    samples = [Sample(id=str(i), prompt=p, references=[]) for i, p in enumerate(["The film was", "dogs run in the"])]
    seen: list[list[str]] = []

    def reward(batch, generations):
        seen.append(list(generations))
        return [float(len(g)) for g in generations]

    gen = rollout_settings(max_new_tokens=10)
    torch.manual_seed(0)
    whole, _ = BestOfN(gen, reward, n=2, batch_size=2).candidates(tiny_causal_policy, samples)
    stop = whole[0][0][2:4]
    torch.manual_seed(0)
    picked, _ = BestOfN(gen, reward, n=2, batch_size=2, stops=[stop])(tiny_causal_policy, samples)
    expected = [[cut(text, [stop]).text for text in texts] for texts in whole]
    assert seen[-1] == [text for texts in expected for text in texts]  # the reward read only cut candidates
    assert picked == [max(texts, key=len) for texts in expected] and stop not in "".join(picked)
