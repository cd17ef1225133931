"""On-policy distillation: a frozen teacher scores the student's own samples, token by token
(`<group>.teacher.model`, grue/train/rl/critic_free_config.TeacherOptions; the `distill` preset).

The definition used (Thinking Machines, "On-Policy Distillation", Lu et al. 2025; the reverse-KL case of GKD,
Agarwal et al. 2024, "On-Policy Distillation of Language Models", whose on-policy student samples it keeps):
on a token y_t the student sampled, the per-token reverse KL is
    k_t = log p_student(y_t | y_<t) - log p_teacher(y_t | y_<t)
(a one-sample estimate of KL(student || teacher) at that state), and the token's advantage gains
    A_t += coef * (-k_t) = coef * (log p_teacher(y_t) - log p_student(y_t))
with a discount of 0: each token is credited with its own term only, not a return to go. Minimising the
reverse KL is mode-seeking: the student moves its mass onto what the teacher finds likely on the states
the student itself visits. Both log-probs are of the whole vocabulary (no top-k, no NLPO mask) at the KL's
temperature (`kl.temperature`, 1 unless set), the same distributions the `kl` group's penalty compares.

The teacher must share the student's tokenizer (the tokens are scored as they are); a teacher whose
tokenizer differs is refused before anything is trained (TeacherRefused).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import torch

from grue.errors import GrueUserError


class TeacherRefused(GrueUserError, ValueError):
    """The teacher cannot score the student's tokens (another tokenizer) or cannot be found."""


def teacher_directory(ref: str) -> str:
    """The directory `from_pretrained` loads for a teacher reference: a grue run directory's final model
    (its model/), a model directory, `packaged:<name>`, or a hub id (the hub cache first, then the hub)."""
    from grue.assets import resolve_model
    from grue.storage.run_layout import model_dir

    path = Path(ref).expanduser()
    if path.is_dir() and not (path / "config.json").is_file() and (model_dir(path) / "config.json").is_file():
        return str(model_dir(path))
    return resolve_model(str(path) if path.is_dir() else ref)


def _backend_parts(tokenizer: Any) -> Optional[dict[str, Any]]:
    """What decides how a fast tokenizer splits text into ids (its model: vocabulary and merges; its
    normaliser and pre-tokeniser), or None for a slow one."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None:
        return None
    spec = json.loads(backend.to_str())
    return {key: spec.get(key) for key in ("model", "normalizer", "pre_tokenizer")}


def tokenizer_difference(student: Any, teacher: Any) -> Optional[str]:
    """How the teacher's tokenizer differs from the student's, in words, or None when the same ids mean the
    same tokens for both (vocabulary, merges, normaliser and pre-tokeniser, end-of-sequence id)."""
    if student.get_vocab() != teacher.get_vocab():
        theirs, ours = len(teacher.get_vocab()), len(student.get_vocab())
        return f"its vocabulary differs ({theirs} tokens against the student's {ours})"
    if student.eos_token_id != teacher.eos_token_id:
        return f"its end-of-sequence id is {teacher.eos_token_id}, the student's {student.eos_token_id}"
    ours, theirs = _backend_parts(student), _backend_parts(teacher)
    if ours is not None and theirs is not None and ours != theirs:
        what = next(key for key in ours if ours[key] != theirs[key])
        return f"its {what.replace('_', '-')} differs"
    return None


def load_teacher(ref: str, setting: str, policy: Any, kind: str, dtype: str) -> torch.nn.Module:
    """The frozen teacher for `policy` (the student), of the student's model kind (`causal` or `seq2seq`),
    on its device. Its tokenizer is read and compared first, so a mismatched teacher is refused before its
    weights are loaded. `setting` names the config key in the refusal."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

    from grue.policy.load import training_dtype

    directory = teacher_directory(ref)
    difference = tokenizer_difference(policy.tokenizer, AutoTokenizer.from_pretrained(directory))
    if difference is not None:
        raise TeacherRefused(f"{setting}={ref}: the teacher's tokenizer is not the student's ({difference}); "
                             "distillation scores the student's own token ids under the teacher, so both must "
                             "share one tokenizer")
    encoder_decoder = getattr(AutoConfig.from_pretrained(directory), "is_encoder_decoder", False)
    teacher_kind = "seq2seq" if encoder_decoder else "causal"
    if teacher_kind != kind:
        raise TeacherRefused(f"{setting}={ref}: the teacher is a {teacher_kind} model and the student (model.kind) a "
                             f"{kind} one; the teacher scores the student's tokens as the student reads them, so "
                             "both must be of one kind")
    auto = AutoModelForSeq2SeqLM if kind == "seq2seq" else AutoModelForCausalLM
    model = auto.from_pretrained(directory, dtype=training_dtype(dtype)).to(policy.device).eval()
    for parameter in model.parameters():
        parameter.requires_grad_(False)
    return model


def reverse_kl_advantage(teacher_logp: torch.Tensor, student_logp: torch.Tensor, valid: torch.Tensor,
                         coef: float) -> torch.Tensor:
    """[B, T] coef * (log p_teacher(y_t) - log p_student(y_t)) on the episodes' real tokens, 0 on padding."""
    return coef * (teacher_logp - student_logp) * valid
