"""The memory need CTX208 states when a role names no device (physics/needs.py)."""
from __future__ import annotations

import re

from helpers import run

from ctxlint.physics.needs import MemoryNeed

LLAMACPP = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwq}
spec:
  template:
    spec:
      containers:
        - name: server
          image: ghcr.io/ggml-org/llama.cpp:server-cuda
          args: ["-m", "/models/Qwen_QwQ-32B-Q4_K_M.gguf", "-c", "16000", "-ngl", "99"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def _need(out: str) -> float:
    found = re.search(r"needs >= ([\d.]+)", out)
    assert found, out
    return float(found.group(1))


def test_llamacpp_need_counts_the_weights_not_only_the_cells(tmp_path):
    # llama.cpp reserves all ctx_size cells up front and reports a shortfall only as an error: the
    # need was 1.1 GiB whatever the model (the search took an unfit estimate for a fit). QwQ-32B at
    # Q4_K_M holds about 18.4 GiB of weights, plus 16,000 cells of KV.
    path = tmp_path / "qwq.yaml"
    path.write_text(LLAMACPP)
    out = run(["check", str(path), "--select", "CTX208"]).out
    assert 19.0 < _need(out) < 26.0, out
    assert "L40S yes" in out and "A100-40GB yes" in out
    assert _need(run(["check", "-", "--stdin-filename", "b.yaml", "--select", "CTX208"],
                     stdin=LLAMACPP.replace('"16000"', '"64000"').encode()).out) > _need(out)


def test_need_text_when_only_the_optimistic_end_fits():
    # Found by the fuzz smoke test: a point estimate above 2 TiB with a band bottom below it.
    need = MemoryNeed(context=131072, least=636.9, point=None, most=None, layout="TP 1")
    assert need.text() == ("holding one request of 131,072 tokens needs >= 636.9 (the estimate itself does not fit "
                           "even 2 TiB) GiB per GPU at TP 1")
