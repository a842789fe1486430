"""Parameter counts of two layouts params.py does not reach with its one-shape-per-layer loop.

- DeciLM / Nemotron-NAS (`block_configs`, Llama-3.3-Nemotron-Super/Ultra): every layer has its own
  attention (KV groups `n_heads_in_group`, or `no_op`) and its own gated MLP (`ffn_mult`, or `no_op`),
  as vllm-project/vllm@00bd1493b3e82d6c13c68ee8a0e1c5a96707e190:vllm/model_executor/models/nemotron_nas.py
  builds them (DeciLMDecoderLayer: LlamaAttention with heads // n_heads_in_group KV heads and its
  input_layernorm only when attention is not a no-op; LlamaMLP of _ffn_mult_to_intermediate_size(ffn_mult, h)
  = 2 x ffn_mult x h / 3 rounded up to a multiple of 256, and its post_attention_layernorm only when the
  FFN is not a no-op). A `replace_with_linear` block (one h x h linear in DeciLM's own modelling code) is
  not built by vLLM, so such a config is not counted.
- The Qwen2.5-VL vision tower (`qwen2_5_vl`), which vLLM loads with the decoder:
  huggingface/transformers@00b676f8f0489b88652a31d70751cc540dd06305:
  src/transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py (Qwen2_5_VisionPatchEmbed: a Conv3d of
  in_channels x temporal_patch_size x patch_size^2 -> hidden without bias; Qwen2_5_VLVisionBlock: two
  RMSNorms, qkv and proj with biases, a gated MLP with biases; Qwen2_5_VLPatchMerger: an RMSNorm, then
  hidden x merge^2 -> itself -> out_hidden_size, both with biases). Keys a vision_config leaves out take
  Qwen2_5_VLVisionConfig's defaults (configuration_qwen2_5_vl.py), as transformers and vLLM load them;
  out_hidden_size, when absent, is the decoder's hidden size, which the merged features must match.
- Gemma 4 (`gemma4_text`): its full-attention layers are wider than its sliding ones (global_head_dim, and
  num_global_key_value_heads when attention_k_eq_v), and with enable_moe_block each layer runs the dense MLP
  *and* the routed experts side by side, as vllm-project/vllm@001cabc1be16a59a70d720ed61a13b678c060a18:
  vllm/model_executor/models/gemma4.py builds them (Gemma4DecoderLayer: head_dim = global_head_dim on a
  full_attention layer, num_kv_heads = num_global_key_value_heads when use_k_eq_v; Gemma4Attention's one
  QKVParallelLinear holds a V slot even when K is loaded into it; `self.mlp = Gemma4MLP(...)` always, and
  `if self.enable_moe_block:` a Gemma4Router (its per-dimension `scale` and an h x experts `proj`) and a
  Gemma4MoE (FusedMoE and a `per_expert_scale`) beside it).
- The Gemma 4 vision tower (`gemma4_vision`), which vLLM's gemma4_mm.py loads through transformers' AutoModel:
  huggingface/transformers@c308a309e651a7e033f683353f3f75aa66d29502:
  src/transformers/models/gemma4/modeling_gemma4.py (Gemma4VisionEncoderLayer: q/k/v/o without bias, a q and
  k norm of head_dim, four RMSNorms, and Gemma4VisionMLP's gate_proj, up_proj and down_proj: a gated MLP, three
  h x intermediate matrices where a ViT has two; Gemma4VisionPatchEmbedder: input_proj 3 x patch^2 -> h and a
  position_embedding_table of 2 x position_embedding_size x h; Gemma4MultimodalEmbedder: one projection from
  the tower's width to the decoder's; with `standardize`, a bias and a scale of h). 27 layers of 1152 wide,
  MLP 4304 and a 10240-position table (gemma-4-26B-A4B, gemma-4-31B) are 0.573e9 parameters, the model cards'
  ~550M encoder.
- The encoder-free Gemma 4 12B's vision embedder (`gemma4_unified_vision`), which vLLM and SGLang load beside the
  decoder (vllm==0.23.0:vllm/model_executor/models/gemma4_unified.py, sglang==0.5.13:
  sglang/srt/models/gemma4_unified.py, both mirroring transformers==5.10.1:
  transformers/models/gemma4_unified/modeling_gemma4_unified.py Gemma4UnifiedVisionEmbedder): a LayerNorm of the
  raw merged patch (model_patch_size^2 x 3, model_patch_size = patch_size x pooling_kernel_size), a Linear with
  bias to mm_embed_dim, a LayerNorm, a factorized position table mm_posemb_size x 2 x mm_embed_dim and a
  LayerNorm; then Gemma4UnifiedMultimodalEmbedder's projection output_proj_dims -> the decoder's width without
  bias (its norm has no scale). Keys left out take Gemma4UnifiedVisionConfig's defaults
  (configuration_gemma4_unified.py: 16, 3, 3840, 1120, 3840). The 12B's: 49,922,304 parameters.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

# Qwen2_5_VLVisionConfig defaults (huggingface/transformers@018c8e0394c47749c55861e11f5f7e2a577973d7:
# src/transformers/models/qwen2_5_vl/configuration_qwen2_5_vl.py); hidden_size has none worth taking.
_QWEN25_VISION = {"depth": 32, "intermediate_size": 3420, "in_channels": 3, "patch_size": 14,
                  "spatial_merge_size": 2, "temporal_patch_size": 2}


def _int(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def _get(v: Mapping[str, Any], key: str, *aliases: str) -> Optional[int]:
    for k in (key, *aliases):
        if k in v:
            return _int(v[k])
    return _QWEN25_VISION.get(key)


def qwen25_vision(v: Mapping[str, Any], text_hidden: int) -> Optional[int]:
    """The Qwen2.5-VL tower's weights; None without its hidden_size or with a dimension unreadable."""
    h = _int(v.get("hidden_size"))
    depth, inter = _get(v, "depth"), _get(v, "intermediate_size")
    chans = _get(v, "in_channels", "in_chans")
    patch, temporal, merge = _get(v, "patch_size"), _get(v, "temporal_patch_size"), _get(v, "spatial_merge_size")
    out = _int(v.get("out_hidden_size")) if "out_hidden_size" in v else text_hidden
    if not (h and depth and inter and chans and patch and temporal and merge and out):
        return None
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + (3 * h * inter + 2 * inter + h)
    wide = h * merge * merge
    merger = h + wide * wide + wide + wide * out + out
    return chans * temporal * patch * patch * h + depth * block + merger


