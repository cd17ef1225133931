"""Supervised fine-tuning: the paper's Supervised baseline and the warm start of Supervised+RL.
It sits beside `grue.train.rl`, the other way a policy is trained."""
