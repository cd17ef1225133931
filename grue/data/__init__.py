"""Task loaders that turn a corpus into `Sample(id, prompt, references, meta)` splits, and the
generators of the mini profile's small corpora."""
