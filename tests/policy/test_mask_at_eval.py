"""NLPO evaluation decodes through the mask (nlpo.mask_at_eval), with the task's decoding, beam search
included: a mask that keeps only the masking model's best token makes any decoding follow the masking
model's own greedy choice, so the generations must equal the masking model's greedy decoding."""
from types import SimpleNamespace

import pytest
import torch

from grue.policy.load import frozen_copy

PROMPTS = ["The film was", "A tedious, boring", "I highly recommend"]


def decoding(**kw):
    base = dict(do_sample=False, top_k=0, top_p=1.0, temperature=1.0, num_beams=1, length_penalty=1.0,
                min_new_tokens=5, max_new_tokens=5)
    return SimpleNamespace(**{**base, **kw})


def perturbed(model):
    other = frozen_copy(model)
    with torch.no_grad():
        for p in other.parameters():
            p.add_(torch.randn_like(p) * 0.5)
    return other


@pytest.mark.parametrize("policy_fixture", ["tiny_causal_policy", "tiny_seq2seq_policy"])
@pytest.mark.parametrize("gen", [decoding(do_sample=True, top_k=50), decoding(num_beams=3)], ids=["sampling", "beams"])
def test_a_keep_one_mask_makes_evaluation_follow_the_masking_model(request, policy_fixture, gen):
    policy = request.getfixturevalue(policy_fixture)
    torch.manual_seed(0)
    mask_model = perturbed(policy.model)
    prompts = policy.encode(PROMPTS)
    masked = policy.generate_text(prompts, gen, [policy.mask_processor(
        mask_model, prompts, top_p=1e-6, min_tokens_to_keep=1, never_mask=(), beams=gen.num_beams)])
    unmasked = policy.generate_text(prompts, gen)
    policy.model, original = mask_model, policy.model
    try:
        greedy = policy.generate_text(prompts, decoding())
    finally:
        policy.model = original
    assert masked == greedy
    assert unmasked != greedy  # the policy alone decodes differently: the mask did the work


def test_an_nlpo_run_evaluates_through_its_mask_and_records_the_choice(tiny_imdb_args):
    """Two NLPO runs that differ only in nlpo.mask_at_eval train identically (evaluation never touches
    the training random stream) but decode their evaluations differently; results.json says which."""
    import json

    from grue.config import load_config
    from grue.run.runner import Run

    def run(mask_at_eval: bool):
        args = [*tiny_imdb_args, "algo=nlpo", "ppo.total_steps=48", "nlpo.top_p=0.05", "nlpo.min_tokens_to_keep=1",
                f"nlpo.mask_at_eval={str(mask_at_eval).lower()}"]
        path = Run(load_config(args), args).execute()
        doc = json.loads((path / "results.json").read_text())
        generations = [json.loads(line)["generation"] for line in (path / "predictions" / "val.jsonl").open()]
        return doc, generations

    masked_doc, masked = run(True)
    plain_doc, plain = run(False)
    assert masked_doc["config"]["nlpo"]["mask_at_eval"] is True and plain_doc["config"]["nlpo"]["mask_at_eval"] is False
    assert masked != plain
