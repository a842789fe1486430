"""Exact KV bytes per token per GPU (engines.md §9 reference values)."""
from __future__ import annotations

import pytest

from ctxlint.physics.kv import kv_breakdown, kv_bytes_per_token_per_gpu, kv_dtype_bytes
from ctxlint.physics.models import lookup_model

L8, L70 = lookup_model("Llama-3.1-8B"), lookup_model("Llama-3.1-70B")
DSV3, OSS120, OSS20 = lookup_model("DeepSeek-V3"), lookup_model("gpt-oss-120b"), lookup_model("gpt-oss-20b")

EXACT = [
    # model, engine, tp, pp, dtype, draft, bytes
    (L8, "vllm", 1, 1, "auto", 0, 131_072),
    (L8, "vllm", 1, 1, "bf16", 0, 131_072),
    (L8, "vllm", 1, 1, "fp8", 0, 65_536),
    (L8, "sglang", 1, 1, "fp8_e4m3", 0, 65_536),
    (L8, "vllm", 1, 1, "auto", 1, 135_168),            # + one EAGLE layer
    (L70, "vllm", 1, 1, "auto", 0, 327_680),
    (L70, "vllm", 4, 1, "auto", 0, 81_920),
    (L70, "vllm", 8, 1, "auto", 0, 40_960),
    (L70, "vllm", 16, 1, "auto", 0, 40_960),           # 8 heads < TP 16: replicated
    (L70, "sglang", 16, 1, "auto", 0, 40_960),
    (L70, "tgi", 16, 1, "auto", 0, 0),                 # TGI: 8 // 16 = 0 heads
    (L70, "vllm", 1, 4, "auto", 0, 81_920),            # PP 4: 20 layers per stage
    (L70, "vllm", 1, 3, "auto", 0, 27 * 4096),         # ceil(80/3) = 27 layers x 4,096 B
    (DSV3, "vllm", 1, 1, "auto", 0, 70_272),
    (DSV3, "vllm", 8, 1, "auto", 0, 70_272),           # MLA not divided by TP
    (DSV3, "sglang", 16, 1, "bf16", 0, 70_272),
    (DSV3, "vllm", 8, 1, "fp8", 0, 35_136),
    (DSV3, "vllm", 8, 1, "fp8_ds_mla", 0, 40_016),     # 61 x 656
    (OSS120, "vllm", 1, 1, "auto", 0, 36_864),         # 18 full x 2 x 8 x 64 x 2
    (OSS20, "vllm", 1, 1, "auto", 0, 24_576),          # 12 full layers
    (OSS120, "tgi", 1, 1, "auto", 0, 73_728),          # TGI allocates sliding layers per token too
]


@pytest.mark.parametrize("arch,engine,tp,pp,dtype,draft,expected", EXACT)
def test_exact_bytes(arch, engine, tp, pp, dtype, draft, expected) -> None:
    assert kv_bytes_per_token_per_gpu(arch, engine, tp, pp, dtype, draft) == expected


def test_sliding_layers_reported_separately() -> None:
    br = kv_breakdown(OSS120, "vllm", window_tokens=0)
    assert (br.full_layers_per_gpu, br.sliding_layers_per_gpu) == (18, 18)
    assert br.bounded_bytes_per_request == 18 * 2048 * 128   # 18 layers x 2,048 B x 128-token window


def test_sglang_swa_ratio() -> None:
    # full 36,864 + 0.8 x 18 x 2,048 = 66,355.2 B per token (separate SWA pool)
    assert kv_bytes_per_token_per_gpu(OSS120, "sglang") == pytest.approx(66_355.2)


@pytest.mark.parametrize("name,expected", [("auto", 2), ("bfloat16", 2), ("float16", 2), ("fp8", 1),
                                           ("fp8_e5m2", 1), ("int8", 1), ("nvfp4", 0.5625), ("q8_0", 34 / 32),
                                           ("q4_0", 18 / 32), ("FP8_E4M3", 1)])
