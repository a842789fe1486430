"""MiniMax-M3: the index-key cache of its 57 sparse (MSA) layers, and its routed experts counted from its config.

Engine sources (wheels vllm==0.34.0 and sglang==0.5.23, as in ctxlint.physics.msa_index):
- vLLM vllm/models/minimax_m3/common/indexer.py MiniMaxM3IndexerCache.get_kv_cache_spec: MLAAttentionSpec(num_kv_heads=1,
  head_size=index_head_dim) a sparse layer, whatever the TP size; dtype bf16 for "auto" (nvidia/model.py
  `resolve_indexer_kv_dtype("bf16")`), fp8 one byte, nvfp4 `head_dim // 2 + head_dim // 16` bytes.
- SGLang sglang/srt/model_executor/pool_configurator.py (is_minimax_sparse): `(num_indexer_kv * 2 + num_indexer_k_only)
  * sparse_index_dim * dtype size` beside `2 * kv_heads * head_dim * kv_size` for every layer; the index dtype from
  get_minimax_sparse_index_dtype (sglang/srt/mem_cache/memory_pool.py).
The config: ai-dynamo/aiconfigurator@095f58a51c4ca8e61b66ec108d86f223f8d559ce MiniMaxAI--MiniMax-M3_config.json
(sparse_attention_freq and sparse_disable_index_value 1 on layers 3-59, sparse_index_dim 128, 4 KV heads of 128).
"""
from __future__ import annotations

import pytest

from ctxlint.physics.gpu_weights import weights_per_gpu
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.kv import kv_breakdown
from ctxlint.physics.models import lookup_model
from ctxlint.physics.msa_index import vllm_indexer_dtype
from ctxlint.resolution.resolve import resolve

GIB = 2 ** 30
SPARSE = [0, 0, 0] + [1] * 57


@pytest.fixture(scope="module")
def m3():
    return lookup_model("MiniMaxAI/MiniMax-M3")


def test_catalog_carries_the_sparse_layers_and_the_expert_count(m3):
    assert (m3.msa_index_dim, m3.msa_index_layers, m3.msa_index_value_layers) == (128, tuple(range(3, 60)), ())
    # 57 MoE layers (moe_layer_freq) x 128 experts x 3 x 6144 x 3072 = 413,122,166,784; embeddings 200064 x 6144
    assert (m3.expert_params_b, m3.embed_params_b, m3.lm_head_params_b) == (413.1222, 1.2292, 1.2292)
    assert (m3.total_params_b, m3.active_params_b) == (428.0, 23.0)  # the published total is kept


# K+V: 60 layers x 2 x heads x 128 x 2 B (4 heads at TP 1: 122,880; 1 at TP 4 and TP 8, replicated: 30,720);
# the index keys: 57 x 128 x 2 B = 14,592 in bf16, 57 x 128 = 7,296 in fp8, 57 x (64 + 8) = 4,104 in nvfp4
@pytest.mark.parametrize("tp,index_dtype,expected", [
    (1, None, 122_880 + 14_592), (4, None, 30_720 + 14_592), (8, None, 30_720 + 14_592),
    (4, "bf16", 30_720 + 14_592), (1, "fp8", 122_880 + 7_296), (4, "fp8", 30_720 + 7_296),
    (8, "fp8_e4m3", 30_720 + 7_296), (4, "nvfp4", 30_720 + 4_104),
])
def test_vllm_bytes_per_token(m3, tp, index_dtype, expected):
    br = kv_breakdown(m3, "vllm", tp, index_dtype=index_dtype)
    assert br.bytes_per_token == expected
    per = {None: 256, "bf16": 256, "fp8": 128, "fp8_e4m3": 128, "nvfp4": 72}[index_dtype]
    assert br.formula.endswith(f" + 57 index keys x {per}")


def test_vllm_note_and_refusal(m3):
    br = kv_breakdown(m3, "vllm", 4)
    assert br.bytes_per_token == 45_312  # 1.475 x the 30,720 of K and V alone, which the pool was divided by before
    assert ("MSA index cache: 57 sparse layers x 128 x 2 B = 14,592 B a token on every TP rank "
            "(indexer_kv_dtype auto (bf16 for MiniMax-M3))") in br.notes
    with pytest.raises(ValueError, match="refuses indexer_kv_dtype 'mxfp4'"):
        kv_breakdown(m3, "vllm", 4, index_dtype="mxfp4")


def test_sglang_bytes_per_token(m3):
    # bf16 model, auto KV: 30,720 + 57 x 128 x 2 = 45,312 at TP 4
    assert kv_breakdown(m3, "sglang", 4).bytes_per_token == 45_312
    # fp8_e4m3 KV with trtllm_mha (m3_fp8_attn_gemm_enabled on SM100): K+V 15,360 + index 57 x 128 x 1 = 22,656
    fp8 = kv_breakdown(m3, "sglang", 4, 1, "fp8_e4m3", attention_backend="trtllm_mha")
    assert fp8.bytes_per_token == 15_360 + 7_296
    # another backend: the index stays in the model dtype off SM90 (taken so: the GPU is not known here)
    other = kv_breakdown(m3, "sglang", 4, 1, "fp8_e4m3")
    assert other.bytes_per_token == 15_360 + 14_592
    assert "fp8 on H100/H200 (SM90) with this fp8_e4m3 KV" in other.notes[-1]


