"""The reward the trainer sees under `reward.dense=critic`: the task's reward, plus per-token rewards.

Called as usual it returns the extrinsic reward r_ex per episode (what `reward_mean` logs, unchanged
from a plain run). The RL core then asks `token_rewards` for the per-token vector
r_t = alpha_1 * r_ex * [t = T] + alpha_2 * r_in_t, and adds the KL penalty to it as always.
`iteration_stats` hands the trainer this iteration's figures (r_ex and r_in apart, the critic's
outcomes and span counts, its wall time) and starts counting afresh.

A critic that does not answer (an endpoint down, a wrong key) leaves its episodes without intrinsic
reward, so the run quietly becomes a plain one. Each iteration with unanswered judgements says so on
the terminal, and once more than MAX_FAILED_SHARE of all judgements so far went unanswered (after
at least MIN_JUDGED_TO_STOP of them) the run stops with CriticUnavailable, naming the last error.
"""
from __future__ import annotations

import time
from collections import Counter
from typing import Any, Optional, Sequence

import torch

from grue.errors import GrueUserError
from grue.data.sample import Sample
from grue.rewards.critic.backend import CriticBackend
from grue.rewards.critic.cache import JudgementCache, judgement_key
from grue.rewards.critic.parse import OUTCOMES, Critique, parse_critique
from grue.rewards.critic.template import CritiqueTemplate
from grue.rewards.critic.token_spans import SpanCounts, span_token_rewards, token_char_offsets
from grue.rewards.registry import Reward

MAX_FAILED_SHARE = 0.5  # a dense run whose critic answered less than half the time is not a dense run
MIN_JUDGED_TO_STOP = 32  # one unlucky first batch is no verdict


class CriticUnavailable(GrueUserError, RuntimeError):
    """The critic failed to answer more than MAX_FAILED_SHARE of the judgements; the run stops."""