def _ffn_size(mult: Any, h: int) -> Optional[int]:
    if not isinstance(mult, (int, float)) or isinstance(mult, bool) or mult <= 0:
        return None
    size = int(2 * mult * h / 3)
    return size if size % 256 == 0 else size + 256 - size % 256


def decilm_layers(blocks: list, h: int, heads: int, hd: int) -> Optional[int]:
    """All decoder layers of a DeciLM `block_configs` list (norms included); None when a block is one
    vLLM does not build or lacks a dimension."""
    total = 0
    for block in blocks:
        attn = block.get("attention") if isinstance(block, Mapping) else None
        ffn = block.get("ffn") if isinstance(block, Mapping) else None
        if not isinstance(attn, Mapping) or not isinstance(ffn, Mapping):
            return None
        if attn.get("replace_with_linear") or ffn.get("replace_with_linear"):
            return None
        if not attn.get("no_op"):
            group = _int(attn.get("n_heads_in_group"))
            if not group or heads % group:
                return None
            kv = heads // group
            total += h * heads * hd + 2 * h * kv * hd + heads * hd * h + h
        if not ffn.get("no_op"):
            inter = _ffn_size(ffn.get("ffn_mult"), h) if "ffn_mult" in ffn else _int(ffn.get("intermediate_size"))
            if not inter:
                return None
            total += 3 * h * inter + h
    return total


def gemma4_full_attention(c: Mapping[str, Any], h: int, heads: int, kv: int) -> Optional[int]:
    """One Gemma 4 full-attention layer's q/k/v/o (V slot included, as vLLM allocates it), or None when the
    config gives those layers no dimensions of their own."""
    hd = _int(c.get("global_head_dim"))
    if not hd or "full_attention" not in (c.get("layer_types") or ()):
        return None
    if c.get("attention_k_eq_v"):
        kv = _int(c.get("num_global_key_value_heads")) or kv
    return h * heads * hd + 2 * h * kv * hd + heads * hd * h


def gemma4_dense_beside_experts(c: Mapping[str, Any], h: int, inter: int, experts: int) -> int:
    """What a Gemma 4 MoE layer holds beyond its experts and router projection: the dense gated MLP that
    runs beside them, the router's per-dimension scale and the per-expert output scale (0 for other MoE)."""
    if not (c.get("enable_moe_block") or c.get("use_second_mlp_block")):
        return 0
    return 3 * h * inter + h + experts


def gemma4_vision(v: Mapping[str, Any], text_hidden: int) -> Optional[int]:
    """The Gemma 4 vision tower and its projection to the decoder; None without a dimension it needs."""
    h, depth, inter, patch = (_int(v.get(k)) for k in ("hidden_size", "num_hidden_layers", "intermediate_size",
                                                       "patch_size"))
    if not (h and depth and inter and patch):
        return None
    heads = _int(v.get("num_attention_heads"))
    hd = _int(v.get("head_dim")) or (h // heads if heads else None)
    kv = _int(v.get("num_key_value_heads")) or heads
    q_width, kv_width = (heads * hd, kv * hd) if heads and hd and kv else (h, h)
    attention = 2 * h * q_width + 2 * h * kv_width + 2 * (hd or 0)
    layer = attention + 3 * h * inter + 4 * h
    table = 2 * (_int(v.get("position_embedding_size")) or 0) * h
    return depth * layer + 3 * patch * patch * h + table + h * text_hidden + (2 * h if v.get("standardize") else 0)


# Gemma4UnifiedVisionConfig defaults (transformers==5.10.1: configuration_gemma4_unified.py)
_GEMMA4_UNIFIED_VISION = {"patch_size": 16, "pooling_kernel_size": 3, "mm_embed_dim": 3840, "mm_posemb_size": 1120,
                          "output_proj_dims": 3840}


def gemma4_unified_vision(v: Mapping[str, Any], text_hidden: int) -> Optional[int]:
    """The Gemma 4 Unified vision embedder and its projection to the decoder; None with a dimension unreadable."""
    dims = {k: (_int(v[k]) if k in v and v[k] is not None else d) for k, d in _GEMMA4_UNIFIED_VISION.items()}
    if not all(dims.values()) or not _int(text_hidden):
        return None
    patch = (dims["patch_size"] * dims["pooling_kernel_size"]) ** 2 * 3
    d = dims["mm_embed_dim"]
    embedder = 2 * patch + patch * d + d + 2 * d + dims["mm_posemb_size"] * 2 * d + 2 * d
    return embedder + dims["output_proj_dims"] * text_hidden
