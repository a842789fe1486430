"""KV-cache bytes per token per GPU (engines.md §1.3, §2.3, §3.3, §4.3, §5.3, §9).

Only full-attention layers cost bytes per token of context. Sliding-window and
chunked-local layers are bounded by their window and are reported as a
per-request term; linear/Mamba layers hold a fixed state per request.

The bytes of one element of each cache type, and of one token in one attention layer, are physics.kv_dtypes'.
"""
from __future__ import annotations


from ctxlint.versions import parse_version

from ..records import field, record, replace
from . import msa_index
from .kv_dtypes import (FP8_DS_MLA_BYTES_PER_LAYER, PER_TOKEN_HEAD, TURBO_QUANT, gqa_layer_bytes, kv_dtype_bytes,
                        v_bytes)
from .models import CHUNKED, FULL, LINEAR, SLIDING, ModelArch, sglang_state

_V0_18 = parse_version("0.18.0")  # vLLM's groups of the largest layer count (vllm_groups)
ENGINES = ("vllm", "sglang", "tgi", "trtllm", "lmdeploy", "llamacpp")
_ENGINE_ALIASES = {
    "vllm": "vllm", "sglang": "sglang", "tgi": "tgi", "text-generation-inference": "tgi",
    "trtllm": "trtllm", "tensorrt-llm": "trtllm", "trt-llm": "trtllm", "tensorrt_llm": "trtllm",
    "lmdeploy": "lmdeploy", "turbomind": "lmdeploy", "llamacpp": "llamacpp", "llama.cpp": "llamacpp",
    "llama-cpp": "llamacpp", "llama-server": "llamacpp", "dynamo": "vllm", "llm-d": "vllm",
}


def normalize_engine(engine: str) -> str | None:
    return _ENGINE_ALIASES.get(str(engine).strip().lower()) if engine else None


