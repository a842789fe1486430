"""SGLang's state pool for linear-attention / Mamba models: sized per release as handle_max_mamba_cache does,
taken out of the KV budget before the token pool (physics/mamba_sglang.py)."""
from __future__ import annotations

import pytest

from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.hf_config import arch_from_hf_config
from ctxlint.physics.mamba_sglang import per_request, state_pool
from ctxlint.records import replace

GIB = 1 << 30


def _next(**extra):
    """A Qwen3-Next-shaped hybrid: 48 layers, every 4th full attention (2 KV heads x 256), gated delta net."""
    cfg = {"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "num_hidden_layers": 48,
           "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "hidden_size": 2048,
           "full_attention_interval": 4, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
           "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4,
           "torch_dtype": "bfloat16"}
    cfg.update(extra)
    return replace(arch_from_hf_config(cfg, "next"), total_params_b=80.0)


def _nemotron():
    return arch_from_hf_config({"model_type": "nemotron_h", "num_hidden_layers": 4, "num_attention_heads": 8,
                                "num_key_value_heads": 2, "head_dim": 128, "hidden_size": 1024,
                                "hybrid_override_pattern": "M-M*", "mamba_num_heads": 16, "mamba_head_dim": 64,
                                "ssm_state_size": 128, "n_groups": 1, "conv_kernel": 4, "torch_dtype": "bfloat16",
                                "total_params_b": 1}, "m2")


# TP 4: conv (2 x 16 x 128 + 32 x 128) / 4 x 3 x 2 B (bfloat16) + temporal 32 / 4 x 128 x 128 x 4 B (float32),
# x 36 gated delta net layers (Qwen3NextConfig.mamba_cache_per_req, sgl-project/sglang@v0.5.2)
PER = (2048 * 3 * 2 + 8 * 128 * 128 * 4) * 36


def test_one_requests_state_is_every_linear_layer_in_sglangs_dtypes():
    assert per_request(_next(), 4, {}, "0.5.9") == (PER, "float32")
    assert PER == 19_316_736
    # --mamba-ssm-dtype bfloat16 halves the temporal state; the conv state stays bfloat16 whatever the model
    assert per_request(_next(), 4, {"mamba_ssm_dtype": "bfloat16"}, "0.5.9")[0] == (2048 * 3 * 2 + 8 * 16384 * 2) * 36


REST = 20 * GIB


