"""Gemma-4 E2B / E4B: the last num_kv_shared_layers layers read an earlier layer's KV.

vLLM gives such a layer no KV cache spec (Gemma4Attention's kv_sharing_target_layer_name,
vllm==0.33.0:vllm/model_executor/models/gemma4.py; GPUModelRunner.get_kv_cache_spec skips it), so only the
first layers hold pages; SGLang sizes its pools over every layer id (sglang==0.5.23:
sglang/srt/configs/model_config.py get_hybrid_layer_ids), the shared ones only skip their writes."""
from __future__ import annotations

import json

import pytest

from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.kv import kv_breakdown, kv_bytes_per_token_per_gpu
from ctxlint.physics.models import FULL, NONE, SLIDING, lookup_model
from ctxlint.physics.params import count
from helpers import run


def _text(**extra):
    return {"model_type": "gemma4_text", "num_hidden_layers": 10, "num_attention_heads": 8, "num_key_value_heads": 1,
            "head_dim": 256, "global_head_dim": 512, "hidden_size": 1536, "intermediate_size": 6144,
            "vocab_size": 262144, "sliding_window": 512, "max_position_embeddings": 131072,
            "layer_types": (["sliding_attention"] * 4 + ["full_attention"]) * 2, **extra}


def test_gemma_4_e2b_resolves_to_its_published_config():
    # MaxText's gemma4_e2b_dict: 35 layers, (4 sliding + 1 full) x 7, 1 KV head x 256 (window 512), full layers
    # 1 x global_head_dim 512, num_kv_shared_layers 20, 131072 positions; 5.1B parameters with the per-layer embeddings
    arch = lookup_model("google/gemma-4-E2B-it")
    assert (arch.num_layers, arch.count(FULL), arch.count(SLIDING), arch.kv_shared_layers) == (35, 7, 28, 20)
    assert (arch.num_kv_heads, arch.head_dim, arch.full_kv_heads, arch.full_head_dim) == (1, 256, None, 512)
    assert (arch.sliding_window, arch.max_position_embeddings, arch.total_params_b) == (512, 131072, 5.1)
    # vLLM caches layers 0-14 only: 3 full layers x (K + V) x 1 head x 512 x 2 B = 6,144 B a token; the 12 window
    # layers are bounded by the window. SGLang keeps all 7 full layers (7 x 2,048 = 14,336) and its SWA pool of
    # 0.8 x the full pool's tokens over all 28 window layers (0.8 x 28 x 2 x 1 x 256 x 2 = 22,937.6)
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 3 * 2 * 1 * 512 * 2 == 6_144
    assert kv_bytes_per_token_per_gpu(arch, "sglang") == pytest.approx(37_273.6)


def test_gemma_4_e4b_resolves_to_its_published_config():
    # gemma4_e4b_dict: 42 layers, (5 sliding + 1 full) x 7, 2 KV heads, num_kv_shared_layers 18, 8B parameters
    arch = lookup_model("google/gemma-4-E4B-it")
    assert (arch.num_layers, arch.count(FULL), arch.count(SLIDING), arch.kv_shared_layers) == (42, 7, 35, 18)
    assert (arch.num_kv_heads, arch.head_dim, arch.full_head_dim, arch.total_params_b) == (2, 256, 512, 8.0)
    # layers 0-23 hold KV on vLLM: 4 full x 2 x 2 heads x 512 x 2 B = 16,384; TP 2 halves the heads
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 4 * 2 * 2 * 512 * 2 == 16_384
    assert kv_bytes_per_token_per_gpu(arch, "vllm", tp=2) == 8_192
    assert kv_bytes_per_token_per_gpu(arch, "sglang") == pytest.approx(7 * 4_096 + 0.8 * 35 * 2_048)


def test_only_vllm_drops_the_shared_layers():
    arch = arch_from_hf_config({"model_type": "gemma4", "text_config": _text(num_kv_shared_layers=4)})
    assert arch.kv_shared_layers == 4
    assert arch.kinds_cached_by("vllm") == (SLIDING,) * 4 + (FULL, SLIDING, NONE, NONE, NONE, NONE)
    assert arch.kinds_cached_by("sglang") == arch.layer_kinds
    assert kv_bytes_per_token_per_gpu(arch, "llm-d") == kv_bytes_per_token_per_gpu(arch, "vllm")
    # one full layer (5) of 2 x 512 x 2 B on vLLM; both full layers (4, 9) on SGLang
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 2_048
    assert kv_bytes_per_token_per_gpu(arch, "sglang") == pytest.approx(2 * 2_048 + 0.8 * 8 * 1_024)


