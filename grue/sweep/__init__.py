"""`grue sweep`: grids of runs (grid), their books (state), launchers (launch), and the whole (orchestrate)."""
