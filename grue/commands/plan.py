"""`grue plan`: an estimate of a run's peak memory per device, before it starts.

    grue plan task=imdb algo=ppo profile=paper [model.lora.rank=16] [model.gradient_checkpointing=true]
              [model.mixed_precision=bf16] [num_processes=4 shard=full] [any config key=value]

The estimate adds up what a run holds at its peak, which is the pass that trains:
- RL (PPO, NLPO and every critic-free method): the update of one minibatch. That is the weights of every model
  (policy, reference, NLPO's masking model, critic), the gradients and AdamW moments of what trains,
  autocast's half-precision weight copies, the rollout's action masks, the update's activations (the
  policy's, or with a separate critic the larger of the policy's and the critic's: the policy's graph is freed
  before the critic's forward), the vocabulary head's chunks, and the process itself.
- Supervised: one teacher-forced batch of `supervised.batch_size` pairs, whose loss takes the model's whole
  logits (a decoder-only model's at every prompt and target position).
- DPO: one pass of `dpo.micro_batch_size` answers (unset: the step's `dpo.batch_size`), each of its k
  candidates a row of prompt + `dpo.max_length` tokens, with their full-vocabulary logits; the frozen reference,
  and RMSprop's one moment (AdamW's two with dpo.optimizer=adamw).
- Zero-shot and best-of-n train nothing: the weights and the process.
The model is read from its config.json alone (built on the meta device: no weights are loaded). Activations
follow a per-token, per-block count of what autograd keeps (8 hidden-size vectors, 3 key/value-size vectors
and 4 MLP-size vectors; with gradient checkpointing one hidden-size vector per block plus one block
recomputed). Reward and metric models, and decoding's caches, are not counted. docs/speed.md compares the
estimate with measured peaks (PPO: scripts/bench_memory.py; DPO: scripts/bench_dpo_memory.py).
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
        # peft draws its adapters' initial values from torch's global generator even on the meta device: a run
        # asks for this estimate before it trains (grue/run/memory_check.py), on its main process only, and a
        # draw here would change what the run samples next and part its ranks
        with torch.random.fork_rng(devices=[]):
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
    """The peak memory per device of `cfg`'s training pass (a loaded run config; module docstring)."""
    from grue.policy.lora import lora_settings
    from grue.train.registry import get_algorithm

    facts = facts or model_facts(cfg)
    algo = get_algorithm(cfg.algo)
    model = cfg.model
    device = device or ("cuda" if str(cfg.device).startswith("cuda") else "cpu")
    plan = Plan(device=device)
    world, shard = _world(cfg)
    weight_share = 1 / world if shard == "full" else 1.0       # FSDP FULL_SHARD: parameters sharded too
    b = DTYPE_BYTES[model.dtype]
    lora = lora_settings(cfg) is not None

    plan.add("policy weights", facts.params * b * weight_share, f"{facts.params / 1e6:,.1f}M parameters x {b} B")
    if algo.trains == "nothing":  # evaluated (or sampled from) as it is: no gradients, no optimizer
        plan.add("process", PROCESS_GPU if device == "cuda" else PROCESS_CPU, _process_how(device))
        return plan
    state_share = 1 / world if shard else 1.0                  # both modes shard gradients and AdamW moments
    trained = facts.lora if lora else facts.params
    rmsprop = algo.trains == "preferences" and cfg.dpo.optimizer == "rmsprop"  # DPO's default: one moment
    optimizer, moments = ("RMSprop", 1) if rmsprop else ("AdamW", 2)
    plan.add(f"policy gradients + {optimizer} moments", (1 + moments) * trained * b * state_share,
             f"{trained / 1e6:,.2f}M trained ({'adapters' if lora else 'all'}) x {1 + moments} x {b} B")
    if algo.trains == "rl":
        _rl_lines(plan, cfg, algo, facts, prompt_tokens, world, lora, weight_share, state_share)
    else:
        if algo.trains == "preferences":  # pi_ref, frozen (grue/train/offline/loop.py frozen_copy)
            plan.add("reference pi_ref", (facts.lora if lora else facts.params) * b * weight_share,
                     "a copy of the adapters" if lora else "a frozen copy")
        if getattr(model, "mixed_precision", "no") != "no":
            plan.add("autocast weight copies", facts.params * 2 * weight_share, "half-precision casts kept for a pass")
        _teacher_forced_lines(plan, cfg, algo, facts, prompt_tokens, world)
    plan.add("process", PROCESS_GPU if device == "cuda" else PROCESS_CPU, _process_how(device))
    return plan


def _process_how(device: str) -> str:
    return "CUDA context" if device == "cuda" else "interpreter, libraries, data"


