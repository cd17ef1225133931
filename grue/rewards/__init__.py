"""Reward functions in one registry: a classifier, a metric, or a composite of them. New kinds of
reward (learned reward models, dense critic rewards) each get a sub-package here."""
