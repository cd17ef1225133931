"""model.mixed_precision: autocast through accelerate with fp32 master weights.

The recorded sampling distribution and the PPO ratio stay consistent under autocast:
- decoder-only: the existing consistency tests (tests/train/rl/test_rollout_consistency.py) pass inside a
  bf16 autocast. Where the CPU has native bf16 products (avx512_bf16, AMX), at their own tolerance:
  recorded and recomputed log-probs within 1e-5 (they agree to 5e-7: sampling and the update run the same
  bf16 products per position, and the temperature divides float32 logits on both sides). Where torch
  emulates bf16 (an AVX2-only CPU), the cached decode's few-row products and the update's full pass take
  different kernels and round differently: the largest gap these tests see there is 6e-4
  (`python scripts/bf16_consistency_gaps.py`), so they hold to EMULATED_BF16_ATOL, still far inside what a
  wrong temperature or mask would move (0.1 and more);
- encoder-decoder (T5): the incremental decoder and the teacher-forced pass round differently in bf16,
  so the recorded and recomputed log-probs agree to 0.1 per token at most and 0.01 on average (measured
  worst 0.04 over 6 seeds of the tiny T5: a first-epoch ratio within 4 % of 1, inside PPO's clip of 0.2);
  the same checks at full precision hold to 1e-5 (tests/policy/test_seq2seq_policy.py).
fp16 (with loss scaling) needs a GPU and is refused on a CPU."""
import inspect

import pytest
import torch
from accelerate import Accelerator

from grue.data.sample import Sample
from grue.policy.load import build_value, reference_model
from grue.policy.packed_linear import bf16_packing_supported
from grue.runtime.accelerator import autocast, check_mixed_precision, make_accelerator
from grue.train.rl.nlpo import NLPOTrainer
from tests.policy.rollout_settings import rollout_settings
from tests.train.rl import test_rollout_consistency as consistency_tests
from tests.train.rl.test_learning import TokenCountReward, tiny_cfg

BF16 = ("cpu", "bfloat16")


def _tests_taking(module, fixture):
    return [f for name, f in sorted(vars(module).items())
            if name.startswith("test_") and list(inspect.signature(f).parameters) == [fixture]]


CAUSAL = _tests_taking(consistency_tests, "tiny_causal_policy")
NATIVE_BF16 = bf16_packing_supported()  # oneDNN's own test for bf16 instructions
EMULATED_BF16_ATOL = 5e-3
BF16_LOGP_ATOL = consistency_tests.LOGP_ATOL if NATIVE_BF16 else EMULATED_BF16_ATOL
SEQ2SEQ_MAX, SEQ2SEQ_MEAN = 0.1, 0.01


@pytest.fixture
def bf16_engine(tmp_path):
    """A bf16 accelerate engine; the process's engine state is put back to full precision afterwards (accelerate
    keeps one per process, and the other tests make theirs with the default)."""
    yield make_accelerator("cpu", tmp_path, [], mixed_precision="bf16")
    make_accelerator("cpu", tmp_path, [], mixed_precision="no")


def test_the_consistency_tests_are_found():
    assert len(CAUSAL) >= 5


@pytest.mark.parametrize("test", CAUSAL, ids=lambda f: f.__name__)
def test_causal_consistency_holds_under_bf16_autocast(test, tiny_causal_policy, monkeypatch):
    monkeypatch.setattr(consistency_tests, "LOGP_ATOL", BF16_LOGP_ATOL)
    with autocast(BF16):
        test(tiny_causal_policy)


@pytest.mark.parametrize("nlpo", [False, True])
def test_seq2seq_recorded_and_recomputed_log_probs_agree_under_bf16_autocast(tiny_seq2seq_policy, nlpo):
    from grue.policy.load import frozen_copy

    policy = tiny_seq2seq_policy
    prompts = policy.encode(["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"] * 2)
    with autocast(BF16):
        processors = [policy.mask_processor(frozen_copy(policy.model), prompts, 0.5, 3,
                                            policy.special_token_ids())] if nlpo else []
        torch.manual_seed(2)
        rollout = policy.sample(prompts, rollout_settings(top_k=5, max_new_tokens=10, temperature=0.7), processors)
        logp, _, _ = policy.action_stats(policy.model, rollout)
        raw = policy.raw_log_probs(policy.model, rollout)
    valid = rollout.valid.bool()
    for recomputed, recorded in ((logp, rollout.logp), (raw, rollout.raw_logp)):
        gap = (recomputed - recorded)[valid].abs()
        assert gap.max() <= SEQ2SEQ_MAX and gap.mean() <= SEQ2SEQ_MEAN, (gap.max(), gap.mean())


def test_a_bf16_run_autocasts_every_pass_keeps_fp32_weights_and_a_ratio_of_one(tiny_causal_policy, bf16_engine):
    """Through the trainer (NLPO: policy, reference, masking model, critic): sampling and the update's
    recomputation run autocast, so the first minibatch's ratio is 1 to 1e-5 (to bf16's rounding where the CPU
    emulates bf16); weights and optimizer state stay float32."""
    policy = tiny_causal_policy
    cfg = tiny_cfg(model={"mixed_precision": "bf16", "value_model": "separate"})
    samples = [Sample(str(i), p, ("",)) for i, p in enumerate(["The film was", "dogs run in", "A tedious", "I"])]
    trainer = NLPOTrainer(cfg, policy, reference_model(policy.model), build_value(cfg, policy), TokenCountReward(),
                          samples, bf16_engine)
    seen = []
    hook = policy.model.lm_head.register_forward_hook(lambda m, i, o: seen.append(o.dtype))
    torch.manual_seed(1)
    prompts = policy.encode(["The film was", "A tedious, boring", "I highly recommend", "dogs run in the"])
    rollout = policy.sample(prompts, rollout_settings(top_k=5, max_new_tokens=6, temperature=0.7),
                            trainer.rollout_processors(prompts))
    logp, _, _ = policy.action_stats(policy.model, rollout)
    hook.remove()
    assert seen and set(seen) == {torch.bfloat16}  # generation and the update both ran the head in bf16
    assert torch.allclose(logp * rollout.valid, rollout.logp, atol=BF16_LOGP_ATOL)
    stats = trainer.step()
    assert all(torch.isfinite(torch.tensor(v)) for k, v in stats.items() if k.startswith("loss/"))
    params = [p for g in trainer.optimizer.param_groups for p in g["params"]]
    assert all(p.dtype == torch.float32 for p in params)
    assert all(s.dtype == torch.float32 for st in trainer.optimizer.state.values() for s in st.values()
               if torch.is_tensor(s) and s.is_floating_point() and s.ndim > 0)
    assert "scaler" not in trainer.state_dict()  # bf16 needs no loss scaling


def test_mismatched_or_impossible_precision_is_refused(tmp_path):
    with pytest.raises(ValueError, match="needs a GPU"):
        make_accelerator("cpu", tmp_path, [], mixed_precision="fp16")
    with pytest.raises(ValueError, match="make_accelerator"):
        check_mixed_precision(Accelerator(cpu=True), "bf16", "float32")
    with pytest.raises(ValueError, match="model.dtype=float32"):
        check_mixed_precision(type("Engine", (), {"mixed_precision": "fp16"})(), "fp16", "bfloat16")
