"""Engine memory semantics, suggestions, and 'never raise' on odd input."""
from __future__ import annotations

import dataclasses
import json

from hypothesis import given, settings, strategies as st

from ctxlint.physics.budget import sglang_auto_mem_fraction
from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import lookup_model

GiB = 1 << 30
L8, L70 = lookup_model("Llama-3.1-8B"), lookup_model("Llama-3.1-70B")


def test_sglang_auto_fraction_h100() -> None:
    # engines.md §2.1: H100 81559 MiB, tp1, chunk 8192, max_bs 256 -> 0.835
    assert sglang_auto_mem_fraction(81559, 1, 1)[0] == 0.835


def test_vllm_num_gpu_blocks_override() -> None:
    r = estimate(CapacityInput(L8, "vllm", "H100", settings={"num_gpu_blocks_override": 1000}, context_length=16_000))
    assert (r.pool_tokens, r.max_context_at_concurrency_1, r.fits) == (16_000, 15_984, False)  # null block


def test_vllm_kv_cache_memory_bytes() -> None:
    r = estimate(CapacityInput(L8, "vllm", None, settings={"kv_cache_memory_bytes": 10 * GiB}))
    assert r.pool_tokens == 10 * GiB // 131_072 // 16 * 16 == 81_920


def test_sglang_max_total_tokens_is_upper_bound() -> None:
    s = {"mem_fraction_static": 0.88}
    big = estimate(CapacityInput(L8, "sglang", "H100", settings={**s, "max_total_tokens": 10**9}))
    small = estimate(CapacityInput(L8, "sglang", "H100", settings={**s, "max_total_tokens": 100_000}))
    assert big.pool_tokens == estimate(CapacityInput(L8, "sglang", "H100", settings=s)).pool_tokens
    assert small.pool_tokens == 100_000


def test_lmdeploy_blocks_and_trtllm_max_tokens() -> None:
    r = estimate(CapacityInput(L8, "lmdeploy", "H100", settings={"cache_max_entry_count": 100}))
    assert r.pool_tokens == 6_400
    r = estimate(CapacityInput(L8, "trtllm", "H100", settings={"max_tokens": 50_000}))
    assert r.pool_tokens == 49_984  # floored to tokens_per_block 32


def test_block_rounding_per_engine() -> None:
    # vLLM's default block is 16 before 0.34.0 and 64 from it (vllm_block.py); a given budget of no stated
    # release is read in 16-token blocks, as every log before 0.34 shows
    for eng, block, version in [("vllm", 16, "0.33.0"), ("vllm", 64, "0.34.0"), ("vllm", 16, None),
                                ("sglang", 1, None), ("trtllm", 32, None), ("lmdeploy", 64, None)]:
        r = estimate(CapacityInput(L8, eng, None, available_kv_bytes=10 * GiB + 12345, engine_version=version))
        assert r.block_size == block and r.pool_tokens % block == 0


def test_suggestions_are_computed() -> None:
    r = estimate(CapacityInput(L70, "vllm", "H100", tp=4, settings={"gpu_memory_utilization": 0.6},
                               context_length=180_000))
    assert r.fits is False and r.errors
    text = " ".join(r.suggestions)
    assert "gpu_memory_utilization" in text and "kv_cache_dtype=fp8" in text and "lower context_length" in text
    # applying the fraction suggestion makes it fit
    v = float(next(s for s in r.suggestions if "gpu_memory_utilization" in s).split()[-1])
    again = estimate(CapacityInput(L70, "vllm", "H100", tp=4, settings={"gpu_memory_utilization": v},
                                   context_length=180_000))
    assert again.fits is True


def test_missing_facts_explained() -> None:
    arch = dataclasses.replace(L8, total_params_b=None)
    r = estimate(CapacityInput(arch, "vllm", "H100", context_length=8192))
    assert r.pool_tokens is None and any("parameter count" in e for e in r.errors)
    r = estimate(CapacityInput(None, "vllm", "H100"))
    assert r.errors and r.kv_bytes_per_token_per_gpu is None
    r = estimate(CapacityInput(L8, "vllm", "Z80"))
    assert any("unknown accelerator" in e for e in r.errors)
    r = estimate(CapacityInput(L70, "tgi", "H100", tp=16))
    assert any("0 heads" in e for e in r.errors)


def test_to_dict_is_json() -> None:
    r = estimate(CapacityInput(L8, "sglang", "H100", context_length=131_072))
    d = json.loads(json.dumps(r.to_dict()))
    assert d["pool_tokens"] == r.pool_tokens and d["steps"][0]["label"] == "KV bytes/token/GPU"


odd = st.one_of(st.none(), st.integers(-5, 10**7), st.floats(allow_nan=True), st.text(max_size=8), st.booleans())


@settings(max_examples=150, deadline=None)
@given(engine=st.sampled_from(["vllm", "sglang", "tgi", "trtllm", "lmdeploy", "llamacpp", "foo", ""]),
       acc=st.one_of(st.none(), st.sampled_from(["H100", "L4", "T4", "nope"])), tp=odd, pp=odd, ctx=odd,
       dtype=st.one_of(st.none(), st.sampled_from(["auto", "fp8", "nvfp4", "bogus", ""])), avail=odd,
       knob=odd, draft=odd, arch=st.sampled_from([L8, L70, lookup_model("gpt-oss-120b"), lookup_model("DeepSeek-V3"), None]))
