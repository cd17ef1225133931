"""grue: train language models on the GRUE tasks, score them, and build the leaderboard.

A run reads top to bottom: commands -> run (one run) -> config / tasks / rewards -> rl, supervised,
policy, metrics, data -> assets -> results, storage; runtime (processes and engines) underneath,
sweep (grids of runs) and board (the leaderboard) on top of finished runs.
"""
