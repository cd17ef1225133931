"""Causal and seq2seq language models behind one interface: sample, log-probs, values; the NLPO
masking model and the value heads."""
