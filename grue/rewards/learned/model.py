"""The reward model: a language-model backbone with a fresh linear head on the final hidden state.

Ziegler et al. initialise r from the policy's initial model rho and add a random final linear layer
(spec §7.1); it is a network of its own, never sharing parameters with the policy (§7.6: sharing
overfit). The head reads the hidden state of the last real token of prompt + continuation, the one
that has seen the whole text in a causal LM. For an encoder-decoder backbone (T5) the encoder reads
the text. After training the raw score is normalised to mean 0 and variance 1 over x ~ D, y ~ rho:
`gain` and `bias` are stored with the weights so every user of the directory scores alike.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import torch

from grue.rewards.learned.rng import isolated_rng
from grue.storage.atomic import atomic_write_json, atomic_write_jsonl
from grue.storage.outputs import replace_directory

MODEL_FILE = "reward_model.json"  # present only in a complete reward-model directory


def is_reward_model_dir(ref: Optional[str]) -> bool:
    return bool(ref) and (Path(str(ref)) / MODEL_FILE).is_file()


class RewardModel(torch.nn.Module):
    def __init__(self, backbone: Any, tokenizer: Any, max_length: int = 128, backbone_ref: str = "",
                 seed: int = 0) -> None:
        """A fresh head, drawn from `seed` without touching the global random stream."""
        super().__init__()
        self.backbone, self.tokenizer = backbone, tokenizer
        self.max_length, self.backbone_ref = max_length, backbone_ref
        tokenizer.padding_side = "right"    # the last real token sits at attention_mask.sum() - 1
        tokenizer.truncation_side = "left"  # keep the continuation, the part the policy writes
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        hidden = backbone.config.hidden_size  # T5 configs map it to d_model
        with isolated_rng():
            torch.manual_seed(seed)
            self.head = torch.nn.Linear(hidden, 1)
            torch.nn.init.normal_(self.head.weight, std=1 / math.sqrt(hidden + 1))  # as lm-human-preferences
            torch.nn.init.zeros_(self.head.bias)
        self.register_buffer("gain", torch.tensor(1.0))
        self.register_buffer("bias", torch.tensor(0.0))
        self.info: dict[str, Any] = {}  # training facts written beside the weights

    @classmethod
    def from_backbone(cls, ref: str, max_length: int = 128, seed: int = 0, device: str = "cpu") -> "RewardModel":
        """A fresh reward model: pretrained backbone, head drawn from `seed`; dropout off (eval mode)."""
        from transformers import AutoModel, AutoTokenizer

        from grue.assets import resolve_model

        path = resolve_model(ref)
        with isolated_rng():  # loading may draw weights the checkpoint lacks
            backbone = AutoModel.from_pretrained(path)
        return cls(backbone, AutoTokenizer.from_pretrained(path), max_length, ref, seed).to(device).eval()

    @property
    def device(self) -> torch.device:
        return self.head.weight.device

    def raw(self, prompts: Sequence[str], continuations: Sequence[str]) -> torch.Tensor:
        """Unnormalised scores [N] of prompt + continuation (with gradients when training)."""
        batch = self.tokenizer([p + c for p, c in zip(prompts, continuations)], padding=True, truncation=True,
                               max_length=self.max_length, return_tensors="pt").to(self.device)
        encoder = self.backbone.get_encoder() if self.backbone.config.is_encoder_decoder else self.backbone
        hidden = encoder(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"]).last_hidden_state
        last = batch["attention_mask"].sum(-1) - 1
        final = hidden[torch.arange(hidden.shape[0], device=hidden.device), last]
        return self.head(final.float()).squeeze(-1)

    @torch.inference_mode()
    def raw_scores(self, prompts: Sequence[str], continuations: Sequence[str], batch_size: int = 32,
                   progress: Optional[Callable[[int], None]] = None) -> list[float]:
        out: list[float] = []
        for start in range(0, len(prompts), batch_size):
            out.extend(self.raw(prompts[start:start + batch_size], continuations[start:start + batch_size]).tolist())
            if progress is not None:
                progress(len(prompts[start:start + batch_size]))
        return out

    def score(self, prompts: Sequence[str], continuations: Sequence[str], batch_size: int = 32) -> list[float]:
        """Normalised rewards: gain * raw + bias."""
        g, b = float(self.gain), float(self.bias)
        return [g * r + b for r in self.raw_scores(prompts, continuations, batch_size)]

    def normalise(self, raw: Sequence[float]) -> None:
        """Set gain and bias so these raw scores (of x ~ D, y ~ rho) get mean 0 and variance 1."""
        mean = sum(raw) / len(raw)
        std = math.sqrt(sum((r - mean) ** 2 for r in raw) / len(raw))
        if not std > 0:
            raise ValueError("the reward model gives every normalisation sample the same score; cannot normalise")
        self.gain.fill_(1 / std)
        self.bias.fill_(-mean / std)

    # -- directory ---------------------------------------------------------------------------------
    def save(self, directory: Path, logs: Optional[dict[str, list[dict]]] = None) -> None:
        """Weights, tokenizer, head, `logs` (file name -> JSONL rows), gain/bias and training facts;
        `reward_model.json` is written last, so a directory without it is incomplete and is never loaded.
        The new model is written beside `directory` and swapped in whole, so a retrain killed mid-save
        leaves the previous model in place."""
        replace_directory(Path(directory), lambda tmp: self._write(tmp, logs))

    def _write(self, directory: Path, logs: Optional[dict[str, list[dict]]]) -> None:
        self.backbone.save_pretrained(directory)  # a model directory in its own right (config.json at the top)
        self.tokenizer.save_pretrained(directory)
        torch.save(self.head.state_dict(), directory / "head.pt")
        for name, rows in (logs or {}).items():
            atomic_write_jsonl(directory / name, rows)
        atomic_write_json(directory / MODEL_FILE, {
            "backbone": self.backbone_ref, "max_length": self.max_length,
            "gain": float(self.gain), "bias": float(self.bias), **self.info})

    @classmethod
    def load(cls, directory: str | Path, device: str = "cpu") -> "RewardModel":
        from transformers import AutoModel, AutoTokenizer

        directory = Path(directory)
        if not is_reward_model_dir(str(directory)):
            raise FileNotFoundError(f"{directory} is not a reward-model directory (no {MODEL_FILE}); "
                                    "train one with `grue label train`")
        meta = json.loads((directory / MODEL_FILE).read_text())
        model = cls(AutoModel.from_pretrained(directory), AutoTokenizer.from_pretrained(directory), meta["max_length"],
                    meta["backbone"])
        model.head.load_state_dict(torch.load(directory / "head.pt", map_location="cpu"))
        model.gain.fill_(meta["gain"])
        model.bias.fill_(meta["bias"])
        model.info = {k: v for k, v in meta.items() if k not in ("backbone", "max_length", "gain", "bias")}
        return model.to(device).eval()
