"""--num-gpu-blocks-override without --block-size: a pool of 64-token blocks on vLLM >= 0.34.0 (its default
block, ctxlint.physics.vllm_block), of 16-token blocks before and where the release is not stated."""
from __future__ import annotations

from pathlib import Path

from helpers import run

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:TAG
          args: ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768", "--num-gpu-blocks-override", "BLOCKS"]
          resources: {limits: {nvidia.com/gpu: 1}}
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
"""


def _check(tmp_path: Path, tag: str, blocks: int = 1000) -> str:
    path = tmp_path / f"{tag}.yaml"
    path.write_text(DEPLOYMENT.replace("TAG", tag).replace("BLOCKS", str(blocks)))
    return run(["check", "--isolated", str(path)]).out


def test_an_override_on_034_counts_64_token_blocks(tmp_path: Path) -> None:
    assert "64,000 > 57,906: --num-gpu-blocks-override 1000 is 1,000 blocks x 64 tokens = 64,000 tokens of KV" \
        in _check(tmp_path, "v0.34.0")
    old = _check(tmp_path, "v0.33.0")
    assert "the unified pool 16,000 (declared), which holds at most 15,984 tokens" in old
    assert "one 16-token block is vLLM's null block" in old
    assert "the unified pool 16,000 (declared)" in _check(tmp_path, "latest")  # not stated: the smaller pool


def test_the_034_null_block_is_64_tokens(tmp_path: Path) -> None:
    out = _check(tmp_path, "v0.34.0", 500)  # 32,000 tokens: within the L4's memory, below the context length
    assert "the unified engine context length 32,768 exceeds its KV pool 32,000 (declared), which holds at most " \
        "31,936 tokens for one request (one 64-token block is vLLM's null block)" in out
