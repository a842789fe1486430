"""Which attention each layer of a config.json has (full, sliding window, chunked, linear state or none): the
layout the hybrid and windowed models' configs spell in a dozen ways (Nemotron-H's block pattern, DeciLM's block
configs, `layer_types`, MiniMax's `attn_type_list`, Kimi-Linear's KDA layers, Qwen3-Next's interval, Llama-4's
NoPE layers, Gemma's and Qwen's window patterns, MiMo-V2's hybrid pattern).

Apart from hf_config.py, which reads the rest of the dimensions: the layout is one question with its own sources,
and hf_config asks it once (layer_kinds) plus twice for the layer count and KV heads (block_kinds, decilm_kinds)."""
from __future__ import annotations

from typing import Any, Mapping

from .models import CHUNKED, FULL, LINEAR, NONE, SLIDING

# LFM2's `conv` layers (layer_types "conv", everything else "full_attention") keep a short-convolution state per
# request and no KV: vLLM builds Lfm2ShortConvDecoderLayer for every layer whose type is not "full_attention" and
# sizes its state by conv_dim x (conv_L_cache - 1) (vllm-project/vllm@6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c:
# vllm/model_executor/models/lfm2.py get_layer, get_mamba_state_shape_from_config); SGLang caches KV for the
# full_attention layers alone (sgl-project/sglang@493eb5b62635ca91822b180cee1fe69d3685ed8e:
# python/sglang/srt/models/lfm2.py Lfm2ForCausalLM.get_num_kv_cache_layers) and llama.cpp keeps the others in its
# recurrent memory (ggml-org/llama.cpp@b858a18e783b8a4fc99b6dea24eca68f3fe89c94:src/models/lfm2.cpp
# build_shortconv_block). mamba.parse_state sizes that state for vLLM's hybrid allocator; SGLang's and llama.cpp's
# pools of it are not read (models.sglang_state).
_LAYER_TYPE_MAP = {
    "full_attention": FULL, "attention": FULL, "global": FULL, "full": FULL,
    "sliding_attention": SLIDING, "sliding_window": SLIDING, "local": SLIDING, "sliding": SLIDING,
    "chunked_attention": CHUNKED, "chunked": CHUNKED,
    "linear_attention": LINEAR, "mamba": LINEAR, "mamba2": LINEAR, "linear": LINEAR,
    "conv": LINEAR, "gated_delta_net": LINEAR, "lightning": LINEAR,
}

# Nemotron-H block letters (hybrid_override_pattern) and names (layers_block_type).
_BLOCKS = {"M": LINEAR, "*": FULL, "-": NONE, "E": NONE, "mamba": LINEAR, "attention": FULL, "mlp": NONE,
           "moe": NONE}


def block_kinds(c: Mapping[str, Any]) -> list[str] | None:
    """Nemotron-H's layers by its block pattern or block names; None where the config spells neither."""
    pattern = c.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern and all(ch in _BLOCKS for ch in pattern):
        return [_BLOCKS[ch] for ch in pattern]
    names = c.get("layers_block_type")
    if isinstance(names, list) and names and all(str(x).lower() in _BLOCKS for x in names):
        return [_BLOCKS[str(x).lower()] for x in names]
    return None


def decilm_kinds(c: Mapping[str, Any]) -> list | None:
    """DeciLM / Nemotron-NAS `block_configs`: attention `no_op` or `replace_with_linear` layers keep no KV."""
    blocks = c.get("block_configs")
    if not isinstance(blocks, list) or not blocks:
        return None
    out = []
    for block in blocks:
        attn = block.get("attention") if isinstance(block, Mapping) else None
        attn = attn if isinstance(attn, Mapping) else {}
        out.append(NONE if attn.get("no_op") or attn.get("replace_with_linear") else FULL)
    return out


def _kda_layers(c: Mapping[str, Any]) -> frozenset | None:
    """Kimi-Linear / Kimi-K3 (`linear_attn_config.kda_layers`, 1-based): those layers are Kimi Delta
    Attention with a fixed-size state, the rest MLA. vllm-project/vllm@6b06599499a6f9d6f140ae26ff95b3cbd2e7e75c:
    vllm/transformers_utils/configs/kimi_linear.py (is_kda_layer: layer_idx + 1 in kda_layers);
    vllm-project/vllm@01d995867291dd13119ea66cd18e3c9c9b51c50e:vllm/model_executor/models/kimi_linear.py
    (KimiDecoderLayer: KimiDeltaAttention on KDA layers, KimiMLAAttention on the others)."""
    lac = c.get("linear_attn_config")
    layers = lac.get("kda_layers") if isinstance(lac, Mapping) else None
    if not isinstance(layers, list):
        return None
    return frozenset(x for x in layers if isinstance(x, int) and not isinstance(x, bool))


def layer_kinds(c: Mapping[str, Any], n: int, notes: list[str]) -> tuple[str, ...]:
    """The kind of each of the `n` layers of text config `c`; a default the config leaves to its class is
    added to `notes`."""
    mt = str(c.get("model_type", "")).lower()
    blocks = block_kinds(c) or decilm_kinds(c)
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
    kda = _kda_layers(c)
    if kda is not None:
        return tuple(LINEAR if i + 1 in kda else FULL for i in range(n))
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
    positions = c.get("max_position_embeddings")
    if isinstance(window, int) and isinstance(positions, int) and window >= positions:
        return (FULL,) * n  # a window as long as the context never binds (Phi-3.5-mini, Ministral-8B)
    hybrid = c.get("hybrid_layer_pattern")  # MiMo-V2: 0 = global attention, 1 = sliding window
    if isinstance(hybrid, list) and hybrid:
        kinds = [SLIDING if int(x) == 1 else FULL for x in hybrid][:n]
        return tuple(kinds + [FULL] * (n - len(kinds)))
    if mt == "gemma2":
        return tuple(SLIDING if i % 2 == 0 else FULL for i in range(n))
    if mt.startswith("gemma3") or isinstance(c.get("sliding_window_pattern"), int):
        pat = int(c.get("sliding_window_pattern") or 6)  # gemma-3: 6; cohere2 (Command R7B): 4
        return tuple(FULL if (i + 1) % pat == 0 else SLIDING for i in range(n))
    if mt.startswith("qwen2") or mt.startswith("qwen3"):
        if not c.get("use_sliding_window"):
            return (FULL,) * n  # window present but inactive (Qwen2.5, QwQ)
        mwl = int(c.get("max_window_layers") or 0)
        return tuple(FULL if i < mwl else SLIDING for i in range(n))
    # Mistral-7B-v0.1 style: every layer uses the window.
    return (SLIDING,) * n
