"""The board's formats: Markdown, LaTeX, HTML site, plots, CSV/JSON. Renderers read the numbers
computed in `grue.board`; nothing there imports from here."""
