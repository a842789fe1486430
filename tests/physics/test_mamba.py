"""Linear-attention / Mamba state: sized from the config, laid out in vLLM's pool as its hybrid allocator does."""
from __future__ import annotations

import pytest

from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.mamba import state_bytes

GIB = 1 << 30


def _gdn(**extra):
    """A Qwen3.5-style hybrid: 40 layers, every 4th full attention (2 KV heads x 256), gated delta net elsewhere."""
    cfg = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe_text",
           "num_hidden_layers": 40, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
           "hidden_size": 2048, "full_attention_interval": 4, "linear_num_key_heads": 16,
           "linear_num_value_heads": 32, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
           "linear_conv_kernel_dim": 4, "mamba_ssm_dtype": "float32", "torch_dtype": "bfloat16",
           "total_params_b": 35}
    cfg.update(extra)
    return arch_from_hf_config(cfg, "gdn")


def _vllm(arch, kv_gib, ctx=131072, version="0.24.0", **settings):
    return compute(CapacityInput(arch=arch, engine="vllm", kv_cache_dtype="fp8", available_kv_bytes=kv_gib * GIB,
                                 context_length=ctx, engine_version=version,
                                 settings={"max_num_batched_tokens": 8192, **settings}))


def test_the_config_gives_the_state_dims_and_its_dtype():
    arch = _gdn()
    # conv: (2 x 16 x 128 + 32 x 128) channels x (4 - 1); temporal: 32 heads x 128 x 128
    assert arch.linear_state == (8192, 0, 0, 3, 32, 16384)
    assert arch.linear_ssm_dtype == "float32"
    assert state_bytes(arch.linear_state, 1, 2, 4) == 8192 * 3 * 2 + 32 * 16384 * 4 == 2_146_304
    assert state_bytes(arch.linear_state, 2, 2, 4) == 2_146_304 // 2


def test_mamba2_groups_are_raised_to_tp_when_tp_does_not_divide_them():
    arch = arch_from_hf_config({"model_type": "nemotron_h", "num_hidden_layers": 4, "num_attention_heads": 8,
                                "num_key_value_heads": 2, "head_dim": 128, "hidden_size": 1024,
                                "hybrid_override_pattern": "M-M*", "mamba_num_heads": 16, "mamba_head_dim": 64,
                                "ssm_state_size": 128, "n_groups": 1, "conv_kernel": 4}, "m2")
    assert arch.linear_state == (1024, 1, 256, 3, 16, 8192)
    assert arch.linear_ssm_dtype == "float32"  # Nemotron-H's default when the config names none
    # TP 2: one group becomes 2 (extra_groups_for_head_shards), conv (1024 + 2 x 256) / 2 x 3 x 2 B
    assert state_bytes(arch.linear_state, 2, 2, 4) == 768 * 3 * 2 + 8 * 8192 * 4


def test_vllm_holds_the_states_in_the_kv_pool_and_prints_what_it_logs():
    # 6.01 GiB: attention block 2,096 (one page = one 2,146,304 B state), 300 blocks of 10 layers; a request of
    # 131,072 tokens holds 63 attention blocks and 2 in each of 3 state groups: 300 / 69 = 4.35x, 569,878 printed
    r = _vllm(_gdn(), 6.01)
    assert r.block_size == 2096
    assert r.pool_tokens == 300 * 2096
    assert r.max_context_at_concurrency_1 == (300 - 1 - 6) * 2096
    assert r.reported_tokens == 569_878
    assert r.max_concurrency_at_context == round(299 / 69, 2)
    assert any("holds 2 block(s) in each of 3 state group(s)" in a for a in r.assumptions)


def test_without_prefix_caching_a_request_holds_one_state_block_per_group():
    r = _vllm(_gdn(), 6.01, enable_prefix_caching=False)
    assert r.max_context_at_concurrency_1 == (300 - 1 - 3) * 2096
    assert r.reported_tokens == int(300 / 66 * 131072)


