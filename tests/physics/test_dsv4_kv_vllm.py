"""DeepSeek-V4's KV cache on vLLM 0.20.0-0.23.0 (physics.dsv4_kv), pinned against what vLLM logged in
vllm-project/vllm#44376: DeepSeek-V4-Flash, fp8 KV, block 256, TP 2, LLM's 16,384 batched tokens on a GH200,
max_model_len 30,000: "6.66 GiB KV cache is needed, which is larger than the available KV cache memory (5.44 GiB)
... the estimated maximum model length is 13528". The spec sum that ignored vLLM's groups gave 5.09 GiB."""
from __future__ import annotations

import pytest

from ctxlint.physics.dsv4_kv import layout, request_blocks, vllm_breakdown, why_not_sized
from ctxlint.physics.kv import kv_breakdown
from ctxlint.physics.models import lookup_model
from ctxlint.physics.pool import _longest, startup_longest, window_cost

GIB = 2 ** 30
ISSUE = {"block_size": 256, "max_num_batched_tokens": 16384}


def _flash():
    return lookup_model("deepseek-ai/DeepSeek-V4-Flash")


def test_the_layout_vllm_makes_of_v4_flash():
    arch = _flash()
    assert (arch.compress_ratios.count(0), arch.compress_ratios.count(4), arch.compress_ratios.count(128)) == (2, 21, 20)
    lay = layout(arch.compress_ratios, 128, 256, 16384, 128, 0)
    # compressed group's tuple: c4 37,440 + indexer 8,640 + c128 1,728 (each rounded up to 576 B)
    assert lay["tuple_bytes"] == 47808 and lay["tuples"] == 22
    # 43 window caches in 2 groups of block 64, the ratio-4 states (block 4, window 8), the ratio-128 (8, 128)
    assert lay["windows"] == [(2, 16511, 64), (1, 16391, 4), (1, 16511, 8)]


def test_the_need_vllm_logged_for_30000_tokens():
    lay = layout(_flash().compress_ratios, 128, 256, 16384, 128, 0)
    page = lay["tuples"] * lay["tuple_bytes"]
    blocks = request_blocks(lay, 256, 30000)
    assert blocks == 6800 and blocks * page == 7_152_076_800
    assert f"{blocks * page / GIB:.2f}" == "6.66"


def test_the_longest_length_vllm_estimated_for_its_memory():
    lay = layout(_flash().compress_ratios, 128, 256, 16384, 128, 0)
    page = lay["tuples"] * lay["tuple_bytes"]
    need = [request_blocks(lay, 256, n) * page for n in (13528, 13529)]
    assert need == [5_841_563_904, 5_843_667_456]
    # any memory vLLM prints as 5.44 GiB that holds 13,528 tokens holds no more: vLLM's own bisection
    available = need[0]
    low, high = 1, 30000
    while low < high:
        mid = (low + high + 1) // 2
        low, high = (mid, high) if request_blocks(lay, 256, mid) * page <= available else (low, mid - 1)
    assert low == 13528 and f"{available / GIB:.2f}" == f"{(need[1] - 1) / GIB:.2f}" == "5.44"


def test_the_breakdown_as_the_pool_reads_it():
    br = vllm_breakdown(_flash(), "0.22.0", ISSUE, "fp8", 0, 1, 1)
    assert br.bytes_per_token == 22 * 47808 / 256 == 4108.5
    # a request of 30,000 tokens: its own 118 blocks and 6,682 in the window groups, 256 tokens a block
    assert window_cost(br.bounded_span, 256, br.bytes_per_token, 30000) == (6800 - 118) * 256
    # the longest context the blocks of 5.44 GiB hold, in tokens as vLLM's startup check bisects them: vLLM's own
    # estimate (in whole 256-token blocks it was 13,312: 13,500 read as refused where vLLM starts)
    blocks = 5_841_563_904 // (22 * 47808)
    assert startup_longest(br.bounded_span, 256, br.bytes_per_token, blocks * 256) == 13528
    # one request at run time: the null block is not its own
    lay = layout(_flash().compress_ratios, 128, 256, 16384, 128, 0)
    held = _longest((blocks - 1) * 256, 256, br.bytes_per_token, br.bounded_span)
    assert held == 13524 and request_blocks(lay, 256, held) == blocks - 1 < request_blocks(lay, 256, held + 1)


