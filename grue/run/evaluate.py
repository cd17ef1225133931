"""Generate for a split and score it with the task's whole metric mix."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import torch

from grue.data.sample import Sample
from grue.metrics.base import MetricContext, MetricInputs
from grue.metrics.registry import ScorerSet, build_scorers
from grue.policy.base import valid_actions
from grue.policy.stop_strings import Cut, cut_all, eval_stops, prediction_fields
from grue.rewards.learned.model import is_reward_model_dir


def metric_context(cfg: Any, policy: Any, device: str) -> MetricContext:
    options = {
        "perplexity_stride": cfg.eval.perplexity_stride,
        "perplexity_max_length": cfg.eval.perplexity_max_length,
        # IMDB's reward model is its sentiment classifier, unless reward.model holds a learned reward model
        # (then eval.metric_options.sentiment_model names the classifier).
        "sentiment_model": cfg.reward.model if cfg.task == "imdb" and not is_reward_model_dir(cfg.reward.model) else None,
        "sentiment_batch_size": cfg.reward.batch_size,
        **cfg.eval.metric_options,  # the task's per-profile metric settings (bertscore model, tokenizers...)
    }
    return MetricContext(device=device, policy=policy, options=options)


def build_task_scorers(cfg: Any, policy: Any, device: str) -> ScorerSet:
    """Built once per run: metric models load once and every evaluation reuses them."""
    return build_scorers(cfg.eval.metrics, metric_context(cfg, policy, device))


@dataclass
class SplitEvaluation:
    metrics: dict[str, float]
    predictions: list[dict]
    generated_tokens: int | None = None  # counted by a decoder that reports its cost (best-of-n), all processes


@torch.no_grad()
def generate(policy: Any, samples: Sequence[Sample], gen_cfg: Any, batch_size: int, progress: Any = None,
             make_processors: Any = None, seed: Any = None) -> list[str]:
    """`make_processors(prompts)`: logits processors for one batch (an NLPO run's mask), or None.

    grue's decoder (`generation.decoder=grue`, no beams): the split in as few decode batches as memory allows,
    each sample's noise keyed by (`seed`, its id), so the texts do not depend on batching or processes
    (grue.policy.decode); `batch_size` then does not apply. Otherwise generate() on `batch_size` prompts."""
    from grue.policy.base import uses_grue_decoder

    if uses_grue_decoder(gen_cfg) and samples:
        from grue.policy.decode import decode_many
        from grue.policy.sampling import episode_keys, keys_from_global_rng

        keys = (episode_keys(("eval", seed), [s.id for s in samples]) if seed is not None
                else keys_from_global_rng(len(samples)))
        texts: list[str] = [""] * len(samples)
        for rows, _, decoded in decode_many(policy, policy.encode([s.prompt for s in samples]), gen_cfg, keys,
                                            make_processors, progress=progress):
            actions = decoded.actions
            for i, text in zip(rows, policy.decode(actions, valid_actions(actions, policy.eos_id))):
                texts[i] = text
        return texts
    out: list[str] = []
    for start in range(0, len(samples), batch_size):
        chunk = samples[start:start + batch_size]
        prompts = policy.encode([s.prompt for s in chunk])
        out.extend(policy.generate_text(prompts, gen_cfg, make_processors(prompts) if make_processors else ()))
        if progress is not None:
            progress(len(chunk))
    return out


def evaluate_split(cfg: Any, policy: Any, scorers: ScorerSet | None, samples: Sequence[Sample], progress: Any = None,
                   generator_seed: int | None = None, accelerator: Any = None,
                   make_processors: Any = None, decoder: Any = None) -> SplitEvaluation:
    """Sampling during evaluation uses a fixed seed, so the same model gives the same scores.

    With several processes each rank generates for its block of the samples, the generations are
    gathered, and the main process (the only one with `scorers`) scores them all at once: corpus
    metrics are computed on every text, never averaged over processes. Other ranks get no metrics.
    """
    from grue.runtime.distributed import contiguous_shard, gather_texts, world_of

    rank, world = world_of(accelerator)
    local = contiguous_shard(samples, rank, world) if world > 1 else samples
    state = torch.get_rng_state()
    seed = cfg.seed if generator_seed is None else generator_seed
    torch.manual_seed(seed + 7919 * rank)  # generate()'s noise (generation.decoder=generate)
    try:
        if decoder is None:
            generations, tokens = generate(policy, local, cfg.generation, cfg.eval.batch_size, progress,
                                           make_processors, seed=int(seed)), None
        else:  # an algorithm's own decoding (grue.train.outcome.Trained.eval_decoder: best-of-n)
            generations, tokens = decoder(policy, local, progress)
    finally:
        torch.set_rng_state(state)  # evaluation must not shift the training random stream
    generations = gather_texts(accelerator, generations)
    if tokens is not None:
        from grue.runtime.distributed import global_sum

        tokens = int(global_sum([tokens], world)[0])
    if scorers is None:
        return SplitEvaluation({}, [], tokens)
    cuts = cut_all(generations, eval_stops(cfg)) if eval_stops(cfg) else None  # before any metric reads a text
    evaluation = score_generations(scorers, samples, [c.text for c in cuts] if cuts else generations, cuts)
    evaluation.generated_tokens = tokens
    return evaluation


def score_generations(scorers: ScorerSet, samples: Sequence[Sample], generations: Sequence[str],
                      cuts: Sequence[Cut] | None = None) -> SplitEvaluation:
    """Every metric of the mix on all generations at once, plus the per-sample prediction records; `cuts`
    (a run with stop strings): where each generation was cut, recorded beside it."""
    if len(generations) != len(samples):
        raise ValueError(f"{len(generations)} generations for {len(samples)} samples")
    inputs = MetricInputs(prompts=[s.prompt for s in samples], generations=list(generations),
                          references=[list(s.references) for s in samples], meta=[s.meta for s in samples])
    values = scorers.compute(inputs)
    predictions = []
    for i, (sample, generation) in enumerate(zip(samples, generations)):
        scores = {name: v.per_sample[i] for name, v in values.items() if v.per_sample is not None}
        predictions.append({"id": sample.id, "prompt": sample.prompt, "generation": generation,
                            **(prediction_fields(cuts[i]) if cuts is not None else {}),
                            "references": list(sample.references), "scores": scores})
    return SplitEvaluation({name: float(v.corpus) for name, v in values.items()}, predictions)
