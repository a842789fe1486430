"""The half of an estimate that does not depend on the device: the served dtype, the KV layout
and bytes per token, the weights per GPU.

The CTX208 memory-need search estimates one role at ~30 memory sizes, each under seven vLLM
releases when the version is unknown: this half is the same for every size, so it is computed
once per (model, engine, layout, settings, format, release) and memoized exactly (memo.py).
Most of it does not depend on the release either: the seven releases of one role share it.
The record is immutable; the caller copies its notes and steps into its own lists.
"""
from __future__ import annotations

from typing import Any, Mapping

from ctxlint.versions import parse_version

from ..records import record, replace
from .gpu_weights import weights_per_gpu, whole_on_each_rank
from .kv import KVBreakdown, kv_breakdown
from .mem_vllm import hybrid_full
from .memo import Memo, Unkeyable, exact_key
from .models import CHUNKED, SLIDING, ModelArch
from .mxfp4_padding import dsv4_padding
from .msa_index import vllm_indexer_dtype
from .served import (attention_replicas, decode_context_parallel, expert_split, kv_tensor_parallel, narrower_attention,
                     offloaded, positive_int, serving_dtype, unquantized)
from .terms import Term

_SWA = None  # ctxlint.physics.swa_sglang, bound on the first SGLang model with window layers
_MAMBA = None  # ctxlint.physics.mamba, bound on the first vLLM model with a linear/Mamba state
DEFAULT_RATIO = 0.8  # swa_sglang.DEFAULT_RATIO (tests/physics/test_swa_sglang.py keeps the two equal)


@record(frozen=True)
class ModelSide:
    arch: ModelArch                  # as served (dtype applied)
    assumptions: tuple[str, ...]     # in the order the estimate states them
    mnbt: int                        # max_num_batched_tokens in force
    swa_full: bool
    br: KVBreakdown | None           # None: kv_breakdown refused (`error`)
    error: str = ""
    weights: Term | None = None
    w_formula: str = ""
    layout: str = ""  # why window layers hold the whole context, when a rule the message names says so
    hybrid: Any = None               # vLLM's layout of a model with linear/Mamba state (mamba.Hybrid)


def model_side(engine: str, arch: ModelArch, tp: int, pp: int, dp: Any, kv_cache_dtype: Any, draft: int,
               settings: Mapping[str, Any], weights_format: Any, version: str | None,
               shared: dict | None = None, context: int | None = None, remember: bool = True) -> ModelSide:
    """`shared`: a dict the caller passes for several calls whose arguments differ only in
    `version` (the vLLM releases of one estimate), so the settings are keyed once, not per release.
    `context`: the context length in force (SGLang 0.4.9-0.5.7 size Llama 4's chunked layers by it).
    `remember` False (with `shared`): not in the memo, for a CTX208 search, which needs.py remembers by the same
    arguments: on the 270 and 1,000-file trees none of its 405 model sides was found there, its keys were pure cost."""
    if shared is not None and (version is None or type(version) is str):
        # the same shared dict, the same arguments but the version: remembered by it (no key to build)
        side = shared.get(("side", version))
        if side is None:
            side = shared["side", version] = _keyed(engine, arch, tp, pp, dp, kv_cache_dtype, draft, settings,
                                                    weights_format, context, version, shared) if remember else \
                _model_side((engine, arch, tp, pp, dp, kv_cache_dtype, draft, settings, weights_format, context,
                             version), shared)
        return side
    return _keyed(engine, arch, tp, pp, dp, kv_cache_dtype, draft, settings, weights_format, context, version, shared)


def _keyed(engine, arch, tp, pp, dp, kv_cache_dtype, draft, settings, weights_format, context, version,
           shared) -> ModelSide:
    args = (engine, arch, tp, pp, dp, kv_cache_dtype, draft, settings, weights_format, context, version)
    try:
        base = shared.get("key") if shared is not None else None
        if base is None:
            base = exact_key(args[:-1])
            if shared is not None:
                shared["key"] = base
        key = (base, exact_key(version))
    except Unkeyable:
        return _model_side(args, shared)
    return _MEMO.keyed(key, args, None if shared is None else lambda one: _model_side(one, shared))


def _from_release(since: str, version: str | None) -> bool | None:
    from ..engines.result import from_release

    return from_release(since, version)


