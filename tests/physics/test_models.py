"""Model lookup, HF config parsing and overrides."""
from __future__ import annotations

import pytest

from ctxlint.physics.models import (CHUNKED, FULL, LINEAR, SLIDING, arch_from_hf_config, catalog_ids,
                                    lookup_model, with_overrides)


@pytest.mark.parametrize("name", ["meta-llama/Llama-3.1-70B", "Llama-3.1-70B-Instruct", "llama-3.1-70b-instruct",
                                  "META-LLAMA/LLAMA-3.1-70B-INSTRUCT", "Llama-3.1-70B", "llama_3.1_70b",
                                  "meta-llama/Meta-Llama-3.1-70B-Instruct"])
def test_aliases_same_entry(name: str) -> None:
    assert lookup_model(name).name == "meta-llama/Llama-3.1-70B"


@pytest.mark.parametrize("name", ["", "   ", "no-such/model", "llama-9-1t", None, 42])
def test_unknown_is_none(name) -> None:
    assert lookup_model(name) is None


def test_every_catalog_entry_loads() -> None:
    for hf_id in catalog_ids():
        a = lookup_model(hf_id)
        assert a is not None and len(a.layer_kinds) == a.num_layers and a.source
        assert a.full_layers >= 1 or a.unsupported or set(a.layer_kinds) == {SLIDING}  # Mistral-7B-v0.1: all windowed


def test_catalog_layer_patterns() -> None:
    assert lookup_model("google/gemma-3-27b-it").full_layers == 10
    assert lookup_model("gemma-2-27b-it").full_layers == 23
    scout = lookup_model("meta-llama/Llama-4-Scout-17B-16E-Instruct")
    assert (scout.full_layers, scout.count(CHUNKED), scout.attention_chunk_size) == (12, 36, 8192)
    assert lookup_model("MiniMaxAI/MiniMax-M1-80k").count(LINEAR) == 70
    assert lookup_model("Qwen2.5-72B-Instruct").verified is False


def test_overrides_merge() -> None:
    a = with_overrides(lookup_model("Llama-3.1-8B"), {"weight_bytes": 1.0, "num_kv_heads": 4, "bogus": 1})
    assert (a.weight_bytes, a.num_kv_heads, a.num_layers) == (1.0, 4, 32)
    b = lookup_model("Llama-3.1-8B", overrides={"num_layers": 4, "layer_pattern": ["sliding", "full"]})
    assert b.layer_kinds == (SLIDING, FULL, SLIDING, FULL)


LLAMA31_8B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
              "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072,
              "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 8192, "rope_type": "llama3"},
              "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
