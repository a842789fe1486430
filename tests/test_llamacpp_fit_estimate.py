"""llama.cpp's --fit cut is measured at boot: an engine context lowered to it is a band, not a limit
(CTX104 defers to CTX210), and a derived pool's explanation says where its KV budget comes from."""
from __future__ import annotations

import pytest

from ctxlint.engine import Settings, lint_text
from ctxlint.physics.llamacpp import readings

POD = """apiVersion: v1
kind: Pod
metadata: {{name: fit, annotations: {{ctxlint.io/context-window: "32768"}}}}
spec:
  nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
  containers:
    - name: engine
      image: ghcr.io/ggml-org/llama.cpp:server-cuda{tag}
      command: [llama-server, --hf-repo, "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", --hf-file,
                "Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", -ngl, "99", -np, "4"{extra}]
      resources: {{limits: {{nvidia.com/gpu: "1"}}}}
"""


def _findings(tag: str, extra: str = ""):
    return lint_text(POD.format(tag=tag, extra=extra), "fit.yaml").findings


@pytest.mark.parametrize("tag", ["-b11500", "", "-b5000"])
def test_an_estimated_fit_cut_is_no_definite_context_error(tag):
    # no -c on an L4: fit cuts 4 x 131,072 cells to the memory it measures (common/fit.cpp:267-272, 400-431), so
    # the 32,768 window is inside the per-slot band; was CTX104 [error] 32,768 > 31,488 (the estimate's point)
    found = _findings(tag)
    assert [f.rule for f in found] == ["CTX210"], [f.message for f in found]
    assert "(as logged)" not in found[0].message  # nothing was logged: the budget is the estimate's
    assert "KV budget per GPU 16.42 GiB (21.95 GiB - context - weights" in found[0].message


def test_a_window_above_the_estimated_band_is_still_an_error():
    (f,) = [f for f in lint_text(POD.format(tag="-b11500", extra="").replace('"32768"', '"262144"'),
                                 "fit.yaml").findings if f.rule == "CTX104"]
    assert "38,912 (the top of its band: " in f.message and "an estimated 6,912-38,912" in f.message and f.severity == "error"


def test_an_older_build_takes_the_older_reading_as_its_point():
    # llamacpp.py: a build stated below PROVEN_BUILD reads the pool as builds before llama.cpp#27496 did
    old = readings({"n_parallel": 4}, 131072, "b5000")
    assert [(r.cells, r.streams) for r in old] == [(131072, 4), (524288, 4)]
    assert [r.cells for r in readings({"n_parallel": 4}, 131072, None)] == [524288, 131072]
    assert [r.cells for r in readings({"n_parallel": 4}, 131072, "b11434")] == [524288]


LMD = """apiVersion: apps/v1
kind: Deployment
metadata: {name: lmd}
spec:
  selector: {matchLabels: {app: lmd}}
  template:
    metadata: {labels: {app: lmd}}
    spec:
      containers:
        - name: engine
          image: openmmlab/lmdeploy:v0.18.0
          command: [lmdeploy, serve, api_server, meta-llama/Llama-3.1-8B-Instruct, --backend, pytorch,
                    --session-len, "131072", --num-gpu-blocks, "512"]
          resources: {limits: {nvidia.com/gpu: "1"}}
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-h100-80gb}
"""


def test_a_pool_fixed_in_blocks_is_not_a_logged_budget():
    # was "KV budget per GPU 0.00 GiB (as logged)": the pool is --num-gpu-blocks x block, no budget at all
    (f,) = [f for f in lint_text(LMD, "lmd.yaml", Settings(select=("CTX201",))).findings]
    assert "(as logged)" not in f.message and "0.00 GiB" not in f.message
    assert "the pool fixed by num_gpu_blocks (512 x 64) = 32,768 tokens" in f.message
