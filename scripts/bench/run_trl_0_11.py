"""trl 0.11.4's classic `PPOTrainer.step` (value head on the shared policy trunk) on the benchmark setting.

Runs under the `trl-0.11` environment (scripts/bench/trl_envs.py) on the SmolLM2 folder re-spelled for
transformers 4. The rollout is `generate` plus the parts of `step` that score the batch (its
`time/ppo/forward_pass`, `compute_rewards` and `compute_advantages` timings); the update is the rest
of `step` (optimisation and statistics).

    python run_trl_0_11.py <prompts.json> <model_dir_transformers4> <iterations>
"""
from __future__ import annotations

import sys
import time

import torch

from common import MINIBATCH_EPISODES, NEW_TOKENS, PROMPTS, THREADS, Iteration, read_prompts, report

_ROLLOUT_PARTS = ("time/ppo/forward_pass", "time/ppo/compute_rewards", "time/ppo/compute_advantages")


def main() -> None:
    from transformers import AutoTokenizer
    from trl import AutoModelForCausalLMWithValueHead, PPOConfig, PPOTrainer

    prompts_path, model_dir, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(model_dir, padding_side="left")
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    policy = AutoModelForCausalLMWithValueHead.from_pretrained(model_dir, torch_dtype=torch.float32)
    ref = AutoModelForCausalLMWithValueHead.from_pretrained(model_dir, torch_dtype=torch.float32)
    config = PPOConfig(batch_size=PROMPTS, mini_batch_size=MINIBATCH_EPISODES, ppo_epochs=1, seed=0,
                       accelerator_kwargs={"cpu": True})
    trainer = PPOTrainer(config=config, model=policy, ref_model=ref, tokenizer=tok)
    queries = [torch.tensor(row) for row in read_prompts(prompts_path)]
    # No early EOS: every response is NEW_TOKENS long, as on the other sides.
    generation = {"min_new_tokens": NEW_TOKENS, "max_new_tokens": NEW_TOKENS, "top_k": 0, "top_p": 1.0,
                  "do_sample": True, "pad_token_id": tok.pad_token_id}
    measured = []
    for i in range(iterations + 1):
        start = time.perf_counter()
        responses = trainer.generate(queries, return_prompt=False, batch_size=PROMPTS, **generation)
        generated = time.perf_counter() - start
        # A cheap Python reward (the length of the decoded text): its cost is not what is measured.
        rewards = [torch.tensor(len(tok.decode(r)) / 200.0) for r in responses]
        stats = trainer.step(queries, list(responses), rewards)
        total = time.perf_counter() - start
        rollout = generated + sum(stats[k] for k in _ROLLOUT_PARTS)
        if i:
            measured.append(Iteration(rollout_s=rollout, update_s=total - rollout))
    report("trl-0.11", measured)


if __name__ == "__main__":
    main()
