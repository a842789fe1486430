"""Promises are held against what ONE request can hold of a KV pool, not the pool the engine logs.

vLLM's BlockPool keeps one block back as its null block, and its "GPU KV cache size" counts it: a
16,384-token pool of 16-token blocks holds at most 16,368 tokens for one request. A context length of
16,384 passes vLLM's startup check and a 16,369-16,384-token request never gets its last block
(sweep 23: kubernetes-sigs/gateway-api-inference-extension's vLLM CPU deployment, Qwen3-32B at 16,384
with VLLM_CPU_KVCACHE_SPACE=4). check, audit and `ctxlint capacity` agree at the boundary, and one
block below it everything fits.
"""
from __future__ import annotations

import json

import pytest

from helpers import run

from ctxlint.model import Pool, Source

NATIVE = """\
apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {{name: chat}}
spec:
  engine: {{name: {engine}, version: "{version}"}}
  serving:
    roles:
      - role: unified
        context_length: {context}
        kv_pool_tokens: {pool}{args}
"""

# sweep 23, 03b: Qwen3-32B (262,144 B per token) with 4 GiB of KV memory: exactly 1,024 blocks of 16
GPU = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen-gpu
  annotations:
    ctxlint.io/available-kv-gib: "4"
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "Qwen/Qwen3-32B", "--max-model-len", "{context}"]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""

# sweep 23, 03: the same on vLLM's CPU image, whose blocks are 128 tokens (vllm/platforms/cpu.py)
CPU = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: qwen-cpu}}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai-cpu:v0.11.0
          command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
          args: ["--model", "Qwen/Qwen3-32B", "--max-model-len", "{context}"]
          env:
            - {{name: VLLM_CPU_KVCACHE_SPACE, value: "4"}}
          resources: {{limits: {{cpu: "16", memory: 100Gi}}}}
"""


def _check(tmp_path, text: str, *extra: str):
    path = tmp_path / "d.yaml"
    path.write_text(text)
    return run(["check", str(path), "--isolated", *extra])


def _native(engine="vllm", version="0.11.0", context=16384, pool=16384, args=""):
    return NATIVE.format(engine=engine, version=version, context=context, pool=pool, args=args)


def test_declared_vllm_pool_equal_to_the_context_does_not_fit(tmp_path):
    result = _check(tmp_path, _native(), "--select", "CTX201")
    assert result.code == 1
    (line,) = result.out.splitlines()
    assert ("CTX201 [error] 16,384 > 16,368: the unified engine context length 16,384 exceeds its KV pool 16,384 "
            "(declared), which holds at most 16,368 tokens for one request (one 16-token block is vLLM's null "
            "block), by 16 tokens; vLLM starts (its startup check counts the null block as usable), and a request "
            "longer than 16,368 tokens never gets its last KV block") in line
    assert "Lower the context length to 16,368" in line


@pytest.mark.parametrize("context, code", [(16368, 0), (16369, 1), (16352, 0)])
def test_one_block_below_the_declared_pool_still_fits(tmp_path, context, code):
    assert _check(tmp_path, _native(context=context), "--select", "CTX201,CTX401").code == code


def test_the_null_block_is_one_block_of_the_roles_block_size(tmp_path):
    args = "\n        engine_args: {block_size: 32}"
    line = _check(tmp_path, _native(args=args), "--select", "CTX201").out
    assert "CTX201 [error] 16,384 > 16,352:" in line and "which holds at most 16,352 tokens for one request (one " \
        "32-token block is vLLM's null block), by 32 tokens" in line
    assert _check(tmp_path, _native(context=16352, args=args), "--select", "CTX201").code == 0


def test_sglang_keeps_its_token_back_from_the_context_too(tmp_path):
    # max_req_len = min(context_len - 1, max_total_num_tokens - 1): a pool equal to the context loses nothing
    assert (_check(tmp_path, _native(engine="sglang", version="0.5.4"), "--select", "CTX2").out) == ""


def test_window_prompt_and_decode_rules_hold_the_same_figure(tmp_path):
    window = _native().replace("  serving:", "  advertised: {context_window: 16384}\n  serving:")
    line = _check(tmp_path, window, "--select", "CTX101").out
    assert "CTX101 [error] 16,384 > 16,368: the longest request (the advertised window 16,384) exceeds the unified " \
           "KV pool 16,384 (declared), which holds at most 16,368 tokens for one request" in line
    assert "Raise the unified pool to at least 16,400, or lower the advertised window to 16,368" in line
    pd = """\
apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {name: pd}
spec:
  engine: {name: vllm, version: "0.11.0"}
  advertised: {context_window: 16384}
  serving:
    disaggregation: prefill-decode
    roles:
      - {role: prefill, context_length: 16384, kv_pool_tokens: 16384}
      - {role: decode, context_length: 16384, kv_pool_tokens: 16384}
"""
    out = _check(tmp_path, pd, "--select", "CTX102,CTX103").out
    assert "CTX102 [error] security: prompts up to 16,384 tokens" in out and "16,384 > 16,368 by 16" in out
    assert "CTX103 [error] 16,384 > 16,368: the decode KV pool 16,384 (declared), which holds at most 16,368" in out
    one_block_below = pd.replace("context_length: 16384", "context_length: 16368").replace(
        "context_window: 16384", "context_window: 16368")
    assert _check(tmp_path, one_block_below, "--select", "CTX1").out == ""


def test_the_advisory_triggers_at_the_boundary(tmp_path):
    line = _check(tmp_path, _native(), "--select", "CTX401").out
    assert "CTXA-2026-002" in line
    assert "this deployment triggers it: 16,384 > 16,368: the largest engine context length 16,384 reaches the " \
           "unified pool 16,384 (declared), which holds at most 16,368 tokens for one request" in line
    assert _check(tmp_path, _native(context=16368), "--select", "CTX401").out == ""


@pytest.mark.parametrize("context, fits", [(16384, False), (16368, True)])
def test_check_audit_and_capacity_agree_on_a_derived_pool(tmp_path, context, fits):
    path = tmp_path / "d.yaml"
    path.write_text(GPU.format(context=context))
    checked = run(["check", str(path), "--select", "CTX201"])
    assert checked.code == (0 if fits else 1)
    if not fits:
        assert f"CTX201 [error] 16,384 > 16,368: the unified engine context length 16,384 exceeds its KV pool " \
               f"16,384 (derived for Qwen/Qwen3-32B" in checked.out
    [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
    assert row["verdict"] == ("fits" if fits else "exceeds")
    assert (row["headroom"] >= 1) is fits
    capacity = run(["capacity", "--model", "Qwen/Qwen3-32B", "--engine", "vllm", "--available-kv-gib", "4",
                    "--context-length", str(context), "--format", "json"])
    data = json.loads(capacity.out)
    assert (data["pool_tokens"], data["max_context_at_concurrency_1"], data["fits"]) == (16384, 16368, fits)
    assert capacity.code == (0 if fits else 1)


def test_audit_never_shows_a_pool_short_of_the_promise_as_1_00x(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(GPU.format(context=16384))
    table = run(["audit", str(path)]).out
    assert " 0.999x  exceeds " in table and "1 with a pool below what is promised" in table


def test_a_cpu_build_keeps_back_a_128_token_block(tmp_path):
    result = _check(tmp_path, CPU.format(context=16384), "--select", "CTX201")
    assert "CTX201 [error] 16,384 > 16,256:" in result.out and "one 128-token block is vLLM's null block" in result.out
    assert _check(tmp_path, CPU.format(context=16256), "--select", "CTX201,CTX401").code == 0


def test_stack_rules_hold_the_route_against_what_one_request_can_hold(tmp_path):
    stack = """\
apiVersion: v1
kind: ConfigMap
metadata: {{name: litellm-config}}
data:
  config.yaml: |
    {settings}model_list:
      - model_name: qwen
        litellm_params: {{model: openai/qwen, api_base: "http://qwen:8000/v1"}}
        model_info: {{max_input_tokens: {cap}}}
