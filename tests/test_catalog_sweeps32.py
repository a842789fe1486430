"""Catalog entries the catalog32 pass sourced (tools/catalog/sweeps32.yaml): each resolves with the numbers of the
config.json it was transcribed from and its KV a token as the engines cache it."""
from __future__ import annotations

import pytest

from ctxlint.engine import Settings, lint_text
from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import FULL, LINEAR, NONE, SLIDING, lookup_model
from ctxlint.physics.swa_sglang import sglang_swa
from ctxlint.physics.weights import weight_bytes
from ctxlint.resolution.resolve import resolve

GEMMA4_12B = "google/gemma-4-12B-it"
# Nemotron-H's layer kinds as its config writes them: hybrid_override_pattern's letters (MLP '-', MoE 'E')
_HYBRID = {LINEAR: "M", NONE: "-", FULL: "*"}
_BLOCK = {LINEAR: "M", NONE: "E", FULL: "*"}


def sglang_bpt(arch, version):
    return estimate(CapacityInput(arch, "sglang", "H100-SXM-80GB", engine_version=version)).kv_bytes_per_token_per_gpu


def test_gemma_4_12b_caches_one_512_wide_kv_head_in_its_eight_full_layers():
    arch = lookup_model(GEMMA4_12B)
    assert (arch.num_layers, arch.num_attention_heads, arch.num_kv_heads, arch.head_dim) == (48, 16, 8, 256)
    assert (arch.full_kv_heads, arch.full_head_dim, arch.sliding_window) == (1, 512, 1024)
    assert [i for i, kind in enumerate(arch.layer_kinds) if kind == FULL] == [5, 11, 17, 23, 29, 35, 41, 47]
    assert arch.layer_kinds.count(SLIDING) == 40
    assert arch.max_position_embeddings == 262144  # Google's fix of the released 131072 (Hub discussion #11)
    # no tower (encoder-free): its vision parameters are the patch embedder's (see the parameters test below)
    assert arch.model_type == "gemma4_unified_text" and arch.vision_params_b == 0.0499
    # vLLM: the 40 window layers keep at most 1024 tokens; a token costs the 8 full layers, one KV head of 512
    # (K and V both held): 8 x 2 x 1 x 512 x 2 bytes
    assert estimate(CapacityInput(arch, "vllm", "H100-SXM-80GB")).kv_bytes_per_token_per_gpu == 8 * 2 * 512 * 2 == 16_384
    # SGLang from 0.5.13: its hybrid SWA pool, the window layers at 0.8 of a token (8 x 2 x 8 x 256 x 2 = 8,192 B
    # a layer): 16,384 + 0.8 x 40 x 8,192
    assert sglang_bpt(arch, "0.5.13") == 16_384 + 0.8 * 40 * 8_192 == 278_528


def test_gemma_4_12b_has_no_sglang_code_before_0_5_13():
    # SGLang's models/gemma4_unified.py and its is_hybrid_swa_model entry both arrive in 0.5.13 (not in
    # 0.5.12.post1): an older release has no SWA pool for it, so its window layers are counted whole
    arch = lookup_model(GEMMA4_12B)
    assert sglang_swa(arch, {}, "0.5.12.post1").whole and not sglang_swa(arch, {}, "0.5.13").whole
    assert "has no code for Gemma 4 Unified yet (from 0.5.13" in sglang_swa(arch, {}, "0.5.12").note
    assert not sglang_swa(arch, {}, None).whole  # a pool in every release that serves it
    assert sglang_bpt(arch, "0.5.12.post1") == 16_384 + 40 * 8_192 == 344_064


MANIFEST = """apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {{name: chat}}
spec:
  model: {{id: {model}}}
  engine: {{name: vllm, version: "{version}"}}
  serving:
    roles:
      - role: unified
        context_length: 8192
        kv_pool_tokens: 400000
"""


def test_vllm_before_0_23_0_has_no_gemma4_unified_class():
    def ctx310(version):
        report = lint_text(MANIFEST.format(model=GEMMA4_12B, version=version), "m.yaml", Settings(select=("CTX310",)))
        return [f.message for f in report.findings]
    (found,) = ctx310("0.22.1")
    assert "has no implementation of Gemma4UnifiedForConditionalGeneration" in found and "gains it in 0.23.0" in found
    assert ctx310("0.23.0") == []


