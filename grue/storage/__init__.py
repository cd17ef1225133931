"""File-safety primitives every part shares: atomic writes and exclusive per-directory locks."""
