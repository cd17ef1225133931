"""Rewards learned from comparisons (Ziegler et al. 2019; the paper's CommonGen preference reward).

The pieces, in the order labels flow:
- `comparisons`: the comparisons file format (JSONL, append-only) and its reader/writer; the
  human-judgment app and the CSV exchange write the same records.
- `queries`: sample (x, y_0..y_{k-1}) from any model, with the task's prompts and decoding.
- `labelers`: the mock labeler (any registered reward as the "human", with optional noise).
- `model`, `loss`, `training`, `accuracy`: a reward model on a language-model backbone, its k-way
  softmax loss, one epoch of Adam, normalisation and held-out accuracy / ROC AUC.
- `reward`: `reward=learned` and `reward=commongen_preference` in the reward registry.
- `plan`, `schedules`: offline, batched and online label collection inside a run (when each round
  starts, on how many labels; plans whose rounds cannot all start are refused).
- `normalised`: a reward standardised over the initial policy's samples, a learned reward's scale
  (`reward=sentiment_normalised`).

See docs/learned_rewards.md for the file formats and the commands.
"""
