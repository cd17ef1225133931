"""Human judgments: studies built from runs, the rating/comparison web app raters use, crowdsourcing
CSV export/import, and the paper's human-study statistics (Krippendorff's alpha, ANOVA, Tukey HSD,
majority-of-3 win rates with a binomial test).

A study is a directory: `study.json` (what is judged and by which protocol; which run produced each
text stays here, never shown to raters), `items.jsonl`, `links.txt` (the per-rater secret links) and
`answers.sqlite`, the one database local and imported answers land in.
"""
