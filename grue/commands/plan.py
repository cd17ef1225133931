"""`grue plan`: an estimate of a run's peak memory per device, before it starts.

    grue plan task=imdb algo=ppo profile=paper [model.lora.rank=16] [model.gradient_checkpointing=true]
              [model.mixed_precision=bf16] [num_processes=4 shard=full] [any config key=value]

The estimate adds up what a PPO/NLPO iteration holds at its peak, the update of one minibatch: the
weights of every model (policy, reference, NLPO's masking model, critic), the gradients and AdamW
moments of what trains, autocast's half-precision weight copies, the rollout's action masks, the
update's activations (the policy's, or with a separate critic the larger of the policy's and the
critic's: the policy's graph is freed before the critic's forward), the vocabulary head's chunks, and
the process itself. The model is read from its config.json alone (built on the meta device: no weights
are loaded). Activations follow a per-token, per-block count of what autograd keeps (8 hidden-size
vectors, 3 key/value-size vectors and 4 MLP-size vectors; with gradient checkpointing one hidden-size
vector per block plus one block recomputed). Reward and metric models are not counted. docs/speed.md
compares the estimate with measured peaks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional, Sequence

MIB = 1024 ** 2
PROCESS_CPU = 500 * MIB   # python, torch, transformers, tokenizers and grue imported, data loaded (measured ~0.4-0.5 GiB)
PROCESS_GPU = 500 * MIB   # a CUDA context and its kernels' workspace
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "checkpoint": 4}


@dataclass
class ModelFacts:
    """What the estimate needs of a model, read from its config (meta device: no weights)."""

    params: int            # all parameters (tied weights once)
    trunk: int             # what a separate critic copies: all but an untied vocabulary head
    lora: int              # adapter parameters for the run's model.lora settings (0 without)
    layers: int
    hidden: int
    kv: int                # key/value width per token (grouped-query attention: smaller than hidden)
    mlp: int               # MLP inner width
    vocab: int


@dataclass
class Plan:
    lines: list[tuple[str, int, str]] = field(default_factory=list)  # (what, bytes, how it was counted)
    device: str = "cpu"

    def add(self, what: str, size: float, how: str = "") -> None:
        self.lines.append((what, int(size), how))

    @property
    def peak(self) -> int:
        return sum(size for _, size, _ in self.lines)

    def table(self) -> str:
        width = max(len(what) for what, _, _ in self.lines)
        rows = [f"{what:<{width}}  {size / MIB:>9,.0f} MiB  {how}".rstrip() for what, size, how in self.lines]
        rows.append(f"{'estimated peak per device':<{width}}  {self.peak / MIB:>9,.0f} MiB  "
                    f"({self.peak / 1024 ** 3:.2f} GiB, {self.device})")
        return "\n".join(rows)


def model_facts(cfg: Any, model_ref: Optional[str] = None) -> ModelFacts:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM

    from grue.assets import resolve_model
    from grue.policy import lora
    from grue.policy.stack_config import decoder_config, stack_configs

    config = AutoConfig.from_pretrained(resolve_model(model_ref or cfg.model.policy, task=cfg.task))
    auto = AutoModelForSeq2SeqLM if cfg.model.kind == "seq2seq" else AutoModelForCausalLM
    with torch.device("meta"):
        model = auto.from_config(config)
    params = sum(p.numel() for p in model.parameters())  # parameters() yields tied weights once
    head = model.get_output_embeddings()
    embeddings = model.get_input_embeddings()
    untied_head = head is not None and head.weight is not embeddings.weight
    trunk = params - (head.weight.numel() if untied_head else 0)
    adapters = 0
    settings = lora.lora_settings(cfg)
    if settings is not None:
        lora.add_adapters(model, settings)
        adapters = sum(p.numel() for n, p in model.named_parameters() if lora.is_adapter_key(n))
    # sizes from the decoder's config where two stacks keep one each (EncoderDecoderModel, grue.policy.stack_config)
    encoder, decoder = stack_configs(config)[0], decoder_config(config)
    hidden = int(getattr(decoder, "hidden_size", None) or getattr(decoder, "d_model"))
    heads = int(getattr(decoder, "num_attention_heads", None) or getattr(decoder, "num_heads", 1))
    kv_heads = int(getattr(decoder, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(decoder, "head_dim", None) or getattr(decoder, "d_kv", None) or hidden // heads)
    layers = int(getattr(encoder, "num_hidden_layers", None) or getattr(encoder, "num_layers", None)
                 or getattr(encoder, "n_layer"))
    if cfg.model.kind == "seq2seq":  # the decoder's layers run per action; the encoder's per prompt token
        own_stack = getattr(decoder, "num_hidden_layers", None) if decoder is not encoder else None
        layers += int(getattr(decoder, "num_decoder_layers", None) or own_stack or layers)
    mlp = int(getattr(decoder, "intermediate_size", None) or getattr(decoder, "d_ff", None)
              or getattr(decoder, "n_inner", None) or 4 * hidden)
    return ModelFacts(params, trunk, adapters, layers, hidden, kv_heads * head_dim, mlp, int(decoder.vocab_size))


def _world(cfg: Any) -> tuple[int, Optional[str]]:
    world = int(cfg.num_processes or 1)
    shard = cfg.shard if world > 1 else None
    return world, shard


def estimate(cfg: Any, facts: Optional[ModelFacts] = None, prompt_tokens: Optional[int] = None,
             device: Optional[str] = None) -> Plan:
    """The peak memory per device of one RL iteration of `cfg` (a loaded run config)."""
    from grue.policy import logprobs
    from grue.policy.lora import lora_settings
    from grue.train.registry import get_algorithm

    facts = facts or model_facts(cfg)
    algo = get_algorithm(cfg.algo)
    model = cfg.model
    device = device or ("cuda" if str(cfg.device).startswith("cuda") else "cpu")
    plan = Plan(device=device)
    world, shard = _world(cfg)
    weight_share = 1 / world if shard == "full" else 1.0       # FSDP FULL_SHARD: parameters sharded too
    state_share = 1 / world if shard else 1.0                  # both modes shard gradients and AdamW moments
    b = DTYPE_BYTES[model.dtype]
    lora = lora_settings(cfg) is not None
    mixed = getattr(model, "mixed_precision", "no") != "no"
    checkpointing = bool(getattr(model, "gradient_checkpointing", False))
    rl = algo.trains == "rl"
    nlpo = "nlpo" in algo.reads
    separate = rl and not algo.critic_free and model.value_model == "separate"

    plan.add("policy weights", facts.params * b * weight_share, f"{facts.params / 1e6:,.1f}M parameters x {b} B")
    trained = facts.lora if lora else facts.params
    plan.add("policy gradients + AdamW moments", 3 * trained * b * state_share,
             f"{trained / 1e6:,.2f}M trained ({'adapters' if lora else 'all'}) x 3 x {b} B")
    if rl:
        plan.add("reference pi_0", 0 if lora else facts.params * b * weight_share,
                 "the base with adapters disabled: no copy" if lora else "a frozen copy")
    if nlpo:
        plan.add("NLPO masking model", (facts.lora if lora else facts.params) * b * weight_share,
                 "a copy of the adapters" if lora else "a frozen copy")
    if separate and lora and model.lora.critic == "lora":
        critic_lora = facts.lora  # the same targets on the trunk (the vocabulary head is never one)
        plan.add("critic (weights, adapters' gradients, AdamW)",
                 facts.trunk * b * weight_share + 3 * critic_lora * b * state_share,
                 f"separate frozen trunk, {facts.trunk / 1e6:,.1f}M parameters, its own adapters trained")
    elif separate:
        plan.add("critic (weights, gradients, AdamW)", facts.trunk * b * (weight_share + 3 * state_share),
                 f"separate trunk, {facts.trunk / 1e6:,.1f}M parameters, all trained")
    if mixed:
        copies = facts.params + (facts.trunk if separate else 0)
        plan.add("autocast weight copies", copies * 2 * weight_share, "half-precision casts kept for a pass")

    rows, seq, actions = _update_batch(cfg, prompt_tokens)
    act_bytes = 2 if mixed else b
    per_token_block = 8 * facts.hidden + 3 * facts.kv + 4 * facts.mlp
    block = rows * seq * per_token_block * act_bytes
    if checkpointing:
        policy_act = facts.layers * rows * seq * facts.hidden * act_bytes + 2 * block
        how = f"{rows} x {seq} tokens, checkpointed: {facts.layers} block inputs + one block recomputed"
    else:
        policy_act = facts.layers * block + block
        how = f"{rows} x {seq} tokens x {facts.layers} blocks x {per_token_block:,} values"
    plan.add("update activations", policy_act, how)  # a separate critic's are made after the policy's are freed
    chunk = min(rows * actions * facts.vocab, logprobs.CHUNK_ELEMENTS)
    plan.add("vocabulary head chunks", 4 * chunk * 4, f"{chunk / 1e6:,.1f}M logits a chunk, ~4 float32 copies")
    episodes = max(1, -(-int(cfg.ppo.steps_per_update) // max(1, int(cfg.rollout.max_new_tokens))))
    if rl and (int(cfg.rollout.top_k or 0) > 0 or nlpo):
        per_rank = -(-episodes // world)
        plan.add("rollout action masks", per_rank * actions * facts.vocab, "bool [episodes, T, V] of top-k/NLPO")
    plan.add("process", PROCESS_GPU if device == "cuda" else PROCESS_CPU,
             "CUDA context" if device == "cuda" else "interpreter, libraries, data")
    return plan


def _update_batch(cfg: Any, prompt_tokens: Optional[int]) -> tuple[int, int, int]:
    """(rows, tokens per row, actions per row) of one update minibatch. Transition minibatches mix tokens
    of up to `batch_size` episodes, each run to its last selected step; episode minibatches hold about
    batch_size / T whole episodes."""
    actions = int(cfg.rollout.max_new_tokens)
    prompt = int(prompt_tokens if prompt_tokens is not None else cfg.model.max_prompt_length)
    episodes = max(1, -(-int(cfg.ppo.steps_per_update) // actions))
    world = int(cfg.num_processes or 1)
    per_rank = -(-episodes // world)
    if cfg.ppo.minibatch == "episodes":
        rows = max(1, -(-int(cfg.ppo.batch_size) // actions))
    else:
        rows = min(int(cfg.ppo.batch_size), per_rank)
    return min(rows, per_rank), prompt + actions, actions


def plan_command(args: Sequence[str]) -> None:
    import typer

    from grue.config import load_config

    cfg = load_config(list(args), refuse_unread=True)
    plan = estimate(cfg)
    world, shard = _world(cfg)
    lora = cfg.model.lora
    typer.echo(f"{cfg.task} {cfg.profile} {cfg.algo}: {cfg.model.policy}, weights {cfg.model.dtype}, mixed precision "
               f"{cfg.model.mixed_precision}, LoRA {'rank ' + str(lora.rank) if lora.rank else 'off'}, gradient "
               f"checkpointing {'on' if cfg.model.gradient_checkpointing else 'off'}, {world} process(es)"
               f"{', shard=' + shard if shard else ''}")
    typer.echo(plan.table())
    from grue.run.time_estimate import estimate_line

    typer.echo(estimate_line(cfg))  # the wall time, from finished runs of this setting (grue/run/time_estimate.py)
