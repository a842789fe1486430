"""Parse a Hugging Face config.json into a ModelArch.

Handles dense Llama-style models, Qwen2/3 (+MoE), Mistral/Mixtral, Gemma2/3,
gpt-oss (layer_types), DeepSeek-V2/V3 and Kimi-K2 (MLA), GLM-4.x MoE, Llama-4
(chunked local attention), MiniMax (attn_type_list), Qwen3-Next style hybrids
(full_attention_interval / layer_types) and VLMs that nest `text_config`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from .models import CHUNKED, FULL, LINEAR, MAX_LAYERS, NONE, SLIDING, ModelArch
from .params import count as count_params
from .weights import from_quantization_config

_LAYER_TYPE_MAP = {
    "full_attention": FULL, "attention": FULL, "global": FULL, "full": FULL,
    "sliding_attention": SLIDING, "sliding_window": SLIDING, "local": SLIDING, "sliding": SLIDING,
    "chunked_attention": CHUNKED, "chunked": CHUNKED,
    "linear_attention": LINEAR, "mamba": LINEAR, "mamba2": LINEAR, "linear": LINEAR,
    "conv": LINEAR, "gated_delta_net": LINEAR, "lightning": LINEAR,
}


def _first(cfg: Mapping[str, Any], *keys: str) -> Any:
    for k in keys:
        v = cfg.get(k)
        if v is not None:
            return v
    return None


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


# Nemotron-H block letters (hybrid_override_pattern) and names (layers_block_type).
_BLOCKS = {"M": LINEAR, "*": FULL, "-": NONE, "E": NONE, "mamba": LINEAR, "attention": FULL, "mlp": NONE,
           "moe": NONE}


def _blocks(c: Mapping[str, Any]) -> list[str] | None:
    pattern = c.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern and all(ch in _BLOCKS for ch in pattern):
        return [_BLOCKS[ch] for ch in pattern]
    names = c.get("layers_block_type")
    if isinstance(names, list) and names and all(str(x).lower() in _BLOCKS for x in names):
        return [_BLOCKS[str(x).lower()] for x in names]
    return None


def _layer_kinds(c: Mapping[str, Any], n: int, notes: list[str]) -> tuple[str, ...]:
    mt = str(c.get("model_type", "")).lower()
    blocks = _blocks(c)
    if blocks is not None:
        return tuple((blocks + [NONE] * n)[:n])
    lt = c.get("layer_types")
    if isinstance(lt, list) and lt:
        kinds = [_LAYER_TYPE_MAP.get(str(t).lower(), FULL) for t in lt][:n]
        return tuple(kinds + [FULL] * (n - len(kinds)))
    atl = c.get("attn_type_list")  # MiniMax: 0 = linear (lightning), 1 = softmax
    if isinstance(atl, list) and atl:
        kinds = [FULL if int(t) == 1 else LINEAR for t in atl][:n]
        return tuple(kinds + [FULL] * (n - len(kinds)))
    interval = c.get("full_attention_interval")  # Qwen3-Next
    if isinstance(interval, int) and interval > 0:
        return tuple(FULL if (i + 1) % interval == 0 else LINEAR for i in range(n))
    if c.get("attention_chunk_size") and mt.startswith("llama4"):
        nrl = c.get("no_rope_layers")
        if isinstance(nrl, list) and len(nrl) >= n:
            # 1 = RoPE layer (chunked local), 0 = NoPE layer (global attention)
            return tuple(CHUNKED if nrl[i] else FULL for i in range(n))
        step = int(c.get("no_rope_layer_interval") or 4)
        notes.append(f"llama4: NoPE/global layers every {step} (transformers default)")
        return tuple(FULL if (i + 1) % step == 0 else CHUNKED for i in range(n))
    window = c.get("sliding_window")
    if not window:
        return (FULL,) * n
    if mt == "gemma2":
        return tuple(SLIDING if i % 2 == 0 else FULL for i in range(n))
    if mt.startswith("gemma3"):
        pat = int(c.get("sliding_window_pattern") or 6)
        return tuple(FULL if (i + 1) % pat == 0 else SLIDING for i in range(n))
    if mt.startswith("qwen2") or mt.startswith("qwen3"):
        if not c.get("use_sliding_window"):
            return (FULL,) * n  # window present but inactive (Qwen2.5, QwQ)
        mwl = int(c.get("max_window_layers") or 0)
        return tuple(FULL if i < mwl else SLIDING for i in range(n))
    # Mistral-7B-v0.1 style: every layer uses the window.
    return (SLIDING,) * n


def arch_from_hf_config(config: Mapping[str, Any], name: str = "config.json") -> ModelArch:
    """Build a ModelArch from a config.json dict. Raises ValueError when the
    basic dims (layers, heads) are missing; everything else degrades to None."""
    if not isinstance(config, Mapping):
        raise ValueError("config must be a mapping")
    c = _text_part(config)
    notes: list[str] = []
    n = _first(c, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    if n is None and _blocks(c) is not None:
        n = len(_blocks(c))
    heads = _first(c, "num_attention_heads", "n_head", "num_heads", "n_heads")
    if not isinstance(n, int) or not isinstance(heads, int) or n <= 0 or heads <= 0:
        raise ValueError("config.json lacks num_hidden_layers / num_attention_heads")
    if n > MAX_LAYERS:
        raise ValueError(f"num_hidden_layers {n:,} is not a model's layer count (1 to {MAX_LAYERS:,})")
    hidden = _first(c, "hidden_size", "n_embd", "d_model")
    kv = _first(c, "num_key_value_heads", "num_kv_heads", "n_head_kv")
    if kv is None and isinstance(c.get("attn_config"), Mapping):  # dbrx
        kv = c["attn_config"].get("kv_n_heads")
    if kv is None:
        kv = 1 if c.get("multi_query") else heads
    kv_lora = c.get("kv_lora_rank")
    rope_dim = c.get("qk_rope_head_dim")
    if kv_lora:  # MLA: head_dim is the query/key dim (nope + rope)
        hd = int((c.get("qk_nope_head_dim") or 128) + (rope_dim or 0))
    else:
        hd = c.get("head_dim") or (hidden // heads if isinstance(hidden, int) else None)
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
    kinds = _layer_kinds(c, n, notes)
    experts = _first(c, "num_local_experts", "n_routed_experts", "num_experts")
    if experts is None and isinstance(c.get("ffn_config"), Mapping):  # dbrx
        experts = c["ffn_config"].get("moe_num_experts")
    split = count_params(config, c)
    if split is not None:
        notes.append("parameters counted from the config's dimensions")
    fmt = from_quantization_config(c.get("quantization_config"))
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
        v_head_dim=int(v_hd) if v_hd and not kv_lora and int(v_hd) != int(hd) else None,
        kv_lora_rank=int(kv_lora) if kv_lora else None,
        qk_rope_head_dim=int(rope_dim) if kv_lora and rope_dim else None,
        sliding_window=int(c["sliding_window"]) if c.get("sliding_window") and SLIDING in kinds else None,
        attention_chunk_size=int(c["attention_chunk_size"]) if CHUNKED in kinds else None,
        hidden_size=int(hidden) if isinstance(hidden, int) else None,
        total_params_b=split.total / 1e9 if split else None,
        active_params_b=split.total / 1e9 if split and not experts else None,
        embed_params_b=split.embed / 1e9 if split else None,
        lm_head_params_b=split.lm_head / 1e9 if split else None,
        expert_params_b=split.experts / 1e9 if split else None,
        vision_params_b=split.vision / 1e9 if split else None,
        weights=fmt.key if fmt is not None else None,
        dtype=dtype,
        vocab_size=c.get("vocab_size") if isinstance(c.get("vocab_size"), int) else None,
        max_position_embeddings=_first(c, "max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
                                       "max_sequence_length"),
        rope_scaling_type=str(rtype) if rtype else None,
        rope_scaling_factor=float(rope["factor"]) if rope.get("factor") is not None else None,
        rope_original_max_position_embeddings=rope.get("original_max_position_embeddings"),
        num_experts=int(experts) if isinstance(experts, int) else None,
        experts_per_token=_first(c, "num_experts_per_tok", "experts_per_token", "moe_topk"),
        source=f"config.json ({name})",
        verified=True,
        notes=tuple(notes),
    )


def arch_from_config_file(path: str | Path, name: str | None = None) -> ModelArch:
    """Read a user-given config.json (the only file I/O besides catalogs)."""
    p = Path(path)
    with p.open("r", encoding="utf-8") as fh:
        cfg = json.load(fh)
    return arch_from_hf_config(cfg, name or str(p.parent.name or p.name))
