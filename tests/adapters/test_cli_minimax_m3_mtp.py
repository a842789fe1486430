"""A vLLM MTP draft of MiniMax-M3, end to end: the draft layers are the checkpoint's own num_mtp_modules.

vLLM builds num_mtp_modules MTP layers for MiniMax-M3 (ctxlint.physics.mtp): 7 for MiniMaxAI/MiniMax-M3, 1 for
nvidia/MiniMax-M3-NVFP4, whose own config says 1. At TP 4 with a bf16 KV cache a token costs
(60 + 7) x 2 x 1 x 128 x 2 + (57 + 7) x 256 = 50,688 B a GPU for the first and 46,080 B for the second.
"""
from __future__ import annotations

import json

from helpers import run

DEPLOY = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: m3
  annotations:
    ctxlint.io/available-kv-gib: "10"
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-B200}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.34.0
          command: [vllm, serve, MiniMaxAI/MiniMax-M3, --tensor-parallel-size, "4", --max-model-len, "262144",
                    --speculative-config, '{"method": "mtp", "num_speculative_tokens": 1}']
          resources: {limits: {nvidia.com/gpu: 4}}
"""


def _pool(tmp_path, text: str) -> dict:
    path = tmp_path / "d.yaml"
    path.write_text(text)
    [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
    return row["prefill_pool"]


def test_seven_mtp_layers_for_minimaxs_checkpoint(tmp_path):
    # 10 GiB / 50,688 B = 211,833 tokens, in 64-token blocks 211,776 (one draft layer: 10 GiB / 46,080 B, 232,960)
    assert _pool(tmp_path, DEPLOY) == {"tokens": 211_776, "origin": "derived", "role": "unified"}
    path = tmp_path / "d.yaml"
    out = run(["check", "--select", "CTX201", str(path)]).out
    assert "KV budget per GPU 10.00 GiB (as logged) / 50,688 B per token per GPU = 211,776 tokens" in out


def test_one_mtp_layer_for_nvidias_checkpoint(tmp_path):
    nvidia = DEPLOY.replace("MiniMaxAI/MiniMax-M3", "nvidia/MiniMax-M3-NVFP4")
    assert _pool(tmp_path, nvidia) == {"tokens": 232_960, "origin": "derived", "role": "unified"}


def test_no_draft_and_other_drafts_are_unchanged(tmp_path):
    # no speculative config: the target's 60 layers and 57 index keys, 30,720 + 14,592 = 45,312 B: 236,928 tokens
    plain = DEPLOY.replace(""",
                    --speculative-config, '{"method": "mtp", "num_speculative_tokens": 1}']""", "]")
    assert _pool(tmp_path, plain)["tokens"] == 10 * 2 ** 30 // 45_312 // 64 * 64
    ngram = DEPLOY.replace('"method": "mtp"', '"method": "ngram"')
    assert _pool(tmp_path, ngram)["tokens"] == 10 * 2 ** 30 // 45_312 // 64 * 64
