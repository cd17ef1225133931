"""Rewards learned from comparisons (Ziegler et al. 2019; the paper's CommonGen preference reward).

The pieces, in the order labels flow:
- `comparisons`: the comparisons file format (JSONL, append-only) and its reader/writer; the
  human-judgment app and the CSV exchange write the same records.
- `queries`: sample (x, y_0..y_{k-1}) from any model, with the task's prompts and decoding.
- `labelers`: the mock labeler (any registered reward as the "human", with optional noise).
- `model`, `loss`, `training`, `accuracy`: a reward model on a language-model backbone, its k-way
  softmax loss, one epoch of Adam, normalisation and held-out accuracy / ROC AUC.
- `reward`: `reward=learned` and `reward=commongen_preference` in the reward registry.
- `schedules`: offline and batched label collection inside a run.

See docs/learned_rewards.md for the file formats and the commands.
"""