DSV3 = {"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3", "hidden_size": 7168,
        "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "kv_lora_rank": 512,
        "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128, "n_routed_experts": 256,
        "q_lora_rank": 1536, "moe_intermediate_size": 2048, "intermediate_size": 18432, "n_shared_experts": 1,
        "first_k_dense_replace": 3, "moe_layer_freq": 1, "tie_word_embeddings": False,
        "num_experts_per_tok": 8, "vocab_size": 129280, "max_position_embeddings": 163840, "torch_dtype": "bfloat16",
        "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096},
        "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}}
GPT_OSS_20B = {"model_type": "gpt_oss", "num_hidden_layers": 24, "num_attention_heads": 64, "num_key_value_heads": 8,
               "head_dim": 64, "hidden_size": 2880, "sliding_window": 128, "vocab_size": 201088,
               "layer_types": ["sliding_attention", "full_attention"] * 12, "num_local_experts": 32,
               "quantization_config": {"quant_method": "mxfp4"}}
GEMMA3_VLM = {"model_type": "gemma3", "torch_dtype": "bfloat16",
              "text_config": {"model_type": "gemma3_text", "num_hidden_layers": 62, "num_attention_heads": 32,
                              "num_key_value_heads": 16, "head_dim": 128, "hidden_size": 5376,
                              "sliding_window": 1024, "sliding_window_pattern": 6,
                              "rope_scaling": {"factor": 8.0, "rope_type": "linear"}}}
QWEN3_NEXT = {"model_type": "qwen3_next", "num_hidden_layers": 48, "num_attention_heads": 16,
              "num_key_value_heads": 2, "head_dim": 256, "hidden_size": 2048, "full_attention_interval": 4,
              "num_experts": 512}
QWEN25 = {"model_type": "qwen2", "num_hidden_layers": 28, "num_attention_heads": 28, "num_key_value_heads": 4,
          "hidden_size": 3584, "sliding_window": 131072, "use_sliding_window": False, "max_window_layers": 28}
GEMMA2 = {"model_type": "gemma2", "num_hidden_layers": 46, "num_attention_heads": 32, "num_key_value_heads": 16,
          "head_dim": 128, "hidden_size": 4608, "sliding_window": 4096}
LLAMA4 = {"model_type": "llama4", "text_config": {"model_type": "llama4_text", "num_hidden_layers": 48,
          "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 5120,
          "attention_chunk_size": 8192, "no_rope_layers": []}}


def test_parse_llama() -> None:
    a = arch_from_hf_config(LLAMA31_8B, "meta-llama/Llama-3.1-8B")
    assert (a.num_layers, a.num_kv_heads, a.head_dim, a.full_layers) == (32, 8, 128, 32)
    assert (a.rope_scaling_type, a.rope_scaling_factor, a.rope_original_max_position_embeddings) == ("llama3", 8.0, 8192)
    assert round(a.total_params_b, 2) == 8.03 and a.weight_format.key == "bf16"  # HF counts 8.03B
    assert (round(a.embed_params_b, 3), round(a.lm_head_params_b, 3), a.expert_params_b) == (0.525, 0.525, 0)


def test_parse_mla() -> None:
    a = arch_from_hf_config(DSV3, "deepseek-ai/DeepSeek-V3")
    assert (a.kv_lora_rank, a.qk_rope_head_dim, a.weights, a.num_experts) == (512, 64, "fp8", 256)
    # The README's 671B (without the 14B MTP module): routed experts 653.9B of it.
    assert (round(a.total_params_b, 1), round(a.expert_params_b, 1)) == (671.0, 653.9)
    assert (a.rope_scaling_type, a.rope_scaling_factor) == ("yarn", 40.0)


def test_parse_hybrids() -> None:
    oss = arch_from_hf_config(GPT_OSS_20B)
    assert (oss.full_layers, oss.count(SLIDING), oss.sliding_window, oss.weights) == (12, 12, 128, "mxfp4-experts")
    g3 = arch_from_hf_config(GEMMA3_VLM)
    assert (g3.num_layers, g3.full_layers, g3.layer_kinds[5], g3.layer_kinds[0]) == (62, 10, FULL, SLIDING)
    nxt = arch_from_hf_config(QWEN3_NEXT)
    assert (nxt.full_layers, nxt.count(LINEAR), nxt.layer_kinds[3]) == (12, 36, FULL)
    assert arch_from_hf_config(QWEN25).full_layers == 28       # window present but inactive
    g2 = arch_from_hf_config(GEMMA2)
    assert (g2.layer_kinds[0], g2.layer_kinds[1], g2.full_layers) == (SLIDING, FULL, 23)
    l4 = arch_from_hf_config(LLAMA4)
    assert (l4.full_layers, l4.count(CHUNKED), l4.layer_kinds[3]) == (12, 36, FULL)


@pytest.mark.parametrize("bad", [{}, {"num_hidden_layers": 0, "num_attention_heads": 8}, {"num_attention_heads": 8},
                                 {"num_hidden_layers": 4, "num_attention_heads": 4}, [], "x"])
def test_parse_rejects_missing_dims(bad) -> None:
    with pytest.raises(ValueError):
        arch_from_hf_config(bad)


def _build_catalog():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "tools" / "build_catalog.py"
    spec = importlib.util.spec_from_file_location("build_catalog", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_catalog_is_what_its_sources_build() -> None:
    assert _build_catalog().main(["--check"]) == 0  # else: python tools/build_catalog.py


def test_a_format_the_transcribed_config_lacks_is_stated_with_its_source() -> None:
    # Kimi-K2-Thinking's only copy of its config.json is abridged (no quantization_config); its
    # checkpoint is natively INT4, so costing it as bf16 gave 239 GiB a GPU at TP 8 (CTX203 on H200)
    kimi = lookup_model("moonshotai/Kimi-K2-Thinking")
    assert kimi.weights == "int4" and any("Kimi-K2-Think.md" in note for note in kimi.notes)
    assert lookup_model("moonshotai/Kimi-K2.5").weights == "w4a16-g32"  # its config's group_size 32: 4.5 bits
    build = _build_catalog()
    item = {"id": "x/y", "config_source": "https://example.com/config.json", "weights": "w4a16", "_file": "t.yaml"}
    assert build.problems({"models": [item], "derivatives": []}) == [
        "t.yaml: x/y: weights needs a known format key and a weights_source"]
    item.update(weights="w5a3", weights_source="a card")
    assert build.problems({"models": [item], "derivatives": []})
    item.update(weights="nvfp4")
    assert build.problems({"models": [item], "derivatives": []}) == []


def test_a_derivatives_own_values_are_checked() -> None:
    # a derivative may carry its own weight format and num_mtp_modules (nvidia/MiniMax-M3-NVFP4: 1, its base 7)
    build = _build_catalog()
    base = {"id": "a/base", "config_source": "https://example.com/config.json", "_file": "t.yaml"}
    item = {"id": "n/d", "base": "a/base", "source": "its config", "weights": "mxfp8+nvfp4-experts", "mtp_modules": 1}
    assert build.problems({"models": [base], "derivatives": [item]}) == []
    item.update(mtp_modules=True, weights="nvfp5")
    assert build.problems({"models": [base], "derivatives": [item]}) == [
        "derivative n/d: mtp_modules must be a positive integer (its config's)",
        "derivative n/d: weights nvfp5 is not a known format key"]


def test_a_w4a16_checkpoint_costs_its_group_scales():
    from ctxlint.physics.quant_config import from_quantization_config
    from ctxlint.physics.weights import format_by_key

    def config(**weights):
        return {"quant_method": "compressed-tensors", "format": "pack-quantized",
                "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "int", **weights}}}}

    # one 16-bit scale per group: 4 + 16/32 bits (Kimi K2.5), 4 + 16/128 when no group size is said
    assert from_quantization_config(config(strategy="group", group_size=32)).bits == 4.5
    assert from_quantization_config(config(strategy="group", group_size=128)).key == "w4a16"
    assert from_quantization_config(config()).bits == 4.125
    assert from_quantization_config(config(strategy="channel", group_size=None)).bits == 4.125
    assert format_by_key("w4a16-g64").bits == 4.25 and format_by_key("w4a16-g0") is format_by_key("w4a16")


def test_awq_and_gptq_checkpoints_cost_their_group_scales_and_zeros():
    from ctxlint.physics.quant_config import from_quantization_config
    from ctxlint.physics.weights import format_by_key

    assert from_quantization_config({"quant_method": "awq", "bits": 4, "group_size": 128}).bits == 4.16
    assert from_quantization_config({"quant_method": "awq", "bits": 4, "group_size": 64}).bits == 4 + 20 / 64
    assert from_quantization_config({"quant_method": "gptq", "bits": 4, "group_size": 32}).bits == 4.625
    assert from_quantization_config({"quant_method": "gptq", "bits": 4, "group_size": -1}).bits == 4.0
    assert from_quantization_config({"quant_method": "gptq", "bits": 8, "group_size": 32}).key == "int8"
    assert from_quantization_config({"quant_method": "gptq", "bits": 4}).key == "gptq-int4"
    for key in ("awq-g64", "gptq-int4-g32", "gptq-int4-gch"):
        assert format_by_key(key).key == key
    assert format_by_key("awq-gx") is None


def test_groups_of_different_widths_are_a_band_from_the_narrowest_to_the_widest():
    # nvidia/Qwen3.6-35B-A3B-NVFP4 (ModelOpt mixed precision: an FP8 group and an NVFP4 group of 16) was read as FP8
    # throughout; once its parameters were counted, an RTX 5090 a vLLM boot log shows serving it got CTX203 "weights do
    # not fit" (noonghunna/club-3090#652). Which tensors each group takes is in targets the catalog does not keep.
    from ctxlint.physics.quant_config import from_quantization_config
    from ctxlint.physics.weights import format_by_key

    mixed = from_quantization_config({"quant_method": "modelopt", "config_groups": {
        "group_0": {"weights": {"num_bits": 8, "type": "float"}},
        "group_1": {"weights": {"num_bits": 4, "type": "float", "group_size": 16}}}})
    assert (mixed.bits, mixed.low, mixed.high, mixed.label) == (8.0, 4.5, 8.0, "FP8/NVFP4 mixed (group targets not read)")
    assert format_by_key(mixed.key) == mixed  # models.json keeps the key
    same = {"quant_method": "compressed-tensors", "config_groups": {
        g: {"weights": {"num_bits": 4, "type": "int", "group_size": 128}} for g in ("group_0", "group_1")}}
    assert from_quantization_config(same).key == "w4a16"  # groups of one width are that width
    assert lookup_model("nvidia/Qwen3.6-35B-A3B-NVFP4").weight_format == mixed
    for odd in (float("inf"), "eight", None, [8]):  # a config.json's Infinity (review), text, null: no format
        assert from_quantization_config({"config_groups": {"g": {"weights": {"num_bits": odd}}}}) is None


def test_dbrx_counts_its_experts_under_ffn_config():
    # DBRX keeps moe_num_experts / moe_top_k under ffn_config: 132B total, 36B active (Databricks' card)
    dbrx = lookup_model("databricks/dbrx-instruct")
    assert (round(dbrx.total_params_b), round(dbrx.active_params_b), dbrx.num_experts, dbrx.experts_per_token) == \
        (132, 36, 16, 4)


def test_deepseek_v4_compressed_attention_is_refused_with_the_reason() -> None:
    # DeepSeek-V4-Pro's config.json (ai-dynamo/aiconfigurator@7b359652cc600f4e157258117719c380aaadfb47:
    # aic-core/src/aiconfigurator_core/model_configs/nvidia--DeepSeek-V4-Pro-NVFP4_config.json), its attention
    # keys: the engines' accounting of these caches is not reproduced (hf_config._DSV4), so no size is given
    from ctxlint.physics.kv import kv_breakdown

    cfg = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "num_hidden_layers": 61,
           "num_attention_heads": 128, "num_key_value_heads": 1, "head_dim": 512, "hidden_size": 7168,
           "qk_rope_head_dim": 64, "index_head_dim": 128, "index_n_heads": 64, "sliding_window": 128,
           "compress_ratios": [128, 128] + [4, 128] * 29 + [4], "max_position_embeddings": 1048576}
    arch = arch_from_hf_config(cfg, "DeepSeek-V4-Pro")
    reason = ("DeepSeek-V4 compressed attention (compress_ratios) is not modelled: its window, compressed, indexer "
              "and compressor-state caches are sized by rules that differ between engines and releases")
    assert arch.unsupported == reason
    assert lookup_model("deepseek-ai/DeepSeek-V4-Pro").unsupported == reason
    assert lookup_model("deepseek-ai/DeepSeek-V4-Flash").unsupported == reason
    with pytest.raises(ValueError, match=r"DeepSeek-V4-Pro: DeepSeek-V4 compressed attention .* state the pool"):
        kv_breakdown(arch, "vllm", 8, kv_cache_dtype="fp8")