def _model_side(args: tuple, shared: dict | None = None) -> ModelSide:
    """`shared` (see model_side): the parts no release changes are worked out once for all the calls
    that pass it: the served dtype, the KV layout for each (swa_full, SWA ratio, MLA heads) the releases give,
    and the weights; a role of unknown vLLM version is estimated under seven releases."""
    engine, arch, tp, pp, dp, kv_cache_dtype, draft, settings, weights_format, context, version = args
    parts: dict = {} if shared is None else shared.setdefault("side parts", {})
    served = parts.get("served")
    if served is None:
        notes: list[str] = []
        served = parts["served"] = (serving_dtype(arch, settings.get("dtype"), notes), tuple(notes))
    arch, asm = served[0], list(served[1])
    # unset: the small tier's default, the OpenAI server's 2048, or 8192 for vLLM's offline LLM class (TRL's
    # vllm-serve: vllm_batch._LLM_CLASS), whose window layers then hold a longer span a request
    mnbt = positive_int(settings.get("max_num_batched_tokens"), 0) or (
        8192 if settings.get("usage_context") == "llm_class" else 2048)
    if engine == "sglang" and arch.compress_ratios:  # DeepSeek-V4: pools of its own (dsv4_sglang), no SWA layout
        swa_full, swa_ratio, mla_heads, refused, layout = False, 0.8, None, "", ""
    else:
        swa_full, swa_ratio, mla_heads, refused, layout = _layout(engine, arch, settings, version, context, asm,
                                                                  draft)
    if refused:
        return ModelSide(arch, tuple(asm), mnbt, swa_full, None, refused)
    if engine == "vllm" and arch.compress_ratios and positive_int(settings.get("offload_group_size"), 0):
        # vLLM's prefetch offloading keeps the last --offload-num-in-group layers of every --offload-group-size in
        # host memory (vllm==0.23.0:vllm/config/offload.py PrefetchOffloadConfig), a share of the weights not
        # modelled here: a V4 pool sized as if they stayed would be false (NVIDIA's V4-Pro B200 prefill recipes)
        return ModelSide(arch, tuple(asm), mnbt, swa_full, None, (
            f"{arch.name}: vLLM's prefetch offloading (--offload-group-size) keeps some layers' weights in host "
            "memory, a share not modelled; state the pool the engine logs (kv_pool_tokens, or the "
            "ctxlint.io/kv-pool-tokens annotation on a workload)"))
    # SGLang --dcp-size splits KV heads over TP / dcp from 0.5.18 only (served.decode_context_parallel)
    split = engine == "sglang" and "dcp_size" in settings and _from_release("0.5.18", version) is True
    # VLLM_PP_LAYER_PARTITION / SGLANG_PP_LAYER_PARTITION: the layers of each PP stage as stated (pp_partition.py)
    stages = _stage_sizes(settings, pp, arch.num_layers, engine) if pp > 1 and (
        "VLLM_PP_LAYER_PARTITION" in settings and engine == "vllm" or
        "SGLANG_PP_LAYER_PARTITION" in settings and engine == "sglang") else None
    # DeepSeek-V4 on vLLM: its layout is read per release (dsv4_kv), so kept apart for each
    dsv4 = engine in ("vllm", "sglang") and bool(arch.compress_ratios)
    kv_key = ("kv-dsv4", version) if dsv4 else ("kv", swa_full, swa_ratio, mla_heads, split)
    br = parts.get(kv_key)
    if br is None:
        try:
            kv_tp, kv_tp_how = kv_tensor_parallel(engine, settings, tp)
            dcp, dcp_how, dcp_heads = decode_context_parallel(engine, arch, settings, tp, bool(
                engine == "sglang" and not swa_full and (SLIDING in arch.layer_kinds or CHUNKED in arch.layer_kinds)),
                version)
            kv_tp = kv_tp // dcp if dcp_heads else kv_tp
            if dsv4 and engine == "sglang":
                from .dsv4_sglang import sglang_breakdown
                br = parts[kv_key] = sglang_breakdown(arch, version, settings, kv_cache_dtype, draft, pp, dcp)
            elif dsv4:
                from .dsv4_kv import vllm_breakdown
                br = parts[kv_key] = vllm_breakdown(arch, version, settings, kv_cache_dtype, draft, pp, dcp)
            else:
                br = parts[kv_key] = kv_breakdown(
                    arch, engine, kv_tp, pp, kv_cache_dtype, draft, window_tokens=mnbt if engine == "vllm" else 0,
                    swa_full_tokens_ratio=swa_ratio, swa_full=swa_full, mla_heads=mla_heads,
                    v_cache_dtype=_llamacpp_v(settings) if engine == "llamacpp" else None,
                    index_dtype=vllm_indexer_dtype(settings) if engine == "vllm" and arch.msa_index_dim else None,
                    attention_backend=settings.get("attention_backend") if arch.msa_index_dim else None,
                    stage_sizes=stages)
            if kv_tp_how and not arch.is_mla and not dsv4:  # (an MLA latent is whole on every GPU: no heads to split)
                br = parts[kv_key] = replace(br, notes=(*br.notes, kv_tp_how))
            if dcp > 1:  # one request's tokens over the DCP ranks: each holds 1/dcp of them (served.py)
                br = parts[kv_key] = replace(
                    br, bytes_per_token=br.bytes_per_token / dcp, formula=f"({br.formula}) / dcp {dcp}",
                    notes=(*br.notes, dcp_how))
            elif dcp_how:
                br = parts[kv_key] = replace(br, notes=(*br.notes, dcp_how))
        except (ValueError, TypeError, ZeroDivisionError) as exc:
            # the weights still decide whether the model loads at all (CTX203), whatever the KV cache takes
            # (DeepSeek-V4, whose KV layout is not modelled)
            weighed = _weighed(parts, engine, arch, tp, pp, dp, draft, settings, weights_format, stages)
            return ModelSide(arch, tuple(asm), mnbt, swa_full, None, str(exc), weighed[0], weighed[1])
    hybrid = None
    if engine == "vllm" and br.linear_layers_per_gpu and arch.linear_state:
        global _MAMBA
        if _MAMBA is None:
            from . import mamba as _MAMBA
        laid = _MAMBA.vllm_hybrid(arch, br, tp, settings, version)
        if laid is not None:
            hybrid, br = laid
    asm.extend(br.notes)
    if engine == "vllm" and swa_full and br.sliding_layers_per_gpu and not version:
        asm.append("vLLM version unknown: window layers counted whole, as before 0.9.1 (or with a KV connector in "
                   "0.9.1-0.10); state the image tag to count them windowed")
    if br.bytes_per_token <= 0:
        return ModelSide(arch, tuple(asm), mnbt, swa_full, br, hybrid=hybrid)
    weighed = _weighed(parts, engine, arch, tp, pp, dp, draft, settings, weights_format, stages)
    asm.extend(weighed[2])
    return ModelSide(arch, tuple(asm), mnbt, swa_full, br, "", weighed[0], weighed[1], layout, hybrid)