def test_never_raises(engine, acc, tp, pp, ctx, dtype, avail, knob, draft, arch) -> None:
    s = {"gpu_memory_utilization": knob, "mem_fraction_static": knob, "max_total_tokens": knob,
         "num_gpu_blocks_override": knob, "ctx_size": knob, "block_size": knob}
    r = estimate(CapacityInput(arch, engine, acc, tp=tp, pp=pp, kv_cache_dtype=dtype, settings=s,
                               available_kv_bytes=avail, context_length=ctx, draft_layers=draft))
    assert isinstance(r.errors, tuple)
    json.dumps(r.to_dict(), default=str)


def test_vllm_0_2_5_to_0_6_3_across_gpus_is_a_wide_band() -> None:
    # vllm#2031/#2136: those releases' multi-GPU profile counted NCCL and allocator memory; one GPU is as modelled
    modern = estimate(CapacityInput(L70, "vllm", "A100-80GB", tp=4, engine_version="0.6.4"))
    old = estimate(CapacityInput(L70, "vllm", "A100-80GB", tp=4, engine_version="0.3.2"))
    assert old.kv_budget_bytes_per_gpu == modern.kv_budget_bytes_per_gpu * 0.66
    assert old.pool_low < modern.pool_tokens / 13 and old.pool_high < modern.pool_high * 0.7
    assert any("vllm-project/vllm#2136" in a for a in old.assumptions)
    before_fix = estimate(CapacityInput(L70, "vllm", "A100-80GB", tp=4, engine_version="0.2.4"))
    assert before_fix.pool_tokens == modern.pool_tokens
    one_gpu = estimate(CapacityInput(L8, "vllm", "A100-80GB", engine_version="0.3.2"))
    assert one_gpu.pool_tokens == estimate(CapacityInput(L8, "vllm", "A100-80GB", engine_version="0.6.4")).pool_tokens


def test_vllm_data_parallel_spreads_the_routed_experts() -> None:
    # vLLM's FusedMoEParallelConfig.make flattens TP across DP: DeepSeek-R1's routed experts (97% of its FP8
    # bytes) sit on TP x DP ranks; attention and shared experts stay whole on each DP rank. Before, 626.67 GiB
    # per GPU at DP 16 was a false CTX203 on every wide-EP recipe that named its GPU.
    r1 = lookup_model("deepseek-ai/DeepSeek-R1")
    one = estimate(CapacityInput(r1, "vllm", "H200", engine_version="0.11.0"))
    wide = estimate(CapacityInput(r1, "vllm", "H200", dp=16, engine_version="0.11.0",
                                  settings={"data_parallel_size": 16, "enable_expert_parallel": True},
                                  context_length=32_768))
    assert one.weights_bytes_per_gpu / GiB > 600
    assert 50 < wide.weights_bytes_per_gpu / GiB < 60 and wide.fits
    eplb = estimate(CapacityInput(r1, "vllm", "H200", dp=16, engine_version="0.11.0", settings={
        "data_parallel_size": 16, "enable_expert_parallel": True, "enable_eplb": True,
        "eplb_config": {"num_redundant_experts": 32}}))
    assert eplb.weights_bytes_per_gpu > wide.weights_bytes_per_gpu  # redundant experts take room
    # a dense model is not split by DP: each rank holds all of it
    assert estimate(CapacityInput(L70, "vllm", "H200", dp=4, settings={"data_parallel_size": 4})) \
        .weights_bytes_per_gpu == estimate(CapacityInput(L70, "vllm", "H200")).weights_bytes_per_gpu


def test_sglang_dp_attention_holds_attention_weights_per_dp_group() -> None:
    # --enable-dp-attention runs attention at TP / dp_size: DeepSeek-R1's non-expert weights (~20 GiB of FP8 and
    # bf16) sit whole on each GPU at TP 8 / DP 8, not an eighth of them (an optimistic pool before)
    r1 = lookup_model("deepseek-ai/DeepSeek-R1")
    plain = estimate(CapacityInput(r1, "sglang", "H200", tp=8, engine_version="0.5.0"))
    dpa = estimate(CapacityInput(r1, "sglang", "H200", tp=8, engine_version="0.5.0",
                                 settings={"enable_dp_attention": True, "dp_size": 8}))
    extra = (dpa.weights_bytes_per_gpu - plain.weights_bytes_per_gpu) / GiB
    assert 12 < extra < 20 and dpa.pool_tokens < plain.pool_tokens
    # a dense model, or DP attention off, is unchanged
    assert estimate(CapacityInput(L70, "sglang", "H200", tp=8, settings={"enable_dp_attention": True, "dp_size": 8})) \
        .weights_bytes_per_gpu == estimate(CapacityInput(L70, "sglang", "H200", tp=8)).weights_bytes_per_gpu


@settings(max_examples=60, deadline=None)
@given(engine=st.sampled_from(["vllm", "sglang", "tgi", "trtllm", "lmdeploy"]), tp=st.sampled_from([1, 2, 4, 8]),
       device=st.sampled_from(["L4", "A100-80GB", "H100"]), model=st.sampled_from([L8, L70]))
def test_the_point_estimate_lies_inside_its_band(engine, tp, device, model) -> None:
    # sweep: TensorRT-LLM's warmup peak was divided by TP at its point but not at its band's low end,
    # so at TP > 1 the point pool lay above the band (a CTX101 against a pool larger than its band's top)
    r = estimate(CapacityInput(model, engine, device, tp=tp, accelerator_count=tp, context_length=8192))
    if r.pool_tokens is None or not r.banded:
        return
    assert r.pool_low <= r.pool_tokens <= r.pool_high, (engine, tp, device, model.name)
