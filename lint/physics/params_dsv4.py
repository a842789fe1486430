"""DeepSeek-V4 (`deepseek_v4`, V4-Pro / V4-Flash): each layer's non-expert parameters besides its MLP and norms.

Its attention is not MLA's: a low-rank query (wq_a h -> q_lora_rank, q_norm, wq_b q_lora_rank -> heads x head_dim),
one shared KV head (wkv h -> head_dim, kv_norm), a per-head attention sink and a grouped low-rank output (wo_a:
o_groups blocks of heads x head_dim / o_groups -> o_lora_rank, so heads x head_dim x o_lora_rank in all; wo_b
o_groups x o_lora_rank -> h), as DeepseekV4Attention builds them
(vllm-project/vllm@0484480bc73081c4a5133b3cb53018323fce632d:vllm/models/deepseek_v4/attention.py: fused_wqa_wkv,
q_norm, wq_b, kv_norm, wo_a, wo_b, attn_sink). A layer whose compress_ratios entry is not 0 adds a compressor of its
KV (fused_wkv_wgate h -> 2 x coff x head_dim, ape ratio x coff x head_dim, norm head_dim, coff 2 for ratio 4 else 1),
and a ratio-4 layer the lightning indexer (wq_b q_lora_rank -> index_n_heads x index_head_dim, weights_proj
h -> index_n_heads, and a ratio-4 compressor at index_head_dim); same file, DeepseekV4Indexer, and
vllm-project/vllm@91fe05031300b02376cd39fd159f5e92472d0618:vllm/models/deepseek_v4/compressor.py.
Each block's two hyper-connections (hc_mult residual streams) carry fn ((2 + hc) x hc by hc x h), base
((2 + hc) x hc) and scale (3), the model a head combiner (hc x hc x h, hc, 1) (DeepseekV4HyperConnection and
-Head, vllm-project/vllm@9aced75337cffadfa164213e30197b361f27411b:vllm/models/deepseek_v4/common/hyper_connection.py);
the router of a layer past num_hash_layers has a bias per expert, its hash layers a tid2eid token -> expert table
instead (an index, not counted), as the checkpoints' ffn.gate.bias / ffn.gate.tid2eid tensors are laid out.

So V4-Pro's attention is ~0.32e9 a layer, not the ~0.95e9 a plain heads x head_dim q/k/v/o would give: 1,573.0e9
in all, 49.8e9 active (published 1.6T / 49B), and V4-Flash 284.3e9, 13.8e9 active (published 284B / 13B).
"""
from __future__ import annotations

from typing import Any, List, Mapping, Optional, Tuple


def _int(c: Mapping[str, Any], key: str) -> Optional[int]:
    v = c.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def _compressor(h: int, head_dim: int, ratio: int) -> int:
    coff = 2 if ratio == 4 else 1
    return 2 * h * coff * head_dim + ratio * coff * head_dim + head_dim


def compression(c: Mapping[str, Any], n: int) -> Optional[Tuple[List[int], int, int]]:
    """The first `n` layers' compression ratios (each 0, 1, 4 or 128) and the indexer's heads and head size (needed
    where a layer compresses by 4), or None where the config does not give them."""
    ratios = c.get("compress_ratios")
    if not (isinstance(ratios, list) and len(ratios) >= n):
        return None
    if not all(isinstance(r, int) and r in (0, 1, 4, 128) for r in ratios[:n]):
        return None
    ih, ihd = _int(c, "index_n_heads"), _int(c, "index_head_dim")
    if 4 in ratios[:n] and not (ih and ihd):
        return None
    return ratios, ih or 0, ihd or 0


def layers(c: Mapping[str, Any], h: int, n: int, heads: int, head_dim: int, experts: int) -> Optional[List[int]]:
    """Per layer: attention (with its compressor and indexer), hyper-connections and the router's bias. None
    when a dimension the shapes need is missing (a wrong count is worse than none)."""
    ql, ol, groups = _int(c, "q_lora_rank"), _int(c, "o_lora_rank"), _int(c, "o_groups")
    shapes = compression(c, n)
    if not (ql and ol and groups and shapes):
        return None
    ratios, ih, ihd = shapes
    hc = _int(c, "hc_mult") or 1
    mix = (2 + hc) * hc
    hash_layers = _int(c, "num_hash_layers") or 0
    base = heads + h * ql + ql + ql * heads * head_dim + h * head_dim + head_dim \
        + heads * head_dim * ol + groups * ol * h
    out = []
    for i, ratio in enumerate(ratios[:n]):
        p = base
        if ratio > 1:
            p += _compressor(h, head_dim, ratio)
        if ratio == 4:
            p += ql * ih * ihd + h * ih + _compressor(h, ihd, 4)
        if hc > 1:
            p += 2 * (mix * hc * h + mix + 3)
        if experts and i >= hash_layers:
            p += experts
        out.append(p)
    return out


def head(c: Mapping[str, Any], h: int) -> int:
    """The hyper-connection head combiner (hc_head_fn, hc_head_base, hc_head_scale)."""
    hc = _int(c, "hc_mult") or 1
    return hc * hc * h + hc + 1 if hc > 1 else 0


def whole_on_each_tp_rank(c: Mapping[str, Any], h: int, n: int, head_dim: int) -> Optional[tuple]:
    """The parameters vLLM keeps whole on every tensor-parallel rank rather than split over them, as
    (linear weights in the checkpoint's format, 16-bit, fp32): the fused wq_a/wkv projection
    (`fused_wqa_wkv`, disable_tp=True), the q/kv norms, and the indexer's wq_b (ReplicatedLinear,
    quantized); each compressor's fused_wkv_wgate (disable_tp=True, quant_config None) and norm and the
    indexer's weights_proj (ReplicatedLinear, quant_config None) at 16 bits; the compressors' ape and the
    hyper-connections in fp32 (vllm-project/vllm@0484480bc73081c4a5133b3cb53018323fce632d:vllm/models/
    deepseek_v4/attention.py, @01cc1d3e7640a8ada37f99ca60cc3ee66490cf38:vllm/models/deepseek_v4/compressor.py,
    @9aced75337cffadfa164213e30197b361f27411b:vllm/models/deepseek_v4/common/hyper_connection.py). wq_b, wo_a,
    wo_b, the attention sink, the experts and the embeddings are split. None when the shapes are unknown."""
    ql, shapes = _int(c, "q_lora_rank"), compression(c, n)
    if not (ql and shapes):
        return None
    ratios, ih, ihd = shapes
    hc = _int(c, "hc_mult") or 1
    mix = (2 + hc) * hc
    linear = half = single = 0
    for ratio in ratios[:n]:
        linear += h * (ql + head_dim)
        half += ql + head_dim
        if ratio > 1:
            coff = 2 if ratio == 4 else 1
            half += h * 2 * coff * head_dim + head_dim
            single += ratio * coff * head_dim
        if ratio == 4:
            linear += ql * ih * ihd
            half += h * ih + h * 2 * 2 * ihd + ihd
            single += 4 * 2 * ihd
        if hc > 1:
            single += 2 * (mix * hc * h + mix + 3)
    return linear, half, single + head(c, h)