def test_no_sharing_when_the_key_is_zero_absent_or_covers_every_layer():
    for extra in ({}, {"num_kv_shared_layers": 0}, {"num_kv_shared_layers": 10}, {"num_kv_shared_layers": True}):
        arch = arch_from_hf_config({"model_type": "gemma4", "text_config": _text(**extra)})
        assert arch.kv_shared_layers is None, extra
        assert kv_bytes_per_token_per_gpu(arch, "vllm") == 2 * 2_048


def test_per_layer_embeddings_are_not_counted_as_a_plain_decoder():
    # the per-layer tables alone are 262,144 x 35 x 256 = 2.35B parameters, more than the rest of E2B's decoder
    text = _text(hidden_size_per_layer_input=256, vocab_size_per_layer_input=262144)
    assert count({"model_type": "gemma4"}, text) is None
    assert count({"model_type": "gemma4"}, _text()) is not None


def test_models_show_says_which_layers_share():
    out = run(["models", "show", "google/gemma-4-E2B-it"]).out
    assert "attention                          GQA 1x512 full, 1x256 window (7 full, 28 sliding; last 20 share KV)" in out
    assert "KV bytes/token (vLLM, bf16, TP 1)  6,144" in out
    cap = json.loads(run(["capacity", "--model", "google/gemma-4-E2B-it", "--engine", "vllm", "--accelerator", "L4",
                          "--context-length", "32768", "--format", "json"]).out)
    assert "the last 20 layers read earlier layers' KV (num_kv_shared_layers): vLLM gives them no cache" in \
        cap["assumptions"]


def test_step_3_5_kv_heads_are_its_attention_groups():
    # Step-3.5-Flash's format (remote-code config): num_attention_groups 8 KV heads for every layer, 64 query heads
    # on the full layers and 96 on the sliding ones (attention_other_setting); read as MHA before (64 KV heads)
    step = {"model_type": "step3p5", "architectures": ["Step3p5ForCausalLM"], "num_hidden_layers": 8,
            "num_attention_heads": 64, "num_attention_groups": 8, "head_dim": 128, "hidden_size": 4096,
            "intermediate_size": 11264, "vocab_size": 128896, "sliding_window": 512, "max_position_embeddings": 262144,
            "layer_types": ["full_attention"] + ["sliding_attention"] * 3 + ["full_attention"] + ["sliding_attention"] * 3,
            "attention_other_setting": {"attention_type": "sliding_attention", "num_attention_heads": 96,
                                        "num_attention_groups": 8, "head_dim": 128}}
    arch = arch_from_hf_config(step)
    assert (arch.num_kv_heads, arch.head_dim, arch.count(FULL), arch.count(SLIDING)) == (8, 128, 2, 6)
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 2 * 2 * 8 * 128 * 2 == 8_192


def test_llama_cpp_allocates_no_cache_for_the_shared_layers():
    # llama.cpp's gemma4 hparams: n_layer_kv_from_start = n_layer - shared_kv_layers, and its KV cache holds only
    # the layers below it (ggml-org/llama.cpp@6d0892ba065b38ee790b825fdc8fb8e2c453e6dd: src/llama-model.cpp, the
    # LLM_ARCH_GEMMA4 case): counting the shared layers over-states the cells' bytes (a false CTX209 for -c)
    arch = arch_from_hf_config({"model_type": "gemma4", "text_config": _text(num_kv_shared_layers=4)})
    assert arch.kinds_cached_by("llamacpp") == arch.kinds_cached_by("vllm")
    assert kv_bytes_per_token_per_gpu(arch, "llama.cpp") == kv_bytes_per_token_per_gpu(arch, "vllm")
    notes = kv_breakdown(arch, "llamacpp").notes
    assert any("llama.cpp gives them no cache" in n for n in notes), notes