def test_sglang_counts_an_index_value_where_the_config_keeps_one():
    # no sparse_disable_index_value: every sparse layer is a "kv" indexer layer, 2 x 128 x 2 B each in SGLang;
    # vLLM's MiniMax-M3 code never caches an index value
    cfg = {"model_type": "minimax_m3", "num_hidden_layers": 60, "num_attention_heads": 64, "num_key_value_heads": 4,
           "head_dim": 128, "hidden_size": 6144, "vocab_size": 200064,
           "sparse_attention_config": {"sparse_index_dim": 128, "sparse_attention_freq": SPARSE}}
    arch = arch_from_hf_config(cfg)
    assert arch.msa_index_value_layers == tuple(range(3, 60))
    assert kv_breakdown(arch, "sglang", 4).bytes_per_token == 30_720 + 57 * 2 * 128 * 2
    assert kv_breakdown(arch, "vllm", 4).bytes_per_token == 30_720 + 14_592


def test_transformers_layer_types_form():
    # the form vLLM reads (layer_types "minimax_m3_sparse", index_head_dim), as Transformers' MiniMaxM3VLTextConfig
    cfg = {"model_type": "minimax_m3", "num_hidden_layers": 4, "num_attention_heads": 64, "num_key_value_heads": 4,
           "head_dim": 128, "hidden_size": 6144, "vocab_size": 200064, "index_head_dim": 128,
           "layer_types": ["full_attention", "minimax_m3_sparse", "minimax_m3_sparse", "full_attention"]}
    arch = arch_from_hf_config(cfg)
    assert (arch.msa_index_dim, arch.msa_index_layers, arch.msa_index_value_layers) == (128, (1, 2), ())
    assert arch.index_head_dim is None  # DeepSeek's indexer field stays for MLA models
    assert kv_breakdown(arch, "vllm", 1).bytes_per_token == 4 * 2 * 4 * 128 * 2 + 2 * 256


def test_busiest_pipeline_stage_counts_the_index_layers(m3):
    # PP 2: layers 0-29 (27 sparse) and 30-59 (30 sparse), 30 full layers each: the second stage binds,
    # 30 x 2 x 1 x 128 x 2 + 30 x 256 = 15,360 + 7,680
    assert kv_breakdown(m3, "vllm", 4, 2).bytes_per_token == 23_040


def test_vllm_mtp_draft_layer_keeps_an_index_key(m3):
    # vllm/models/minimax_m3/nvidia/mtp.py: the MTP layer is MiniMaxM3DecoderLayer(force_sparse_attn=True):
    # (60 + 1) x 2 x 1 x 128 x 2 + (57 + 1) x 256 = 31,232 + 14,848 at TP 4
    br = kv_breakdown(m3, "vllm", 4, 1, "auto", 1)
    assert br.bytes_per_token == 31_232 + 14_848
    assert br.formula == "(60 layers + 1 draft) x 2 x 1 x 128 x 2 + 58 index keys x 256"
    # SGLang's draft worker (its own pool) was not read for it: the target's 57 only
    assert kv_breakdown(m3, "sglang", 4, 1, "auto", 1).bytes_per_token == 31_232 + 14_592


def test_other_engines_unchanged(m3):
    assert kv_breakdown(m3, "trtllm", 4).bytes_per_token == 30_720  # their code for it was not read


def test_vllm_indexer_dtype_from_settings():
    assert vllm_indexer_dtype({"attention_config": '{"indexer_kv_dtype": "fp8"}'}) == "fp8"
    assert vllm_indexer_dtype({"attention_config": {"indexer_kv_dtype": "NVFP4"}}) == "nvfp4"
    assert vllm_indexer_dtype({"attention_config.indexer_kv_dtype": "bf16"}) == "bf16"
    assert vllm_indexer_dtype({}) == vllm_indexer_dtype({"attention_config": "not json"}) == "auto"


def test_weights_per_gpu_at_dp2_with_expert_parallelism():
    r = resolve("nvidia/MiniMax-M3-NVFP4")
    # NVFP4 (4.5 bits) on all but the embeddings and LM head (16 bits):
    # (428 - 2 x 1.2292)e9 x 4.5 / 8 + 2 x 1.2292e9 x 2 = 244.28395e9 B = 227.51 GiB on one GPU;
    # the experts 413.1222e9 x 4.5 / 8 = 232.38124e9 B, 95.1275% of it; at DP 2 with EP each GPU holds half of them:
    # 244.28395e9 x (0.951275 / 2 + 0.048725) = 128.0935e9 B = 119.30 GiB
    whole, _, _ = weights_per_gpu(r.arch, 1, 1, fmt=r.weights)
    split, formula, notes = weights_per_gpu(r.arch, 1, 1, fmt=r.weights, expert_split=2.0,
                                            expert_how="vLLM EP over TP x DP 2")
    assert round(whole.point / GIB, 2) == 227.51
    assert round(split.point / GIB, 2) == 119.30
    assert "routed experts (95% of it) / 2 more (vLLM EP over TP x DP 2)" in formula
    assert not any("share of the weights is unknown" in n for n in notes)


def test_mxfp8_checkpoint_resolves():
    r = resolve("MiniMaxAI/MiniMax-M3-MXFP8")
    assert (r.arch.name, r.weights.key, r.weights.bits) == ("MiniMaxAI/MiniMax-M3", "mxfp8", 8.25)
    # (428 - 2.4584)e9 x 8.25 / 8 + 2.4584e9 x 2 = 443.75666e9 B / 4 = 103.32 GiB a GPU at TP 4
    w, formula, _ = weights_per_gpu(r.arch, 4, 1, fmt=r.weights)
    assert round(w.point / GIB, 2) == 103.32 and formula == "428e9 params as MXFP8 = 413.28 GiB / (4 x 1)"
