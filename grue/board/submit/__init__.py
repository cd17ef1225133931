"""Submissions a board can check: bundles of a setting's seeds (bundle.py) and their verification before
a board takes them (verify.py, install.py). docs/leaderboard.md, "Submitting to a board"."""
