"""Catalog entries whose KV shape a transcription got wrong, checked against the published configs.

THUDM/glm-4-9b lost multi_query_attention / multi_query_group_num and moonshotai/Kimi-K3 lost
linear_attn_config when their config.json were transcribed through a key whitelist; each then
resolved as the format's default (MHA; all-MLA). These pin the published shapes, the KV bytes a
token costs on vLLM, and the guards that keep such a transcription out of the catalog."""
from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path

import pytest

from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.physics.models import FULL, LINEAR, arch_from_hf_config, lookup_model
from ctxlint.resolution.lockfile import _QUANT_KEYS, ARCH_KEYS, arch_facts
from helpers import run

REPO = Path(__file__).resolve().parents[2]


def _build_catalog():
    spec = importlib.util.spec_from_file_location("build_catalog", REPO / "tools" / "build_catalog.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _capacity(model: str, *extra: str) -> dict:
    out = run(["capacity", "--model", model, "--engine", "vllm", "--accelerator", "H100-SXM-80GB",
               "--context-length", "8192", "--format", "json", *extra]).out
    return json.loads(out)


@pytest.mark.parametrize("model", ["THUDM/glm-4-9b", "THUDM/glm-4-9b-chat"])
def test_glm_4_9b_has_two_kv_heads_of_128(model):
    # config.json: multi_query_attention true, multi_query_group_num 2, kv_channels 128, num_layers 40
    arch = lookup_model(model)
    assert (arch.num_kv_heads, arch.head_dim, arch.full_layers) == (2, 128, 40)
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 40 * 2 * 2 * 128 * 2 == 40_960
    assert _capacity(model)["kv_bytes_per_token_per_gpu"] == 40_960


def test_chatglm_kv_heads_follow_multi_query_attention():
    # vLLM's GLMAttention: multi_query_group_num if multi_query_attention else num_attention_heads
    glm = {"model_type": "chatglm", "num_layers": 40, "num_attention_heads": 32, "hidden_size": 4096,
           "kv_channels": 128, "multi_query_group_num": 2, "padded_vocab_size": 151552, "ffn_hidden_size": 13696}
    assert arch_from_hf_config(dict(glm, multi_query_attention=True)).num_kv_heads == 2
    assert arch_from_hf_config(dict(glm, multi_query_attention=False)).num_kv_heads == 32
    counted = arch_from_hf_config(dict(glm, multi_query_attention=True))
    assert round(counted.total_params_b, 2) == 9.40  # num_layers is read by the counter too


def test_kimi_k3_keeps_kv_on_its_24_full_attention_layers_only():
    k3 = lookup_model("moonshotai/Kimi-K3")
    assert (k3.num_layers, k3.full_layers, k3.count(LINEAR)) == (93, 24, 69)
    # linear_attn_config.full_attn_layers (1-based): 4, 8, ..., 92 and 93
    assert [i + 1 for i, kind in enumerate(k3.layer_kinds) if kind == FULL] == [*range(4, 93, 4), 93]
    assert kv_bytes_per_token_per_gpu(k3, "vllm") == 24 * (512 + 64) * 2 == 27_648
    assert _capacity("moonshotai/Kimi-K3", "--count", "8", "--tp", "8")["kv_bytes_per_token_per_gpu"] == 27_648


def test_kimi_k3_counts_its_latent_experts_and_ships_mxfp4_experts():
    k3 = lookup_model("moonshotai/Kimi-K3")
    # published 2.8T total / 104B activated; routed experts at width 3584: 92 x 896 x 3 x 3584 x 3072
    assert (round(k3.total_params_b), round(k3.active_params_b)) == (2779, 105)
    assert round(k3.expert_params_b, 3) == round(92 * 896 * 3 * 3584 * 3072 / 1e9, 3)
    assert (k3.num_experts, k3.experts_per_token) == (896, 16)
    assert k3.weights == "mxfp4-experts" and k3.weight_format.bits == 4.25


def test_compressed_tensors_fp4_is_told_apart_by_its_group():
    from ctxlint.physics.quant_config import from_quantization_config

    def fp4(group_size, fmt, ignore=None):
        return from_quantization_config({
            "quant_method": "compressed-tensors", "format": fmt, "ignore": ignore or ["lm_head"],
            "config_groups": {"g": {"weights": {"num_bits": 4, "type": "float", "group_size": group_size}}}})

    assert fp4(16, "nvfp4-pack-quantized").key == "nvfp4"
    assert fp4(32, "mxfp4-pack-quantized").key == "mxfp4"
    assert fp4(32, "mxfp4-pack-quantized", ["re:.*self_attn.*", "re:.*shared_experts.*"]).key == "mxfp4-experts"


def test_the_build_refuses_a_transcription_without_the_keys_that_set_the_kv_shape():
    build = _build_catalog()
    glm = {"id": "x/glm", "config_source": "https://example.com/config.json", "_file": "t.yaml",
           "config": {"model_type": "chatglm", "num_layers": 40, "num_attention_heads": 32, "hidden_size": 4096}}
    k3 = {"id": "x/k3", "config_source": "https://example.com/config.json", "_file": "t.yaml",
          "config": {"model_type": "kimi_k3", "text_config": {"model_type": "kimi_linear", "num_hidden_layers": 93}}}
    assert build.problems({"models": [glm, k3], "derivatives": []}) == [
        "t.yaml: x/glm: a chatglm config sets its KV shape with multi_query_attention; transcribe it from the source",
        "t.yaml: x/k3: a kimi_linear config sets its KV shape with linear_attn_config; transcribe it from the source"]
    glm["config"]["multi_query_attention"] = True
    k3["config"]["text_config"]["linear_attn_config"] = {"kda_layers": [1], "full_attn_layers": [2]}
    assert build.problems({"models": [glm, k3], "derivatives": []}) == []


# Keys the parser reads only inside an object the lock keeps whole (rope_scaling, block_configs,
# attn_config, ffn_config, linear_attn_config, quantization_config's groups, sparse_attention_config), literals that
# are defaults rather than keys, and engine settings (msa_index reads vLLM's --attention-config).
_INSIDE = {"factor", "rope_type", "type", "original_max_position_embeddings", "attention", "no_op",
           "replace_with_linear", "n_heads_in_group", "kv_n_heads", "moe_top_k", "kda_layers", "num_heads",
           "short_conv_kernel_size", "use_full_rank_gate", "config_groups", "weights", "num_bits", "strategy",
           "quantization_config", "sparse_index_dim", "sparse_attention_freq", "sparse_disable_index_value",
           "attention_config", "attention_config.indexer_kv_dtype", "indexer_kv_dtype"}


def _keys_read(path: Path) -> set:
    keys = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = node.args[:1] if name == "get" else node.args[1:] if name in ("_first", "_i") else ()
            keys |= {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            keys.add(node.slice.value)
    return {k for k in keys if isinstance(k, str)}


@pytest.mark.parametrize("module", ["hf_config.py", "layer_kinds.py", "params.py", "params_hybrid.py", "weights.py", "msa_index.py"])
def test_the_lock_keeps_every_config_key_the_physics_reads(module):
    # `ctxlint models lock` keeps only ARCH_KEYS of a config.json: a key the parser reads and the
    # lock drops resolves the locked model wrong, as the catalog's transcription did
    read = _keys_read(REPO / "lint" / "physics" / module)
    assert read - ARCH_KEYS - set(_QUANT_KEYS) - _INSIDE == set()


def test_a_locked_kimi_linear_config_keeps_its_hybrid_layers():
    config = {"model_type": "kimi_linear", "num_hidden_layers": 4, "num_attention_heads": 8, "hidden_size": 512,
              "kv_lora_rank": 64, "qk_rope_head_dim": 16, "qk_nope_head_dim": 32, "v_head_dim": 32,
              "num_experts_per_token": 2, "auto_map": {"x": "remote.code"},
              "linear_attn_config": {"kda_layers": [1, 2, 3], "full_attn_layers": [4], "num_heads": 4,
                                     "head_dim": 64, "short_conv_kernel_size": 4}}
    locked = arch_from_hf_config(arch_facts(config))
    assert locked.layer_kinds == (LINEAR, LINEAR, LINEAR, FULL) and locked.experts_per_token == 2
    assert "auto_map" not in arch_facts(config)


def test_a_sparse_mllama_config_has_its_class_default_kv_heads():
    # the official 90B-Vision config says num_key_value_heads 8; a copy written as a diff from
    # MllamaTextConfig (whose default is 8) omits it, and engines still read 8, not the 64 query heads
    arch = lookup_model("meta-llama/Llama-3.2-90B-Vision-Instruct")
    assert (arch.num_attention_heads, arch.num_kv_heads, arch.max_position_embeddings) == (64, 8, 131072)
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == 100 * 2 * 8 * 128 * 2 == 409_600
    sparse = {"model_type": "mllama", "text_config": {"model_type": "mllama_text_model", "num_hidden_layers": 100,
                                                      "num_attention_heads": 64, "hidden_size": 8192}}
    assert arch_from_hf_config(sparse).num_kv_heads == 8


def test_mimo_v2_flash_window_layers_have_their_own_kv_heads():
    # swa_num_key_value_heads 8 on the 39 window layers, num_key_value_heads 4 on the 9 full ones
    from ctxlint.physics.kv import kv_breakdown

    mimo = lookup_model("XiaomiMiMo/MiMo-V2-Flash")
    assert (mimo.full_kv_heads, mimo.num_kv_heads, mimo.head_dim, mimo.v_head_dim) == (4, 8, 192, 128)
    full = kv_breakdown(mimo, "vllm")
    assert full.bytes_per_token == 9 * 4 * (192 + 128) * 2 == 23_040  # window layers bounded per request
    assert kv_breakdown(mimo, "trtllm").bytes_per_token == 23_040 + 39 * 8 * (192 + 128) * 2


@pytest.mark.parametrize("model, base, kv_bytes, tp8_bytes", [
    # DeepSeek's V3.2 card: the same structure as V3.2-Exp; MLA latent 576 + the DSA indexer's fp8 keys, 61 layers,
    # replicated on every TP rank
    ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek-ai/DeepSeek-V3.2", 61 * ((512 + 64) * 2 + 128 + 4),
     61 * ((512 + 64) * 2 + 128 + 4)),
    # post-trained twin of the Thinking model: 12 gated-attention layers of 2 KV heads x 256 (1 per rank at TP 8),
    # 36 Gated DeltaNet layers
    ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Thinking", 12 * 2 * 2 * 256 * 2, 12 * 2 * 256 * 2),
    # MiniMax-M2's network: 62 full-attention layers of 8 KV heads x 128 (1 per rank at TP 8)
    ("MiniMaxAI/MiniMax-M2.1", "MiniMaxAI/MiniMax-M2", 62 * 2 * 8 * 128 * 2, 62 * 2 * 128 * 2),
])
def test_models_real_configs_name_resolve_onto_their_network(model, base, kv_bytes, tp8_bytes):
    from ctxlint.resolution.resolve import resolve

    found = resolve(model)
    assert found.resolved and found.arch.name == base and "which it derives from" in found.how
    assert kv_bytes_per_token_per_gpu(found.arch, "vllm") == kv_bytes
    assert _capacity(model, "--count", "8", "--tp", "8")["kv_bytes_per_token_per_gpu"] == tp8_bytes


@pytest.mark.parametrize("model, layers, full, kv_heads, head_dim, positions, kv_bytes", [
    # aiconfigurator's BF16 copy: 40 layers, full_attention every 4th (10 with KV), 2 KV heads x 256
    ("Qwen/Qwen3.6-35B-A3B", 40, 10, 2, 256, 262_144, 10 * 2 * 2 * 256 * 2),
    # MLA: kv_lora_rank 512 + qk_rope_head_dim 64 cached per layer, 47 layers
    ("zai-org/GLM-4.7-Flash", 47, 47, 20, 256, 202_752, 47 * (512 + 64) * 2),
    # MaxText's HF config for the 2507 release: 48 layers of 4 KV heads x 128, 262144 positions (not 40960)
    ("Qwen/Qwen3-30B-A3B-Thinking-2507", 48, 48, 4, 128, 262_144, 48 * 2 * 4 * 128 * 2),
    ("Qwen/Qwen3-235B-A22B-Thinking-2507", 94, 94, 4, 128, 262_144, 94 * 2 * 4 * 128 * 2),
    # MHA: 32 KV heads of 2560 / 32 = 80, 2048 positions
    ("microsoft/phi-2", 32, 32, 32, 80, 2_048, 32 * 2 * 32 * 80 * 2),
    # tt-metal's copy: 3 window layers (4096) then 1 full, 16 full of 64; vLLM's hybrid manager sizes the full ones
    ("LGAI-EXAONE/EXAONE-4.0-32B", 64, 16, 8, 128, 131_072, 16 * 2 * 8 * 128 * 2),
    # tt-metal's copy: Gated DeltaNet with full attention every 4th layer, 8 of 32 with KV
    ("Qwen/Qwen3.5-9B", 32, 8, 4, 256, 262_144, 8 * 2 * 4 * 256 * 2),
    # tt-metal's copy: the ministral3 text decoder, 40 full layers, 393216 positions (yarn x48)
    ("mistralai/Devstral-Small-2-24B-Instruct-2512", 40, 40, 8, 128, 393_216, 40 * 2 * 8 * 128 * 2),
    # every layer windowed (4096 of 16384), none full
    ("bigcode/starcoder2-3b", 30, 0, 2, 128, 16_384, 30 * 2 * 2 * 128 * 2),
    # its official config says torch_dtype float32, which the KV "auto" dtype follows (4 bytes)
    ("bigcode/starcoder2-15b", 40, 0, 4, 128, 16_384, 40 * 2 * 4 * 128 * 4),
    ("Qwen/Qwen2-VL-2B-Instruct", 28, 28, 2, 128, 32_768, 28 * 2 * 2 * 128 * 2),
    ("Qwen/Qwen2-VL-7B-Instruct", 28, 28, 4, 128, 32_768, 28 * 2 * 4 * 128 * 2),
    # the Math model's 4096 positions, not Qwen2.5-7B's 32768
    ("Qwen/Qwen2.5-Math-7B", 28, 28, 4, 128, 4_096, 28 * 2 * 4 * 128 * 2),
])
def test_added_entries_carry_their_configs_kv_shape(model, layers, full, kv_heads, head_dim, positions, kv_bytes):
    arch = lookup_model(model)
    assert (arch.num_layers, arch.full_layers, arch.num_kv_heads, arch.max_position_embeddings) == \
        (layers, full, kv_heads, positions)
    assert (arch.v_head_dim or arch.head_dim) == head_dim
    assert kv_bytes_per_token_per_gpu(arch, "vllm") == kv_bytes


def test_gemma_3_4b_it_windows_five_of_every_six_layers():
    # MaxText's gemma3-4b HF config: 34 layers, sliding_window 1024, sliding_window_pattern 6: layers 6, .., 30 global
    arch = lookup_model("google/gemma-3-4b-it")
    assert (arch.num_layers, arch.full_layers, arch.count("sliding"), arch.sliding_window) == (34, 5, 29, 1024)
    assert (arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == (4, 256, 131_072)
    assert [i + 1 for i, kind in enumerate(arch.layer_kinds) if kind == FULL] == [6, 12, 18, 24, 30]


@pytest.mark.parametrize("written, base", [
    ("Intel/neural-chat-7b-v3-3", "mistralai/Mistral-7B-v0.1"),
    ("TheBloke/zephyr-7B-beta-AWQ", "mistralai/Mistral-7B-v0.1"),
    ("NousResearch/Hermes-3-Llama-3.1-8B", "meta-llama/Llama-3.1-8B"),
    ("meta/llama3-8b-instruct", "meta-llama/Meta-Llama-3-8B-Instruct"),
    ("Qwen/Qwen3.6-27B-FP8", "nvidia/Qwen3.6-27B-NVFP4"),
    ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "Qwen/Qwen3-235B-A22B-Thinking-2507"),
    ("Qwen/Qwen3-30B-A3B-Instruct-2507", "Qwen/Qwen3-30B-A3B-Thinking-2507"),
    ("llava-hf/llava-1.5-7b-hf", "lmsys/vicuna-7b-v1.5"),
    ("tiiuae/falcon-7b-instruct", "tiiuae/falcon-7b"),
    ("Qwen/Qwen2.5-Math-7B-Instruct", "Qwen/Qwen2.5-Math-7B"),
    ("deepseek-ai/DeepSeek-V2.5", "deepseek-ai/DeepSeek-Coder-V2-Instruct"),
])
def test_added_derivatives_resolve_onto_their_base(written, base):
    from ctxlint.resolution.resolve import resolve

    found = resolve(written)
    assert found.resolved and found.arch.name == base and "which it derives from" in found.how


def test_deepseek_v2_5_caches_mla_576_wide_in_60_layers():
    # the V2.5 config copy: kv_lora_rank 512 + qk_rope_head_dim 64 in each of 60 layers, 2 bytes in bf16
    from ctxlint.resolution.resolve import resolve

    arch = resolve("deepseek-ai/DeepSeek-V2.5").arch
    assert (arch.num_layers, arch.kv_lora_rank, arch.qk_rope_head_dim) == (60, 512, 64)
    assert _capacity("deepseek-ai/DeepSeek-V2.5", "--tp", "8", "--count", "8")["kv_bytes_per_token_per_gpu"] == 69_120


def test_the_bf16_original_of_an_nvfp4_entry_carries_16_bit_weights():
    from ctxlint.resolution.resolve import resolve

    found = resolve("Qwen/Qwen3.6-27B")
    assert found.arch.name == "nvidia/Qwen3.6-27B-NVFP4" and found.weights.key == "bf16"


def test_devstral_small_2_carries_its_checkpoints_fp8_weights():
    from ctxlint.resolution.resolve import resolve

    found = resolve("mistralai/Devstral-Small-2-24B-Instruct-2512")
    assert found.resolved and found.weights.key == "fp8"


def test_a_locked_vlm_config_keeps_its_towers_profile_dimensions():
    # physics/vllm_mm.py reads these from vision_config and the top level (mm_tokens_per_image); the lock kept
    # none of mlp_ratio, spatial_merge_size, temporal_patch_size, image_size, mm_tokens_per_image
    qwen2 = {"model_type": "qwen2_vl", "hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
             "num_key_value_heads": 4, "intermediate_size": 18944, "vocab_size": 152064,
             "vision_config": {"depth": 32, "embed_dim": 1024, "hidden_size": 3584, "mlp_ratio": 2,
                               "patch_size": 16, "spatial_merge_size": 3, "temporal_patch_size": 1}}
    gemma3 = {"model_type": "gemma3", "mm_tokens_per_image": 64,
              "text_config": {"model_type": "gemma3_text", "hidden_size": 2560, "num_hidden_layers": 34,
                              "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                              "intermediate_size": 10240, "vocab_size": 262208},
              "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304,
                                "num_hidden_layers": 27, "patch_size": 14, "image_size": 448}}
    for config in (qwen2, gemma3):
        assert arch_from_hf_config(arch_facts(config)).vision_dims == arch_from_hf_config(config).vision_dims
