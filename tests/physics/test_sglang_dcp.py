"""SGLang's decode context parallelism, the Mamba state's environment, unresolved attention DP/CP sizes and
DP attention's boolean (sglang==0.5.23:sglang/srt/mem_cache/kv_cache_configurator.py:406-415,
configs/model_config.py:1700-1711; sglang==0.5.9:sglang/srt/environ.py:439-440)."""
from __future__ import annotations

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import lookup_model
from ctxlint.physics.served import attention_replicas, decode_context_parallel, kv_tensor_parallel
from helpers import run

L70 = lookup_model("meta-llama/Llama-3.3-70B-Instruct")


def _run(arch, **s):
    return estimate(CapacityInput(arch, "sglang", "H200", tp=8, engine_version="0.5.23", settings=s))


def test_decode_context_parallelism_multiplies_what_one_request_holds() -> None:
    # Qwen3-235B (4 KV heads) at TP 8: one head a GPU, replicated; with --dcp-size 2 the heads go over 8 / 2 = 4
    # groups, still one a GPU, and a request's tokens over the 2 DCP ranks: 24,064 B per token of one request
    q = lookup_model("Qwen/Qwen3-235B-A22B")
    plain, dcp = _run(q), _run(q, dcp_size=2)
    assert (plain.kv_bytes_per_token_per_gpu, plain.pool_tokens) == (48_128, 1_516_250)
    assert (dcp.kv_bytes_per_token_per_gpu, dcp.pool_tokens) == (24_064, 3_032_500)
    assert "SGLang decode context parallelism: a request's tokens over 2 DCP ranks, KV heads over attention TP " \
           "8 / 2" in dcp.assumptions
    # Llama-3.3-70B (8 KV heads): 2 heads a row (81,920 B) over 2 ranks, what TP 8 alone gives
    assert (_run(L70, dcp_size=2).kv_bytes_per_token_per_gpu, _run(L70, dcp_size=2).pool_tokens) == (
        40_960, _run(L70).pool_tokens)
    # an MLA latent is whole on each rank: DeepSeek-V3's pool per request doubles
    v3 = lookup_model("deepseek-ai/DeepSeek-V3")
    a, b = _run(v3), _run(v3, dcp_size=2)
    assert (a.kv_bytes_per_token_per_gpu, a.pool_tokens, b.kv_bytes_per_token_per_gpu, b.pool_tokens) == (
        70_272, 663_205, 35_136, 1_326_411)
    assert "SGLang decode context parallelism: a request's tokens over 2 DCP ranks" in b.assumptions


def test_decode_context_parallelism_not_counted() -> None:
    assert decode_context_parallel("sglang", L70, {}, 8, False) == (1, "", False)
    assert decode_context_parallel("vllm", L70, {"dcp_size": 2}, 8, False) == (1, "", False)
    assert decode_context_parallel("sglang", L70, {"dcp_size": 3}, 8, False) == (
        1, "SGLang --dcp-size 3 does not divide attention TP 8: not counted", False)
    assert decode_context_parallel("sglang", L70, {"dcp_size": 2}, 8, True) == (
        1, "SGLang --dcp-size 2: a hybrid SWA pool is not widened over the DCP ranks", False)


def test_dcp_flag_spellings(tmp_path) -> None:
    # --decode-context-parallel-size is a flag from 0.5.15: read, not an unknown argument; no release given: KV heads
    # over attention TP as 0.5.15-0.5.17 size them (the larger pool: no false refusal)
    path = tmp_path / "serve.sh"
    path.write_text("python -m sglang.launch_server --model-path meta-llama/Llama-3.3-70B-Instruct --tp 8 "
                    "--decode-context-parallel-size 2 --context-length 131072\n")
    out = run(["check", "--isolated", "-q", str(path)]).out
    assert out.startswith(f"{path}:1:1: CTX208 [info] KV pool of unified not declared and not derivable: no "
                          "accelerator type (or available_kv_gib) is given; holding one request of 131,072 tokens "
                          "needs >= 28.6 (band 24-29.5) GiB per GPU at TP 8 ("), out
    assert out.count("\n") == 1


def test_dp_attention_is_on_only_when_true() -> None:
    # the flag parser gives True or False (engines/flag_values.convert); a string is not known to be on, as in
    # reserve_sglang.dp_attention_width
    assert kv_tensor_parallel("sglang", {"enable_dp_attention": "true", "dp_size": 4}, 8) == (8, "")
    assert kv_tensor_parallel("sglang", {"enable_dp_attention": True, "dp_size": 4}, 8) == (
        2, "SGLang splits KV heads over attention TP 2 (TP 8 / DP attention 4)")
    q = lookup_model("Qwen/Qwen3-235B-A22B")
    assert attention_replicas("sglang", q, {"enable_dp_attention": "true", "dp_size": 4}, 8) == (1, "")


def test_dcp_before_0_5_18_keeps_kv_heads_over_attention_tp() -> None:
    # 0.5.15-0.5.17 size a row by get_num_kv_heads(attn_tp) alone (sglang==0.5.15:sglang/srt/model_executor/
    # pool_configurator.py _compute_cell_size; sglang==0.5.17 the same) and still span max_total x dcp_size locations
    # (0.5.15 model_runner_kv_cache_mixin.py:1141-1143): Llama-3.3-70B at TP 8 --dcp-size 2 holds 1 head a row and
    # twice TP 8's tokens, not 0.5.18's 2 heads a row (a pool half its size: a false CTX201)
    def at(version, **s):
        return estimate(CapacityInput(L70, "sglang", "H200", tp=8, engine_version=version, settings=s))
    plain, old, new = at("0.5.15"), at("0.5.15", dcp_size=2), at("0.5.18", dcp_size=2)
    assert old.kv_bytes_per_token_per_gpu == plain.kv_bytes_per_token_per_gpu / 2 == 20_480
    assert new.kv_bytes_per_token_per_gpu == 40_960
    assert at("0.5.17", dcp_size=2).kv_bytes_per_token_per_gpu == 20_480
    assert at("0.5.23", dcp_size=2).kv_bytes_per_token_per_gpu == 40_960
