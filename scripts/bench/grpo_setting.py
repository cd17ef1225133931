"""The GRPO pair's setting (docs/speed.md, "GRPO against TRL 1.16" and "... 1.12"), shared by grue's side and TRL's.

On top of the PPO setting (scripts/bench/common.py: 13-token prompts, 48 sampled tokens with no early EOS,
top-k off, temperature 1, fp32, two optimizer steps of 8 episodes per iteration): 4 prompts x 4 samples per
iteration (16 episodes, 768 generated tokens, as PPO's iteration), one update epoch, a k3 KL term in the
loss at beta 0.04, group-std scaled advantages, a token mean per sequence then a mean over sequences;
activations kept for the backward pass (the `-ckpt` sides recompute them on both sides).
Standard library only: imported under grue's environment and under TRL's.
"""
from __future__ import annotations

GROUP = 4                      # samples per prompt (grue grpo.group_size, TRL num_generations)
PROMPTS_PER_ITERATION = 4      # GROUP x PROMPTS_PER_ITERATION = 16 episodes an iteration
BETA = 0.04                    # KL coefficient on both sides (TRL 1.x defaults to 0.0 and then loads no reference)
CLIP = 0.2                     # grue ppo.clip_range, TRL epsilon
LEARNING_RATE = 3e-5           # the IMDB preset's; TRL's default is 1e-6
MAX_GRAD_NORM = 0.5            # the IMDB preset's; TRL's default is 1.0
WEIGHT_DECAY = 1e-6            # the IMDB preset's; TRL's default is 0.0


def text_reward(text: str) -> float:
    """The reward of one completion's text, identical on both sides and cheap enough not to be measured."""
    return len(text) / 200
