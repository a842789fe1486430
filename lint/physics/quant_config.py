"""The weight format a checkpoint's config.json declares in its `quantization_config` (physics.weights's formats).

Kept apart from the formats themselves: only a model read from a config.json (physics.hf_config) needs this reader
and ModelOpt's per-layer lists (physics.modelopt_layers), so a run whose models come from the catalog imports neither.
"""
from __future__ import annotations

from typing import Optional

from .modelopt_layers import expert_split, fp8_nvfp4_experts
from .weights import FORMATS, WeightFormat, grouped_format, mixed_format, w4a16

# the formats a config can declare; FORMATS holds the very objects, so a format is still told by `is`
_FP8 = FORMATS["fp8"]
_INT8 = FORMATS["int8"]
_AWQ = FORMATS["awq"]
_GPTQ4 = FORMATS["gptq-int4"]
_NF4 = FORMATS["bnb-4bit"]
_NVFP4 = FORMATS["nvfp4"]
_MXFP4 = FORMATS["mxfp4"]
_MXFP8 = FORMATS["mxfp8"]
_MXFP4_EXPERTS = FORMATS["mxfp4-experts"]
_NVFP4_EXPERTS = FORMATS["nvfp4-experts"]
_FP8_MXFP4_EXPERTS = FORMATS["fp8+mxfp4-experts"]
_FP8_NVFP4_EXPERTS = FORMATS["fp8+nvfp4-experts"]
_MXFP8_NVFP4_EXPERTS = FORMATS["mxfp8+nvfp4-experts"]


def from_quantization_config(q: object) -> Optional[WeightFormat]:
    """The format a config.json `quantization_config` declares (None: none, or not understood)."""
    if not isinstance(q, dict):
        return None
    method = str(q.get("quant_method", "")).lower()
    bits = q.get("bits") or q.get("w_bit")
    if method == "fp8" or str(q.get("fmt", "")).startswith("e4m3"):
        return _FP8_NVFP4_EXPERTS if fp8_nvfp4_experts(q) else _FP8  # the latter: NVIDIA's DeepSeek-V4 NVFP4
    if method == "mxfp4":
        return _MXFP4_EXPERTS
    if method == "mxfp8" or str(q.get("quant_algo", "")).upper() == "MXFP8":
        # a MiniMax-M3.1 NVFP4 checkpoint declares mxfp8 for its projections and packs its experts in NVFP4
        # (moe_quant_algo NVFP4; SGLang then serves it as minimax_m3_nvfp4, sglang==0.5.23:sglang/srt/arg_groups/
        # model_overrides/minimax_m3.py _resolve_quant_method)
        return _MXFP8_NVFP4_EXPERTS if str(q.get("moe_quant_algo", "")).upper() == "NVFP4" else _MXFP8
    if str(q.get("quant_algo", "")).upper() == "MIXED_PRECISION" and expert_split(q) == ("NVFP4", "MXFP8"):
        return _MXFP8_NVFP4_EXPERTS  # ModelOpt's per-layer list, read whole (physics.modelopt_layers)
    mixed = _mixed_groups(q, q.get("config_groups"))
    if mixed is not None:
        return mixed
    if method in ("modelopt", "modelopt_fp4") or str(q.get("quant_algo", "")).upper() == "NVFP4":
        if not q.get("quant_algo") and isinstance(q.get("config_groups"), dict):
            # ModelOpt's compressed-tensors style (nvidia/Kimi-K2.6-NVFP4: quant_method modelopt, no quant_algo, one
            # group of 4-bit float weights in groups of 16): the groups say the format, not "modelopt" alone
            for group in q["config_groups"].values():
                found = _group_format(q, group)
                if found is not None:
                    return found
        return _experts_only(q, _NVFP4) if "fp4" in (method + str(q.get("quant_algo", ""))).lower() else _FP8
    if method == "awq":
        return grouped_format(_AWQ, q.get("group_size", q.get("q_group_size")))
    if method == "gptq":
        return grouped_format(_GPTQ4, q.get("group_size")) if bits in (None, 4) else _INT8 if bits == 8 else None
    if method == "bitsandbytes":
        return _NF4 if q.get("load_in_4bit") or q.get("_load_in_4bit") else _INT8
    groups = q.get("config_groups")
    if isinstance(groups, dict):
        for group in groups.values():
            found = _group_format(q, group)
            if found is not None:
                return found
    return None


