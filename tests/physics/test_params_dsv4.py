"""DeepSeek-V4's parameters counted from its own attention shapes (params_dsv4), not as plain q/k/v/o of
heads x head_dim: V4-Pro 1,573.0e9 (49.8e9 active) against the published 1.6T / 49B, where the plain formula gave
1,611.2e9 (88.0e9 active); V4-Flash 284.3e9 (13.8e9 active) against 284B / 13B, where it gave 290.9e9 (20.4e9)."""
from __future__ import annotations

from ctxlint.physics import params_dsv4
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.models import lookup_model
from ctxlint.physics.params import count
from ctxlint.resolution.lockfile import arch_facts

# deepseek-ai/DeepSeek-V4-Pro's config.json (ai-dynamo/aiconfigurator model_configs copy), the keys the count reads
PRO = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "num_hidden_layers": 61,
       "num_attention_heads": 128, "num_key_value_heads": 1, "head_dim": 512, "hidden_size": 7168,
       "vocab_size": 129280, "tie_word_embeddings": False, "q_lora_rank": 1536, "qk_rope_head_dim": 64,
       "o_lora_rank": 1024, "o_groups": 16, "index_n_heads": 64, "index_head_dim": 128, "hc_mult": 4,
       "num_hash_layers": 3, "n_routed_experts": 384, "num_experts_per_tok": 6, "n_shared_experts": 1,
       "moe_intermediate_size": 3072, "sliding_window": 128, "max_position_embeddings": 1048576,
       "compress_ratios": [128, 128] + [4, 128] * 29 + [4, 0]}


def test_a_layer_of_v4_pro():
    layers = params_dsv4.layers(PRO, 7168, 61, 128, 512, 384)
    # attention: sink 128 + wq_a 7168 x 1536 + q_norm 1536 + wq_b 1536 x 128 x 512 + wkv 7168 x 512 + kv_norm 512
    # + wo_a 128 x 512 x 1024 + wo_b 16 x 1024 x 7168 = 299,894,912 (the plain formula: 2 x 7168 x 65,536 + 2 x
    # 7168 x 512 = 946,864,128); hyper-connections 2 x (24 x 4 x 7168 + 24 + 3) = 1,376,310
    base, hc = 299_894_912, 1_376_310
    # layer 0 (ratio 128, a hash layer: no router bias): a compressor 2 x 7168 x 512 + 128 x 512 + 512
    assert layers[0] == base + 7_406_080 + hc == 308_677_302
    # layer 2 (ratio 4): a compressor 2 x 7168 x 1024 + 4 x 1024 + 512 and the indexer (wq_b 1536 x 64 x 128,
    # weights_proj 7168 x 64, its compressor 2 x 7168 x 256 + 4 x 256 + 128)
    assert layers[2] == base + 14_684_672 + 16_712_832 + hc == 332_668_726
    assert layers[3] == layers[0] + 384  # past num_hash_layers: the router's bias
    assert params_dsv4.head(PRO, 7168) == 4 * 4 * 7168 + 4 + 1


def test_v4_pro_and_flash_totals_against_the_published():
    pro = count(PRO, PRO)
    assert (pro.embed, pro.lm_head, pro.experts) == (926_679_040, 926_679_040, 1_547_396_186_112)
    assert pro.total == 1_572_997_201_763 and pro.other == 23_747_657_571
    assert round(pro.other / 1e9, 2) == 23.75  # was 61.96
    for name, total, active in (("deepseek-ai/DeepSeek-V4-Pro", 1572.9972, 49.7791),
                                ("deepseek-ai/DeepSeek-V4-Flash", 284.3322, 13.7996)):
        arch = lookup_model(name)
        assert (arch.total_params_b, arch.active_params_b) == (total, active), name
    # published: 1.6T / 49B and 284B / 13B (HF model cards)
    assert abs(1572.9972 / 1600 - 1) < 0.02 and 49 <= 49.7791 < 50
    assert abs(284.3322 / 284 - 1) < 0.002 and 13 <= 13.7996 < 14


def test_no_count_without_the_low_rank_output_shapes():
    for key in ("o_lora_rank", "o_groups", "q_lora_rank", "compress_ratios"):
        cfg = {k: v for k, v in PRO.items() if k != key}
        assert count(cfg, cfg) is None, key
    assert count({**PRO, "compress_ratios": [128] * 10}, PRO | {"compress_ratios": [128] * 10}) is None
    assert count({**PRO, "compress_ratios": [8] * 62}, {**PRO, "compress_ratios": [8] * 62}) is None


def test_a_locked_config_keeps_what_the_count_reads():
    locked = arch_facts(PRO)
    assert arch_from_hf_config(locked, "DeepSeek-V4-Pro").total_params_b == \
        arch_from_hf_config(PRO, "DeepSeek-V4-Pro").total_params_b == 1572.997201763
