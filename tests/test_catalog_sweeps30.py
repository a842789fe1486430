"""Catalog entries the catalog30 pass sourced (tools/catalog/sweeps30.yaml): each resolves with the numbers of the
config.json it was transcribed from and its KV a token as the engines cache it."""
from __future__ import annotations

import pytest

from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.physics.models import FULL, SLIDING, lookup_model
from ctxlint.physics.served import serving_dtype
from ctxlint.resolution.resolve import resolve
from helpers import run


@pytest.mark.parametrize("model_id", ["Qwen/Qwen2.5-Math-1.5B-Instruct", "Qwen/Qwen2.5-Math-1.5B"])
def test_qwen25_math_15b_resolves_with_its_4096_positions(model_id):
    arch = lookup_model(model_id)
    assert arch.name == "Qwen/Qwen2.5-Math-1.5B-Instruct"  # the Base is the same network (an alias)
    assert (arch.num_layers, arch.num_attention_heads, arch.num_kv_heads, arch.head_dim) == (28, 12, 2, 128)
    assert arch.max_position_embeddings == 4096 and arch.rope_scaling_factor is None
    assert set(arch.layer_kinds) == {FULL}  # sliding_window 4096 is written, use_sliding_window false
    # a layer 2 x 1536^2 (q, o) + 2 x 1536 x 256 (k, v) + 3 x 1536 x 8960 + 2 x 1536 = 46,795,776; x 28, + the final
    # norm + one tied 151936 x 1536 table = 1,543,656,960 (the Base's one bf16 file is 3.09 GB)
    assert arch.total_params_b == 1.5437
    # GQA: 2 (K and V) x 28 layers x 2 KV heads x 128 x 2 bytes
    for engine in ("vllm", "sglang"):
        assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), engine) == 2 * 28 * 2 * 128 * 2 == 28_672


def test_deepseek_vl2_tiny_caches_mha_kv_not_mla():
    # language_config: use_mla false, kv_lora_rank null; vLLM then builds DeepseekForCausalLM, whose attention caches
    # num_key_value_heads (10) heads of hidden_size // num_attention_heads = 1280 // 10 = 128 (sources in the entry)
    arch = lookup_model("deepseek-ai/deepseek-vl2-tiny")
    assert arch.kv_lora_rank is None and arch.v_head_dim is None
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == (12, 10, 128, 4096)
    assert (arch.num_experts, arch.experts_per_token) == (64, 6)
    # SGLang: DeepseekVL2ForCausalLM takes its MLA branch only when use_mla is true; else MHA with language_config's
    # hidden_size // num_attention_heads (its DeepseekV2Config has no head_dim) and num_key_value_heads (sources in
    # the entry)
    for engine in ("vllm", "sglang"):
        assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), engine) == 2 * 12 * 10 * 128 * 2 == 61_440
    assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), "sglang", tp=2) == 30_720
    assert not any("not read" in note for note in arch.notes)  # both engines' KV is read
    # decoder 2.93e9 + the SigLIP tower estimated from layers 27 x width 1152 (4x MLP, 14x14 patches)
    tower = 27 * (4 * 1152 ** 2 + 2 * 1152 * 4 * 1152) + 3 * 14 * 14 * 1152
    assert arch.vision_params_b == round(tower / 1e9, 4) == 0.4307
    assert arch.total_params_b == round((DSVL2_TINY_DECODER + tower) / 1e9, 4) == 3.3654


# deepseek-vl2-tiny's decoder as the count takes it: 12 layers of MHA (4 x 1280^2) and two norms; layer 0 a dense MLP
# of 6848, layers 1-11 a router over 64 experts, 64 routed and 2 shared experts of 896; the final norm; an untied
# 129280 x 1280 embedding and LM head
DSVL2_ROUTED = 11 * 64 * 3 * 1280 * 896
DSVL2_TINY_DECODER = (12 * (4 * 1280 ** 2 + 2 * 1280) + 3 * 1280 * 6848
                      + 11 * (1280 * 64 + 2 * 3 * 1280 * 896) + DSVL2_ROUTED + 1280 + 2 * 129280 * 1280)


