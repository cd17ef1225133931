"""The benchmark's prompts: 16 review openings of exactly 13 SmolLM2 tokens, written as token ids.

Every side reads the same ids, so no side pays for longer prompts (an earlier version of the
benchmark fed grue 19-24 tokens against TRL's 13). The texts are the first words of mini-IMDB
prompts; a text is used only if decoding its 13 tokens and encoding again gives the same 13 ids, so
grue, which tokenises text, sees exactly these ids too.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from common import PROMPT_TOKENS, PROMPTS


def build(out: Path) -> Path:
    from transformers import AutoTokenizer

    from grue.assets import resolve_model
    from grue.assets.rotten_tomatoes import rotten_tomatoes_splits

    model_dir = resolve_model("packaged:smollm2-135m")
    tok = AutoTokenizer.from_pretrained(model_dir)
    texts, ids = [], []
    for text, _label in rotten_tomatoes_splits(0)["train"]:
        row = tok(text, add_special_tokens=False)["input_ids"][:PROMPT_TOKENS]
        prefix = tok.decode(row)
        if len(row) == PROMPT_TOKENS and tok(prefix, add_special_tokens=False)["input_ids"] == row:
            texts.append(prefix)
            ids.append(row)
        if len(ids) == PROMPTS:
            break
    out.write_text(json.dumps({"model": str(model_dir), "texts": texts, "input_ids": ids}))
    return out


if __name__ == "__main__":
    print(build(Path(sys.argv[1])))