def test_gemma_4_12b_parameters_are_its_decoder():
    arch = lookup_model(GEMMA4_12B)
    # as the count takes every model: a window layer q 3840 x 4096, k and v 3840 x 2048, o 4096 x 3840, a 15360
    # GeGLU MLP and two 3840 norms; a full layer q 3840 x 8192, k (and the V slot vLLM keeps) 3840 x 512,
    # o 8192 x 3840, the same MLP and norms; the final norm; one tied 262144 x 3840 table. The checkpoint's two
    # more norms a layer and its q/k norms (48 x 2 x 3840 + 40 x 512 + 8 x 1024 = 397,312) are left out.
    mlp_norms = 3 * 3840 * 15360 + 2 * 3840
    window = 3840 * (4096 + 2 * 2048) + 4096 * 3840 + mlp_norms
    full = 3840 * (8192 + 2 * 512) + 8192 * 3840 + mlp_norms
    total = 40 * window + 8 * full + 3840 + 262144 * 3840
    assert total == 11_922_681_600
    # the vision embedder vLLM and SGLang load beside it (gemma4_unified.py): LayerNorm, Linear 6912 -> 3840 with
    # bias, LayerNorm, a 1120 x 2 x 3840 position table, LayerNorm; its projection 3840 -> 3840 without bias
    vision = 2 * 6912 + 6912 * 3840 + 3840 + 2 * 3840 + 1120 * 2 * 3840 + 2 * 3840 + 3840 * 3840
    assert vision == 49_922_304 and arch.vision_params_b == round(vision / 1e9, 4)
    assert arch.total_params_b == round((total + vision) / 1e9, 4) == 11.9726
    # the header's 11,959,730,224: the text model as stored (no V slot in the full layers, the norms counted) plus
    # the embedder and the uncounted audio projection (640 x 3840)
    stored_text = total - 8 * 3840 * 512 + 397_312
    assert abs(11_959_730_224 - stored_text - vision - 640 * 3840) < 100
    assert arch.embed_params_b == round(262144 * 3840 / 1e9, 4) and arch.lm_head_params_b == 0.0


UNIFIED_CONFIG = {
    "architectures": ["Gemma4UnifiedForConditionalGeneration"], "model_type": "gemma4_unified",
    "tie_word_embeddings": True,
    "text_config": {
        "model_type": "gemma4_unified_text", "hidden_size": 3840, "intermediate_size": 15360, "num_hidden_layers": 48,
        "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256, "global_head_dim": 512,
        "num_global_key_value_heads": 1, "attention_k_eq_v": True, "sliding_window": 1024, "vocab_size": 262144,
        "max_position_embeddings": 262144, "tie_word_embeddings": True, "hidden_size_per_layer_input": 0,
        "num_kv_shared_layers": 0, "enable_moe_block": False,
        "layer_types": ["full_attention" if i % 6 == 5 else "sliding_attention" for i in range(48)]},
    # the checkpoint's: an embedder's keys, neither num_hidden_layers nor hidden_size
    "vision_config": {"model_type": "gemma4_unified_vision", "mm_embed_dim": 3840, "mm_posemb_size": 1120,
                      "model_patch_size": 48, "num_soft_tokens": 280, "output_proj_dims": 3840, "patch_size": 16,
                      "pooling_kernel_size": 3, "rms_norm_eps": 1e-6},
    "audio_config": {"model_type": "gemma4_unified_audio", "audio_embed_dim": 640, "audio_samples_per_token": 640,
                     "output_proj_dims": 640, "rms_norm_eps": 1e-6},
}


