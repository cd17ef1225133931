"""Best-of-n decoding: n samples per prompt from the policy, the task's reward keeps the best one.

The training-free baseline of `algo=best_of_n` (docs/algorithms.md). Its cost is generation, so the tokens
it samples are counted and recorded (results.json `cost.eval_generated_tokens`).

The n samples are drawn in rounds: round r samples once for every prompt, each sample's noise keyed by
(the run's seed, r, the sample's id) (grue.policy.sampling), so the candidates do not depend on batching or
on how processes split the prompts, and best-of-n's candidates for a prompt are best-of-m's plus n - m more
(m < n): its pick scores at least what best-of-m's does, prompt by prompt; a larger n can only help on the
reward. (With `rollout.decoder=generate` the noise comes from torch's generator, reseeded every round.)
Candidates are sampled with the task's rollout settings (`rollout.*`: what RL samples and label queries
are drawn with) through the policy's own sampling (`policy.sample`).
"""
from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

import torch

from grue.data.sample import Sample


def pick_best(scores: Sequence[Sequence[float]]) -> list[int]:
    """The index of each prompt's highest-scoring candidate; a tie goes to the earliest round."""
    return [max(range(len(row)), key=lambda i: (row[i], -i)) for row in scores]


class BestOfN:
    def __init__(self, sampling: Any, reward: Callable[[Sequence[Sample], Sequence[str]], list[float]], n: int,
                 batch_size: int, seed: int = 0, stops: Sequence[str] = ()) -> None:
        self.sampling, self.reward, self.n, self.batch_size, self.seed = sampling, reward, n, batch_size, seed
        self.stops = tuple(stops)  # each candidate is cut at its first stop string before the reward reads it

    def candidates(self, policy: Any, samples: Sequence[Sample],
                   progress: Optional[Callable[[int], None]] = None) -> tuple[list[list[str]], int]:
        """n generations per sample (round by round) and the tokens generated for them."""
        from grue.policy.sampling import episode_keys
        from grue.policy.stop_strings import cut_all

        base = int(torch.randint(0, 2 ** 62, (1,)).item())  # generate()'s noise: from the evaluation's seeded stream
        out: list[list[str]] = [[] for _ in samples]
        tokens = 0
        for round_ in range(self.n):
            torch.manual_seed(base + round_)
            for start in range(0, len(samples), self.batch_size):
                chunk = samples[start:start + self.batch_size]
                keys = episode_keys(("best_of_n", self.seed, round_), [s.id for s in chunk])
                episodes = policy.sample(policy.encode([s.prompt for s in chunk]), self.sampling, keys=keys)
                tokens += int(episodes.valid.sum().item())
                for i, one in enumerate(cut_all(policy.decode(episodes.actions, episodes.valid), self.stops)):
                    out[start + i].append(one.text)
                if progress is not None and round_ == self.n - 1:
                    progress(len(chunk))
        return out, tokens

    @torch.no_grad()
    def __call__(self, policy: Any, samples: Sequence[Sample],
                 progress: Optional[Callable[[int], None]] = None) -> tuple[list[str], int]:
        """(each sample's best candidate, tokens generated): evaluation's decoding for best-of-n."""
        candidates, tokens = self.candidates(policy, samples, progress)
        flat = self.reward([s for s, texts in zip(samples, candidates) for _ in texts],
                           [t for texts in candidates for t in texts])
        scores, at = [], 0
        for texts in candidates:
            scores.append(flat[at:at + len(texts)])
            at += len(texts)
        return [texts[i] for texts, i in zip(candidates, pick_best(scores))], tokens


def best_of_n_decoder(run: Any, policy: Any) -> BestOfN:
    """The run's best-of-n decoding (the registry's `evaluation` hook): its reward is built once."""
    from grue.policy.stop_strings import rollout_stops
    from grue.rewards.registry import build_reward

    cfg = run.cfg
    return BestOfN(cfg.rollout, build_reward(cfg, run.dir.path), cfg.best_of_n.n, cfg.eval.batch_size, int(cfg.seed),
                   rollout_stops(cfg))