def _activations(cfg: Any, facts: ModelFacts, rows: int, seq: int) -> tuple[int, str]:
    """What autograd keeps of one forward pass over `rows` x `seq` tokens, and how it was counted."""
    model = cfg.model
    act_bytes = 2 if getattr(model, "mixed_precision", "no") != "no" else DTYPE_BYTES[model.dtype]
    per_token_block = 8 * facts.hidden + 3 * facts.kv + 4 * facts.mlp
    block = rows * seq * per_token_block * act_bytes
    if getattr(model, "gradient_checkpointing", False):
        return (facts.layers * rows * seq * facts.hidden * act_bytes + 2 * block,
                f"{rows} x {seq} tokens, checkpointed: {facts.layers} block inputs + one block recomputed")
    return facts.layers * block + block, f"{rows} x {seq} tokens x {facts.layers} blocks x {per_token_block:,} values"


def _rl_lines(plan: Plan, cfg: Any, algo: Any, facts: ModelFacts, prompt_tokens: Optional[int], world: int,
              lora: bool, weight_share: float, state_share: float) -> None:
    """An RL update's models, activations and rollout masks (module docstring)."""
    from grue.policy import logprobs

    model = cfg.model
    b = DTYPE_BYTES[model.dtype]
    nlpo = "nlpo" in algo.reads
    separate = not algo.critic_free and model.value_model == "separate"
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
    if getattr(model, "mixed_precision", "no") != "no":
        copies = facts.params + (facts.trunk if separate else 0)
        plan.add("autocast weight copies", copies * 2 * weight_share, "half-precision casts kept for a pass")
    rows, seq, actions = _update_batch(cfg, prompt_tokens)
    size, how = _activations(cfg, facts, rows, seq)
    plan.add("update activations", size, how)  # a separate critic's are made after the policy's are freed
    chunk = min(rows * actions * facts.vocab, logprobs.CHUNK_ELEMENTS)
    plan.add("vocabulary head chunks", 4 * chunk * 4, f"{chunk / 1e6:,.1f}M logits a chunk, ~4 float32 copies")
    episodes = max(1, -(-int(cfg.ppo.steps_per_update) // max(1, int(cfg.rollout.max_new_tokens))))
    if int(cfg.rollout.top_k or 0) > 0 or nlpo:
        per_rank = -(-episodes // world)
        plan.add("rollout action masks", per_rank * actions * facts.vocab, "bool [episodes, T, V] of top-k/NLPO")


def _teacher_forced_lines(plan: Plan, cfg: Any, algo: Any, facts: ModelFacts, prompt_tokens: Optional[int],
                          world: int) -> None:
    """A supervised batch's or a DPO pass's activations and whole logits (module docstring)."""
    prompt = int(prompt_tokens if prompt_tokens is not None else cfg.model.max_prompt_length)
    seq2seq = cfg.model.kind == "seq2seq"
    if algo.trains == "preferences":
        d = cfg.dpo
        answers = min(int(d.micro_batch_size or d.batch_size), -(-int(d.batch_size) // world))
        k, source = dpo_candidates(cfg)
        rows, target = answers * k, int(d.max_length)
        positions = target if seq2seq else target + 1  # the head runs at the action states and the last one
        what = f"{answers} answers x {k} candidates ({source})"
    else:
        sup = cfg.supervised
        rows, target = -(-int(sup.batch_size) // world), int(sup.max_length)
        positions = target if seq2seq else prompt + target  # the model's own loss: logits at every position
        what = f"{rows} pairs"
    size, how = _activations(cfg, facts, rows, prompt + target)
    plan.add("pass activations", size, f"{what}: {how}")
    # kept for the backward (the log-normaliser's input), then its gradient and the softmax that makes it
    logits = rows * positions * facts.vocab
    plan.add("vocabulary logits", 3 * logits * 4,
             f"{rows} x {positions} positions x {facts.vocab:,} float32, 3 copies (logits, softmax, gradient)")


def dpo_candidates(cfg: Any) -> tuple[int, str]:
    """The most candidates one DPO answer holds: the comparisons file's widest query, or for
    dpo.comparisons=auto (whose file may not be made yet) the k it draws per query (reward.k)."""
    from grue.train.offline.auto_recipe import is_auto

    path = cfg.dpo.comparisons
    if not path or is_auto(path):
        return int(cfg.reward.k), "reward.k, the made file's"
    from grue.train.offline.preferences import read_preferences, widest

    train, held = read_preferences(path, cfg.dpo.heldout)
    return widest(train + held), "the file's widest query"


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
