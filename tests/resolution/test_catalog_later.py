"""Catalog entries of models 2026 deployments serve, each against the config.json it was transcribed from
(tools/catalog/later.yaml), with the KV bytes a token costs on vLLM in bf16 worked by hand."""
from __future__ import annotations

from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.physics.models import FULL, LINEAR, SLIDING, lookup_model
from ctxlint.resolution.resolve import resolve


def _facts(model: str) -> tuple:
    a = lookup_model(model)
    return (a.num_layers, a.count(FULL), a.count(SLIDING), a.num_kv_heads, a.head_dim, a.sliding_window,
            a.max_position_embeddings, a.rope_scaling_type, a.rope_scaling_factor, round(a.total_params_b, 2), a.weights)


def test_devstral_2_123b():
    # config.json: 88 layers, 96 heads, 8 KV heads, head_dim 128, no sliding window, yarn x64 over 4,096 to 262,144,
    # quant_method fp8 (kept as the entry's weights). KV: 88 x 2 (K, V) x 8 x 128 x 2 B = 360,448
    assert _facts("mistralai/Devstral-2-123B-Instruct-2512") == (
        88, 88, 0, 8, 128, None, 262144, "yarn", 64.0, 125.03, "fp8")
    assert kv_bytes_per_token_per_gpu(lookup_model("mistralai/Devstral-2-123B-Instruct-2512"), "vllm") == 360_448
    # TP 8 splits the 8 KV heads one a rank
    assert kv_bytes_per_token_per_gpu(lookup_model("mistralai/Devstral-2-123B-Instruct-2512"), "vllm", tp=8) == 45_056


def test_olmo_3_1_32b_and_exaone_4_5_33b_keep_kv_on_every_fourth_layer():
    # Olmo-3.1-32B-Instruct: 64 layers, layer_types 3 sliding (4,096) + 1 full, 40 heads / 8 KV heads x 128
    # (5,120 / 40), yarn x8 over 8,192 to 65,536. KV per token on the 16 full layers: 16 x 2 x 8 x 128 x 2 = 65,536
    assert _facts("allenai/Olmo-3.1-32B-Instruct") == (64, 16, 48, 8, 128, 4096, 65536, "yarn", 8.0, 32.23, None)
    assert kv_bytes_per_token_per_gpu(lookup_model("allenai/Olmo-3.1-32B-Instruct"), "vllm") == 65_536
    # EXAONE-4.5-33B text_config: the same shape (LLLG, window 4,096), llama3 rope x16 over 8,192 to 262,144
    assert _facts("LGAI-EXAONE/EXAONE-4.5-33B") == (64, 16, 48, 8, 128, 4096, 262144, "llama3", 16.0, 33.59, None)
    assert kv_bytes_per_token_per_gpu(lookup_model("LGAI-EXAONE/EXAONE-4.5-33B"), "vllm") == 65_536
    # SGLang's separate SWA pool of 0.8 x the full pool's tokens: + 0.8 x 48 x 4,096
    assert kv_bytes_per_token_per_gpu(lookup_model("LGAI-EXAONE/EXAONE-4.5-33B"), "sglang") == 65_536 + 0.8 * 48 * 4_096


def test_olmocr_2_is_qwen2_5_vl_7b_at_128000_positions():
    # 28 layers of full attention, 4 KV heads x 128 (3,584 / 28): 28 x 2 x 4 x 128 x 2 = 57,344; 128,000 positions
    assert _facts("allenai/olmOCR-2-7B-1025") == (28, 28, 0, 4, 128, None, 128000, None, None, 8.29, None)
    assert kv_bytes_per_token_per_gpu(lookup_model("allenai/olmOCR-2-7B-1025"), "vllm") == 57_344
    fp8 = resolve("allenai/olmOCR-2-7B-1025-FP8")
    assert (fp8.arch.name, fp8.weights.key) == ("allenai/olmOCR-2-7B-1025", "fp8")


def test_kimi_linear_keeps_the_latent_on_its_seven_mla_layers():
    # linear_attn_config: kda_layers 1-3, 5-7, ..., 25-26 (20 KDA), full_attn_layers 4, 8, ..., 24, 27 (7 MLA);
    # kv_lora_rank 512 + qk_rope_head_dim 64 per MLA layer: 7 x 576 x 2 B = 8,064 a token, 1,048,576 positions
    arch = lookup_model("moonshotai/Kimi-Linear-48B-A3B-Instruct")
    assert (arch.num_layers, arch.count(FULL), arch.count(LINEAR), arch.kv_lora_rank, arch.qk_rope_head_dim) == \
        (27, 7, 20, 512, 64)
    assert [i + 1 for i, kind in enumerate(arch.layer_kinds) if kind == FULL] == [4, 8, 12, 16, 20, 24, 27]
    assert arch.max_position_embeddings == 1_048_576
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 7 * (512 + 64) * 2 == 8_064
    # the latent is replicated on every TP rank
    assert kv_bytes_per_token_per_gpu(arch, "vllm", tp=4) == 8_064
    assert (arch.num_experts, arch.experts_per_token, round(arch.total_params_b, 2)) == (256, 8, 49.12)


def test_gpt_oss_safeguard_is_gpt_oss():
    # OpenAI's card: built upon gpt-oss, 21B / 3.6B active (120b: 117B / 5.1B), 131k context; the base's facts hold
    for size, layers, kv in (("20b", 24, 12 * 2 * 8 * 64 * 2), ("120b", 36, 18 * 2 * 8 * 64 * 2)):
        found = resolve(f"openai/gpt-oss-safeguard-{size}")
        assert (found.arch.name, found.via, found.weights.key) == (f"openai/gpt-oss-{size}", "catalog", "mxfp4-experts")
        assert "which it derives from (OpenAI's fine-tune of gpt-oss" in found.how
        assert (found.arch.num_layers, found.arch.max_position_embeddings) == (layers, 131072)
        assert kv_bytes_per_token_per_gpu(found.arch, "vllm") == kv


def test_qwen3_4b_2507_has_the_2507_positions_not_qwen3_4b_s():
    # config.json (Thinking-2507): 36 layers, 32 heads, 8 KV heads x 128, 262,144 positions, rope_theta 5e6, tied;
    # 36 x 2 x 8 x 128 x 2 = 147,456 B a token. The Instruct-2507 model resolves onto it (QwenLM/Qwen3 README),
    # not onto Qwen3-4B, whose 40,960 positions would make a 262,144 context an error
    for model in ("Qwen/Qwen3-4B-Thinking-2507", "Qwen/Qwen3-4B-Instruct-2507"):
        arch = resolve(model).arch
        assert (arch.name, arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
            ("Qwen/Qwen3-4B-Thinking-2507", 36, 8, 128, 262144)
        assert kv_bytes_per_token_per_gpu(arch, "vllm") == 147_456
    assert lookup_model("Qwen/Qwen3-4B").max_position_embeddings == 40960
    fp8 = resolve("Qwen/Qwen3-4B-Instruct-2507-FP8")
    assert (fp8.arch.name, fp8.weights.key) == ("Qwen/Qwen3-4B-Thinking-2507", "fp8")