def test_gemma_4_12b_takes_sglangs_vlm_memory_reduction():
    # SGLang 0.5.13 calls Gemma4UnifiedForConditionalGeneration multimodal (not text by default) and reduces an
    # automatic mem_fraction_static for it; its vision config names neither num_hidden_layers nor hidden_size, so
    # the rule takes 24 x 1024, ViT-L/14's own: a complexity ratio of 1, x 0.95 (server_args.py
    # adjust_mem_fraction_for_vlm). Before, the entry had no vision parameters and kept the whole fraction.
    from ctxlint.physics.hf_config import arch_from_hf_config

    from_config = arch_from_hf_config(UNIFIED_CONFIG)
    assert from_config.vision_params_b == pytest.approx(0.0499, abs=1e-4)
    for arch in (lookup_model(GEMMA4_12B), from_config):
        fraction = [s for s in estimate(CapacityInput(arch, "sglang", "H100-SXM-80GB", engine_version="0.5.13")).steps
                    if s[0] == "mem_fraction_static"]
        (step,) = fraction
        assert step[2] == pytest.approx(0.83 * 0.95, abs=1e-4), step
        assert "(1.00 - 1), 0.8, 1.05), 1.00 = its vision config names no layers nor width" in step[1]
        # --language-only: no reduction
        lang = estimate(CapacityInput(arch, "sglang", "H100-SXM-80GB", engine_version="0.5.13",
                                      settings={"language_only": True})).steps
        assert [s[2] for s in lang if s[0] == "mem_fraction_static"] == [0.83]


@pytest.mark.parametrize("model_id, weights", [
    # sweep p29 (TKontu/llama-swap-deploy, ten deployments): cyankiwi's AWQ repack of the QAT checkpoint
    ("cyankiwi/gemma-4-12B-it-qat-AWQ-INT4", "awq"),
    ("/home/merlin/Models/gemma-4-12b-it-BF16.gguf", "gguf-bf16"),
])
def test_gemma_4_12b_repacks_resolve_to_the_base_network(model_id, weights):
    found = resolve(model_id)
    assert (found.arch.name, found.weights.key) == (GEMMA4_12B, weights)
    assert estimate(CapacityInput(found.arch, "vllm", "H100-SXM-80GB")).kv_bytes_per_token_per_gpu == 16_384


def test_gemma_4_12b_awq_weighs_four_bits_a_linear_weight():
    found = resolve("cyankiwi/gemma-4-12B-it-qat-AWQ-INT4")
    arch = found.arch
    size = weight_bytes(arch.total_params_b * 1e9, arch.embed_params_b * 1e9, arch.lm_head_params_b * 1e9,
                        None, None, found.weights)
    # 10.916e9 linear weights at 4 bits plus their group-128 scales and zeros, the 1.007e9-entry table at 16 bits
    linear = (11.9227 - 1.0066) * 1e9
    assert 0.5 * linear + 2 * 1.0066e9 < size < 0.6 * linear + 2 * 1.0066e9, size


@pytest.mark.parametrize("model_id, weights", [
    ("Qwen/Qwen3.8-27B", "bf16"),
    # the sweeps' spellings: unsloth's GGUF files (UD- and plain k-quants), AWQ and NVFP4 repacks, the official FP8
    ("/models/gguf/Qwen3.8-27B-UD-Q3_K_XL.gguf", "gguf-ud-q3-k-xl"),
    ("unsloth/Qwen3.8-27B-GGUF/Qwen3.8-27B-UD-Q4_K_XL.gguf", "gguf-ud-q4-k-xl"),
    ("/home/jeff/.lmstudio/models/unsloth/Qwen3.8-27B-GGUF/Qwen3.8-27B-Q4_K_S.gguf", "gguf-q4-k-s"),
    ("philbert440/Qwen3.8-27B-W4A16-AWQ", "awq"),
    ("RadixArk/Qwen3.8-27B-NVFP4", "nvfp4"),
])
def test_qwen38_27b_is_the_qwen35_27b_network(model_id, weights):
    found = resolve(model_id)
    assert (found.arch.name, found.weights.key) == ("Qwen/Qwen3.5-27B", weights)
    assert "Qwen/Qwen3.5-27B, which it derives from (a later checkpoint of the Qwen3.5-27B network" in found.how
    # vLLM: KV only in the 16 full-attention layers of 64 (every fourth), 4 KV heads x 256: 16 x 2 x 4 x 256 x 2 bytes;
    # the 48 Gated DeltaNet layers keep a fixed state per request instead
    arch = found.arch
    assert [i for i, kind in enumerate(arch.layer_kinds) if kind == FULL][:2] == [3, 7]
    assert arch.layer_kinds.count(FULL) == 16
    assert estimate(CapacityInput(arch, "vllm", "H100-SXM-80GB")).kv_bytes_per_token_per_gpu == 16 * 2 * 4 * 256 * 2 == 65_536


