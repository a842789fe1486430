"""What the engine holds on each GPU, as the deployment sets it: the dtype it serves in, whether the
weight format in force is a plain float one, weights kept in host memory (`--cpu-offload-gb`), and
how data parallelism spreads or replicates an MoE model's weights."""
from __future__ import annotations

import math
from typing import Any, Mapping

from ..records import replace
from .models import ModelArch
from .terms import GIB, Term
from .weights import WeightFormat


# `--dtype` names (vLLM, SGLang, TGI spell them alike) and the dtype each serves in.
_SERVED_AS = {"half": "float16", "float16": "float16", "fp16": "float16", "bfloat16": "bfloat16", "bf16": "bfloat16",
              "float": "float32", "float32": "float32", "fp32": "float32"}


def serving_dtype(arch: ModelArch, asked: Any, asm: list[str]) -> ModelArch:
    """The dtype the engine serves in: `--dtype` when stated; with "auto", the checkpoint's,
    except that float32 checkpoints are served in 16 bits (vLLM's ModelConfig: "auto" uses FP16
    for FP32 and FP16 models, BF16 for BF16 models; SGLang and TGI do likewise)."""
    served = _SERVED_AS.get(str(asked or "auto").strip().lower())
    if served is None and arch.dtype_bytes == 4:
        served = "float16"
        asm.append("float32 checkpoint served in 16 bits (dtype auto)")
    if served is None or served == str(arch.dtype).lower():
        return arch
    # A float32 checkpoint's published size is not what a 16-bit engine holds.
    size = arch.checkpoint_bytes if (arch.dtype_bytes == 4) == (served == "float32") else None
    return replace(arch, dtype=served, checkpoint_bytes=size)


def offloaded(engine: str, settings: Mapping[str, Any], weights, formula: str, asm: list[str]):
    """Weights left on each GPU with `--cpu-offload-gb` (vLLM, SGLang: GiB of weights per GPU kept in
    host memory and streamed in for each forward). Whole tensors move, so up to one layer's worth of
    the budget may stay unused: the band's top keeps 0.5 GiB more on the GPU."""
    try:
        gib = float(settings.get("cpu_offload_gb") or 0) if engine in ("vllm", "sglang") else 0.0
    except (TypeError, ValueError):
        gib = 0.0
    if weights is None or not math.isfinite(gib) or gib <= 0:
        return weights, formula
    off = gib * GIB
    how = f"{weights.how} - cpu_offload_gb {gib:g} GiB"
    asm.append(f"cpu_offload_gb {gib:g}: up to {gib:g} GiB of weights per GPU live in host memory")
    fitted = Term("weights", max(0.0, weights.point - off), max(0.0, weights.low - off),
                  max(0.0, weights.high - off + 0.5 * GIB), how)
    return fitted, f"{formula} - cpu_offload_gb {gib:g} GiB"


def unquantized(fmt: WeightFormat | None) -> bool:
    """A plain float format: the serving dtype, not the checkpoint's, decides its bytes."""
    return fmt is not None and fmt.key in ("fp32", "bf16", "fp16")


def positive_int(x: Any, default: int) -> int:
    """A setting read as a whole number above 0, else `default` (junk, 0, negatives, inf)."""
    if x is None:  # most calls (a setting not given): what int(None)'s TypeError gave, without raising it
        return default
    try:
        v = int(x)
    except (TypeError, ValueError, OverflowError):
        return default
    return v if v > 0 else default


def _on(settings: Mapping[str, Any], key: str) -> bool:
    """A boolean engine setting that is on: True alone, as reserve_sglang.dp_attention_width reads it. The flag
    parser gives a bool flag's value as True or False, a config file's "true" too (engines/flag_values.convert,
    engines/config.py); a value it left a string (unresolved, or refused) is not known to be on."""
    return settings.get(key) is True


