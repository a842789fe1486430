"""Parse a Hugging Face config.json into a ModelArch.

Handles dense Llama-style models, Qwen2/3 (+MoE), Mistral/Mixtral, Gemma2/3,
gpt-oss (layer_types), DeepSeek-V2/V3 and Kimi-K2 (MLA), GLM-4.x MoE, Llama-4
(chunked local attention), MiniMax (attn_type_list), Qwen3-Next style hybrids
(full_attention_interval / layer_types), Kimi-Linear / Kimi-K3 (linear_attn_config.kda_layers),
ChatGLM / GLM-4 (multi_query_attention, multi_query_group_num) and VLMs that nest `text_config`.
Which attention each layer has is read in layer_kinds.py.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from .layer_kinds import block_kinds, decilm_kinds, layer_kinds
from .models import CHUNKED, LINEAR, MAX_LAYERS, SLIDING, ModelArch
from .params import count as count_params, minimax_m3_split
from .msa_index import parse as parse_msa
from .mtp import mtp_modules
from .quant_config import from_quantization_config, with_expert_dtype

# The keys vLLM and SGLang read a default context length from (engines.md §1.2a, §2.2a).
POSITION_KEYS = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
                 "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len")


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _first(cfg: Mapping[str, Any], *keys: str) -> Any:
    for k in keys:
        v = cfg.get(k)
        if v is not None:
            return v
    return None


def _architectures(cfg: Mapping[str, Any]) -> tuple[str, ...]:
    """The top-level `architectures` (a VLM's text_config has none of its own): the class names."""
    names = cfg.get("architectures")
    return tuple(n for n in names if isinstance(n, str) and n) if isinstance(names, list) else ()


def _text_part(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """VLMs (Gemma-3, Llama-4, Qwen-VL...) nest the decoder under text_config /
    llm_config; top-level keys (torch_dtype, quantization_config) still apply."""
    for key in ("text_config", "llm_config", "language_config"):
        sub = cfg.get(key)
        if isinstance(sub, Mapping) and _first(sub, "num_hidden_layers", "n_layer", "num_layers"):
            merged = {k: v for k, v in cfg.items() if k != key}
            merged.update(sub)
            return merged
    return dict(cfg)


# A config.json written as a diff from its class defaults can omit num_key_value_heads; engines then
# read the config class's default, which is not num_attention_heads for these model types:
# huggingface/transformers@996a40179607b089c2d290b7eeb1c6211e80c733:
# src/transformers/models/mllama/configuration_mllama.py (MllamaTextConfig num_key_value_heads=8;
# Llama-3.2-90B-Vision has 64 query heads); huggingface/transformers@0b07a74c673bdf8fbd472a1c7df139b357495414:
# src/transformers/models/mistral/configuration_mistral.py (MistralConfig num_key_value_heads=8, whatever the query
# heads; an explicit null is the "backward compatibility" case, num_attention_heads, as _NULL_KV_IS_HEADS reads it).
_KV_DEFAULTS = {"mllama_text_model": 8, "mistral": 8}
_NULL_KV_IS_HEADS = frozenset({"mistral"})
# The same for the query heads: mistral-community/pixtral-12b's text_config (model_type mistral) writes head_dim
# and num_key_value_heads but not num_attention_heads, which the engines then read as MistralConfig's default 32
# (huggingface/transformers@0b07a74c673bdf8fbd472a1c7df139b357495414:
# src/transformers/models/mistral/configuration_mistral.py, num_attention_heads=32).
_HEAD_DEFAULTS = {"mistral": 32}


# DeepSeek-V4: no engine-independent size. vLLM 0.20.0-0.23.0's layout is read in dsv4_kv (it reproduces the
# 6.66 GiB vllm#44376 logged); the other engines keep the reason below, with their own part (dsv4_kv.why_not_sized).
_DSV4 = ("DeepSeek-V4 compressed attention (compress_ratios) is not modelled: its window, compressed, indexer "
         "and compressor-state caches are sized by rules that differ between engines and releases")


def _unsupported(c: Mapping[str, Any]) -> str:
    """Attention layouts whose KV size this physics cannot compute: say so rather than guess."""
    if c.get("compress_ratios"):
        return _DSV4
    return ""


def _compress_ratios(c: Mapping[str, Any], n: int) -> tuple[int, ...]:
    """DeepSeek-V4's compression ratio of each of its `n` layers (the list's extra entry is the MTP layer's), as
    params_dsv4 validates them; () where the config gives none or an unreadable list."""
    if c.get("model_type") != "deepseek_v4":
        return ()
    from .params_dsv4 import compression

    shapes = compression(c, n)
    return tuple(shapes[0][:n]) if shapes else ()


def _tp_whole(c: Mapping[str, Any], n: int, hidden: Any, head_dim: Any) -> tuple[int, ...] | None:
    """DeepSeek-V4's parameters that vLLM does not split over TP (params_dsv4.whole_on_each_tp_rank)."""
    if c.get("model_type") != "deepseek_v4" or not isinstance(hidden, int) or not isinstance(head_dim, int):
        return None
    from .params_dsv4 import whole_on_each_tp_rank

    return whole_on_each_tp_rank(c, hidden, n, head_dim)


def _shared(c: Mapping[str, Any], n: int) -> int | None:
    """Gemma-4 E2B/E4B `num_kv_shared_layers`: the last N layers read the KV of the last earlier layer of their
    attention type (Gemma4Attention, vllm==0.33.0:vllm/model_executor/models/gemma4.py and
    sglang==0.5.23:sglang/srt/models/gemma4_causal.py); 0, absent or not fewer than the layers: none shares."""
    shared = _positive(c.get("num_kv_shared_layers"))
    return shared if shared is not None and shared < n else None


def arch_from_hf_config(config: Mapping[str, Any], name: str = "config.json") -> ModelArch:
    """Build a ModelArch from a config.json dict. Raises ValueError when the
    basic dims (layers, heads) are missing; everything else degrades to None."""
    if not isinstance(config, Mapping):
        raise ValueError("config must be a mapping")
    c = _text_part(config)
    notes: list[str] = []
    n = _first(c, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    if isinstance(c.get("padded_vocab_size"), int) and not c.get("vocab_size"):
        c["vocab_size"] = c["padded_vocab_size"]
    if n is None and block_kinds(c) is not None:
        n = len(block_kinds(c))
    heads = _first(c, "num_attention_heads", "n_head", "num_heads", "n_heads")
    if heads is None and str(c.get("model_type", "")) in _HEAD_DEFAULTS:
        heads = c["num_attention_heads"] = _HEAD_DEFAULTS[str(c["model_type"])]  # the parameter count reads it too
    if not isinstance(n, int) or not isinstance(heads, int) or n <= 0 or heads <= 0:
        raise ValueError("config.json lacks num_hidden_layers / num_attention_heads")
    if n > MAX_LAYERS:
        raise ValueError(f"num_hidden_layers {n:,} is not a model's layer count (1 to {MAX_LAYERS:,})")
    # BLOOM's released configs spell the width n_embed (BloomConfig.attribute_map "hidden_size": "n_embed",
    # huggingface/transformers@04efa883e0ad40da203df78a0eee902b460ee3cd:src/transformers/models/bloom/
    # configuration_bloom.py)
    hidden = _first(c, "hidden_size", "n_embd", "d_model", "n_embed")
    # Step-1 / Step-3.5-Flash name their KV heads num_attention_groups, one count for the full and the sliding
    # layers (Step3p5DecoderLayer num_kv_heads=config.num_attention_groups, vllm==0.33.0:vllm/model_executor/
    # models/step3p5.py; sglang==0.5.23:sglang/srt/models/step3p5.py alike)
    kv = _first(c, "num_key_value_heads", "num_kv_heads", "n_head_kv", "num_attention_groups")
    if kv is None and isinstance(c.get("attn_config"), Mapping):  # dbrx
        kv = c["attn_config"].get("kv_n_heads")
    if kv is None and decilm_kinds(c) is not None:  # Nemotron-NAS: heads / n_heads_in_group, per layer
        groups = [b["attention"].get("n_heads_in_group") for b in c["block_configs"]
                  if isinstance(b, Mapping) and isinstance(b.get("attention"), Mapping)]
        groups = [g for g in groups if isinstance(g, int) and g > 0]
        kv = heads // min(groups) if groups else None
    if kv is None and c.get("multi_query_attention"):  # ChatGLM / GLM-4: KV groups, else one per head
        # vllm-project/vllm@1b2c2248f4f2f5045ed4e3d809099f1131c69546:vllm/model_executor/models/chatglm.py
        # (GLMAttention: multi_query_group_num if multi_query_attention else num_attention_heads)
        kv = _positive(c.get("multi_query_group_num")) or 1
    if c.get("multi_query") and not c.get("new_decoder_architecture"):
        kv = 1  # Falcon-7B: `num_kv_heads` 71 with multi_query true is one shared KV head
    if kv is None:
        mt = str(c.get("model_type", ""))
        null = "num_key_value_heads" in c and mt in _NULL_KV_IS_HEADS  # written as null: not the class default
        kv = heads if null else _KV_DEFAULTS.get(mt, heads)
    kv_lora = c.get("kv_lora_rank")
    rope_dim = c.get("qk_rope_head_dim")
    if kv_lora:  # MLA: head_dim is the query/key dim (nope + rope)
        hd = int((c.get("qk_nope_head_dim") or 128) + (rope_dim or 0))
    else:
        hd = c.get("head_dim") or c.get("attention_head_dim") or c.get("kv_channels") or \
            (hidden // heads if isinstance(hidden, int) else None)
        if hd is None:
            raise ValueError("config.json lacks head_dim and hidden_size")
    v_hd = c.get("v_head_dim")
    dtype = str(_first(c, "torch_dtype", "dtype") or "bfloat16").replace("torch.", "")
    if dtype not in ("bfloat16", "float16", "float32"):
        notes.append(f"torch_dtype {dtype!r} unusual; KV 'auto' taken as 2 bytes")
        dtype = "bfloat16"
    rope = c.get("rope_scaling") or c.get("rope_parameters") or {}
    rope = rope if isinstance(rope, Mapping) else {}
    rtype = rope.get("rope_type") or rope.get("type")
    if rtype == "default":
        rtype = None
    kinds = layer_kinds(c, n, notes)
    experts = _first(c, "num_local_experts", "n_routed_experts", "num_experts")
    if experts is None and isinstance(c.get("ffn_config"), Mapping):  # dbrx
        experts = c["ffn_config"].get("moe_num_experts")
    split = count_params(config, c, int(kv), int(hd) if not kv_lora else None)
    if split is not None:
        notes.append("parameters counted from the config's dimensions")
    parts = minimax_m3_split(c) if split is None and c.get("model_type") in ("minimax_m3", "minimax_m3_vl") else None
    full_kv, full_hd = _positive(c.get("num_global_key_value_heads")), _positive(c.get("global_head_dim"))
    if _positive(c.get("swa_num_key_value_heads")) and SLIDING in kinds and full_kv is None:
        # MiMo-V2-Flash: the window layers have their own KV heads (swa_num_key_value_heads 8; the full
        # layers num_key_value_heads 4): vllm-project/vllm@91cf2f13c21862c4d7a239c9a33b9025911e27b1:
        # vllm/model_executor/models/mimo_v2_flash.py (MiMoV2FlashDecoderLayer). The arch's KV heads and
        # dims are those of the window layers, full_kv_heads / full_head_dim those of the full layers.
        full_kv, kv = int(kv), c["swa_num_key_value_heads"]
        full_hd, hd = (int(hd), c["swa_head_dim"]) if _positive(c.get("swa_head_dim")) not in (None, hd) else (None, hd)
        v_hd = c.get("swa_v_head_dim") or v_hd
    state, ssm_dtype = None, None
    if LINEAR in kinds:  # the state's dims (only a hybrid pays for the import)
        from .mamba import parse_state
        state, ssm_dtype = parse_state(c)
    msa_dim, msa_layers, msa_values = parse_msa(c, n)
    quant = c.get("quantization_config")
    # DeepSeek-V4 says `expert_dtype` at the top level; some conversions write it into quantization_config
    experts_dtype = c.get("expert_dtype", quant.get("expert_dtype") if isinstance(quant, dict) else None)
    fmt = with_expert_dtype(from_quantization_config(quant), experts_dtype)
    if c.get("quantization_config") and fmt is None:
        notes.append(f"quantization {c['quantization_config'].get('quant_method', '?')!r} not understood: "
                     "weights taken at 16 bits")
    return ModelArch(
        name=name,
        num_layers=n,
        layer_kinds=kinds,
        num_kv_heads=int(kv),
        head_dim=int(hd),
        num_attention_heads=heads,
        v_head_dim=int(v_hd) if v_hd and int(v_hd) != int(hd) else None,
        index_head_dim=_positive(c.get("index_head_dim")) if kv_lora or c.get("compress_ratios") else None,
        msa_index_dim=msa_dim,
        msa_index_layers=msa_layers,
        msa_index_value_layers=msa_values,
        mtp_modules=mtp_modules(c),
        tp_whole_params=_tp_whole(c, n, hidden, hd),
        compress_ratios=_compress_ratios(c, n),
        unsupported=_unsupported(c),
        full_kv_heads=full_kv,
        full_head_dim=full_hd,
        kv_shared_layers=_shared(c, n),
        kv_lora_rank=int(kv_lora) if kv_lora else None,
        qk_rope_head_dim=int(rope_dim) if (kv_lora or c.get("compress_ratios")) and rope_dim else None,
        sliding_window=int(c["sliding_window"]) if c.get("sliding_window") and SLIDING in kinds else None,
        attention_chunk_size=int(c["attention_chunk_size"]) if CHUNKED in kinds else None,
        hidden_size=int(hidden) if isinstance(hidden, int) else None,
        intermediate_size=_positive(_first(c, "intermediate_size", "ffn_hidden_size", "n_inner")),
        moe_intermediate_size=_positive(_first(c, "moe_intermediate_size", "expert_intermediate_size")),
        total_params_b=split.total / 1e9 if split else None,
        active_params_b=split.total / 1e9 if split and not experts else None,
        embed_params_b=(split or parts).embed / 1e9 if split or parts else None,
        lm_head_params_b=(split or parts).lm_head / 1e9 if split or parts else None,
        expert_params_b=(split or parts).experts / 1e9 if split or parts else None,
        vision_params_b=split.vision / 1e9 if split else None,
        vision_dims=_vision_dims(config),
        weights=fmt.key if fmt is not None else None,
        dtype=dtype,
        vocab_size=c.get("vocab_size") if isinstance(c.get("vocab_size"), int) else None,
        max_position_embeddings=_first(c, "max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                                       "max_sequence_length"),
        rope_scaling_type=str(rtype) if rtype else None,
        rope_scaling_factor=float(rope["factor"]) if rope.get("factor") is not None else None,
        rope_original_max_position_embeddings=rope.get("original_max_position_embeddings"),
        num_experts=int(experts) if isinstance(experts, int) else None,
        experts_per_token=_first(c, "num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_topk",
                                 "top_k_experts") or (
            c["ffn_config"].get("moe_top_k") if isinstance(c.get("ffn_config"), Mapping) else None),  # dbrx
        linear_state=state,
        linear_ssm_dtype=ssm_dtype,
        model_type=str(c.get("model_type")) if c.get("model_type") else None,
        architectures=_architectures(config),
        position_keys=tuple((k, int(c[k])) for k in POSITION_KEYS
                            if isinstance(c.get(k), int) and not isinstance(c.get(k), bool) and c[k] > 0),
        source=f"config.json ({name})",
        verified=True,
        notes=tuple(notes),
    )


def _vision_dims(config: Mapping[str, Any]) -> tuple | None:
    """The vision tower's dimensions vLLM's multimodal profile reads (vllm_mm.vision_dims), or None."""
    if not isinstance(config.get("vision_config"), Mapping):
        return None
    from .params import _VISION_DEFAULTS
    from .vllm_mm import vision_dims

    return vision_dims(config, _VISION_DEFAULTS)


def arch_from_config_file(path: str | Path, name: str | None = None) -> ModelArch:
    """Read a user-given config.json (the only file I/O besides catalogs)."""
    p = Path(path)
    with p.open("r", encoding="utf-8") as fh:
        cfg = json.load(fh)
    return arch_from_hf_config(cfg, name or str(p.parent.name or p.name))
