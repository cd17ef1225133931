"""The leaderboard: collect results.json files, aggregate over seeds, score, test, export."""