def _weighed(parts: dict, engine: str, arch: ModelArch, tp: int, pp: int, dp: Any, draft: int,
             settings: Mapping[str, Any], weights_format: Any, stages: tuple[int, ...] | None) -> tuple:
    """(weights per GPU, its formula, notes), worked out once per `parts`."""
    weighed = parts.get("weights")
    if weighed is None:
        notes: list[str] = []
        # a 16-bit format is the serving dtype's, unless it is one of several the checkpoint may be in (weights.alt)
        fmt = None if unquantized(weights_format) and not weights_format.alt else weights_format
        split, split_how = expert_split(engine, arch, settings, positive_int(dp, 1))
        replicas, replicas_how = attention_replicas(engine, arch, settings, tp)
        weights, w_formula, w_notes = weights_per_gpu(arch, tp, pp, draft, fmt, split, split_how or replicas_how,
                                                      replicas, stages)
        notes.extend(w_notes)
        weights, w_formula = narrower_attention(engine, arch, settings, tp, pp, fmt or arch.weight_format, weights,
                                                w_formula, notes)
        weights, w_formula = whole_on_each_rank(engine, arch, tp, pp, fmt or arch.weight_format, weights, w_formula,
                                                notes, stages)
        weights, w_formula = dsv4_padding(engine, arch, tp, pp, dp, draft, settings, fmt or arch.weight_format,
                                          weights, w_formula, notes)
        weights, w_formula = offloaded(engine, settings, weights, w_formula, notes)
        weighed = parts["weights"] = (weights, w_formula, tuple(notes))
    return weighed


def _stage_sizes(settings: Mapping[str, Any], pp: int, layers: int, engine: str) -> tuple[int, ...] | None:
    from .pp_partition import stage_sizes  # only a role that sets the variable pays for the import

    return stage_sizes(settings, pp, layers, engine)


def _llamacpp_v(settings: Mapping[str, Any]) -> Any:
    """llama.cpp's V cache type: -ctv, else its default f16 where -ctk is stated (else V goes with K)."""
    v = settings.get("cache_type_v")
    return v if v not in (None, "") else "f16" if settings.get("cache_type_k") not in (None, "") else None