def test_dtype_names(name: str, expected: float) -> None:
    assert kv_dtype_bytes(name, L8) == expected


def test_unknown_dtype_and_engine_raise_valueerror() -> None:
    with pytest.raises(ValueError):
        kv_breakdown(L8, "vllm", kv_cache_dtype="fp7")
    with pytest.raises(ValueError):
        kv_breakdown(L8, "ollama-ish")


def test_window_layers_hold_their_span_or_the_request_whichever_is_less() -> None:
    """vLLM keeps min(window - 1 + max_num_batched_tokens, max_model_len) tokens of a sliding-window layer,
    + 1 block, and min(chunk + max_num_batched_tokens, max_model_len) of a chunked one (sweep 28: a gemma-2-9b
    Cloud Run service at --max-model-len 3968 on an L4 was refused for a full 6,144-token window allowance)."""
    from ctxlint.physics.pool import tokens_for, window_cost

    gemma2 = lookup_model("google/gemma-2-9b-it")  # 21 full + 21 window layers of 8,192 B, window 4,096
    br = kv_breakdown(gemma2, "vllm", window_tokens=2048)
    assert br.bounded_span == (21 * 8192, 4096 - 1 + 2048, 1)
    bpt = br.bytes_per_token
    assert window_cost(br.bounded_span, 16, bpt, 100_000) == (384 + 1) * 16  # the span: cdiv(6,143, 16) + 1 blocks
    assert window_cost(br.bounded_span, 16, bpt, 4096) == (256 + 1) * 16     # a shorter request: its own length
    # 1.40 GiB: 546 blocks less the null block; a 4,096-token request takes 256 + 257 of them (vLLM starts)
    tokens = tokens_for("vllm", 1.40 * 2**30, 16, bpt, br.bounded_span, None, None, None, 4096)
    assert (tokens.pool, tokens.longest) == (8736, 4352)   # 4,352 + 4,368 = 8,720 = 545 blocks
    assert tokens.longest + window_cost(br.bounded_span, 16, bpt, tokens.longest) <= 8736 - 16
    assert tokens.longest + 16 + window_cost(br.bounded_span, 16, bpt, tokens.longest + 16) > 8736 - 16
    # Llama-4 Scout's chunked layers (chunk 8,192): no extra block; a max_num_batched_tokens larger than the
    # request leaves the request's own length (silogen's 320,000 with --max-model-len 32000)
    scout = lookup_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    chunked = kv_breakdown(scout, "vllm", tp=2, window_tokens=320_000).bounded_span
    assert chunked == (36 * 2048, 8192 + 320_000, 0)
    assert window_cost(chunked, 16, 12 * 2048, 32_000) == 3 * 32_000


def test_vllm_pads_the_last_window_group() -> None:
    """vLLM groups a hybrid model's layers by the count of the rarer kind and pads the last group: gemma-3-27b's
    52 window layers over 10 full ones take 6 blocks a step, not 5.2; a model whose counts divide evenly, or one
    whose counts are within 1.5x (the group size then differs by release), is not padded here."""
    g27 = kv_breakdown(lookup_model("google/gemma-3-27b-it"), "vllm", window_tokens=2048)
    assert (g27.full_layers_per_gpu, g27.sliding_layers_per_gpu) == (10, 52)
    assert g27.bounded_span == (60 * 8192, 1024 - 1 + 2048, 1)
    g12 = kv_breakdown(lookup_model("google/gemma-3-12b-it"), "vllm", window_tokens=2048)
    assert g12.bounded_span[0] == g12.sliding_layers_per_gpu * g12.per_layer_bytes  # 40 over 8: whole groups
    oss = kv_breakdown(OSS20, "vllm", window_tokens=2048, draft_layers=1)  # 12 window + 13 full: within 1.5x
    assert oss.bounded_span[0] == 12 * oss.per_layer_bytes
