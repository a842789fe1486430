"""Per-GPU KV memory budget, each engine with its own semantics (engines.md
§0, §1.3, §2.1/2.3, §3.3, §4.3, §8, §9).

Everything here is an estimate from the accelerator's memory and the engine
settings; it is built to undershoot the engine, never to overshoot by more than
a few percent. Terms we cannot know (activation peak, NCCL, CUDA graphs) are
taken at conservative values and listed as assumptions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .models import ModelArch
from .weights import WeightFormat, weight_bytes

GIB = 1 << 30
MIB = 1 << 20
Step = tuple[str, str, Any]

# CUDA context + allocator slack before the engine loads anything: the SGLang
# docs log shows 78.81 GiB free of a 79.2 GiB H100 (engines.md §2.3).
CUDA_CONTEXT = 0.5 * GIB
# Non-torch memory (NCCL, cuBLAS workspaces, CUDA graphs): vLLM PR #10511 logs
# 1.79 GiB at TP1 and 3.58 GiB at TP2 for Llama-3-8B on H100.
NON_TORCH_SINGLE = 1.8 * GIB
NON_TORCH_MULTI = 3.6 * GIB

DEFAULT_BLOCK = {"vllm": 16, "sglang": 1, "tgi": 1, "trtllm": 32, "lmdeploy": 64, "llamacpp": 1}


@dataclass(frozen=True)
class Budget:
    kv_bytes: float | None              # per GPU; None = cannot be estimated
    block_size: int
    token_cap: int | None = None        # explicit upper bound (max_total_tokens, max_tokens)
    fixed_blocks: int | None = None     # pool given in blocks/cells (overrides bytes)
    knob: str | None = None             # the engine's memory-fraction setting name
    steps: tuple[Step, ...] = ()
    assumptions: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)


def _num(settings: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """Read a numeric setting; strings like '0.9' are accepted, junk -> default."""
    v = settings.get(key, default)
    if v is None or isinstance(v, bool):
        return default
    try:
        f = float(v)
    except (TypeError, ValueError):
        return default
    return int(f) if f.is_integer() and not isinstance(default, float) else f


def gib(x: float | None) -> str:
    return "?" if x is None else f"{x / GIB:.2f} GiB"


def weights_per_gpu(arch: ModelArch, tp: int, pp: int, draft_layers: int = 0,
                    fmt: WeightFormat | None = None) -> tuple[float | None, str, list[str]]:
    """Checkpoint bytes / (TP x PP), in the weight format that applies (the resolution's,
    else the checkpoint's own). MoE experts are assumed split over the same TP x PP GPUs;
    expert parallelism over more GPUs (DP-attention + EP) only lowers the real per-GPU
    share, so this stays conservative."""
    notes: list[str] = []
    if arch.total_params_b is None:
        return None, "total params unknown", ["model parameter count unknown: weights per GPU cannot be estimated"]
    params = arch.total_params_b * 1e9
    fmt = fmt or arch.weight_format
    if arch.weight_bytes is not None:  # a flat bytes/param the user stated
        total = params * arch.weight_bytes
        formula = f"{arch.total_params_b:g}e9 x {arch.weight_bytes:g} B / ({tp} x {pp})"
    else:
        b = lambda x: None if x is None else x * 1e9  # noqa: E731
        total = weight_bytes(params, b(arch.embed_params_b), b(arch.lm_head_params_b), b(arch.expert_params_b),
                             b(arch.vision_params_b), fmt)
        formula = f"{arch.total_params_b:g}e9 params as {fmt.label} = {total / GIB:.2f} GiB / ({tp} x {pp})"
        if fmt.key not in ("bf16", "fp32"):
            kept = "MoE experts only" if fmt.scope == "experts" else \
                "embeddings and LM head at 16 bits" if fmt.scope == "linear" else "every tensor"
            notes.append(f"weights {fmt.label}: {fmt.bits:g} bits per quantized weight ({kept})")
    if draft_layers:
        embed = (arch.vocab_size or 0) * (arch.hidden_size or 0) * 2
        per_layer = max(0.0, params - embed) / max(1, arch.num_layers)
        per_param = arch.weight_bytes if arch.weight_bytes is not None else fmt.bits / 8
        total += draft_layers * per_layer * per_param
        formula += f" + {draft_layers} draft layer(s) x {per_layer / 1e9:.3f}e9 x {per_param:g} B"
        notes.append("draft weights: one target-sized decoder layer per draft layer (estimate)")
    if arch.num_experts:
        notes.append("MoE: all experts resident, split over TP x PP GPUs")
    return total / (tp * pp), formula, notes


def activation_bytes(arch: ModelArch, tokens: int, tp: int) -> tuple[float, str]:
    """Conservative profile-run peak for `tokens` batched tokens: ~24 bf16
    hidden-sized buffers per token (residual, qkv, attention out, gated-MLP
    intermediates) plus fp32 logits twice (logits + softmax copy) over the
    vocab shard. At 8192 tokens on Llama-3-8B this gives 9.33 GiB, close to the
    worst public log (vLLM V0 on A100-40GB: 9.37 GiB, vllm#12330); V1 logs show
    ~1.3 GiB, so vLLM V1 estimates undershoot by design."""
    hidden = arch.hidden_size or arch.num_attention_heads * arch.head_dim
    vocab = arch.vocab_size or 128_256
    # Projections and MLP intermediates are TP-sharded, so both terms divide by TP.
    per_token = (48 * hidden + 8 * vocab) / max(1, tp)
    return tokens * per_token, f"{tokens} x (48 x {hidden} + 8 x {vocab}) / {tp} B"


def _non_torch(tp: int, pp: int) -> float:
    return NON_TORCH_MULTI if tp * pp > 1 else NON_TORCH_SINGLE


def _default_mnbt(total: float) -> int:
    # vLLM OpenAI-server defaults (engines.md §1.1): 8192 on >=70 GiB non-A100, else 2048.
    return 8192 if total >= 70 * GIB else 2048


def _sglang_defaults(gpu_mib: float, tp: int) -> tuple[int, int]:
    """chunked_prefill_size, cuda_graph_max_bs by GPU memory (engines.md §2.1)."""
    g = gpu_mib / 1024
    if g < 20:
        return 2048, 8
    if g < 35:
        return 2048, 80 if tp >= 4 else 24
    if g < 60:
        return 4096, 160 if tp >= 4 else 32
    if g < 160:
        return 8192, 512 if tp >= 4 else 256
    return 16384, 512


def sglang_auto_mem_fraction(gpu_mib: float, tp: int, pp: int, chunked_prefill_size: int | None = None,
                             cuda_graph_max_bs: int | None = None) -> tuple[float, str]:
    """ServerArgs._handle_gpu_memory_settings, without the DP-attention and
    piecewise-CUDA-graph terms (they only lower the fraction)."""
    cps_d, bs_d = _sglang_defaults(gpu_mib, tp)
    cps = cps_d if chunked_prefill_size is None else chunked_prefill_size
    bs = bs_d if cuda_graph_max_bs is None else cuda_graph_max_bs
    reserved = 512 + max(cps, 2048) * 1.5 + bs * 2 + tp * pp / 8 * 1024
    if gpu_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    mfs = round((gpu_mib - reserved) / gpu_mib, 3)
    return mfs, (f"round(({gpu_mib:.0f} - reserved {reserved:.0f}) / {gpu_mib:.0f}, 3); reserved = 512 + "
                 f"max({cps}, 2048) x 1.5 + {bs} x 2 + {tp} x {pp} / 8 x 1024")


def engine_budget(engine: str, arch: ModelArch, total: float | None, tp: int, pp: int,
                  settings: Mapping[str, Any], weights: float | None, smi_mib: float | None = None) -> Budget:
    """Dispatch to the engine's own memory semantics."""
    fn = {"vllm": _vllm, "sglang": _sglang, "tgi": _tgi, "trtllm": _trtllm,
          "lmdeploy": _lmdeploy, "llamacpp": _llamacpp}[engine]
    return fn(arch, total, tp, pp, settings, weights, smi_mib)


def _missing(engine: str, total: float | None, weights: float | None, block: int, knob: str | None) -> Budget | None:
    errs = []
    if total is None:
        errs.append("accelerator memory unknown: name an accelerator from the catalog or define it")
    if weights is None:
        errs.append("weights per GPU unknown (no parameter count): give total_params_b or available_kv_bytes")
    return Budget(None, block, knob=knob, errors=tuple(errs)) if errs else None


def _vllm(arch, total, tp, pp, s, weights, smi_mib) -> Budget:
    block = int(_num(s, "block_size", 16) or 16)
    steps: list[Step] = []
    if _num(s, "num_gpu_blocks_override"):
        n = int(_num(s, "num_gpu_blocks_override"))
        steps.append(("num_gpu_blocks_override", f"{n} blocks x {block}", n * block))
        return Budget(None, block, fixed_blocks=n, knob="gpu_memory_utilization", steps=tuple(steps),
                      assumptions=("pool fixed by num_gpu_blocks_override (applied after profiling)",))
    if _num(s, "kv_cache_memory_bytes"):
        kv = float(_num(s, "kv_cache_memory_bytes"))
        steps.append(("kv_cache_memory_bytes", "given", kv))
        return Budget(kv, block, knob=None, steps=tuple(steps))
    miss = _missing("vllm", total, weights, block, "gpu_memory_utilization")
    if miss:
        return miss
    util = float(_num(s, "gpu_memory_utilization", 0.9))
    mnbt = int(_num(s, "max_num_batched_tokens", 0) or _default_mnbt(total))
    act, act_f = activation_bytes(arch, mnbt, tp)
    nt = _non_torch(tp, pp)
    kv = total * util - weights - act - nt
    steps += [("instance memory", f"{gib(total)} x gpu_memory_utilization {util:g}", total * util),
              ("activation peak (est.)", act_f, act), ("non-torch (est.)", f"{'TP/PP>1' if tp * pp > 1 else 'single GPU'}", nt),
              ("KV budget", f"{gib(total * util)} - weights {gib(weights)} - act {gib(act)} - non-torch {gib(nt)}", kv)]
    asm = [f"vLLM activation peak estimated for max_num_batched_tokens={mnbt} (conservative; V1 profiles lower)",
           f"vLLM non-torch memory assumed {gib(nt)} (NCCL, CUDA graphs)"]
    return Budget(kv, block, knob="gpu_memory_utilization", steps=tuple(steps), assumptions=tuple(asm))


def _sglang(arch, total, tp, pp, s, weights, smi_mib) -> Budget:
    block = int(_num(s, "page_size", 1) or 1)
    miss = _missing("sglang", total, weights, block, "mem_fraction_static")
    if miss:
        return miss
    steps: list[Step] = []
    asm: list[str] = []
    mfs = _num(s, "mem_fraction_static", 0.0)
    if not mfs:
        gpu_mib = smi_mib or total / MIB
        mfs, f = sglang_auto_mem_fraction(gpu_mib, tp, pp, _num(s, "chunked_prefill_size"), _num(s, "cuda_graph_max_bs"))
        steps.append(("mem_fraction_static (auto)", f, mfs))
        asm.append("SGLang auto mem_fraction_static without DP-attention / piecewise-graph terms")
    pre = total - CUDA_CONTEXT - (NON_TORCH_SINGLE if tp * pp > 1 else 0.0)
    kv = pre * float(mfs) - weights
    steps += [("memory before weights (est.)", f"{gib(total)} - CUDA context{' - NCCL' if tp * pp > 1 else ''}", pre),
              ("KV budget", f"{gib(pre)} x mem_fraction_static {float(mfs):g} - weights {gib(weights)}", kv)]
    asm.append("SGLang: KV = free_after_weights - pre_load x (1 - mem_fraction_static); 0.5 GiB CUDA context assumed")
    cap = _num(s, "max_total_tokens")
    return Budget(kv, block, token_cap=int(cap) if cap else None, knob="mem_fraction_static",
                  steps=tuple(steps), assumptions=tuple(asm))


def _tgi(arch, total, tp, pp, s, weights, smi_mib) -> Budget:
    block = int(_num(s, "block_size", 1) or 1)
    miss = _missing("tgi", total, weights, block, "cuda_memory_fraction")
    if miss:
        return miss
    frac = float(_num(s, "cuda_memory_fraction", 1.0))
    wiggle = float(_num(s, "tgi_wiggle_room", 0.9))
    prefill = int(_num(s, "max_batch_prefill_tokens", 4096) or 4096)
    act, act_f = activation_bytes(arch, prefill, tp)
    used = CUDA_CONTEXT + weights + act + _non_torch(tp, pp)
    kv = total * frac * wiggle - used
    steps = [("usable", f"{gib(total)} x cuda_memory_fraction {frac:g} x wiggle {wiggle:g}", total * frac * wiggle),
             ("warmup activation (est.)", act_f, act),
             ("KV budget", f"usable - (context + weights {gib(weights)} + act {gib(act)} + non-torch)", kv)]
    asm = [f"TGI warmup peak estimated for max_batch_prefill_tokens={prefill}",
           "TGI block size 1 (flashinfer default); set block_size for flashdecoding (256) or paged (16)"]
    return Budget(kv, block, knob="cuda_memory_fraction", steps=tuple(steps), assumptions=tuple(asm))


def _trtllm(arch, total, tp, pp, s, weights, smi_mib) -> Budget:
    block = int(_num(s, "tokens_per_block", 0) or _num(s, "block_size", 32) or 32)
    cap = _num(s, "max_tokens")
    miss = _missing("trtllm", total, weights, block, "kv_cache_free_gpu_memory_fraction")
    if miss:
        return Budget(None, block, token_cap=int(cap) if cap else None, errors=miss.errors) if not cap else \
            Budget(None, block, token_cap=int(cap), assumptions=("pool taken from kv_cache_config.max_tokens only",))
    frac = float(_num(s, "kv_cache_free_gpu_memory_fraction", 0.0) or _num(s, "free_gpu_memory_fraction", 0.9))
    mnt = int(_num(s, "max_num_tokens", 8192) or 8192)
    act, act_f = activation_bytes(arch, mnt, tp)
    peak = CUDA_CONTEXT + weights + act + _non_torch(tp, pp)
    kv = (total - peak) * frac
    mgb = _num(s, "max_gpu_total_bytes")
    steps = [("peak after profiling (est.)", f"context + weights {gib(weights)} + act {gib(act)} + non-torch", peak),
             ("activation (est.)", act_f, act),
             ("KV budget", f"({gib(total)} - {gib(peak)}) x free_gpu_memory_fraction {frac:g}", kv)]
    if mgb:
        kv = min(kv, float(mgb))
        steps.append(("max_gpu_total_bytes", f"min(budget, {mgb})", kv))
    return Budget(kv, block, token_cap=int(cap) if cap else None, knob="kv_cache_free_gpu_memory_fraction",
                  steps=tuple(steps), assumptions=(f"TRT-LLM profiling peak estimated for max_num_tokens={mnt}",))


def _lmdeploy(arch, total, tp, pp, s, weights, smi_mib) -> Budget:
    block = int(_num(s, "cache_block_seq_len", 0) or _num(s, "block_size", 64) or 64)
    cme = float(_num(s, "cache_max_entry_count", 0.8))
    if cme >= 1:  # TurboMind: an integer >= 1 is a number of blocks
        n = int(cme)
        return Budget(None, block, fixed_blocks=n, knob=None,
                      steps=(("cache_max_entry_count (blocks)", f"{n} x {block}", n * block),))
    if _num(s, "num_gpu_blocks"):
        n = int(_num(s, "num_gpu_blocks"))
        return Budget(None, block, fixed_blocks=n, steps=(("num_gpu_blocks", f"{n} x {block}", n * block),))
    miss = _missing("lmdeploy", total, weights, block, "cache_max_entry_count")
    if miss:
        return miss
    free = total - CUDA_CONTEXT - weights - (NON_TORCH_SINGLE if tp * pp > 1 else 0.0)
    kv = free * cme
    steps = [("free after weights (est.)", f"{gib(total)} - context - weights {gib(weights)}", free),
             ("KV budget", f"{gib(free)} x cache_max_entry_count {cme:g}", kv)]
    return Budget(kv, block, knob="cache_max_entry_count", steps=tuple(steps),
                  assumptions=("LMDeploy: activations assumed to fit in the remaining free memory",))


def _llamacpp(arch, total, tp, pp, s, weights, smi_mib) -> Budget:
    ctx = int(_num(s, "ctx_size", 0) or _num(s, "n_ctx", 0) or 0)
    asm: list[str] = []
    if ctx <= 0:
        ctx = int(arch.max_position_embeddings or 0)
        asm.append(f"ctx_size 0: n_ctx_train = max_position_embeddings ({ctx}) assumed")
    kv = None if total is None or weights is None else total - CUDA_CONTEXT - weights
    steps: list[Step] = [("context cells", "ctx_size", ctx)]
    if kv is not None:
        steps.append(("memory left for KV (est.)", f"{gib(total)} - context - weights {gib(weights)}", kv))
    return Budget(kv, 1, fixed_blocks=ctx if ctx > 0 else None, steps=tuple(steps), assumptions=tuple(asm),
                  errors=() if ctx > 0 else ("llama.cpp ctx_size unknown and no n_ctx_train",))
