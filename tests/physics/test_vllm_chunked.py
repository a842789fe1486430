"""Llama 4's chunked layers on vLLM: bounded by their chunk only while vLLM keeps its hybrid KV cache manager,
which it turns off for chunked local attention by default in 0.10.1-0.13, with the variable unset to 0 from
0.14.0, and beside an EAGLE/MTP draft from 0.10.0 (ctxlint.physics.vllm_chunked).

The boot log: vLLM 0.12.0, Llama-4-Scout on 8x H200 at TP 8, 89.71 GiB of KV per GPU, "GPU KV cache size:
3,919,664 tokens", 2.96x concurrency at 5,242,880 tokens with the variable set to 1 and 1.86x at 8,388,608
(fuhengwu2021/coderepo@07c4f0a56b235af7f01327f7c495a5fb3c4dc75d:extra/HYBRID_KV_CACHE_ANALYSIS.md).
"""
from __future__ import annotations

import pytest

from helpers import run

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.logged import read_logged
from ctxlint.physics.vllm_chunked import ENV, allowed, chunked_whole, eagle_draft
from ctxlint.resolution.resolve import resolve

GIB = 1 << 30
SCOUT = resolve("meta-llama/Llama-4-Scout-17B-16E-Instruct")
LOGGED_KV, LOGGED_TOKENS = 89.71 * GIB, 3_919_664
WHY_012 = ("vLLM 0.12.0 disables the hybrid KV cache manager for chunked local attention unless "
           "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1: all 48 layers hold the full context")
# What 48 layers of 1 KV head x 128 x 2 x 2 B (whole) and 12 of them plus 36 chunked ones (bounded per request)
# give from the logged budget: 89.71 GiB / 24,576 B, and / 6,144 B (the chunked layers' share is per request).
WHOLE_POOL, HYBRID_POOL = 3_919_488, 15_677_952
EAGLE3 = {"method": "eagle3", "model": "nvidia/Llama-4-Scout-Eagle3", "num_speculative_tokens": 3}


def _estimate(version, ctx=5_242_880, budget=LOGGED_KV, draft=0, **settings):
    return estimate(CapacityInput(
        arch=SCOUT.arch, engine="vllm", accelerator="H200", tp=8, settings={"gpu_memory_utilization": 0.9,
                                                                             "max_model_len": ctx, **settings},
        available_kv_bytes=budget, context_length=ctx, weights=SCOUT.weights, engine_version=version,
        draft_layers=draft))


def test_the_012_boot_log_every_layer_holds_the_context():
    r = _estimate("0.12.0")
    assert r.pool_tokens == WHOLE_POOL
    assert abs(r.pool_tokens - LOGGED_TOKENS) / LOGGED_TOKENS < 0.005  # the calibration table's tolerance
    assert r.max_concurrency_at_context == 0.75 and r.fits is False  # not "fits 3.04x"
    assert WHY_012 in r.assumptions and r.layout == WHY_012
    assert any("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1" in s for s in r.suggestions)


@pytest.mark.parametrize("ctx, concurrency", [(5_242_880, 2.97), (8_388_608, 1.86)])
def test_the_variable_set_keeps_the_manager(ctx, concurrency):
    r = _estimate("0.12.0", ctx, **{ENV: "1"})
    assert r.pool_tokens == HYBRID_POOL and r.layout == ""
    assert r.max_concurrency_at_context == concurrency  # the log: 2.96x at 5,242,880, 1.86x at 8,388,608
    assert abs(r.reported_tokens - LOGGED_TOKENS) / LOGGED_TOKENS < 0.005  # the print: num_blocks // 4 x 16


def test_an_eagle_draft_turns_the_manager_off_in_every_release_from_0_10():
    for version in ("0.10.0", "0.14.0", "0.34.0"):
        r = _estimate(version, draft=1, speculative_config=EAGLE3, **{ENV: "1"})
        assert r.kv_bytes_per_token_per_gpu == 49 * 512  # 48 layers and the draft's, all whole
        assert r.layout == (f"vLLM {version} disables the hybrid KV cache manager for chunked local attention with "
                            "an EAGLE/MTP draft (speculative_config): all 48 layers hold the full context")
    assert _estimate("0.14.0", speculative_config={"method": "ngram", "num_speculative_tokens": 3}).layout == ""


@pytest.mark.parametrize("version, settings, pool", [
    ("0.9.0", {}, WHOLE_POOL),  # no hybrid manager at all (mem_vllm.hybrid_full): as before
    ("0.10.0", {}, HYBRID_POOL),  # ChunkedLocalAttentionSpec and no variable yet
    ("0.14.0", {}, HYBRID_POOL), ("0.17.0", {}, HYBRID_POOL), ("0.34.0", {}, HYBRID_POOL),  # default "1"
    ("0.14.0", {ENV: "0"}, WHOLE_POOL), ("0.13.0", {}, WHOLE_POOL), ("0.10.1", {}, WHOLE_POOL),
    ("0.10.1", {ENV: "1"}, HYBRID_POOL), ("0.9.2", {}, WHOLE_POOL),  # 0.9.x: chunked layers get a full spec
    ("0.17.0", {"disable_hybrid_kv_cache_manager": True}, WHOLE_POOL),
])
def test_each_release(version, settings, pool):
    assert _estimate(version, **settings).pool_tokens == pool


