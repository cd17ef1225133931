"""Dense rewards from an LLM critic (DRLC, grue_spec.md section 8): `reward.dense=critic`.

A frozen critic LM reads each generation and quotes the spans that earned or cost the task's
reward; the spans become per-token intrinsic rewards r_in_t (+/- `critic.span_reward`) on the
policy's own tokens, and the trainer optimises r_t = alpha_1 * r_ex * [t = T] + alpha_2 * r_in_t
(plus the KL penalty as always). The pieces, in the order one judgement flows:

- `template`: the prompt files (task definition, numbered steps, three examples, the sample)
- `backend`, `local_backend`, `http_backend`: who answers (a local causal LM, or an
  OpenAI-compatible chat-completions endpoint)
- `cache`: judgements stored in the run directory, so a resumed run never asks twice
- `parse`: the critic's answer to labelled spans, never raising on bad output
- `token_spans`: spans located in the decoded generation and mapped to token positions
- `dense_reward`: the reward wrapper the trainer sees; `build`: assembled from the run config
- `overhead`: the critic's share of the wall time, per iteration and per run
"""
