"""vLLM's `--kv-cache-memory-bytes` is the KV budget per GPU whatever the device (physics.mem_vllm.KV_BYTES_SINCE):
the pool is derived from it without a device, as with a stated available_kv_gib, and only from the release that
has the flag (0.11.0); an earlier release's budget never reads it."""
from __future__ import annotations

import json

import pytest

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.mem_vllm import explicit_kv_bytes
from ctxlint.physics.models import lookup_model
from helpers import run

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: small}}
spec:
  template:
    spec:{selector}
      containers:
      - name: vllm
        image: vllm/vllm-openai:{tag}
        args: [Qwen/Qwen2.5-0.5B-Instruct, --max-model-len={ctx}, --kv-cache-memory-bytes=268435456]
        resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""
L4 = "\n      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}"
# Qwen2.5-0.5B: 24 layers x 2 KV heads x 64 x 2 (K, V) x 2 bytes = 12,288 B a token; 268,435,456 B hold
# 21,845 tokens, 1,365 blocks of 16: 21,840 tokens, one block less for vLLM's null block.
POOL = "KV budget per GPU 0.25 GiB (--kv-cache-memory-bytes 268435456) / 12,288 B per token per GPU = 21,840 tokens"


def _check(tmp_path, selector: str, tag: str, ctx: int):
    path = tmp_path / "deploy.yaml"
    path.write_text(DEPLOY.format(selector=selector, tag=tag, ctx=ctx))
    res = run(["check", "--format", "json", str(path)])
    return [(f["rule"], f["message"]) for f in json.loads(res.out)["findings"]]


@pytest.mark.parametrize("tag", ["v0.11.2", "latest"])
def test_pool_without_a_device_is_the_flag_over_bytes_per_token(tmp_path, tag) -> None:
    found = _check(tmp_path, "", tag, 32_768)
    assert [rule for rule, _ in found] == ["CTX201"]
    message = found[0][1]
    assert "on 1 GPU of a type not stated (whether the weights fit beside it needs the device), vllm: " + POOL \
        in message
    assert "add memory (a larger --kv-cache-memory-bytes, an fp8 KV cache)" in message


def test_same_pool_as_with_a_device(tmp_path) -> None:
    found = _check(tmp_path, L4, "v0.11.2", 32_768)
    assert [rule for rule, _ in found] == ["CTX201"]
    assert "on 1x L4, vllm: " + POOL in found[0][1]


def test_fits_without_a_device_gives_no_ctx208(tmp_path) -> None:
    assert _check(tmp_path, "", "v0.11.2", 16_384) == []


def test_a_release_without_the_flag_does_not_read_it(tmp_path) -> None:
    found = _check(tmp_path, "", "v0.10.1", 32_768)
    assert [rule for rule, _ in found] == ["CTX208"]
    assert "no accelerator type (or available_kv_gib) is given" in found[0][1]
    # with a device its budget is vLLM 0.10.1's profile of the L4 (gigabytes), not the flag's 0.25 GiB
    assert _check(tmp_path, L4, "v0.10.1", 32_768) == []


def test_explicit_kv_bytes_bounds() -> None:
    flag = {"kv_cache_memory_bytes": "268435456"}
    assert explicit_kv_bytes(None, flag) == explicit_kv_bytes("0.11.0", flag) == 268_435_456
    assert explicit_kv_bytes("0.10.2", flag) is None
    assert explicit_kv_bytes("0.11.0", {"kv_cache_memory_bytes": "lots"}) is None
    assert explicit_kv_bytes("0.11.0", {"kv_cache_memory_bytes": 0}) is None
    assert explicit_kv_bytes("0.11.0", {}) is None


def test_unknown_release_is_not_folded_over_releases_without_the_flag() -> None:
    arch = lookup_model("Llama-3.1-8B")
    r = estimate(CapacityInput(arch, "vllm", "H100", settings={"kv_cache_memory_bytes": 10 << 30}))
    assert (r.kv_budget_bytes_per_gpu, r.pool_tokens, r.rule) == (10 << 30, 81_920, "")  # no "version unknown"
