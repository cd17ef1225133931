"""BERTScore F1 (Zhang et al., 2020) as the bert-score package computes it, with less work per call.

Options: ``bertscore_model`` (a grue model reference: ``packaged:minilm`` on the mini profile, a hub id
such as ``roberta-large`` for English or ``bert-base-multilingual-cased`` for German on the paper
profile, or a local directory), ``bertscore_num_layers`` (which hidden layer's embeddings to match;
taken from bert-score's own table for the hub models it knows, required otherwise, e.g. 6 for MiniLM),
``bertscore_batch_tokens`` (token budget of one encoder batch, 16384). No IDF weighting and no
baseline rescaling, as in RL4LMs (the baselines exist only for named hub models anyway).

Per sample: F1 against the best-matching reference (bert-score takes the maximum over a sample's
references); corpus: the mean. An empty (or blank) candidate scores 0, as bert-score itself would,
and blank references are ignored; a sample whose references are all blank scores 0.

The model, its truncation to ``num_layers`` and the token ids are bert-score's own (``get_model``,
``get_tokenizer``, ``sent_encode``); what differs is the order of work, which leaves the numbers as
they are (tests/metrics/test_bertscore.py compares with ``bert_score.score``):
- every distinct text is tokenised once and encoded once, in batches of texts of nearly equal token
  length (sorted by token count, not by word count as bert-score does), so padding is minimal;
- the greedy matching is done per (candidate, reference) pair on unpadded embeddings. bert-score pads
  pairs in chunks of ``batch_size`` (64) and zeroes the similarity at padded positions, so a token
  whose best real similarity is negative scores 0 when the other text was padded in its chunk; that
  quirk is reproduced (``_padded_in_chunk``) so the values match bert-score's own.
"""
from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any, Sequence

import torch

from grue.metrics.base import MetricContext, MetricInputs, MetricValue
from grue.metrics.hf_models import resolve_or_unavailable
from grue.metrics.model_refs import metric_model
from grue.metrics.references import require_references
from grue.metrics.registry import register

BERT_SCORE_CHUNK = 64  # bert-score's default batch_size, which decides its padding of pairs


def default_layers(ref: str) -> int | None:
    """bert-score's tuned layer for a hub model it knows (roberta-large: 17), else None."""
    from bert_score.utils import model2layers

    return model2layers.get(ref)


@lru_cache(maxsize=4)
def _encoder(path: str, num_layers: int, device: str) -> tuple[Any, Any]:
    """(tokenizer, model cut to ``num_layers``) exactly as bert-score builds them, once per process."""
    from bert_score.utils import get_model, get_tokenizer

    return get_tokenizer(path, use_fast=False), get_model(path, num_layers).to(device).eval()


def _padded_in_chunk(lengths: Sequence[int]) -> list[bool]:
    """Whether bert-score pads each text of a pair list: it is shorter than the longest in its chunk."""
    flags = []
    for start in range(0, len(lengths), BERT_SCORE_CHUNK):
        chunk = lengths[start : start + BERT_SCORE_CHUNK]
        flags += [length < max(chunk) for length in chunk]
    return flags