def expert_split(engine: str, arch: ModelArch, settings: Mapping[str, Any], dp: int) -> tuple[float, str]:
    """How many more GPUs than TP x PP hold the routed experts, and why. vLLM shards every
    FusedMoE layer over TP x DP (x PCP) ranks: `FusedMoEParallelConfig.make` flattens TP across
    DP (`flatten_tp_across_dp_and_pcp`), and with --enable-expert-parallel sets ep_size to that
    flattened size. DP is the global --data-parallel-size, not the pod's -local share. EPLB
    adds num_redundant_experts physical experts. SGLang and TRT-LLM keep EP inside the TP group."""
    if engine != "vllm" or not arch.num_experts:
        return 1.0, ""
    size = positive_int(settings.get("data_parallel_size"), 0) or dp
    size *= positive_int(settings.get("prefill_context_parallel_size"), 1)
    if size <= 1:
        return 1.0, ""
    how = f"vLLM {'EP' if _on(settings, 'enable_expert_parallel') else 'MoE TP'} over TP x DP {size}"
    redundant = 0
    if _on(settings, "enable_eplb"):
        cfg = settings.get("eplb_config")
        redundant = positive_int(cfg.get("num_redundant_experts"), 0) if isinstance(cfg, Mapping) else 0
        redundant = redundant or positive_int(settings.get("num_redundant_experts"), 0)
    if redundant:
        how += f", EPLB +{redundant} redundant experts"
    return size * arch.num_experts / (arch.num_experts + redundant), how


def kv_tensor_parallel(engine: str, settings: Mapping[str, Any], tp: int) -> tuple[int, str]:
    """The tensor-parallel width SGLang splits KV heads over: its attention TP, tp // attn_dp_size //
    attn_cp_size (`derive_attn_tp_size`, sglang-0.5.23 wheel: sglang/srt/runtime_context.py:73-76), which the
    pool's bytes per token read (`get_num_kv_heads(get_parallel().attn_tp_size)`: model_executor/
    pool_configurator.py:356, 438). DP attention and attention context parallelism give each GPU more heads of
    each token, and each DP-attention group its own pool (a request sits in one); ctxlint split the heads over
    the whole TP. A 4x RTX 5090 log agrees (Qwen3-32B, TP 4, 0.5.13.post1): 187,069 tokens at attention TP 4,
    70,950 with --attention-context-parallel-size 2, the difference the attention weights' 2.75 GB."""
    if engine != "sglang":
        return tp, ""
    attn = positive_int(settings.get("attn_dp_size"), 1)
    dp = attn if attn > 1 else positive_int(settings.get("dp_size"), 1) if _on(settings, "enable_dp_attention") else 1
    cp = positive_int(settings.get("attn_cp_size"), 1)
    if dp * cp <= 1 or tp % (dp * cp):  # SGLang asserts the division (parallel_hook.py); not split otherwise
        return tp, ""
    parts = (f" / DP attention {dp}" if dp > 1 else "") + (f" / attention CP {cp}" if cp > 1 else "")
    return tp // (dp * cp), f"SGLang splits KV heads over attention TP {tp // (dp * cp)} (TP {tp}{parts})"


# Dense models whose SGLang attention splits its heads over the attention TP (`get_parallel().attn_tp_size`), not
# the whole TP: sglang-0.5.23 wheel: sglang/srt/models/qwen3.py:164-177 (and qwen3_5.py, qwen3_next.py, falcon_h1.py,
# nemotron_h.py); llama.py:181-194 splits over tp_size, as the other dense models do. By model_type, as the catalog
# keeps it (a VLM's text part's).
_ATTN_TP_DENSE = ("qwen3", "falcon_h1", "nemotron_h")


