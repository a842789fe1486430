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
from ctxlint.physics.mtp import draft_layers
from ctxlint.physics.quant_config import from_quantization_config
from ctxlint.model import Source, Val
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
    # NVFP4 (4.5 bits) on the routed experts, MXFP8 (8.25 bits) on the other linear layers, 16 bits on the
    # embeddings and LM head (its MIXED_PRECISION list): 413.1222e9 x 4.5 / 8 = 232.38124e9 B,
    # (428 - 413.1222 - 2 x 1.2292)e9 x 8.25 / 8 = 12.80751e9 B, 2 x 1.2292e9 x 2 = 4.9168e9 B:
    # 250.10554e9 B = 232.93 GiB on one GPU (read as NVFP4 throughout it was 244.28395e9 B = 227.51 GiB);
    # the experts are 92.9133% of it; at DP 2 with EP each GPU holds half of them:
    # 250.10554e9 x (0.929133 / 2 + 0.070867) = 133.91492e9 B = 124.72 GiB
    assert (r.weights.key, r.weights.bits, r.weights.scope) == ("mxfp8+nvfp4-experts", 4.5, "experts+mxfp8")
    whole, _, notes = weights_per_gpu(r.arch, 1, 1, fmt=r.weights)
    split, formula, _ = weights_per_gpu(r.arch, 1, 1, fmt=r.weights, expert_split=2.0,
                                        expert_how="vLLM EP over TP x DP 2")
    assert whole.point == 250_105_543_750.0 and round(whole.point / GIB, 2) == 232.93
    assert round(split.point / GIB, 2) == 124.72
    assert formula == ("428e9 params as MXFP8 with NVFP4 experts = 232.93 GiB / (1 x 1); routed experts (93% of it)"
                       " / 2 more (vLLM EP over TP x DP 2)")
    assert "weights MXFP8 with NVFP4 experts: 4.5 bits per quantized weight (MoE experts; other linear layers " \
           "MXFP8 (8.25 bits), embeddings and LM head at 16 bits)" in notes
    assert not any("share of the weights is unknown" in n for n in notes)


def test_nvidia_mixed_precision_list_reads_exactly():
    # nvidia/MiniMax-M3-NVFP4's quantization_config, its per-layer list cut to one module of each kind
    q = {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION", "kv_cache_quant_algo": None,
         "exclude_modules": ["lm_head", "model.embed_tokens", "vision_tower"],
         "quantized_layers": {
             "language_model.model.layers.0.mlp.down_proj": {"quant_algo": "MXFP8"},
             "language_model.model.layers.3.self_attn.index_k_proj": {"quant_algo": "MXFP8"},
             "language_model.model.layers.3.block_sparse_moe.shared_experts.up_proj": {"quant_algo": "MXFP8"},
             "language_model.model.layers.3.block_sparse_moe.experts.0.w1": {"group_size": 16, "quant_algo": "NVFP4"},
             "language_model.model.layers.59.block_sparse_moe.experts.127.w2": {"group_size": 16,
                                                                               "quant_algo": "NVFP4"}}}
    assert from_quantization_config(q).key == "mxfp8+nvfp4-experts"
    # MiniMax's own form of the same mix: quant_method mxfp8 with moe_quant_algo NVFP4
    assert from_quantization_config({"quant_method": "mxfp8", "moe_quant_algo": "NVFP4"}).key == "mxfp8+nvfp4-experts"
    # a list that is not that whole split keeps what it read before (not widened): the shared experts NVFP4 too
    other = dict(q, quantized_layers=dict(q["quantized_layers"], **{
        "language_model.model.layers.4.block_sparse_moe.shared_experts.up_proj": {"quant_algo": "NVFP4"}}))
    assert from_quantization_config(other).key == "fp8"
    assert from_quantization_config(dict(q, quantized_layers={})).key == "fp8"
    assert from_quantization_config(dict(q, quantized_layers={"x.experts.0.w1": "NVFP4"})).key == "fp8"


def test_vllm_builds_num_mtp_modules_draft_layers(m3):
    # vllm/config/speculative.py: n_predict = num_mtp_modules; vllm/models/minimax_m3/nvidia/mtp.py builds one
    # decoder layer per module, each with KV and an index key: (60 + 7) x 2 x 1 x 128 x 2 + (57 + 7) x 256 at TP 4
    mtp = Val(1, Source("d.yaml", 3, 5), raw="mtp: one draft layer")
    assert m3.mtp_modules == 7 and draft_layers(m3, "vllm", mtp) == 7
    assert kv_breakdown(m3, "vllm", 4, 1, "auto", draft_layers(m3, "vllm", mtp)).bytes_per_token == 34_304 + 16_384
    assert draft_layers(m3, "sglang", Val(1, mtp.source, raw="NEXTN: one draft layer")) == 1  # not read for SGLang
    assert draft_layers(m3, "vllm", Val(1, mtp.source, raw="eagle3: one draft layer")) == 1
    assert draft_layers(m3, "vllm", Val(2, mtp.source)) == 2  # a count the user states is kept
    assert draft_layers(m3, "vllm", None) == 0
    # NVIDIA's NVFP4 checkpoint says num_mtp_modules 1 in its own config: one draft layer, 46,080 B a token
    nv = resolve("nvidia/MiniMax-M3-NVFP4").arch
    assert nv.mtp_modules == 1 and draft_layers(nv, "vllm", mtp) == 1
    assert kv_breakdown(nv, "vllm", 4, 1, "auto", 1).bytes_per_token == 46_080


def test_num_mtp_modules_read_from_a_config():
    cfg = {"model_type": "minimax_m3_vl", "text_config": {
        "num_hidden_layers": 60, "num_attention_heads": 64, "num_key_value_heads": 4, "head_dim": 128,
        "hidden_size": 6144, "num_mtp_modules": 1}}
    assert arch_from_hf_config(cfg).mtp_modules == 1
    cfg["text_config"]["num_mtp_modules"] = 7
    assert arch_from_hf_config(cfg).mtp_modules == 7
    # MiniMax-M2's configs carry num_mtp_modules too, which vLLM does not build drafts from
    m2 = {"model_type": "minimax_m2", "num_hidden_layers": 62, "num_attention_heads": 48, "num_key_value_heads": 8,
          "head_dim": 128, "hidden_size": 3072, "num_mtp_modules": 3}
    assert arch_from_hf_config(m2).mtp_modules is None
    cfg["text_config"]["num_mtp_modules"] = "7"
    assert arch_from_hf_config(cfg).mtp_modules is None


def test_mxfp8_checkpoint_resolves():
    r = resolve("MiniMaxAI/MiniMax-M3-MXFP8")
    assert (r.arch.name, r.weights.key, r.weights.bits) == ("MiniMaxAI/MiniMax-M3", "mxfp8", 8.25)
    # (428 - 2.4584)e9 x 8.25 / 8 + 2.4584e9 x 2 = 443.75666e9 B / 4 = 103.32 GiB a GPU at TP 4
    w, formula, _ = weights_per_gpu(r.arch, 4, 1, fmt=r.weights)
    assert round(w.point / GIB, 2) == 103.32 and formula == "428e9 params as MXFP8 = 413.28 GiB / (4 x 1)"
