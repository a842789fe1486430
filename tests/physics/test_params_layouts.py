"""Parameter counts of DeciLM / Nemotron-NAS `block_configs` and of the Qwen2.5-VL vision tower.

The small configs are counted tensor by tensor here, as the modelling code builds them; the catalog
entries are held within 2% of the totals their publishers state."""
from __future__ import annotations

import pytest

from ctxlint.physics.models import arch_from_hf_config, lookup_model

H, VOCAB = 256, 1000


def _block(group=None, mult=None, attn_op=True, ffn_op=True):
    attn = {"n_heads_in_group": group, "no_op": not attn_op, "replace_with_linear": False}
    return {"attention": attn, "ffn": {"ffn_mult": mult, "no_op": not ffn_op, "replace_with_linear": False}}


def _decilm(blocks):
    return {"model_type": "nemotron-nas", "architectures": ["DeciLMForCausalLM"], "num_hidden_layers": len(blocks),
            "num_attention_heads": 4, "num_key_value_heads": None, "hidden_size": H, "intermediate_size": None,
            "vocab_size": VOCAB, "tie_word_embeddings": False, "block_configs": blocks}


def test_a_decilm_config_counts_each_layer_by_its_own_block():
    blocks = [_block(2, 1.0), _block(mult=2.0, attn_op=False), _block(4, ffn_op=False)]
    # 4 heads of 64; ffn_mult 1.0 -> int(2 x 256 / 3) = 170 -> 256, 2.0 -> 341 -> 512 (multiples of 256)
    first = (256 * 256 + 2 * 256 * 2 * 64 + 256 * 256 + 256) + (3 * 256 * 256 + 256)
    second = 3 * 256 * 512 + 256  # attention no_op: no projections and no input_layernorm
    third = 256 * 256 + 2 * 256 * 1 * 64 + 256 * 256 + 256  # FFN no_op: no MLP, no post_attention_layernorm
    arch = arch_from_hf_config(_decilm(blocks))
    assert round(arch.total_params_b * 1e9) == first + second + third + H + 2 * VOCAB * H
    assert arch.num_kv_heads == 2


def test_a_decilm_block_vllm_does_not_build_is_not_counted():
    linear = _block(2, 1.0)
    linear["attention"]["replace_with_linear"] = True
    assert arch_from_hf_config(_decilm([linear, _block(2, 1.0)])).total_params_b is None
    no_ffn = {"attention": {"n_heads_in_group": 2, "no_op": False}}  # ffn not stated: width unknown
    assert arch_from_hf_config(_decilm([no_ffn])).total_params_b is None


def _vl(vision):
    return {"model_type": "qwen2_5_vl", "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
            "hidden_size": 128, "intermediate_size": 256, "vocab_size": VOCAB, "tie_word_embeddings": True,
            "vision_config": vision}


def test_the_qwen2_5_vl_tower_is_counted_tensor_by_tensor():
    vision = {"depth": 2, "hidden_size": 64, "intermediate_size": 96, "in_chans": 3, "patch_size": 2,
              "temporal_patch_size": 2, "spatial_merge_size": 2, "out_hidden_size": 128}
    patch = 3 * 2 * 2 * 2 * 64  # Conv3d without bias
    block = 2 * 64 + (3 * 64 * 64 + 3 * 64) + (64 * 64 + 64) + (3 * 64 * 96 + 2 * 96 + 64)
    merger = 64 + 256 * 256 + 256 + 256 * 128 + 128  # ln_q, then 4 x 64 -> 256 -> out_hidden_size
    arch = arch_from_hf_config(_vl(vision))
    assert round(arch.vision_params_b * 1e9) == patch + 2 * block + merger == 171_200
    # absent keys take Qwen2_5_VLVisionConfig's defaults, out_hidden_size the decoder's hidden size
    short = arch_from_hf_config(_vl({"hidden_size": 64}))
    wide = 64 * 4
    default = 3 * 2 * 14 * 14 * 64 + 32 * (2 * 64 + 3 * 64 * 64 + 3 * 64 + 64 * 64 + 64 + 3 * 64 * 3420
                                            + 2 * 3420 + 64) + 64 + wide * wide + wide + wide * 128 + 128
    assert round(short.vision_params_b * 1e9) == default
    assert arch_from_hf_config(_vl({"depth": 2})).total_params_b is None  # no hidden size: no count


