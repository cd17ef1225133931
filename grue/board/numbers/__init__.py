"""The board's numbers: results files collected, settings told apart, seeds aggregated, GRUE scores,
statistics and the paper's reference rows (pandas frames; nothing here formats)."""