class DenseCriticReward:
    def __init__(self, extrinsic: Reward, critic: CriticBackend, template: CritiqueTemplate, cache: JudgementCache,
                 alpha_extrinsic: float = 1.0, alpha_intrinsic: float = 0.2, span_reward: float = 1.0,
                 score_scale: float = 10.0) -> None:
        self.extrinsic, self.critic, self.template, self.cache = extrinsic, critic, template, cache
        self.name = f"{extrinsic.name}+critic"
        self.alpha_extrinsic, self.alpha_intrinsic = alpha_extrinsic, alpha_intrinsic
        self.span_reward, self.score_scale = span_reward, score_scale
        self.judged_total = self.failed_total = 0  # over the whole run, never reset
        self._reset()

    def _reset(self) -> None:
        self.outcomes: Counter = Counter()
        self.spans = SpanCounts()
        self.critic_s = 0.0
        self.none_under_heading = 0  # headings answered "None identified" (apart from the outcomes)
        self.asked = self.cached = 0
        self.r_ex: list[float] = []
        self.r_in_per_episode: list[float] = []

    def __call__(self, samples: Sequence[Sample], generations: Sequence[str]) -> list[float]:
        return self.extrinsic(samples, generations)

    # -- the critic ------------------------------------------------------------------------------------
    def judgements(self, prompts: Sequence[str]) -> list[Optional[str]]:
        """Answers for rendered prompts: from the cache, else asked in one batch (and then cached)."""
        keys = [judgement_key(self.critic.identity, self.template.digest, p) for p in prompts]
        known = [self.cache.get(k) is not None for k in keys]
        self.cached += sum(known)
        missing = list(dict.fromkeys(k for k, hit in zip(keys, known) if not hit))  # each text asked once
        if missing:
            by_key = dict(zip(keys, prompts))
            start = time.perf_counter()
            answers = self.critic.judge([by_key[k] for k in missing])
            self.critic_s += time.perf_counter() - start
            self.asked += len(missing)
            self.cache.put_many({k: a for k, a in zip(missing, answers) if a is not None})
        return [self.cache.get(k) for k in keys]

    def critiques(self, samples: Sequence[Sample], generations: Sequence[str],
                  r_ex: Sequence[float]) -> list[Critique]:
        prompts = [self.template.render(s.prompt, g, r * self.score_scale) for s, g, r in zip(samples, generations, r_ex)]
        return [parse_critique(a, list(self.template.labels), self.template.answer_format)
                for a in self.judgements(prompts)]

    # -- per-token rewards -----------------------------------------------------------------------------
    def token_rewards(self, samples: Sequence[Sample], generations: Sequence[str], task_reward: torch.Tensor,
                      rollout: Any, tokenizer: Any) -> torch.Tensor:
        """[B, T]: alpha_1 * r_ex on each episode's last token plus alpha_2 * r_in on every token."""
        r_ex = task_reward.tolist()
        r_in = torch.zeros_like(rollout.valid, dtype=torch.float32)
        lengths = rollout.valid.sum(1).long().tolist()
        critiques = self.critiques(samples, generations, r_ex)
        self._count_failures(sum(c.outcome == "failed" for c in critiques), len(critiques))
        for row, critique in enumerate(critiques):
            self.outcomes[critique.outcome] += 1
            self.none_under_heading += len(critique.none_under)
            ids = rollout.actions[row, :lengths[row]].tolist()
            text, offsets = token_char_offsets(tokenizer, ids)
            values, counts = span_token_rewards(text, offsets, critique, self.template.labels, self.span_reward)
            self.spans.add(counts)
            r_in[row, :lengths[row]] = torch.tensor(values)
        rows = torch.arange(r_in.shape[0], device=r_in.device)
        dense = self.alpha_intrinsic * r_in
        dense[rows, rollout.last_index] += self.alpha_extrinsic * task_reward.to(dense.dtype)
        self.r_ex.extend(r_ex)
        self.r_in_per_episode.extend(r_in.sum(1).tolist())
        return dense * rollout.valid

    def _count_failures(self, failed: int, judged: int) -> None:
        """Say when judgements went unanswered; stop the run past the failure share."""
        self.judged_total += judged
        self.failed_total += failed
        if not failed:
            return
        from grue.runtime.console import console

        share = self.failed_total / self.judged_total
        last = getattr(self.critic, "last_error", None) or "no answer"
        console.print(f"[yellow]\\[grue] critic: {failed} of {judged} judgements unanswered ({last}); "
                      f"{share:.0%} of the run's so far, the run stops above {MAX_FAILED_SHARE:.0%}[/]")
        if share > MAX_FAILED_SHARE and self.judged_total >= MIN_JUDGED_TO_STOP:
            raise CriticUnavailable(
                f"the critic left {self.failed_total} of {self.judged_total} judgements unanswered "
                f"({share:.0%}, above the {MAX_FAILED_SHARE:.0%} limit of reward.dense=critic); last error: {last}. "
                "Check critic.base_url / critic.model / the API key, then run the same command to resume")

    def iteration_stats(self) -> dict[str, float]:
        """This iteration's figures for logs/train.jsonl; counting starts afresh afterwards."""
        episodes = max(1, len(self.r_ex))
        stats = {"reward/extrinsic_mean": sum(self.r_ex) / episodes,
                 "reward/intrinsic_sum_mean": sum(self.r_in_per_episode) / episodes,
                 "critic/wall_s": self.critic_s, "critic/asked": self.asked, "critic/cached": self.cached,
                 **{f"critic/{name}": self.outcomes[name] for name in OUTCOMES},
                 "critic/none_under_heading": self.none_under_heading,
                 **{f"critic/spans_{name}": getattr(self.spans, name)
                    for name in ("marked", "matched", "repeated", "unmatched")}}
        last_error = getattr(self.critic, "last_error", None)
        if self.outcomes["failed"] and last_error:
            stats["critic/last_error"] = last_error
        self._reset()
        return stats
