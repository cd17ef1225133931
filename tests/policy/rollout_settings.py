"""The rollout settings the policy tests sample with: the fields of the `rollout` config group."""
from types import SimpleNamespace


def rollout_settings(**overrides):
    """Plain sampling (no top-k/top-p, temperature 1, no minimum length) of 6 tokens, with `overrides`."""
    base = dict(do_sample=True, top_k=0, top_p=1.0, temperature=1.0, num_beams=1, length_penalty=1.0,
                min_new_tokens=0, max_new_tokens=6)
    base.update(overrides)
    return SimpleNamespace(**base)
