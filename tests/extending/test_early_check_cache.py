"""The config-time try of a python: function is cached per function, not per id(): an edited file's new function
can land at a freed one's address, and must not inherit that function's verdict."""
import gc

from grue.data.sample import Sample
from grue.extend import early_check


def make(body: str):
    scope: dict = {}
    exec(f"def overlap(prompts, generations, references, meta):\n    {body}\n", scope)
    return scope["overlap"]


def test_a_new_function_never_gets_a_freed_functions_verdict():
    samples = tuple(Sample(id=str(i), prompt=f"p{i}", references=[f"r{i}"], meta={}) for i in range(4))
    ref = "python:my_rewards.py:overlap"
    for _ in range(50):
        short = make("return [0.0]")
        assert "returned 1 values" in early_check._tried(ref, "reward", short, samples)
        del short
        gc.collect()
        text = make("return 'good'")  # often at the freed function's address
        assert "returned a str" in early_check._tried(ref, "reward", text, samples)
        del text
        gc.collect()
