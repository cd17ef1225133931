"""One run from start to results.json: runner, run directory, checkpoints, preflight checks,
evaluation on a split."""
