"""The leaderboard's data: the paper's published numbers (reference rows) and, by default, exports.

`paper_results.json` holds the results tables of Ramamurthy, Ammanabrolu et al. (ICLR 2023) with their
provenance (table number, split, number of seeds); `paper_table2.json` holds its Table 2 answers.
`grue.board.numbers.reference` reads them; `grue leaderboard export` writes under `leaderboard/export/`.
"""
