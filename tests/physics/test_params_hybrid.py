"""Parameter counts of Gated DeltaNet (Qwen3-Next / Qwen3.5) and Mamba2 (Nemotron-H) hybrids.

The small configs are counted tensor by tensor here, as the modelling code builds them; the catalog
entries are held within 2% of the totals their publishers state."""
from __future__ import annotations

import pytest

from ctxlint.physics.models import arch_from_hf_config, lookup_model

H, VOCAB = 64, 1000


def _qwen35(**extra):
    return {"model_type": "qwen3_5_text", "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
            "head_dim": 32, "hidden_size": H, "intermediate_size": 128, "vocab_size": VOCAB,
            "tie_word_embeddings": False, "full_attention_interval": 4, "linear_num_key_heads": 2,
            "linear_num_value_heads": 4, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
            "linear_conv_kernel_dim": 4, **extra}


def test_a_qwen3_5_dense_config_counts_its_gated_deltanet_layers():
    key, value, vh = 2 * 16, 4 * 16, 4
    gdn = H * (2 * key + value) + H * value + 2 * H * vh + (2 * key + value) * 4 + 2 * vh + 16 + value * H
    attn = 2 * H * 4 * 32 + 2 * H * 2 * 32 + 4 * 32 * H + 2 * 32  # gated q, k, v, o, q/k norms
    layers = 3 * gdn + attn + 4 * (2 * H + 3 * H * 128)
    arch = arch_from_hf_config(_qwen35())
    assert round(arch.total_params_b * 1e9) == layers + H + 2 * VOCAB * H
    # the same layers from layer_types, the 4th full attention
    typed = _qwen35(layer_types=["linear_attention"] * 3 + ["full_attention"])
    assert arch_from_hf_config(typed).total_params_b == arch.total_params_b


def test_a_qwen3_5_moe_config_counts_routed_and_shared_experts():
    moe = _qwen35(model_type="qwen3_5_moe_text", num_experts=8, num_experts_per_tok=2, moe_intermediate_size=32,
                  shared_expert_intermediate_size=32)
    dense = arch_from_hf_config(_qwen35())
    arch = arch_from_hf_config(moe)
    per_layer = 8 * 3 * H * 32 + H * 8 + 3 * H * 32 + H - 3 * H * 128
    assert round((arch.total_params_b - dense.total_params_b) * 1e9) == 4 * per_layer
    assert round(arch.expert_params_b * 1e9) == 4 * 8 * 3 * H * 32


def test_a_gated_deltanet_layer_without_its_dimensions_is_not_counted():
    assert arch_from_hf_config(_qwen35(linear_num_value_heads=None)).total_params_b is None


def _nemotron(**extra):
    return {"model_type": "nemotron_h", "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
            "hidden_size": H, "intermediate_size": 96, "vocab_size": VOCAB, "tie_word_embeddings": False,
            "hybrid_override_pattern": "M-*E", "mamba_num_heads": 8, "mamba_head_dim": 16, "ssm_state_size": 8,
            "n_groups": 2, "conv_kernel": 4, "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 1,
            "moe_intermediate_size": 32, "moe_shared_expert_intermediate_size": 48, **extra}


def test_a_nemotron_h_config_counts_mamba2_mlp_attention_and_moe_blocks():
    inner, conv_dim, heads = 8 * 16, 8 * 16 + 2 * 2 * 8, 8
    mamba = H * (inner + conv_dim + heads) + conv_dim * 4 + conv_dim + 3 * heads + inner + inner * H
    mlp, attn = 2 * H * 96, 2 * H * 4 * 16 + 2 * H * 2 * 16
    experts = 4 * 2 * H * 32
    moe = experts + (H + 1) * 4 + 2 * H * 48
    arch = arch_from_hf_config(_nemotron())
    assert round(arch.total_params_b * 1e9) == 4 * H + mamba + mlp + attn + moe + H + 2 * VOCAB * H
    assert round(arch.expert_params_b * 1e9) == experts
    # layers_block_type (Nemotron-3-Ultra) names the same blocks, and num_hidden_layers may be absent
    named = _nemotron(hybrid_override_pattern=None, layers_block_type=["mamba", "mlp", "attention", "moe"])
    assert arch_from_hf_config(named).total_params_b == arch.total_params_b


def test_a_latent_moe_runs_its_experts_at_the_latent_size():
    plain, latent = arch_from_hf_config(_nemotron()), arch_from_hf_config(_nemotron(moe_latent_size=16))
    assert round(latent.expert_params_b * 1e9) == 4 * 2 * 16 * 32
    assert round((latent.total_params_b - plain.total_params_b) * 1e9) == 4 * 2 * 16 * 32 - 4 * 2 * H * 32 + 2 * H * 16


def test_a_nemotron_h_moe_without_its_shared_expert_size_is_not_counted():
    assert arch_from_hf_config(_nemotron(moe_shared_expert_intermediate_size=None)).total_params_b is None


@pytest.mark.parametrize("model, total, active, rel", [
    # totals their publishers state (the entry's notes cite each)
    ("Qwen/Qwen3-Next-80B-A3B-Thinking", 80, 3, 0.02),  # transformers' qwen3_next page: 80B total, 3B active
    ("Qwen/Qwen3.5-35B-A3B", 35, 3, 0.02),
    ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", 31.6, 3.6, 0.02),  # 31.6B total, about 3.6B at a time
    ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", 120, 12, 0.02),
    # no total read: the size in the name, a rounded figure, held to 5%
    ("Qwen/Qwen3.6-35B-A3B", 35, 3, 0.05),
    ("Qwen/Qwen3.5-122B-A10B", 122, 10, 0.05),
    ("Qwen/Qwen3.5-397B-A17B", 397, 17, 0.05),
    ("Qwen/Qwen3.5-27B", 27, 27, 0.05),
    ("Qwen/Qwen3.5-9B", 9, 9, 0.05),
    ("nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16", 550, 55, 0.05),
    ("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4", 30, 3, 0.06),
    ("nvidia/Nemotron-H-56B-Base-8K", 56, 56, 0.05),
    ("nvidia/NVIDIA-Nemotron-Nano-12B-v2-Base", 12, 12, 0.05),
])
def test_hybrid_catalog_entries_count_close_to_their_published_size(model, total, active, rel):
    arch = lookup_model(model)
    assert arch.total_params_b == pytest.approx(total, rel=rel)
    # "A3B" rounds the active count: held to within 1B, or to rel for the larger ones
    assert abs(arch.active_params_b - active) <= max(1.0, rel * active)