def test_a_larger_block_size_given_is_kept_and_the_state_page_padded_to_it():
    r = _vllm(_gdn(), 6.01, block_size=4096)
    assert r.block_size == 4096
    assert r.pool_tokens == int(6.01 * GIB // (4096 * 10 * 1024)) * 4096


def test_before_0_20_1_vllm_prints_blocks_over_groups():
    r = _vllm(_gdn(), 6.01, version="0.17.0")
    assert r.reported_tokens == 300 // 4 * 2096


@pytest.mark.parametrize("engine", ["sglang", "trtllm"])
def test_other_engines_keep_their_pools_unchanged(engine):
    r = compute(CapacityInput(arch=_gdn(), engine=engine, kv_cache_dtype="fp8", available_kv_bytes=6.01 * GIB))
    assert r.kv_bytes_per_token_per_gpu == 10 * 2 * 2 * 256
    assert r.reported_tokens is None


def test_a_config_without_state_dims_leaves_the_state_unsized():
    arch = _gdn(linear_num_value_heads=None)
    assert arch.linear_state is None
    r = _vllm(arch, 6.01)
    assert r.block_size == 16 and any("not counted" in a for a in r.assumptions)


def test_the_state_dtype_flags_reach_the_state_page():
    # --mamba-ssm-cache-dtype float16 halves the temporal state: 8,192 x 3 x 2 + 32 x 16,384 x 2 = 1,097,728 B, an
    # attention block of 16 x cdiv(1,097,728, 16 x 1,024) = 1,072 (vLLM's flags: the 0.30.0-0.34.0 wheels' parsers;
    # ctxlint's table lacked them, so the config's float32 state, block 2,096, was kept)
    from ctxlint.engines import parse_invocation

    inv = parse_invocation("vllm", ["--model", "m", "--mamba-ssm-cache-dtype", "float16", "--mamba-cache-dtype",
                                    "bfloat16"])
    # refused only by releases before the flags (0.10.1) and their choices (float16 0.13.0, bfloat16 0.22.0)
    assert not inv.unknown_flags and [e.until for e in inv.errors] == ["0.10.1", "0.10.1", "0.22.0", "0.13.0"]
    assert all(e.refused_by("0.30.0") is False for e in inv.errors)
    r = _vllm(_gdn(), 6.01, **{k: inv.value(k) for k in ("mamba_cache_dtype", "mamba_ssm_cache_dtype")})
    assert r.block_size == 1072
    assert [p.message for p in parse_invocation("vllm", ["--model", "m", "--mamba-ssm-cache-dtype", "fp8"]).errors] \
        == ["argument --mamba-ssm-cache-dtype: invalid choice: 'fp8' (choose from auto, bfloat16, float16, float32)",
            "unrecognized arguments: --mamba-ssm-cache-dtype (a spelling from 0.10.1 on: earlier releases have no "
            "such flag)"]


# LFM2 (LiquidAI/LFM2.5-1.2B-Base's config.json): 16 layers, 10 short-convolution ("conv") and 6 attention (8 KV heads
# x 64). vLLM sizes a conv layer's state as (conv_L_cache - 1) x conv_dim / TP in the model's dtype and manages the
# model as a hybrid (vllm-project/vllm@055e47c2 lfm2.py, mamba_utils.py short_conv_state_shape/_dtype).
def _lfm2(**extra):
    cfg = {"architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2", "num_hidden_layers": 16,
           "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 2048, "conv_dim": 2048,
           "conv_L_cache": 3, "torch_dtype": "bfloat16", "total_params_b": 1.17,
           "layer_types": ["conv", "conv", "full_attention", "conv", "conv", "full_attention", "conv", "conv",
                           "full_attention", "conv", "full_attention", "conv", "full_attention", "conv",
                           "full_attention", "conv"]}
    cfg.update(extra)
    return arch_from_hf_config(cfg, "lfm2")


def test_lfm2s_short_convolution_is_a_conv_state_alone():
    arch = _lfm2()
    assert arch.linear_state == (2048, 0, 0, 2, 0, 0)  # conv_dim channels x (3 - 1), no temporal state
    assert state_bytes(arch.linear_state, 1, 2, 4) == 2 * 2048 * 2 == 8192
    assert state_bytes(arch.linear_state, 2, 2, 4) == 4096  # conv_dim / TP
    assert _lfm2(conv_L_cache=1).linear_state is None  # no window: nothing vLLM's formula was read for
    # another model's conv keys are not LFM2's
    assert arch_from_hf_config({**{"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 8,
                                   "num_key_value_heads": 8, "hidden_size": 512}, "conv_dim": 8, "conv_L_cache": 3},
                               "x").linear_state is None


def test_lfm2_moes_short_convolution_is_sized_on_its_hidden_size():
    # Lfm2MoeForCausalLM (LiquidAI/LFM2-8B-A1B) sizes the same conv state on hidden_size, not conv_dim, which its
    # config does not have (vllm@055e47c2 lfm2_moe.py get_mamba_state_shape_from_config); it was left uncounted
    arch = _lfm2(architectures=["Lfm2MoeForCausalLM"], model_type="lfm2_moe", conv_dim=None, hidden_size=2048)
    assert arch.linear_state == (2048, 0, 0, 2, 0, 0)
    r = compute(CapacityInput(arch=arch, engine="vllm", kv_cache_dtype="auto", available_kv_bytes=GIB,
                              context_length=32768, engine_version="0.19.0",
                              settings={"max_num_batched_tokens": 8192}))
    assert r.max_context_at_concurrency_1 == (5461 - 1 - 4) * 16
    assert _lfm2(model_type="lfm2_moe", conv_L_cache=1).linear_state is None


def test_vllm_lays_lfm2_out_as_a_hybrid():
    # one attention token a layer: 2 x 8 x 64 x 2 = 2,048 B (bf16 KV); the 8,192 B state fits a 16-token page
    # (32,768 B); groups of 6 layers: one of the 6 attention layers, two of the 10 conv layers (padded to 12).
    # 1 GiB: 1 GiB / (32,768 x 6) = 5,461 blocks of 16 tokens, a token 6 x 2,048 = 12,288 B; a request of 32,768
    # tokens holds 2,048 attention blocks and 2 in each of the 2 state groups
    r = compute(CapacityInput(arch=_lfm2(), engine="vllm", kv_cache_dtype="auto", available_kv_bytes=GIB,
                              context_length=32768, engine_version="0.19.0",
                              settings={"max_num_batched_tokens": 8192}))
    assert r.block_size == 16
    assert r.pool_tokens == 5461 * 16
    # less the null block and the 4 state blocks (it was 5,461 - 1: the states were not counted)
    assert r.max_context_at_concurrency_1 == (5461 - 1 - 4) * 16
    assert any("10 linear/Mamba layers hold 8,192 B of state each per request (a convolution state alone: LFM2's "
               "short convolution)" in a and "3 KV cache groups of 6 layers" in a for a in r.assumptions)


def test_sglangs_lfm2_state_pool_is_not_sized():
    # SGLang's pool of LFM2's conv states was not read: the estimate stays the attention KV alone, as before
    r = compute(CapacityInput(arch=_lfm2(), engine="sglang", kv_cache_dtype="auto", available_kv_bytes=GIB,
                              context_length=32768, engine_version="0.5.9", settings={}))
    assert r.pool_tokens == GIB // 12_288
    assert any("10 linear/Mamba layers: fixed state per request (size unknown, not counted)" in a
               for a in r.assumptions)
