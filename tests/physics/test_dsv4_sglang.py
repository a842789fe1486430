"""DeepSeek-V4's pools on SGLang (physics.dsv4_sglang), for the releases and nightly builds whose
DSV4PoolConfigurator was read (sgl-project/sglang 35870d55ac to v0.5.14), pinned against a startup log of V4-Flash
(swa_full_tokens_ratio 0.1, no draft) quoted in a public log-pattern catalogue for SGLang: "DSv4 memory calculation:
bytes_per_full_token=15955.85, available_bytes=19.58 GB, full_token=1317632" (2026-05-15)."""
from __future__ import annotations

import json

import pytest

from helpers import run
from ctxlint.engines.nightly_build import sglang_build
from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.physics.dsv4_sglang import bytes_per_full_token, sglang_breakdown
from ctxlint.physics.models import lookup_model

GIB = 2 ** 30


def _arch(name="deepseek-ai/DeepSeek-V4-Flash"):
    return lookup_model(name)


def _pool(version, available_gib, build=None, settings=None, draft=0, dtype="auto"):
    return compute(CapacityInput(arch=_arch(), engine="sglang", accelerator="H200", accelerator_count=4, tp=4,
                                 settings=settings or {}, available_kv_bytes=available_gib * GIB, draft_layers=draft,
                                 kv_cache_dtype=dtype, engine_version=version, engine_build=build))


def test_the_bytes_per_full_token_sglang_logged_for_v4_flash():
    # up to a8c82c652 SGLang counts every compress_ratios entry, the MTP layer's 0 too: 44 for Flash's 43 layers
    assert f"{sglang_breakdown(_arch(), '0.5.12', {}, 'auto', 0, 1).bytes_per_token:.2f}" == "15955.85"
    # from it the model's layers only (the PP stage's slice): 0.1 x 584 B less
    assert f"{sglang_breakdown(_arch(), '0.5.13', {}, 'auto', 0, 1).bytes_per_token:.2f}" == "15897.45"


def test_the_full_pool_sglang_logged_for_its_memory():
    # 19.58 GB as SGLang prints it (two decimals of GiB): the pool at each end of that rounding brackets the log
    low, high = _pool("0.5.12", 19.575).pool_tokens, _pool("0.5.12", 19.585).pool_tokens
    assert low <= 1_317_632 <= high and low % 256 == high % 256 == 0
    assert (low, high) == (1_317_120, 1_317_888)


def test_ratio_draft_and_online_compressor_terms():
    ratios = _arch("deepseek-ai/DeepSeek-V4-Pro").compress_ratios  # 30 ratio-4, 31 ratio-128 layers
    assert round(bytes_per_full_token(ratios, 0.1, False), 2) == 23691.44
    # EAGLE: rings of 16 and 256 states, and (61 + 1) / 61 for the draft worker's window pool
    assert round(bytes_per_full_token(ratios, 0.15, True), 2) == 55604.69
    # SGLANG_OPT_USE_ONLINE_COMPRESS: one 3 x 512 fp32 state per 128 tokens of the window pool
    assert round(bytes_per_full_token(ratios, 0.02, False, True), 2) == 6637.68


def test_page_ratio_and_spec_read_from_the_settings():
    br = sglang_breakdown(_arch(), "build:14f81a67", {"swa_full_tokens_ratio": "0.02",
                                                      "speculative_algorithm": "EAGLE"}, "fp8_e4m3", 1, 1)
    assert round(br.bytes_per_token, 2) == round(bytes_per_full_token(_arch().compress_ratios, 0.02, True), 2)
    assert "SGLang nightly build 14f81a67" in br.notes[0]
    # --swa-full-tokens-ratio at SGLang's default 0.8, stated or not, is 0.1 for V4 (deepseek_v4_hook)
    assert sglang_breakdown(_arch(), "0.5.13", {"swa_full_tokens_ratio": 0.80}, "auto", 0, 1).bytes_per_token == \
        sglang_breakdown(_arch(), "0.5.13", {}, "auto", 0, 1).bytes_per_token
    # SGLang pages DeepSeek-V4 by 256 whatever --page-size says
    res = _pool("0.5.13", 19.58, settings={"page_size": 64})
    assert res.block_size == 256 and res.pool_tokens % 256 == 0