def kv_heads_per_gpu(arch: ModelArch, engine: str, tp: int) -> int:
    """KV heads held by one tensor-parallel rank.

    vLLM, SGLang, LMDeploy, TRT-LLM (in practice): max(1, kv // tp), heads are
    replicated when kv < tp. TGI: kv // tp, MQA replicated; 8 heads on 16
    shards gives 0 (an invalid layout the caller reports)."""
    kv, tp = max(1, arch.num_kv_heads), max(1, tp)
    if engine == "tgi":
        return 1 if kv == 1 else kv // tp
    if engine == "llamacpp":
        return kv  # llama.cpp splits layers, not heads, across GPUs
    return max(1, kv // tp)


def _stage_slices(n: int, pp: int) -> list[range]:
    """Contiguous, as-even-as-possible layer split over PP stages: SGLang's get_pp_indices (sglang==0.5.23:
    sglang/srt/distributed/utils.py, the last `remainder` stages one layer more). vLLM's gives the remainder to the
    stages before the last (pp_partition.even_split): the busiest stage holds as many layers, which of them differs."""
    pp = max(1, min(pp, n)) if n > 0 else 1
    base, rem = divmod(n, pp)
    out, start = [], 0
    for i in range(pp):
        size = base + (1 if i >= pp - rem else 0)  # later stages take the remainder
        out.append(range(start, start + size))
        start += size
    return out


@record(frozen=True)
class KVBreakdown:
    engine: str
    dtype_bytes: float
    heads_per_gpu: int
    per_layer_bytes: float             # one token, one full-attention layer, one GPU
    full_layers_per_gpu: int           # busiest PP stage
    sliding_layers_per_gpu: int        # bounded by window (counted per token by some engines)
    linear_layers_per_gpu: int
    draft_layers: int
    per_token_layers: int              # layers that cost bytes per token on this engine
    bytes_per_token: float             # per GPU, what the pool is divided by
    bounded_bytes_per_request: float   # sliding/chunked windows, per request, per GPU (at their whole span)
    # (bytes per token of the window layers, span in tokens, extra blocks): what one request of a given
    # length holds there (ctxlint.physics.pool.window_cost); None without such layers
    bounded_span: tuple | None
    state_bytes_per_request: float | None  # linear/Mamba state, None if unknown
    formula: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    full_layer_bytes: float = 0.0      # one token, one full-attention layer (Gemma-4 global layers differ)


def kv_breakdown(arch: ModelArch, engine: str, tp: int = 1, pp: int = 1, kv_cache_dtype: str | None = "auto",
                 draft_layers: int = 0, *, window_tokens: int | None = None,
                 swa_full_tokens_ratio: float = 0.8, swa_full: bool = False,
                 mla_heads: int | None = None, v_cache_dtype: str | None = None, index_dtype: str | None = None,
                 attention_backend: str | None = None, stage_sizes: tuple[int, ...] | None = None) -> KVBreakdown:
    """Full breakdown; raises ValueError for unknown dtype/engine (capacity catches it and explains).

    `swa_full`: sliding-window layers store the whole context (vLLM without its hybrid KV cache
    manager, llama.cpp --swa-full). `mla_heads`: an MLA model on an engine or version that does
    not store the latent keeps full K/V heads of this size instead (vLLM 0.5.1-0.6.6 pads them to
    256, 0.7.0 to 192; llama.cpp GGUFs converted before its MLA change: 192 for K, 128 for V).
    `v_cache_dtype`: V's own type where the engine stores it apart from K's (llama.cpp -ctv, see kv_dtypes.v_bytes).
    `index_dtype`, `attention_backend`: what sets the dtype of MiniMax-M3's index-key cache (msa_index).
    `stage_sizes`: the layers of each PP stage where VLLM_PP_LAYER_PARTITION (SGLANG_...) sets them (pp_partition.py)."""
    eng = normalize_engine(engine)
    if eng is None:
        raise ValueError(f"unknown engine {engine!r}; known: {', '.join(ENGINES)}")
    b = kv_dtype_bytes(kv_cache_dtype, arch)
    if b is None:
        raise ValueError(f"unknown kv_cache_dtype {kv_cache_dtype!r}")
    bv = v_bytes(v_cache_dtype, arch, b)
    if arch.unsupported:
        # the KV memory (available_kv_gib) would not help: the bytes a token takes are what is unknown
        detail = ""
        if (arch.model_type or "").startswith("deepseek_v4"):  # what is known of this engine's V4 cache, and what not
            from .dsv4_kv import why_not_sized
            detail = f"; {why_not_sized(eng)}"
        raise ValueError(f"{arch.name}: {arch.unsupported}{detail}; state the pool the engine logs (kv_pool_tokens, "
                         "or the ctxlint.io/kv-pool-tokens annotation on a workload)")
    tp, pp, draft_layers = max(1, int(tp)), max(1, int(pp)), max(0, int(draft_layers))
    notes: list[str] = []
    name = (kv_cache_dtype or "auto").lower()
    if arch.is_mla and mla_heads is None:
        heads = 1
        lat = (arch.kv_lora_rank or 0) + (arch.qk_rope_head_dim or 0)
        if name == "fp8_ds_mla":
            per_layer: float = FP8_DS_MLA_BYTES_PER_LAYER
            f_layer = f"{FP8_DS_MLA_BYTES_PER_LAYER} (fp8_ds_mla)"
        else:
            per_layer = lat * b
            f_layer = f"({arch.kv_lora_rank} + {arch.qk_rope_head_dim}) x {b:g}"
        if arch.index_head_dim:  # DSA indexer keys, fp8 with one fp32 scale per 128
            per_layer += arch.index_head_dim + arch.index_head_dim // 128 * 4
            f_layer += f" + indexer {arch.index_head_dim + arch.index_head_dim // 128 * 4}"
        notes.append("MLA: latent replicated on every TP rank (not divided by TP, no x2)")
        full_layer, f_full = per_layer, f_layer
    elif arch.is_mla:
        heads = max(1, arch.num_attention_heads // tp)
        k_dim = mla_heads if mla_heads > 0 else arch.head_dim
        v_dim = mla_heads if mla_heads > 0 else (arch.v_head_dim or arch.head_dim)
        per_layer, f_layer = gqa_layer_bytes(heads, k_dim, v_dim, b, name, bv=bv)
        notes.append(f"MLA model stored as {arch.num_attention_heads} full K/V heads "
                     f"({k_dim} + {v_dim}) by this engine version, not as the latent")
        full_layer, f_full = per_layer, f_layer
    else:
        heads = kv_heads_per_gpu(arch, eng, tp)
        per_layer, f_layer = gqa_layer_bytes(heads, arch.head_dim, arch.v_head_dim, b, name, arch.dtype_bytes, bv)
        full_layer, f_full = per_layer, f_layer
        if arch.full_kv_heads or arch.full_head_dim:  # Gemma-4: global layers have their own shape
            fheads = kv_heads_per_gpu(replace(arch, num_kv_heads=arch.full_kv_heads or arch.num_kv_heads), eng, tp)
            # a full layer with its own head_dim (Gemma-4's global_head_dim) keeps V at that width; one that
            # differs only in its head count (MiMo-V2-Flash) has the window layers' head and V widths
            full_layer, f_full = gqa_layer_bytes(fheads, arch.full_head_dim or arch.head_dim,
                                                 None if arch.full_head_dim else arch.v_head_dim, b, name,
                                                 arch.dtype_bytes, bv)
            notes.append(f"full-attention layers: {arch.full_kv_heads or arch.num_kv_heads} KV heads x "
                         f"{arch.full_head_dim or arch.head_dim}; window layers: {arch.num_kv_heads} x {arch.head_dim}")
        if name in PER_TOKEN_HEAD:
            notes.append("per-token-head quantized KV: + 2 x heads x 4 B fp32 scales per layer")
        if arch.num_kv_heads < tp and eng != "llamacpp":
            notes.append(f"{arch.num_kv_heads} KV heads < TP {tp}: "
                         + ("TGI gives 0 heads per shard" if heads == 0 else "heads replicated, 1 per rank"))
    if bv is not None and (not arch.is_mla or mla_heads is not None):
        notes.append(f"V cache at {v_cache_dtype} ({bv:g} B per element), K at {name} ({b:g} B)")
    elif bv is not None:
        notes.append(f"MLA latent: llama.cpp stores K only, V is a view of it, so -ctv {v_cache_dtype} changes nothing")
    if name == TURBO_QUANT:
        notes.append("turbo_quant (LMDeploy): K 4-bit, V 2-bit, + 3 scale/zero values per head in the model dtype")
    elif b < 1:
        notes.append(f"{name}: 0.5 B per element + 1-byte scale per 16 elements assumed")
    if eng == "llamacpp" and tp > 1:
        pp, tp = pp * tp, 1  # -sm layer: GPUs split layers, like pipeline stages
        notes.append("llama.cpp splits layers across GPUs (-sm layer): treated as PP")
    stages = _stage_slices(arch.num_layers, pp)
    if stage_sizes is not None and len(stage_sizes) == pp and sum(stage_sizes) == arch.num_layers:
        starts = [sum(stage_sizes[:i]) for i in range(pp)]  # stage i from the sum of the ones before it
        stages = [range(a, a + max(0, n)) for a, n in zip(starts, stage_sizes)]
        var = "SGLANG_PP_LAYER_PARTITION" if eng == "sglang" else "VLLM_PP_LAYER_PARTITION"
        notes.append(f"{var}={','.join(map(str, stage_sizes))}: layers per PP stage as stated")
    kinds = arch.kinds_cached_by(eng)
    if arch.kv_shared_layers:
        notes.append(f"the last {arch.kv_shared_layers} layers read earlier layers' KV (num_kv_shared_layers): "
                     + ("vLLM gives them no cache" if eng == "vllm" else
                        "llama.cpp gives them no cache (n_layer_kv_from_start)" if eng == "llamacpp" else
                        "SGLang keeps a buffer for each of them all the same" if eng == "sglang" else
                        f"counted as holding their own on {eng}, whose code for them was not read"))

    def cnt(r: range, kind: str) -> int:  # stages are contiguous step-1 ranges from 0 up
        return kinds[r.start:r.stop].count(kind) if r.stop > r.start else 0

    # Engine binding is the busiest stage (min tokens across PP ranks).
    # (MiniMax-M3's index keys count too: at PP 2 its first stage holds 27 sparse layers of 30, the second 30)
    worst = max(stages, key=lambda r: (cnt(r, FULL), cnt(r, SLIDING) + cnt(r, CHUNKED),
                                       sum(1 for i in arch.msa_index_layers if i in r)))
    full, slid, lin = cnt(worst, FULL), cnt(worst, SLIDING) + cnt(worst, CHUNKED), cnt(worst, LINEAR)
    window = max(arch.sliding_window or 0, arch.attention_chunk_size or 0)
    bpt, bounded = full_layer * (full + draft_layers), 0.0
    bounded_span: tuple | None = None
    formula = f"({full} layers + {draft_layers} draft) x {f_full}"
    per_token_layers = full
    index = msa_index.index_cost(arch, eng, worst, kv_cache_dtype, b, index_dtype, attention_backend, draft_layers)
    if index is not None:  # MiniMax-M3's sparse layers: an index key a token beside K and V, on every rank
        bpt, formula = bpt + index[0], f"{formula} + {index[1]}"
        notes.append(index[2])
    if slid:
        if not full:  # every layer uses a window (Mistral-7B-v0.1): count them per token, as engines print it
            swa_full = True
        if eng in ("tgi", "trtllm", "lmdeploy") or swa_full or not window:
            per_token_layers += slid
            bpt += slid * per_layer
            formula += f" + {slid} window layers x {f_layer}"
            notes.append(f"{eng}: {slid} sliding/chunked layers store the whole context"
                         + (" (no hybrid KV cache manager)" if eng == "vllm" else ""))
        elif eng == "sglang":
            bpt += swa_full_tokens_ratio * slid * per_layer
            formula += f" + {swa_full_tokens_ratio:g} x {slid} x {f_layer}"
            notes.append(f"SGLang hybrid SWA: {slid} window layers cost {swa_full_tokens_ratio:g} x per token (a "
                         f"separate SWA pool of {swa_full_tokens_ratio:g} x the full pool's tokens)")
        else:
            # vLLM keeps min(window - 1 + max_num_batched_tokens, max_model_len) tokens of a sliding-window
            # layer (+1 block: the window need not start at a block's edge), min(chunk + max_num_batched_tokens,
            # max_model_len) of a chunked-attention one (SlidingWindowSpec / ChunkedLocalAttentionSpec
            # .max_memory_usage_bytes, vllm-project/vllm@001cabc1be16a59a70d720ed61a13b678c060a18:
            # vllm/v1/kv_cache_interface.py): a request shorter than that span holds its own length there.
            if window_tokens:
                chunked = not cnt(worst, SLIDING)
                span, extra = (window + window_tokens, 0) if chunked else (window - 1 + window_tokens, 1)
            else:
                span, extra = window, 0
            charged = slid
            groups = vllm_groups(full, slid, None) if window_tokens and not draft_layers else None
            if groups is not None and groups[0] == full and per_layer == full_layer:
                # vLLM's hybrid manager puts `full` layers in each KV cache group and pads the last window
                # group: 52 window layers of gemma-3-27b over 10 full ones are 6 groups of 10, each a block a
                # request (vllm_groups); where releases group the layers differently, none is assumed
                charged = groups[2] * full
            bounded = charged * per_layer * span
            bounded_span = (charged * per_layer, span, extra)
            padded = f" (padded to {charged} in groups of {full})" if charged != slid else ""
            notes.append(f"{slid} window layers{padded} bounded per request: min({span}, the request) tokens"
                         f"{' + 1 block' if extra else ''} x {charged} x {per_layer:g} B")
    state = arch.linear_state_bytes_per_request / pp if (lin and arch.linear_state_bytes_per_request) else None
    if lin and eng == "sglang" and sglang_state(arch):
        notes.append(f"{lin} linear/Mamba layers: fixed state per request, in SGLang's state pool (not per token)")
    elif lin:
        notes.append(f"{lin} linear/Mamba layers: fixed state per request"
                     + (f" {state:,.0f} B" if state else " (size unknown, not counted)"))
    if pp > 1:
        notes.append(f"PP {pp}: busiest stage holds {full} full-attention layers")
    if draft_layers:
        notes.append(f"speculative draft: {draft_layers} extra KV layer(s) with the target's dims")
    return KVBreakdown(engine=eng, dtype_bytes=b, heads_per_gpu=heads, per_layer_bytes=per_layer,
                       full_layers_per_gpu=full, sliding_layers_per_gpu=slid, linear_layers_per_gpu=lin,
                       draft_layers=draft_layers, per_token_layers=per_token_layers, bytes_per_token=bpt,
                       bounded_bytes_per_request=bounded, bounded_span=bounded_span, state_bytes_per_request=state,
                       formula=formula, notes=tuple(notes), full_layer_bytes=full_layer)


def vllm_groups(full: int, window: int, version: str | None) -> tuple[int, int, int] | None:
    """(layers per KV cache group, full-attention groups, window groups) as vLLM's hybrid KV cache manager
    makes them for `full` and `window` layers: groups of the least layer count of any kind, the last group
    of a kind padded; from 0.18.0 groups of the largest when it is under 1.5x the least
    (_get_kv_cache_groups_uniform_page_size, vllm-project/vllm@v0.17.1/@v0.18.0:vllm/v1/core/kv_cache_utils.py;
    @001cabc1be16a59a70d720ed61a13b678c060a18 alike). None: no such model, or the release is not known and
    the releases group these counts differently."""
    if full <= 0 or window <= 0:
        return None
    least, most = min(full, window), max(full, window)
    size = least
    if most < 1.5 * least and most != least:
        if version is None:
            return None
        v = parse_version(version)
        if v is None:
            return None
        if v >= _V0_18:
            size = most
    return size, -(-full // size), -(-window // size)


def kv_bytes_per_token_per_gpu(arch: ModelArch, engine: str, tp: int = 1, pp: int = 1,
                               kv_cache_dtype: str | None = "auto", draft_layers: int = 0) -> int | float:
    """Bytes of KV one token of context costs on the busiest GPU."""
    bpt = kv_breakdown(arch, engine, tp, pp, kv_cache_dtype, draft_layers).bytes_per_token
    return int(bpt) if float(bpt).is_integer() else bpt


def ceil_div(a: int, b: int) -> int:
    return -(-a // b) if b else 0


__all__ = ["KVBreakdown", "kv_breakdown", "vllm_groups", "kv_bytes_per_token_per_gpu", "kv_dtype_bytes",
           "kv_heads_per_gpu", "normalize_engine", "ENGINES"]
