"""MiniMax-M3's sparse attention (MSA): the index-key cache its sparse layers keep beside K and V.

A sparse layer's lightning indexer scores KV blocks with index heads against one index key per token
(a single key head of width `sparse_index_dim`), which the engines cache in pages of the same pool as K
and V, on every tensor-parallel rank whole:

- vLLM 0.34.0 (vllm==0.34.0 wheel): `MiniMaxM3IndexerCache.get_kv_cache_spec` (vllm/models/minimax_m3/common/
  indexer.py) is an MLAAttentionSpec of num_kv_heads=1, head_size=index_head_dim, registered per sparse layer
  (`_sparse_attention_layer_ids`, vllm/models/minimax_m3/nvidia/model.py: layer_types "minimax_m3_sparse"),
  whatever the TP size; it joins the full-attention layers' KV cache group (UniformTypeKVCacheSpecs.page_size_bytes
  sums the layers' pages, vllm/v1/kv_cache_interface.py), so it costs bytes per token like K and V. Its dtype
  is `--attention-config '{"indexer_kv_dtype": ...}'`: "auto" resolves to "bf16" for MiniMax-M3
  (MiniMaxM3SparseAttention: `resolve_indexer_kv_dtype("bf16")`, vllm/config/attention.py), "fp8"/"fp8_e4m3"
  one byte, "nvfp4" head_dim/2 + head_dim/16 bytes (packed uint8 with scales), anything else refused
  (NotImplementedError). No index value is cached: "index_{v,o}_proj are never created".
- SGLang 0.5.23 (sglang==0.5.23 wheel): `MiniMaxSparseKVPool`'s cell size (sglang/srt/model_executor/
  pool_configurator.py) adds `(num_indexer_kv * 2 + num_indexer_k_only) * sparse_index_dim * index dtype size`
  over the sparse layers of the rank's PP stage (sparse_attention_freq != 0; k-only where
  sparse_disable_index_value is set); index_qkv_proj has total_num_kv_heads=1 (sglang/srt/models/minimax_m3.py),
  so every rank holds the key whole. The dtype (get_minimax_sparse_index_dtype, sglang/srt/mem_cache/
  memory_pool.py) is the KV cache's when attention GEMMs run in fp8 (kv_cache_dtype fp8_e4m3 with the trtllm_mha
  backend on SM100: server_args.m3_fp8_attn_gemm_enabled) or on SM90 with fp8_e4m3 KV, else the model dtype.
"""
from __future__ import annotations

from typing import Any, Mapping

_VLLM_BYTES = {"auto": 2.0, "bf16": 2.0, "fp8": 1.0, "fp8_e4m3": 1.0}


def parse(c: Mapping[str, Any], n: int) -> tuple[int | None, tuple[int, ...], tuple[int, ...]]:
    """(index key width, sparse layer ids, ids of those with an index value) from a config's text part: SGLang's
    `sparse_attention_config` (sparse_attention_freq, sparse_disable_index_value, sparse_index_dim), else the
    Transformers form vLLM reads (layer_types "minimax_m3_sparse", index_head_dim; no index value)."""
    sac = c.get("sparse_attention_config")
    if isinstance(sac, Mapping):
        dim, freq, off = _positive(sac.get("sparse_index_dim")), sac.get("sparse_attention_freq"), \
            sac.get("sparse_disable_index_value")
        if dim and isinstance(freq, list):
            layers = tuple(i for i, f in enumerate(freq[:n]) if f)
            # get_minimax_sparse_disable_value_layer_ids: no list means no layer is k-only
            off = off if isinstance(off, list) else []
            return dim, layers, tuple(i for i in layers if not (i < len(off) and off[i]))
    types, dim = c.get("layer_types"), _positive(c.get("index_head_dim"))
    if isinstance(types, list) and dim and "minimax_m3_sparse" in types:
        return dim, tuple(i for i, t in enumerate(types[:n]) if t == "minimax_m3_sparse"), ()
    return None, (), ()


def _positive(v: Any) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def vllm_indexer_dtype(settings: Mapping[str, Any]) -> str:
    """vLLM's `indexer_kv_dtype` from --attention-config (JSON or the dotted `attention_config.indexer_kv_dtype`)."""
    value = settings.get("attention_config.indexer_kv_dtype")
    if value is None:
        from ctxlint.engines.values import as_json

        cfg = as_json(settings.get("attention_config"))
        value = cfg.get("indexer_kv_dtype") if isinstance(cfg, Mapping) else None
    return str(value).strip().lower() if value is not None else "auto"


def index_cost(arch: Any, engine: str, stage: range, kv_cache_dtype: str | None, kv_bytes: float,
               index_dtype: str | None = None, attention_backend: str | None = None, draft_layers: int = 0
               ) -> tuple[float, str, str] | None:
    """(bytes a token, formula, note) of the index cache on one GPU of the PP stage `stage`; None for a model
    without one or an engine whose code for it was not read (the KV bytes then exclude it, as before). Raises
    ValueError for an index dtype vLLM refuses. vLLM's MTP draft layer is a sparse one (MiniMaxM3MultiTokenPredictor
    layer: MiniMaxM3DecoderLayer(force_sparse_attn=True), vllm==0.34.0:vllm/models/minimax_m3/nvidia/mtp.py), so
    each of `draft_layers` keeps an index key too there; SGLang's draft worker was not read for it."""
    dim = arch.msa_index_dim
    if not dim or engine not in ("vllm", "sglang"):
        return None
    k_layers = sum(1 for i in arch.msa_index_layers if i in stage)
    if not k_layers:
        return None
    if engine == "vllm":
        k_layers += max(0, draft_layers)
        name = (index_dtype or "auto").strip().lower()
        if name == "nvfp4":
            per = dim // 2 + dim // 16
        elif name in _VLLM_BYTES:
            per = dim * _VLLM_BYTES[name]
        else:
            raise ValueError(f"vLLM's MiniMax-M3 index cache refuses indexer_kv_dtype {name!r} (bf16, fp8 or nvfp4)")
        how = f"indexer_kv_dtype {name}" + (" (bf16 for MiniMax-M3)" if name == "auto" else "")
        return (k_layers * per, f"{k_layers} index keys x {per:g}",
                f"MSA index cache: {k_layers} sparse layers{' (draft included)' if draft_layers > 0 else ''} x {dim} x {per / dim:g} B = {k_layers * per:,.0f} B "
                f"a token on every TP rank ({how})")
    v_layers = sum(1 for i in arch.msa_index_value_layers if i in stage)
    kv = (kv_cache_dtype or "auto").strip().lower()
    fp8 = kv == "fp8_e4m3" and (attention_backend or "").strip().lower() == "trtllm_mha"
    b = kv_bytes if fp8 else float(arch.dtype_bytes)
    cells = k_layers + v_layers
    how = ("fp8: fp8_e4m3 KV with trtllm_mha (SM100's fp8 attention GEMMs)" if fp8 else
           f"{arch.dtype} (the model dtype)" + ("; fp8 on H100/H200 (SM90) with this fp8_e4m3 KV, and on SM100 with "
                                               "the trtllm_mha backend" if kv == "fp8_e4m3" else ""))
    return (cells * dim * b, f"{cells} index vectors x {dim} x {b:g}",
            f"MSA index cache: {k_layers} sparse layers' keys" + (f" and {v_layers} values" if v_layers else "")
            + f" x {dim} x {b:g} B = {cells * dim * b:,.0f} B a token on every TP rank, index dtype {how}")


__all__ = ["parse", "index_cost", "vllm_indexer_dtype"]
