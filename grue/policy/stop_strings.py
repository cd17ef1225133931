"""Stop strings: a generation ends at the first of them (`generation.stop`, `rollout.stop`).

A causal model rarely stops where a task's answer ends (a docstring, then more code); a stop string says
where the answer ends, so that no metric and no reward ever sees what follows. The text is cut before the
stop string (the stop string itself is not part of the answer). In an RL rollout the tokens sampled after
the one that completes the stop string are no actions: their `valid` entries go to 0, exactly as for the
tokens after EOS, so the policy is neither rewarded nor penalised for text nobody reads.

Rollouts cut at `rollout.stop`, or at `generation.stop` while `rollout.stop` is unset (a stop string is
part of the task's answer format, so setting it once covers training and evaluation; `rollout.stop=[]`
trains without one).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Optional, Sequence


@dataclass(frozen=True)
class NonEmptyTexts:
    """A config rule: a list of texts, none empty (an empty stop string would cut every answer to nothing)."""

    def problem(self, value: Any) -> Optional[str]:
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            return f"must be a list of texts, e.g. [\"\\n\\n\", \"def \"], got {value!r}"
        if any(v == "" for v in value):
            return "holds an empty text: an empty stop string would cut every generation to nothing"
        return None


@dataclass(frozen=True)
class Cut:
    """One generation after its stop strings: the kept text, where the cut fell and which stop made it."""

    text: str
    at: Optional[int] = None    # character offset of the stop string in the generated text; None: not cut
    stop: Optional[str] = None  # the stop string found there


def first_stop(text: str, stops: Sequence[str]) -> tuple[int, str] | None:
    """(offset, stop) of the earliest stop string in `text`; of two starting at one offset, the longer."""
    found = [(at, -len(stop), stop) for stop in stops if (at := text.find(stop)) >= 0]
    if not found:
        return None
    at, _, stop = min(found)
    return at, stop


def cut(text: str, stops: Sequence[str] | None) -> Cut:
    """`text` up to (not including) its first stop string."""
    hit = first_stop(text, stops or ())
    return Cut(text) if hit is None else Cut(text[:hit[0]], hit[0], hit[1])


def cut_all(texts: Sequence[str], stops: Sequence[str] | None) -> list[Cut]:
    return [cut(text, stops) for text in texts]


def _stop_of(group: Any) -> Optional[list[str]]:
    return getattr(group, "stop", None)  # a plain namespace standing in for a group (a plugin's, a test's) has none


def eval_stops(cfg: Any) -> tuple[str, ...]:
    """The stop strings of evaluation decoding."""
    return tuple(_stop_of(getattr(cfg, "generation", None)) or ())


def rollout_stops(cfg: Any) -> tuple[str, ...]:
    """The stop strings of RL rollouts (and every other rollout-decoded sample): `rollout.stop`, else
    `generation.stop`."""
    own = _stop_of(getattr(cfg, "rollout", None))
    return tuple(own) if own is not None else eval_stops(cfg)


def tokens_to_stop(ids: Sequence[int], decode: Callable[[Sequence[int]], str], stops: Sequence[str]) -> int | None:
    """How many of `ids` it takes for their text to contain a stop string (the token completing it
    included), or None when the whole text holds none. A binary search over prefixes: decoding a prefix
    is the only faithful way to find token boundaries (byte-level and sentencepiece tokens do not decode
    one by one to the pieces of the whole text)."""
    if not stops or first_stop(decode(ids), stops) is None:
        return None
    low, high = 1, len(ids)  # the text of ids[:high] holds a stop; find the shortest such prefix
    while low < high:
        mid = (low + high) // 2
        if first_stop(decode(ids[:mid]), stops) is not None:
            high = mid
        else:
            low = mid + 1
    return high


def mask_after_stop(rollout: Any, tokenizer: Any, eos_id: Optional[int], stops: Sequence[str]) -> Any:
    """`rollout` with `valid` set to 0 after each episode's stop string (as after EOS): those tokens are no
    actions, so no log-prob, KL, value or advantage of theirs enters the update, and the episode's reward
    lands on the token that completed the stop string (Rollout.last_index)."""
    if not stops:
        return rollout

    def decode(ids: Sequence[int]) -> str:  # as the policy decodes a generation (grue.policy.base)
        return tokenizer.decode(list(ids), skip_special_tokens=True)

    valid = rollout.valid.clone()
    for row, (actions, keep) in enumerate(zip(rollout.actions.tolist(), rollout.valid.tolist())):
        steps = [t for t, k in enumerate(keep) if k and actions[t] != eos_id]  # the steps that make the text
        needed = tokens_to_stop([actions[t] for t in steps], decode, stops)
        if needed is not None:
            valid[row, steps[needed - 1] + 1:] = 0
    return replace(rollout, valid=valid)


def prediction_fields(one: Cut) -> dict[str, Any]:
    """What a predictions record says of the cut (docs/results_schema.md): where, and by which stop."""
    return {"stopped_at": one.at, "stop": one.stop}