def narrower_attention(engine: str, arch: ModelArch, settings: Mapping[str, Any], tp: int, pp: int,
                       fmt: WeightFormat | None, weights, formula: str, asm: list[str]):
    """A dense model whose attention runs on fewer ranks than its TP (kv_tensor_parallel): its q, k, v and o
    projections are split over the attention TP while the MLP stays over the whole TP, so each GPU holds more
    of them (the RTX 5090 log: 15.50 GB of weights at TP 4, 18.25 with attention CP 2; q/k/v/o of Qwen3-32B at
    attention TP 2 rather than 4 are 2.81 GiB more). Models whose code does so (_ATTN_TP_DENSE) count them;
    for the others only the band's top of the weights does. An MoE model's are in attention_replicas."""
    narrow, _ = kv_tensor_parallel(engine, settings, tp)
    if weights is None or narrow >= tp or arch.num_experts or arch.is_mla:
        return weights, formula
    h, heads, kv, d = arch.hidden_size, arch.num_attention_heads, arch.num_kv_heads, arch.head_dim
    if not (h and heads and kv and d):
        asm.append(f"attention weights on attention TP {narrow} not counted (the model's attention sizes unknown)")
        return weights, formula
    per = 2.0 if fmt is None or unquantized(fmt) or fmt.scope == "experts" else fmt.bits / 8

    def held(t: int) -> float:  # q and o by heads, k and v by KV heads (replicated below one a rank)
        return arch.num_layers / pp * h * d * (2 * heads / t + 2 * max(1, kv // t)) * per

    extra = held(narrow) - held(tp)
    known = str(arch.model_type or "").startswith(_ATTN_TP_DENSE)
    how = f"{formula} + attention q/k/v/o on attention TP {narrow}, not {tp}: {extra / GIB:.2f} GiB" if known \
        else formula
    asm.append(f"SGLang attention TP {narrow}: each GPU holds 1/{narrow} of the attention weights, "
               f"{extra / GIB:.2f} GiB more than at TP {tp}" + ("" if known else
                                                              " if the model's code splits them so (the band's top)"))
    counted = extra if known else 0.0
    return Term(weights.label, weights.point + counted, weights.low + counted, weights.high + extra, how,
                weights.source), how


def attention_replicas(engine: str, arch: ModelArch, settings: Mapping[str, Any], tp: int) -> tuple[int, str]:
    """How many times over each GPU group holds the non-expert weights. SGLang's
    --enable-dp-attention (--attn-dp-size from 0.5.22) runs attention with attn_tp = tp / dp_size (DP
    groups inside the TP group), so those weights are split dp_size times less; the MoE layers stay
    over the full TP."""
    if engine != "sglang" or not arch.num_experts:
        return 1, ""
    # 0.5.22's --attn-dp-size N is DP attention by itself (reserve_sglang.dp_attention_width)
    name = "attn_dp_size" if positive_int(settings.get("attn_dp_size"), 1) > 1 else "dp_size"
    on = name == "attn_dp_size" or _on(settings, "enable_dp_attention")
    dp = min(positive_int(settings.get(name), 1), tp) if on else 1
    # attention context parallelism narrows the attention TP too (kv_tensor_parallel)
    cp = positive_int(settings.get("attn_cp_size"), 1)
    cp = cp if cp > 1 and tp % (dp * cp) == 0 else 1
    how = (f"SGLang DP attention: attention TP {tp} / {name} {dp}" if dp > 1 else
           f"SGLang attention context parallelism: attention TP {tp}") + (f" / attn_cp_size {cp}" if cp > 1 else "")
    return (dp * cp, how) if dp * cp > 1 else (1, "")


def decode_context_parallel(engine: str, arch: ModelArch, settings: Mapping[str, Any], tp: int,
                            sliding: bool, version: str | None = None) -> tuple[int, str, bool]:
    """SGLang's decode context parallelism (--dcp-size, 0.5.15+): each of attn_dcp_size ranks of an attention-TP
    group keeps every dcp-th token of a request, so one request holds the rank's rows x dcp tokens
    (`logical_token_capacity`, sglang==0.5.23:sglang/srt/mem_cache/kv_cache_configurator.py:406-415; the
    allocator's locations span max_total_num_tokens x attn_dcp_size: :2930-2932; 0.5.15's
    model_runner_kv_cache_mixin.py:1141-1143 too). From 0.5.18 the ranks of a DCP group share KV heads, tp // dcp
    groups of them (`get_num_kv_heads(tp, dcp)`: sglang==0.5.18/0.5.23:configs/model_config.py, read by
    model_executor/pool_configurator.py); 0.5.15-0.5.17 size a row by get_num_kv_heads(attn_tp) alone
    (sglang==0.5.15/0.5.17:model_executor/pool_configurator.py _compute_cell_size), and so does an unknown release
    here (the larger pool: no false refusal). An MLA latent is whole on each. A hybrid SWA pool is not widened
    (:408-409): 1. Returns (dcp, note, KV heads over attention TP / dcp); dcp 1 when not in play or not dividing
    the attention TP."""
    dcp = positive_int(settings.get("dcp_size"), 1) if engine == "sglang" else 1
    if dcp <= 1:
        return 1, "", False
    attn_tp, _ = kv_tensor_parallel(engine, settings, tp)
    if sliding:
        return 1, f"SGLang --dcp-size {dcp}: a hybrid SWA pool is not widened over the DCP ranks", False
    if attn_tp % dcp:
        return 1, f"SGLang --dcp-size {dcp} does not divide attention TP {attn_tp}: not counted", False
    from ..engines.result import from_release

    split = not arch.is_mla and from_release("0.5.18", version) is True
    heads = "" if arch.is_mla else f", KV heads over attention TP {attn_tp} / {dcp}" if split else (
        f", KV heads over attention TP {attn_tp} as 0.5.15-0.5.17 size them (0.5.18+: over TP / dcp)")
    return dcp, f"SGLang decode context parallelism: a request's tokens over {dcp} DCP ranks{heads}", split