@pytest.mark.parametrize("version, build, settings, dtype, draft, pp, why", [
    ("0.5.15", None, {}, "auto", 0, 1, "SGLang 0.5.15: its DeepSeek-V4 pool sizing was not read"),
    (None, None, {}, "auto", 0, 1, "the SGLang release is not named (an image tag or version would name it), and DeepSeek-V4's pool sizing differs"),
    (None, "deadbeef", {}, "auto", 0, 1, "the nightly build deadbeef: its DeepSeek-V4 pool sizing was not read"),
    ("0.5.13", None, {}, "bf16", 0, 1, "SGLang asserts --kv-cache-dtype fp8_e4m3 for DeepSeek-V4"),
    ("0.5.13", None, {}, "auto", 0, 2, "pools over pipeline stages were not read"),
    ("0.5.13", None, {"SGLANG_OPT_USE_ONLINE_COMPRESS": "1"}, "auto", 1, 1,
     "assert that the online c128 compressor (SGLANG_OPT_USE_ONLINE_COMPRESS) runs without speculative decoding"),
    ("0.5.13", None, {"SGLANG_OPT_USE_ONLINE_COMPRESS": "maybe"}, "auto", 0, 1, "is not a boolean SGLang reads"),
    ("0.5.14", None, {"SGLANG_DSV4_COMPRESS_STATE_DTYPE": "bf16"}, "auto", 0, 1, "16-bit compressor states"),
    ("0.5.13", None, {"swa_full_tokens_ratio": "1.5"}, "auto", 0, 1, "is not a ratio in (0, 1]"),
    ("0.5.13", None, {"enable_hisparse": True}, "auto", 0, 1, "HiSparse shrinks the ratio-4 pool"),
    ("0.5.13", None, {"enable_dsa_prefill_context_parallel": True}, "auto", 0, 1, "under context parallelism"),
])
def test_what_is_not_read_stays_unknown_and_says_why(version, build, settings, dtype, draft, pp, why):
    release = f"build:{build}" if build else version
    with pytest.raises(ValueError, match="sized on SGLang as the releases read size it") as err:
        sglang_breakdown(_arch(), release, settings, dtype, draft, pp)
    assert why in str(err.value)
    if pp == 1:  # the estimate has no pool, and says why
        res = _pool(version, 19.58, build, settings, draft, dtype)
        assert res.pool_tokens is None and any(why in e for e in res.errors)


def test_a_nightly_image_names_its_commit():
    assert sglang_build("lmsysorg/sglang:nightly-dev-20260527-14f81a67") == "14f81a67"
    assert sglang_build("lmsysorg/sglang:nightly-dev-cu13-20260520-425dffbd") == "425dffbd"
    for image in ("lmsysorg/sglang:v0.5.13", "lmsysorg/sglang:nightly", "nvcr.io/nvidia/ai-dynamo/sglang-runtime:"
                  "1.2.0-sglang-deepseek-v4-b200-dev.1", "dynamo-sglang", "me/sglang:nightly-dev-20260527-14f81a67"):
        assert sglang_build(image) is None


@pytest.mark.parametrize("image, flag, why", [
    # the switches as a command line gives them: before, SGLang's flag table had none of them, so the settings never
    # held them and the pool was sized as without (HiSparse's smaller ratio-4 pool gives SGLang a larger full pool)
    ("v0.5.13", "--enable-hisparse", "HiSparse shrinks the ratio-4 pool by its host-to-device ratio, not modelled"),
    ("v0.5.12", "--enable-nsa-prefill-context-parallel", "pools under context parallelism were not read"),
    ("v0.5.13", "--enable-dsa-prefill-context-parallel", "pools under context parallelism were not read"),
    ("v0.5.14", "--enable-prefill-cp", "pools under context parallelism were not read"),
    ("v0.5.14", "--attn-cp-size=2", "pools under context parallelism were not read"),
    (None, None, None),  # 0.5.13.post1: the pool sizing of 0.5.13 (only speculative workers differ)
])
def test_a_command_lines_switches_reach_the_v4_pool(tmp_path, image, flag, why):
    path = tmp_path / "v4.yaml"
    path.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: v4}\nspec:\n  template:\n    spec:\n"
        "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H200}\n      containers:\n        - name: sglang\n"
        f"          image: lmsysorg/sglang:{image or 'v0.5.13.post1'}\n"
        "          command: [python3, -m, sglang.launch_server, --model-path=deepseek-ai/DeepSeek-V4-Flash, --tp=8"
        f"{', ' + flag if flag else ''}]\n"
        "          resources: {limits: {nvidia.com/gpu: 8}}\n")
    [dep] = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]
    if why is None:
        assert (dep["verdict"], dep["prefill_pool"]["tokens"]) == ("fits", 7064320)  # 0.5.13's, the same inputs
    else:
        assert dep["verdict"] == "unknown" and why in dep["why_unknown"]