class BertScoreScorer:
    names = ("bertscore",)
    higher_is_better = {"bertscore": True}

    def __init__(self, tokenizer: Any, model: Any, batch_tokens: int = 16384) -> None:
        self.tokenizer, self.model = tokenizer, model
        self.batch_tokens = batch_tokens
        self.device = next(model.parameters()).device
        # bert-score without IDF weighs every token 1, except [CLS]/[SEP] (or <s>/</s>), which weigh 0
        self.unweighted = {tokenizer.cls_token_id, tokenizer.sep_token_id}

    def token_ids(self, texts: Sequence[str]) -> dict[str, list[int]]:
        from bert_score.utils import sent_encode

        return {text: sent_encode(self.tokenizer, text) for text in dict.fromkeys(texts)}

    @torch.inference_mode()
    def embeddings(self, ids: dict[str, list[int]]) -> dict[str, torch.Tensor]:
        """Unit-length final-layer embeddings of every text, encoded in length-sorted batches."""
        order = sorted(ids, key=lambda text: len(ids[text]), reverse=True)
        out: dict[str, torch.Tensor] = {}
        start = 0
        while start < len(order):
            width = len(ids[order[start]])
            size = max(1, min(len(order) - start, self.batch_tokens // max(width, 1)))
            batch = order[start : start + size]
            input_ids = torch.zeros(len(batch), width, dtype=torch.long)
            mask = torch.zeros(len(batch), width, dtype=torch.long)
            for row, text in enumerate(batch):
                input_ids[row, : len(ids[text])] = torch.tensor(ids[text])
                mask[row, : len(ids[text])] = 1
            hidden = self.model(input_ids.to(self.device), attention_mask=mask.to(self.device))[0].float().cpu()
            for row, text in enumerate(batch):
                emb = hidden[row, : len(ids[text])]
                out[text] = emb / emb.norm(dim=-1, keepdim=True)
            start += size
        return out

    def pair_f1(self, hyp: torch.Tensor, ref: torch.Tensor, hyp_w: torch.Tensor, ref_w: torch.Tensor,
                hyp_padded: bool, ref_padded: bool) -> float:
        if not hyp_w.any() or not ref_w.any():
            return 0.0  # nothing but [CLS]/[SEP]: bert-score sets the scores of an empty text to 0
        sim = hyp @ ref.T
        precision_words, recall_words = sim.max(dim=1)[0], sim.max(dim=0)[0]
        if ref_padded:  # bert-score's zeroed padding competes in the max over reference tokens
            precision_words = precision_words.clamp(min=0)
        if hyp_padded:
            recall_words = recall_words.clamp(min=0)
        precision = (precision_words * hyp_w).sum()
        recall = (recall_words * ref_w).sum()
        return float(2 * precision * recall / (precision + recall))

    def weights(self, ids: list[int]) -> torch.Tensor:
        w = torch.tensor([0.0 if t in self.unweighted else 1.0 for t in ids])
        return w / w.sum() if w.any() else w

    def scores(self, candidates: Sequence[str], references: Sequence[Sequence[str]]) -> list[float]:
        """Best F1 over each candidate's references (all non-blank)."""
        pairs = [(c, r) for c, refs in zip(candidates, references) for r in refs]
        ids = self.token_ids([r for _, r in pairs] + list(candidates))
        emb = self.embeddings(ids)
        weights = {text: self.weights(tokens) for text, tokens in ids.items()}
        hyp_padded = _padded_in_chunk([len(ids[c]) for c, _ in pairs])
        ref_padded = _padded_in_chunk([len(ids[r]) for _, r in pairs])
        f1 = [self.pair_f1(emb[c], emb[r], weights[c], weights[r], hp, rp)
              for (c, r), hp, rp in zip(pairs, hyp_padded, ref_padded)]
        best, k = [], 0
        for refs in references:
            best.append(max(f1[k : k + len(refs)]))
            k += len(refs)
        return best

    def compute(self, inputs: MetricInputs) -> dict[str, MetricValue]:
        require_references(inputs, "bertscore")
        if not inputs.generations:
            return {"bertscore": MetricValue(corpus=0.0, per_sample=[])}
        logging.getLogger("transformers").setLevel(logging.ERROR)
        values = [0.0] * len(inputs.generations)
        todo = [(i, g, [r for r in refs if r.strip()]) for i, (g, refs) in
                enumerate(zip(inputs.generations, inputs.references)) if g.strip()]
        todo = [t for t in todo if t[2]]
        if todo:
            for (i, _, _), value in zip(todo, self.scores([g for _, g, _ in todo], [refs for _, _, refs in todo])):
                values[i] = value
        return {"bertscore": MetricValue(corpus=sum(values) / len(values), per_sample=values)}


@register(higher_is_better=BertScoreScorer.higher_is_better)
def build_bertscore(ctx: MetricContext) -> BertScoreScorer:
    ref = metric_model("bertscore", ctx.options)
    layers = ctx.options.get("bertscore_num_layers") or default_layers(ref)
    if not layers:
        raise ValueError(f"bertscore_num_layers is required for {ref!r} (bert-score has no default layer for it)")
    path = resolve_or_unavailable(ref, "bertscore")
    tokenizer, model = _encoder(path, int(layers), ctx.device)
    return BertScoreScorer(tokenizer, model, int(ctx.options.get("bertscore_batch_tokens", 16384)))