@pytest.mark.parametrize("version, settings, requests", [
    ("0.5.3", {}, 512),                                   # radix cache forced off: 512 states
    ("0.5.3", {"max_running_requests": 64}, 64),           # or --max-running-requests
    ("0.5.5", {}, int(REST * 0.9 / 1.9 // PER)),            # radix cache on: the 0.9 ratio
    ("0.5.5", {"max_mamba_cache_size": 100}, int(REST * 0.9 / 1.9 // PER)),  # the ratio overrides it
    ("0.5.5", {"disable_radix_cache": True}, 512),
    ("0.5.7", {"max_mamba_cache_size": 100}, 100),  # kept from 0.5.7, radix cache on (review 18)
    ("0.5.8", {"max_mamba_cache_size": 100}, 100),
    ("0.5.7", {}, int(REST * 0.9 / 1.9 // PER)),
    ("0.5.9", {"max_mamba_cache_size": 100}, 100),
    ("0.5.9", {"disable_radix_cache": True, "max_running_requests": 48}, 48),
    ("0.5.9", {"disable_radix_cache": True}, int(REST * 0.9 / 1.9 // PER)),  # no 512 any more
    ("0.5.9", {"mamba_full_memory_ratio": 0.5}, int(REST * 0.5 / 1.5 // PER)),
    ("0.5.17", {}, int((REST * 0.9 / 1.9 - PER) // PER)),  # the pool's padding slot
    ("0.5.9", {"max_mamba_cache_size": 100, "enable_dp_attention": True, "dp_size": 4}, 25),
])
def test_the_state_pool_follows_the_release(version, settings, requests):
    pool = state_pool(_next(), 4, settings, version, REST, REST, REST)
    assert pool.requests == requests
    # under DP attention 4 at TP 4 each GPU holds a request's whole state (the attention TP is 1:
    # sglang-0.5.21 wheel: sglang/srt/configs/qwen3_next.py:301, tp_world_size=attn_tp_size)
    whole = 4 if settings.get("enable_dp_attention") else 1
    assert pool.point == requests * PER * whole


def test_mamba2_models_kept_the_radix_cache_off_until_0_5_7():
    arch = _nemotron()
    assert state_pool(arch, 1, {}, "0.5.5", REST, REST, REST).requests == 512
    assert state_pool(arch, 1, {}, "0.5.8", REST, REST, REST).requests > 512


def test_an_unknown_release_spans_the_rules():
    pool = state_pool(_next(), 4, {"max_running_requests": 64}, None, REST, REST, REST)
    ratio = int((REST * 0.9 / 1.9 - PER) // PER)
    assert pool.requests == ratio and pool.point == ratio * PER and pool.low == ratio * PER
    assert pool.high == 64 * PER
    assert "release unknown" in pool.note


def _sglang(arch, version, **settings):
    return compute(CapacityInput(arch=arch, engine="sglang", tp=4, accelerator="H100", context_length=262144,
                                 engine_version=version, settings={"mem_fraction_static": 0.85, **settings}))


def test_the_token_pool_is_what_the_states_leave():
    r = _sglang(_next(), "0.5.9")
    steps = {label: value for label, _, value in r.steps}
    kv = steps["KV budget"]
    assert steps["state pool"] == int((kv + steps["state pool"]) * 0.9 / 1.9 // PER) * PER
    # only the 12 full-attention layers cost bytes per token: 12 x 1 head (2 over TP 4, replicated) x 256 x 2 x 2
    assert r.kv_bytes_per_token_per_gpu == 12 * 256 * 2 * 2
    assert r.pool_tokens == int(kv // (12 * 256 * 2 * 2))
    note = next(a for a in r.assumptions if a.startswith("SGLang state pool"))
    assert "requests' state" in note and "GiB per GPU" in note and "max_running_requests <=" in note


def test_vllm_is_unchanged():
    r = compute(CapacityInput(arch=_next(), engine="vllm", tp=4, accelerator="H100", context_length=262144,
                              engine_version="0.24.0", settings={}))
    assert not any("state pool" in label for label, _, _ in r.steps)


def test_the_state_dtypes_environment_from_0_5_9():
    # SGLANG_MAMBA_SSM_DTYPE / SGLANG_MAMBA_CONV_DTYPE, read from 0.5.9 (sglang==0.5.9:sglang/srt/environ.py:439-440);
    # up to 0.5.8 --mamba-ssm-dtype (float32) overwrote the first (sglang==0.5.8:sglang/srt/server_args.py:2391)
    # and the conv state was bfloat16 (configs/mamba_utils.py:44)
    env = {"SGLANG_MAMBA_SSM_DTYPE": "bfloat16", "SGLANG_MAMBA_CONV_DTYPE": "float32"}
    assert per_request(_next(), 4, env, "0.5.9") == ((2048 * 3 * 4 + 8 * 16384 * 2) * 36, "bfloat16")
    assert per_request(_next(), 4, env, "0.5.8") == (PER, "float32")
    # the flag wins over the environment (configs/mamba_utils.py:50-53, server_args sets the env from it)
    assert per_request(_next(), 4, {**env, "mamba_ssm_dtype": "float32"}, "0.5.9")[1] == "float32"


def test_the_environment_reaches_the_state_dtypes():
    from ctxlint.engines.flags_sglang import ENGINE_ENV
    assert {(e.name, e.kind, e.default) for e in ENGINE_ENV if "MAMBA" in e.name} == {
        ("SGLANG_MAMBA_SSM_DTYPE", "str", None), ("SGLANG_MAMBA_CONV_DTYPE", "str", "bfloat16")}


def test_a_launch_scripts_environment_sizes_the_state(tmp_path):
    from helpers import run
    path = tmp_path / "serve.sh"
    pools = []
    for env in ("", "export SGLANG_MAMBA_SSM_DTYPE=bfloat16\n"):
        path.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h200:4\n" + env + "python -m sglang.launch_server "
                        "--model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp 4 --context-length 262144\n")
        pools.append(run(["audit", "--isolated", "--format", "csv", str(path)]).out.splitlines()[1].split(",")[9])
    assert pools == ["3666923", "3666203"]  # the same pool twice before the variable was wired