def test_hand_count_of_deepseek_vl2_tiny_decoder():
    arch = lookup_model("deepseek-ai/deepseek-vl2-tiny")
    assert DSVL2_TINY_DECODER == 2_934_734_080
    assert arch.expert_params_b == round(DSVL2_ROUTED / 1e9, 4)
    assert arch.embed_params_b == arch.lm_head_params_b == round(129280 * 1280 / 1e9, 4)


def test_hand_count_of_qwen25_math_parameters():
    # the count's, which leaves biases out: Qwen2's q, k and v biases (1536 + 2 x 256 a layer) add 57,344
    layer = 2 * 1536 ** 2 + 2 * 1536 * 256 + 3 * 1536 * 8960 + 2 * 1536
    assert layer == 46_795_776
    total = 28 * layer + 1536 + 151936 * 1536
    assert total == 1_543_656_960
    arch = lookup_model("Qwen/Qwen2.5-Math-1.5B-Instruct")
    assert arch.total_params_b == arch.active_params_b == round(total / 1e9, 4)
    assert arch.embed_params_b == round(151936 * 1536 / 1e9, 4) and arch.lm_head_params_b == 0.0  # tied


QWEN_MATH_COMPOSE = """services:
  model:
    image: vllm/vllm-openai:v0.11.0
    command: ["--model", "Qwen/Qwen2.5-Math-1.5B-Instruct", "--max-model-len", "8192"]
    deploy:
      resources:
        reservations:
          devices:
            - {driver: nvidia, count: 1, capabilities: [gpu]}
"""


def test_qwen25_math_served_past_its_positions_is_an_error(tmp_path):
    # an unknown model had no trained positions to compare with; the entry's 4,096 makes 8,192 a CTX109 error
    (tmp_path / "docker-compose.yaml").write_text(QWEN_MATH_COMPOSE)
    (tmp_path / ".ctxlint.yaml").write_text("default-accelerator: L4\n")
    result = run(["check", str(tmp_path)])
    assert "docker-compose.yaml:4:81: CTX109 [error] 8,192 > 4,096 x 1 = 4,096" in result.out


# codellama/CodeLlama-70b-Instruct-hf as the count takes it: 80 layers of GQA attention (2 x 8192^2 for q and o,
# 2 x 8192 x 1024 for k and v), a 28672 SwiGLU MLP and two norms; the final norm; untied 32016 x 8192 tables
CODELLAMA70_LAYER = 2 * 8192 ** 2 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192
CODELLAMA70 = 80 * CODELLAMA70_LAYER + 8192 + 2 * 32016 * 8192


def test_codellama_70b_instruct_resolves_with_its_4096_positions():
    arch = lookup_model("codellama/CodeLlama-70b-Instruct-hf")
    assert (arch.num_layers, arch.num_attention_heads, arch.num_kv_heads, arch.head_dim) == (80, 64, 8, 128)
    assert arch.max_position_embeddings == 4096  # the Instruct's own (rope_theta 10000), not CodeLlama's 16384
    assert CODELLAMA70_LAYER == 855_654_400 and CODELLAMA70 == 68_976_910_336
    assert arch.total_params_b == round(CODELLAMA70 / 1e9, 4) == 68.9769
    for engine in ("vllm", "sglang"):  # GQA: 2 (K and V) x 80 layers x 8 KV heads x 128 x 2 bytes
        assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), engine) == 2 * 80 * 8 * 128 * 2 == 327_680