def test_v4_pro_groups():
    lay = layout(lookup_model("deepseek-ai/DeepSeek-V4-Pro").compress_ratios, 128, 256, 16384, 128, 1)
    assert lay["tuple_bytes"] == 47808 and lay["tuples"] == 31  # 31 ratio-128 layers; 61 + 1 MTP window caches
    assert lay["windows"] == [(2, 16511, 64), (1, 16391, 4), (1, 16511, 8)]


@pytest.mark.parametrize("version, settings, dtype, why", [
    ("0.19.1", ISSUE, "fp8", "vLLM 0.19.1's DeepSeek-V4 layout was not read (read: 0.20.0, 0.20.1, 0.21.0, 0.22.0, "
                             "0.23.0)"),
    (None, ISSUE, "fp8", "vLLM (version unknown)'s DeepSeek-V4 layout was not read"),
    ("0.22.0", ISSUE, "auto", "vLLM's FlashMLA layout for DeepSeek-V4 asserts an fp8 KV cache; --kv-cache-dtype auto "
                              "was not read"),
    ("0.23.0", {**ISSUE, "attention_backend": "FLASHINFER_MLA_SPARSE_DSV4"}, "fp8",
     "the FlashInfer backend's plain-row DeepSeek-V4 layout was not read"),
    ("0.22.0", {"max_num_batched_tokens": 8192}, "fp8", "here state --block-size (a multiple of 256, the V4 "
                                                        "FlashMLA kernels' block); state the pool"),
    # 384 would hold 3 tokens a ratio-128 block, but the V4 FlashMLA backend's kernel block is 256 alone
    ("0.22.0", {**ISSUE, "block_size": 384}, "fp8", "here DeepSeek-V4's FlashMLA kernels take 256-token blocks: "
                                                    "state --block-size (a multiple of 256; vLLM refuses others)"),
    ("0.22.0", {"block_size": 256}, "fp8", "whose default differs by release and device: state "
                                           "--max-num-batched-tokens"),
])
def test_what_is_not_read_stays_unknown_and_says_why(version, settings, dtype, why):
    with pytest.raises(ValueError) as err:
        vllm_breakdown(_flash(), version, settings, dtype, 0, 1, 1)
    assert why in str(err.value) and str(err.value).endswith("annotation on a workload)")


def test_pipeline_stages_are_not_read():
    with pytest.raises(ValueError, match="pipeline stages or decode context parallel ranks were not read"):
        vllm_breakdown(_flash(), "0.22.0", ISSUE, "fp8", 0, 2, 1)


@pytest.mark.parametrize("engine, detail", [
    ("sglang", "SGLang's pools are sized for the releases read only (0.5.12, 0.5.12.post1, 0.5.13, 0.5.13.post1, "
               "0.5.14, and the nightly builds 425dffbd, 14f81a67)"),
    # its cache manager was read; the pool-ratio solver that divides the memory among the pools was not
    ("tensorrt-llm", "TensorRT-LLM keeps DeepSeek-V4's window, compressed, indexer and compressor-state caches as "
                     "separate KVCacheManagerV2 pools (DeepseekV4CacheManager, NVIDIA/TensorRT-LLM@10ce7685b1fbf165e784"
                     "a72f53350ee094d584d9:tensorrt_llm/_torch/attention_backend/sparse/deepseek_v4/cache_manager.py) "
                     "whose shares of the memory its pool-ratio solver sets from max_batch_size, max_seq_len, "
                     "max_input_len and max_num_tokens, and admits requests by bytes, not tokens; that solver "
                     "(tensorrt_llm/runtime/kv_cache_manager_v2) has not been read, so no token pool is given"),
])
def test_other_engines_say_what_is_missing(engine, detail):
    with pytest.raises(ValueError) as err:
        kv_breakdown(lookup_model("deepseek-ai/DeepSeek-V4-Pro"), engine, tp=8, kv_cache_dtype="fp8")
    assert f"releases; {detail}; state the pool the engine logs" in str(err.value)
    assert why_not_sized("mystery") == ("how mystery sizes DeepSeek-V4's window, compressed and compressor-state "
                                        "pools has not been read from its code")