@pytest.mark.parametrize("model_id, weights", [
    ("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16", "bf16"),
    # sweep p30 (jeffgrover/b70-setup): bartowski's GGUF file, read as a quantization of the -BF16 release
    ("/home/jeff/.lmstudio/models/bartowski/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-GGUF/"
     "NVIDIA-Nemotron-3.5-Lightning-30B-A3B-Q4_K_S.gguf", "gguf-q4-k-s"),
    ("RedHatAI/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-FP8", "fp8"),
])
def test_nemotron_35_lightning_bf16_release_and_its_quantizations(model_id, weights):
    found = resolve(model_id)
    assert (found.arch.name, found.weights.key) == ("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16", weights)
    arch = found.arch
    assert (arch.num_layers, arch.max_position_embeddings, arch.dtype) == (52, 1048576, "bfloat16")
    # KV in the 6 attention layers of 52 only (23 Mamba-2, 23 MoE): 6 x 2 (K and V) x 2 KV heads x 128 x 2 bytes
    assert arch.layer_kinds.count(FULL) == 6
    # every layer as the config's layers_block_type has it (sweeps32.yaml; M mamba, E moe, * attention)
    assert "".join(_BLOCK[kind] for kind in arch.layer_kinds) == "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"
    assert estimate(CapacityInput(arch, "vllm", "H100-SXM-80GB")).kv_bytes_per_token_per_gpu == 6 * 2 * 2 * 128 * 2 == 6_144
    # the same network as the catalogued NVFP4 checkpoint
    assert arch.total_params_b == lookup_model("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4").total_params_b


@pytest.mark.parametrize("model_id, weights", [
    ("nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16", "bf16"),
    # sweep p30 (waflores/local-ai-configs): LM Studio's GGUF file, read as a quantization of the -BF16 release
    ("/home/waflores/.lmstudio/models/lmstudio-community/NVIDIA-Nemotron-3-Nano-4B-GGUF/NVIDIA-Nemotron-3-Nano-4B-Q8_0.gguf",
     "gguf-q8-0"),
    ("nvidia/NVIDIA-Nemotron-3-Nano-4B-FP8", "fp8"),
])
def test_nemotron_3_nano_4b_caches_kv_in_its_four_attention_layers(model_id, weights):
    found = resolve(model_id)
    assert (found.arch.name, found.weights.key) == ("nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16", weights)
    arch = found.arch
    pattern = "M-M-M-MM-M-M*-M-M*-M-M-M*-M-M-MM*-MMM-M-M-"
    assert (len(pattern), pattern.count("M"), pattern.count("-"), pattern.count("*")) == (42, 21, 17, 4)
    # every layer as the config's hybrid_override_pattern has it (M Mamba-2: a state; - MLP: none; * attention)
    assert "".join(_HYBRID[kind] for kind in arch.layer_kinds) == pattern
    assert [i for i, kind in enumerate(arch.layer_kinds) if kind == FULL] == [12, 17, 24, 32]
    # 4 attention layers x 2 (K and V) x 8 KV heads x 128 x 2 bytes, in both engines
    for engine in ("vllm", "sglang"):
        assert estimate(CapacityInput(arch, engine, "H100-SXM-80GB")).kv_bytes_per_token_per_gpu == 4 * 2 * 8 * 128 * 2 == 16_384
    # kaito's 7.40Gi of files is 7.946e9 bytes: 3.973e9 parameters in 16 bits, the count the dimensions give
    assert arch.total_params_b == 3.9736 and abs(7.40 * 2 ** 30 / 2 / 1e9 - arch.total_params_b) < 0.005


def test_gemma_4_12b_config_without_tie_key_is_tied():
    # Gemma4UnifiedTextConfig and Gemma4UnifiedConfig default tie_word_embeddings to True (transformers 5.10.1), so a
    # config.json saved without the key (as transformers leaves out a default) has no separate lm_head: before, such
    # a config counted a 262144 x 3840 head more (1.007e9 parameters, 2 GB in 16 bits)
    import copy

    from ctxlint.physics.hf_config import arch_from_hf_config

    config = copy.deepcopy(UNIFIED_CONFIG)
    del config["tie_word_embeddings"], config["text_config"]["tie_word_embeddings"]
    arch = arch_from_hf_config(config)
    assert arch.lm_head_params_b == 0.0
    assert arch.total_params_b == pytest.approx(lookup_model(GEMMA4_12B).total_params_b, abs=1e-4)