@pytest.mark.parametrize("model_id, base, kv_bytes, weights", [
    # TheBloke's GPTQ re-uploads (sweep p29, dstackai/dstack-examples with TGI): the base's network, 4-bit weights
    ("TheBloke/Llama-2-13B-chat-GPTQ", "meta-llama/Llama-2-13b-hf", 2 * 40 * 40 * 128 * 2, "gptq-int4"),  # MHA
    # its main branch is per-channel (group size -1), not g128: 35.3 GB, where the g128 branch holds 36.7 GB
    ("TheBloke/CodeLlama-70B-Instruct-GPTQ", "codellama/CodeLlama-70b-Instruct-hf", 327_680, "gptq-int4-gch"),
    # DeepSeek-V2.5-1210 (p29, truss-examples with SGLang): V2.5's MLA, 60 layers x (kv_lora_rank 512 + rope 64) x 2
    ("deepseek-ai/DeepSeek-V2.5-1210", "deepseek-ai/DeepSeek-Coder-V2-Instruct", 60 * (512 + 64) * 2, "bf16"),
])
def test_catalog30_derivatives_resolve_to_their_base(model_id, base, kv_bytes, weights):
    found = resolve(model_id)
    assert (found.arch.name, found.weights.key, found.via) == (base, weights, "catalog")
    assert f"{model_id}: architecture of {base}, which it derives from (" in found.how
    for engine in ("vllm", "sglang"):
        assert kv_bytes_per_token_per_gpu(serving_dtype(found.arch, None, []), engine) == kv_bytes
    assert 2 * 40 * 40 * 128 * 2 == 819_200 and 60 * (512 + 64) * 2 == 69_120


def test_gemma_3_270m_it_caches_full_kv_in_three_of_its_18_layers():
    arch = lookup_model("google/gemma-3-270m-it")
    assert (arch.num_layers, arch.num_attention_heads, arch.num_kv_heads, arch.head_dim) == (18, 4, 1, 256)
    assert (arch.layer_kinds.count(FULL), arch.layer_kinds.count(SLIDING), arch.sliding_window) == (3, 15, 512)
    assert [i for i, kind in enumerate(arch.layer_kinds) if kind == FULL] == [5, 11, 17]  # every sixth
    # a layer: q 640 x 1024, k and v 640 x 256, o 1024 x 640, a 2048 GeGLU MLP (3 x 640 x 2048), four 640 norms
    # and the q/k norms of 256; x 18, + the final norm + one tied 262144 x 640 table = 268,098,176
    layer = 2 * 640 * 1024 + 2 * 640 * 256 + 3 * 640 * 2048 + 4 * 640 + 2 * 256
    assert layer == 5_573_632 and 18 * layer + 640 + 262144 * 640 == 268_098_176
    assert arch.total_params_b == 0.2681
    # vLLM counts the full layers a token: 3 x 2 x 1 x 256 x 2; SGLang's hybrid SWA pool adds its window layers at
    # 0.8 of a token each (lint/physics/kv.py, swa_full_tokens_ratio): 3,072 + 0.8 x 15 x 1,024
    assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), "vllm") == 3 * 2 * 1 * 256 * 2 == 3_072
    assert kv_bytes_per_token_per_gpu(serving_dtype(arch, None, []), "sglang") == 3_072 + 0.8 * 15 * 1_024 == 15_360


def test_codellama_70b_instruct_gptq_main_weighs_its_per_channel_file():
    # TheBloke's main branch: model.safetensors 35.3 GB (tree 39485a49), the gptq-4bit-128g-actorder_True branch
    # 36.7 GB (tree 4de5a656); 4-bit linear weights with no group scales and two 16-bit 32016 x 8192 tables
    from ctxlint.physics.weights import weight_bytes
    found = resolve("TheBloke/CodeLlama-70B-Instruct-GPTQ")
    arch = found.arch
    size = weight_bytes(arch.total_params_b * 1e9, arch.embed_params_b * 1e9, arch.lm_head_params_b * 1e9,
                        None, None, found.weights)
    assert abs(size / 1e9 - 35.3) < 0.1, size


def test_gemma_3_270m_it_is_read_from_pinned_sources():
    # the merge copy it was first read from is unpinned (raw/main): the entry cites a pinned copy of Google's file
    # and keras-hub's published count, which the dimensions give exactly
    import json
    import re
    from ctxlint.resolution import catalog
    entry = next(e for e in catalog.entries() if e["hf_id"] == "google/gemma-3-270m-it")
    assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}:\S+", entry["source"]), entry["source"]
    notes = json.dumps(entry["notes"])
    assert "published: 0.268098176B (keras-team/keras-hub@71453d08f59edc90d276e999319fc51e61cbf82c" in notes
    assert "google-deepmind/gemma@9fec24caa4890f34d78f8fb75f640127b735537b:gemma/gm/nn/_gemma.py" in notes
