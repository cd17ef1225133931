"""The local LM critic on a real (tiny) model: the shared-head cache changes nothing but the cost."""
import torch

from grue.rewards.critic.local_backend import LocalLMCritic, shared_head

HEAD = "Mark the good words.\nExample: the film was a delight\nNow the sample.\n"


def plain_greedy(critic, prompt):
    ids = critic.tokenizer(prompt, return_tensors="pt")["input_ids"]
    out = critic.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), **critic._greedy())
    return critic.tokenizer.decode(out[0, ids.shape[1]:], skip_special_tokens=True)


def test_shared_head_ends_at_a_line_boundary():
    assert shared_head(["a\nb\nxy", "a\nb\nxz"]) == "a\nb\n"
    assert shared_head(["abc", "abd"]) == ""
    assert shared_head(["a\nb\n", "a\nb\n"]) == "a\n"  # identical texts still keep a tail of their own


def test_identical_prompts_are_answered_alike(tiny_model_dirs):
    critic = LocalLMCritic(tiny_model_dirs.policy, max_new_tokens=4)
    prompt = HEAD + "Text: a boring mess\n"
    assert critic.judge([prompt, prompt]) == [plain_greedy(critic, prompt)] * 2
    assert critic.judge([HEAD]) == [plain_greedy(critic, HEAD)]  # the kept head itself: asked whole


def test_answers_with_the_cached_head_equal_plain_greedy_answers(tiny_model_dirs):
    critic = LocalLMCritic(tiny_model_dirs.policy, max_new_tokens=6, batch_size=2)  # one batch with a padded tail
    prompts = [HEAD + "Text: dogs run in the park", HEAD + "Text: a boring mess", HEAD + "Text: I highly recommend"]
    answers = critic.judge(prompts)
    assert critic._head[0] == HEAD  # encoded once, reused for all three
    assert answers == [plain_greedy(critic, p) for p in prompts]
    assert critic.judge(prompts[1:2]) == answers[1:2]  # a later single prompt reuses the kept head


def test_the_head_is_encoded_once_and_each_prompt_feeds_only_its_own_tokens(tiny_model_dirs, monkeypatch):
    critic = LocalLMCritic(tiny_model_dirs.policy, max_new_tokens=2, batch_size=1)
    fed = []
    real_forward = critic.model.forward
    monkeypatch.setattr(critic.model, "forward", lambda *a, **k: fed.append(k["input_ids"].shape[1]) or
                        real_forward(*a, **k))
    prompts = [HEAD + "Text: dogs run in the park", HEAD + "Text: a boring mess"]
    critic.judge(prompts)
    head_tokens = len(critic.tokenizer(HEAD)["input_ids"])
    tails = [len(critic.tokenizer(p)["input_ids"]) - head_tokens for p in prompts]
    assert fed == [head_tokens, tails[0], 1, tails[1], 1]  # head; then per prompt its tail and one decode step


def test_prompts_without_a_shared_head_are_answered_as_plain_batches(tiny_model_dirs):
    critic = LocalLMCritic(tiny_model_dirs.policy, max_new_tokens=5, batch_size=2)
    prompts = ["dogs run in the park", "a boring mess"]
    assert critic.judge(prompts) == [plain_greedy(critic, p) for p in prompts]


def test_an_encoder_decoder_critic_answers_in_batches(tiny_t5_dir):
    critic = LocalLMCritic(tiny_t5_dir, batch_size=2, max_new_tokens=4)
    answers = critic.judge(["the film", "a boring mess", "dogs run"])
    assert len(answers) == 3 and all(isinstance(a, str) for a in answers)
    assert critic.identity == f"local:{tiny_t5_dir}:greedy:4"