def with_expert_dtype(fmt: Optional[WeightFormat], expert_dtype: object) -> Optional[WeightFormat]:
    """An FP8 checkpoint whose config says `expert_dtype: fp4` (DeepSeek-V4) keeps its routed experts in MXFP4;
    one with `moe_quant_algo: NVFP4` too keeps them in NVFP4 unless `expert_dtype: fp8` (FP8 experts: vLLM's
    DeepseekV4FP8Config takes NVFP4 only under fp4, its default, vllm-project/vllm@
    e95bf0dfd8bc0f66724b083d56021777d8ecdc12:vllm/models/deepseek_v4/quant_config.py get_quant_method); any other
    pairing is left as the quantization_config says."""
    said = expert_dtype.strip().lower() if isinstance(expert_dtype, str) else None
    if fmt is _FP8 and said == "fp4":
        return _FP8_MXFP4_EXPERTS
    if fmt is _FP8_NVFP4_EXPERTS and said == "fp8":
        return _FP8
    return fmt


def _group_format(q: dict, group: object) -> Optional[WeightFormat]:
    w = group.get("weights") if isinstance(group, dict) else None
    if not isinstance(w, dict) or not w.get("num_bits"):
        return None
    try:
        nbits = int(w["num_bits"])
    except (TypeError, ValueError, OverflowError):  # JSON's Infinity reads as a float
        return None
    kind = str(w.get("type", "int")).lower()
    if nbits == 8:
        return _FP8 if kind == "float" else _INT8
    if nbits == 4:
        group_size = w.get("group_size") if w.get("strategy", "group") == "group" else None
        return _fp4(q, group_size) if kind == "float" else w4a16(group_size)
    return None


def _mixed_groups(q: dict, groups: object) -> Optional[WeightFormat]:
    """Quantization groups of different widths (ModelOpt's mixed precision: nvidia/Qwen3.6-35B-A3B-NVFP4 has an FP8
    group and an NVFP4 group of 16): which tensors each group takes is in its targets, which the catalog does not
    keep, so the format is a band from every quantized weight in the narrowest group to every one in the widest,
    its point the widest (the weights never read smaller than they may be). One width read as every weight's put
    35B parameters at FP8 on a 32 GB RTX 5090 that a vLLM boot log shows serving it (noonghunna/club-3090#652)."""
    if not isinstance(groups, dict):
        return None
    found = {f.key: f for f in (_group_format(q, g) for g in groups.values()) if f is not None}
    return mixed_format(list(found.values())) if len(found) > 1 else None


def _fp4(q: dict, group_size: object) -> WeightFormat:
    """compressed-tensors FP4: NVFP4 has one FP8 scale per 16 weights (`nvfp4-pack-quantized`), MXFP4
    one E8M0 scale per 32 (`mxfp4-pack-quantized`, scale_dtype uint8). An `ignore` list that keeps
    the attention and the shared experts in 16 bits leaves only the routed experts in MXFP4, as
    Kimi-K3's does (ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:
    aic-core/src/aiconfigurator_core/model_configs/moonshotai--Kimi-K3_config.json; SGLang's K3 loader
    says the same: "the checkpoint quantizes only the MoE experts", sgl-project/sglang@
    e44a41c1c413ce470c66445745f380a50203c286:python/sglang/srt/models/kimi_k3.py)."""
    if group_size != 32 and "mxfp4" not in str(q.get("format", "")).lower():
        return _experts_only(q, _NVFP4)
    return _experts_only(q, _MXFP4)


def _experts_only(q: dict, fmt: WeightFormat) -> WeightFormat:
    """`fmt` over the routed experts only where the list of modules left unquantized keeps the attention and the
    shared experts at 16 bits (compressed-tensors' `ignore`, ModelOpt's `exclude_modules` or `ignore`, which vLLM's
    ModelOptQuantConfigBase.from_config reads alike, vllm==0.34.0:vllm/model_executor/layers/quantization/
    modelopt.py): nvidia/Kimi-K2.6-NVFP4 excludes every layer's self_attn* and mlp.shared_experts* (and the dense
    layer 0), ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce:aic-core/src/aiconfigurator_core/
    model_configs/nvidia--Kimi-K2.6-NVFP4_config.json. Read as NVFP4 over every linear layer, its ~9e9 attention and
    shared-expert parameters weighed 4.5 bits instead of 16: 13 GB per GPU too few where DP attention holds them all."""
    listed = next((v for v in (q.get("ignore"), q.get("exclude_modules")) if isinstance(v, list)), None)
    ignored = " ".join(str(x) for x in listed or ())
    if "self_attn" not in ignored or "shared_expert" not in ignored:
        return fmt
    return {_NVFP4.key: _NVFP4_EXPERTS, _MXFP4.key: _MXFP4_EXPERTS}.get(fmt.key, fmt)