# MiniCPM3 has DeepSeek-V2's low-rank KV projection, but only SGLang caches the latent: its ModelConfig gives
# MiniCPM3ForCausalLM AttentionArch.MLA, kv_lora_rank + qk_rope_head_dim a layer (sgl-project/sglang@
# 001adf564fd332c285397a46a034ee2f93ba7515:python/sglang/srt/configs/model_config.py). vLLM's MiniCPM3Attention
# decompresses it and caches every head's K (qk_nope + qk_rope = 96) and V padded to the same 96
# (`Attention(num_local_heads, qk_head_dim, num_kv_heads=num_local_heads)`,
# vllm-project/vllm@009ccee09595bc1ed5de28164ea2490a5ba1ce84:vllm/model_executor/models/minicpm3.py):
# 2 x 40 x 96 a layer, 26.7x the latent. How the other engines cache it was not read.
MINICPM3_VLLM = "vLLM caches MiniCPM3 as full K/V heads (K and V {width} wide), not as the MLA latent SGLang keeps"
MINICPM3_UNREAD = ("{name}: how {engine} caches MiniCPM3's low-rank attention (the latent, as SGLang does, or full "
                   "heads, as vLLM does) was not read; state the pool the engine logs (kv_pool_tokens, or the "
                   "ctxlint.io/kv-pool-tokens annotation on a workload)")


def _minicpm3(arch: ModelArch) -> bool:
    """Both engines pick MiniCPM3's code by its class; an early config.json has no model_type."""
    return arch.is_mla and (arch.model_type == "minicpm3" or "MiniCPM3ForCausalLM" in (arch.architectures or ()))


def _layout(engine: str, arch: ModelArch, settings: Mapping[str, Any], version: str | None, context: int | None,
            asm: list[str], draft: Any = 0) -> tuple[bool, float, int | None, str, str]:
    """(swa_full, SGLang's SWA pool ratio, mla_heads, a setting the engine refuses, why vLLM keeps every layer
    of a chunked-attention model whole) for the engine and version: how it lays out window and MLA layers."""
    v = parse_version(version) if version else None
    if _minicpm3(arch) and engine not in ("vllm", "sglang"):
        return True, DEFAULT_RATIO, None, MINICPM3_UNREAD.format(name=arch.name, engine=engine), ""
    swa_full = bool(settings.get("swa_full"))  # llama.cpp --swa-full
    swa_ratio, mla_heads, layout = DEFAULT_RATIO, None, ""
    if engine == "sglang" and (SLIDING in arch.layer_kinds or CHUNKED in arch.layer_kinds):
        global _SWA
        if _SWA is None:
            from . import swa_sglang as _SWA
        swa = _SWA.sglang_swa(arch, settings, version, context)
        if swa.error:
            return True, swa.ratio, None, swa.error, ""
        swa_full, swa_ratio = swa.whole, swa.ratio
        asm.append(swa.note)
        cap = _SWA.request_cap_note(settings, version) if not swa.whole else ""
        if cap:
            asm.append(cap)
    elif engine == "sglang":
        swa_full = False  # `swa_full` is llama.cpp's setting, not SGLang's
    if engine == "vllm":
        swa_full = hybrid_full(version, settings)
        if not swa_full and arch.attention_chunk_size and CHUNKED in arch.layer_kinds:
            # the release, the environment or an EAGLE draft may turn the manager off for Llama 4 (vllm_chunked)
            from .vllm_chunked import chunked_whole
            why = chunked_whole(version, settings, bool(draft))
            if why:
                swa_full, layout = True, f"{why}: all {arch.num_layers} layers hold the full context"
                asm.append(layout)
        if _minicpm3(arch):
            mla_heads = arch.head_dim  # K and V both qk_nope + qk_rope wide, V padded (MINICPM3_VLLM above)
            asm.append(MINICPM3_VLLM.format(width=arch.head_dim))
        elif arch.is_mla and (str(settings.get("VLLM_MLA_DISABLE", "")) == "1" or
                              (v is not None and v < parse_version("0.7.1"))):
            mla_heads = 192 if v is not None and v >= parse_version("0.7.0") else 256
            asm.append(f"vLLM {version or ''} stores MLA as full K/V heads padded to {mla_heads} (MLA latent "
                       "from 0.7.1)")
    elif engine == "sglang" and arch.is_mla and v is not None and v < parse_version("0.3.2") \
            and settings.get("enable_mla") is not True:
        mla_heads = 0  # K = qk_nope + qk_rope, V = v_head_dim
        asm.append("SGLang < 0.3.2 without --enable-mla stores full K/V heads")
    return swa_full, swa_ratio, mla_heads, "", layout


# A role's search probes ~30 sizes with the same model side per release: 512 covers many roles.
_MEMO = Memo(_model_side, 512)
