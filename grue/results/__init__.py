"""The results file (docs/results_schema.md): its schema and validation, read by the board, and
the writer that assembles it at the end of a run."""