---
apiVersion: v1
kind: Service
metadata: {{name: qwen}}
spec:
  selector: {{app: qwen}}
  ports: [{{port: 8000}}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
  annotations: {{ctxlint.io/kv-pool-tokens: "16384"}}
spec:
  selector:
    matchLabels: {{app: qwen}}
  template:
    metadata:
      labels: {{app: qwen}}
    spec:
      containers:
        - name: engine
          image: vllm/vllm-openai:v0.11.0
          args: [--model, Qwen/Qwen3-32B, --served-model-name, qwen, --max-model-len, "16384"]
"""
    out = _check(tmp_path, stack.format(settings="", cap=16384), "--select", "CTX602").out
    assert "CTX602 [error] security (CTXA-2026-002): 16,384 > 16,368: the LiteLLM route qwen lets prompts up to " \
           "16,384 tokens" in out
    assert "which holds 16,384 (declared), which holds at most 16,368 tokens for one request" in out
    loose = stack.format(settings="router_settings: {enable_pre_call_checks: true}\n    ", cap=16000)
    out = _check(tmp_path, loose, "--select", "CTX604").out
    assert "CTX604 [warning] 16,384 > 16,368: prompts above the unified KV pool of qwen" in out
    assert "Set the engine's context length at or below 16,368" in out


def test_probe_boundaries_straddle_what_one_request_can_hold(tmp_path):
    from ctxlint.probe.limits import boundaries_from_manifest

    path = tmp_path / "d.yaml"
    path.write_text(_native())
    limits = boundaries_from_manifest(str(path))
    assert (limits.pool, limits.pool_high) == (16368, 16368)


def test_pool_request_figures_follow_the_band():
    where = Source("f", 1, 1)
    whole = Pool(16384, where)
    assert (whole.request, whole.request_floor, whole.request_ceiling, whole.holds()) == (16384, 16384, 16384, "")
    banded = Pool(20000, where, "derived", low=10000, high=30000, held=19984, held_low=9984, held_high=29984,
                  reserve="one 16-token block is vLLM's null block")
    assert (banded.request, banded.request_floor, banded.request_ceiling) == (19984, 9984, 29984)
    assert banded.request_band() == "9,984-29,984"
    # the reserve is what the point keeps back: the point's own figures add up (20,000 - 16 = 19,984), the band's
    # top is said apart
    assert banded.holds() == ", which holds 19,984 tokens for one request at the estimate's point (of its 20,000: " \
                             "one 16-token block is vLLM's null block) and at most 29,984 at the top of its band"


def test_capacity_sglang_context_equal_to_the_pool_fits():
    # SGLang's one token comes off the context length as well as off the pool (max_req_len = min(context_len - 1,
    # max_total_num_tokens - 1)): `ctxlint capacity` said "does NOT fit: at most 16,383" where check said it fits
    args = ["capacity", "--model", "Qwen/Qwen3-32B", "--engine", "sglang", "--available-kv-gib", "4",
            "--format", "json"]
    data = json.loads(run([*args, "--context-length", "16384"]).out)
    assert (data["pool_tokens"], data["max_context_at_concurrency_1"], data["fits"]) == (16384, 16384, True)
    assert json.loads(run([*args, "--context-length", "16385"]).out)["fits"] is False


SWA = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: g2
  annotations:
    ctxlint.io/available-kv-gib: "1.40"
spec:
  template:
    spec:
      nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
      containers:
      - name: main
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "google/gemma-2-9b-it", "--max-model-len", "{context}"]
        resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""


def test_a_request_shorter_than_the_window_span_holds_its_own_length_in_the_window_layers(tmp_path):
    # sweep 28 (a gemma-2-9b Cloud Run service at --max-model-len 3968): the sliding-window layers were charged
    # their whole 6,144-token span for every request, so 4,096 got CTX201 "vLLM refuses to start" while vLLM's
    # own check (min(window - 1 + max_num_batched_tokens, max_model_len) per window layer) passes it. 546 blocks
    # of 16 less the null block hold 4,352 + its 273 window blocks; 4,368 needs 274 + 274 > 545.
    path = tmp_path / "g2.yaml"
    for context, code in ((4352, 0), (4368, 1)):
        path.write_text(SWA.format(context=context))
        result = run(["check", str(path), "--isolated", "--select", "CTX201"])
        assert result.code == code, result.out
    assert "4,368 > 4,352: the unified engine context length 4,368 exceeds its KV pool 8,736" in result.out
    assert "one 16-token block is vLLM's null block; 4,368 for the sliding-window layers" in result.out