def test_an_unknown_release_spans_both_layouts():
    r = _estimate(None, budget=None)
    assert r.pool_tokens == 3_998_464 and r.pool_low == 3_821_200  # vLLM 0.12.0's rules: every layer whole
    # 0.17.0's: the chunked layers bounded, the light sampler, on H200's nvidia-smi Total (the band's top)
    assert r.pool_high == 17_306_880
    assert r.layout == WHY_012 and "(the longest request: vLLM 0.12.0's rules)" in r.rule
    assert r.pool_low <= _estimate("0.14.0", budget=None).pool_tokens <= r.pool_high  # no release of its own
    assert _estimate(None, budget=None, **{ENV: "0"}).pool_high < 4_400_000  # no release keeps the manager
    assert _estimate(None, budget=None, **{ENV: "1"}).pool_tokens == 4_231_360  # 0.8.5's, before the manager


@pytest.mark.parametrize("version, settings, draft, whole", [
    ("0.9.1", {}, False, True), ("0.10.0", {}, False, False), ("0.10.0", {}, True, True),
    ("0.10.1.1", {}, False, True), ("0.13.0", {ENV: "1"}, False, False), ("0.14.0", {}, False, False),
    ("0.14.0", {ENV: 0}, False, True), ("0.14.0", {ENV: "2"}, False, False), ("0.20.0", {ENV: False}, False, True),
    ("0.20.0", {"speculative_config": {"model": "yuhuili/EAGLE-LLaMA3-Instruct-8B"}}, False, True),
    (None, {}, False, True),
])
def test_chunked_whole(version, settings, draft, whole):
    assert bool(chunked_whole(version, settings, draft)) is whole


def test_a_value_vllm_cannot_read_stops_it_and_is_not_taken_as_set():
    assert allowed("0.14.0", {ENV: "true"}) == (False, " (set to 'true', which vLLM cannot read as a number)")
    assert chunked_whole("0.14.0", {ENV: "true"}).endswith("=1 (set to 'true', which vLLM cannot read as a number)")
    assert allowed("0.14.0", {}) == (True, "") and allowed("0.13.0", {}) == (False, "")


@pytest.mark.parametrize("spec, eagle", [
    ({"method": "eagle"}, True), ({"method": "EAGLE3"}, True), ({"method": "deepseek_mtp"}, True),
    ({"method": "mtp"}, True), ({"method": "ngram"}, False), ({"method": "draft_model", "model": "x"}, False),
    ({"model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}, True), ({"model": "meta-llama/Llama-3.2-1B"}, False),
    ("eagle", False), (None, False),
])
def test_eagle_draft(spec, eagle):
    assert eagle_draft({"speculative_config": spec}) is eagle


def test_a_logged_figure_of_0_17_is_read_by_groups_unless_the_variable_is_0():
    arch = SCOUT.arch
    read = read_logged(LOGGED_TOKENS, 16, arch, 0, {}, 5_242_880, "0.17.0", None, None)
    assert read is not None and {w.rule for w in read.ways} == {"groups"}
    assert read.held > LOGGED_TOKENS  # one request holds about the 4 groups' worth, less the chunks
    assert read_logged(LOGGED_TOKENS, 16, arch, 0, {ENV: "0"}, 5_242_880, "0.17.0", None, None) is None
    assert read_logged(LOGGED_TOKENS, 16, arch, 0, {}, 5_242_880, "0.12.0", None, None) is None  # the pool itself
    assert read_logged(LOGGED_TOKENS, 16, arch, 1, {}, 5_242_880, "0.17.0", None, None) is None  # EAGLE


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: scout}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H200}}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.12.0
        args: ["--model", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "--tensor-parallel-size", "8",
               "--max-model-len", "5242880"]
        env: [{{name: VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE, value: "{env}"}}]
        resources: {{limits: {{nvidia.com/gpu: "8"}}}}
"""


@pytest.mark.parametrize("env, found", [("0", True), ("1", False)])
def test_the_variable_reaches_the_estimate_from_the_pod(tmp_path, env, found):
    path = tmp_path / "d.yaml"
    path.write_text(DEPLOYMENT.format(env=env))
    out = run(["check", str(path), "--isolated"]).out
    assert ("CTX201 [error] 5,242,880 > " in out) is found, out
    if found:
        assert "(vLLM 0.12.0 disables the hybrid KV cache manager for chunked local attention unless " \
               "VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1 (set to '0'): all 48 layers hold the full " \
               "context)" in out
