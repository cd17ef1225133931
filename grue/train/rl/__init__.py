"""Reinforcement learning on the token-level MDP: rollouts, the KL controller, GAE, the PPO loss, NLPO's
mask, and the trainer that ties them into one iteration."""