def test_the_qwen2_5_vl_3b_tower_matches_the_checkpoint_shapes():
    # Qwen/Qwen2.5-VL-3B-Instruct's vision_config; per block 19,702,200 and the merger 36,708,608 parameters,
    # the shapes Qwen2_5_VLVisionBlock and Qwen2_5_VLPatchMerger build (qkv 1280 -> 3840, MLP 1280 -> 3420).
    vision = {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "num_heads": 16, "in_chans": 3,
              "out_hidden_size": 2048, "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2}
    arch = arch_from_hf_config(dict(_vl(vision), hidden_size=2048))
    assert round(arch.vision_params_b * 1e9) == 3 * 2 * 14 * 14 * 1280 + 32 * 19_702_200 + 36_708_608


@pytest.mark.parametrize("model_id, published_b", [
    ("nvidia/Llama-3_3-Nemotron-Super-49B-v1", 49.0),  # model card: "approximately 49B"
    # a transformers parameter analysis of Qwen/Qwen2.5-VL-7B-Instruct: 8.29B, the vision encoder 676.55M
    ("Qwen/Qwen2.5-VL-7B-Instruct", 8.29),
])
def test_catalog_counts_are_within_2_percent_of_the_published_totals(model_id, published_b):
    arch = lookup_model(model_id)
    assert arch.total_params_b is not None
    assert abs(arch.total_params_b - published_b) / published_b < 0.02


def _gemma4(**extra):
    text = {"model_type": "gemma4_text", "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
            "head_dim": 64, "hidden_size": H, "intermediate_size": 96, "vocab_size": VOCAB,
            "tie_word_embeddings": True, "layer_types": ["sliding_attention", "full_attention"], "sliding_window": 8,
            "global_head_dim": 128, "num_global_key_value_heads": 1, "attention_k_eq_v": True, **extra}
    return {"architectures": ["Gemma4ForConditionalGeneration"], "model_type": "gemma4", "text_config": text}


def test_gemma4_full_attention_layers_are_counted_at_their_own_width():
    # vllm gemma4.py: a full_attention layer has global_head_dim heads and, with attention_k_eq_v,
    # num_global_key_value_heads KV heads; its QKVParallelLinear keeps a V slot (K is loaded into both)
    sliding = H * 4 * 64 + 2 * H * 2 * 64 + 4 * 64 * H
    full = H * 4 * 128 + 2 * H * 1 * 128 + 4 * 128 * H
    mlp = 3 * H * 96
    expected = sliding + full + 2 * (mlp + 2 * H) + H + VOCAB * H
    assert round(arch_from_hf_config(_gemma4()).total_params_b * 1e9) == expected


def test_a_gemma4_moe_layer_holds_the_dense_mlp_beside_its_experts():
    # enable_moe_block: Gemma4DecoderLayer keeps self.mlp and adds Gemma4Router (h x experts, a per-dimension
    # scale) and Gemma4MoE (experts x 3 x h x moe_intermediate_size, a per-expert scale)
    moe = _gemma4(num_experts=4, top_k_experts=2, moe_intermediate_size=32, enable_moe_block=True)
    dense = _gemma4()
    per_layer = H * 4 + H + 4 + 4 * 3 * H * 32
    assert round((arch_from_hf_config(moe).total_params_b - arch_from_hf_config(dense).total_params_b) * 1e9) \
        == 2 * per_layer


def test_the_gemma4_26b_a4b_catalog_count_holds_what_vllm_loaded():
    # myoceane.fr (vLLM, release not in the excerpt, A100-80GB): "Model loading took 48.5 GiB"; the count with the
    # dense MLPs (30 x 3 x 2816 x 2112), the wider full-attention layers and the gated vision tower is 25.82e9,
    # 48.1 GiB in bf16 (it was 25.04e9, 46.6 GiB)
    arch = lookup_model("google/gemma-4-26B-A4B")
    assert arch.total_params_b == pytest.approx(25.820, abs=0.01)
    assert 47.5 < arch.total_params_b * 2e9 / 2**30 < 48.5


def test_a_gemma4_vision_tower_is_counted_with_its_gated_mlp_and_position_table():
    # huggingface/transformers@c308a309 modeling_gemma4.py, which vLLM's gemma4_mm.py loads through AutoModel:
    # Gemma4VisionMLP is gate/up/down (3 x h x inter, not a ViT's 2), Gemma4VisionAttention q/k/v/o with a
    # q and k norm of head_dim, four RMSNorms a layer, Gemma4VisionPatchEmbedder's input_proj (3 x patch^2 x h)
    # and its position table (2 x position_embedding_size x h), and embed_vision's projection to the text width
    vision = {"model_type": "gemma4_vision", "hidden_size": 64, "num_hidden_layers": 2, "intermediate_size": 96,
              "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 16, "patch_size": 4,
              "position_embedding_size": 32, "standardize": False}
    config = {**_gemma4(), "vision_config": vision}
    layer = 4 * 64 * 64 + 3 * 64 * 96 + 4 * 64 + 2 * 16
    expected = 2 * layer + 3 * 4 * 4 * 64 + 2 * 32 * 64 + 64 * H
    assert round(arch_from_hf_config(config).vision_params_b * 1e9) == expected


def test_the_gemma4_catalog_vision_towers_hold_about_550m_parameters():
    # the model cards' ~550M vision encoder (27 layers x 1152, MLP 4304, position table 10240) and the projection
    # to the decoder's width (2816, 5376): 0.573e9 and 0.576e9, where a two-matrix ViT estimate gave 0.412e9
    for model, tower in (("google/gemma-4-26B-A4B", 0.5728), ("google/gemma-4-31B-it", 0.5757)):
        assert lookup_model(model).vision_params_b == pytest.approx(tower, abs=0.0005)


def test_a_gemma4_vision_config_without_its_dimensions_keeps_the_estimate():
    # an abridged vision_config is not a reason to refuse the whole count (the generic estimate, as before)
    for vision in ({}, {"model_type": "gemma4_vision", "hidden_size": 64}):
        arch = arch_from_hf_config({**_gemma4(), "vision_config": vision})
        assert arch.total_params_b is not None and arch.vision_params_b == 0
