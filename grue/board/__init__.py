"""The leaderboard's numbers: collect results.json files, aggregate over seeds, normalise, score,
select, test, answer the paper's questions. Their formats live in `grue.board.render`; `export`
ties the two together."""
