"""The board's tables: format-neutral Tables built from the numbers, which every format in render/
draws the same way."""
