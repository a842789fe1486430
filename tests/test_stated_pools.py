"""A stated KV pool larger than the device could hold with all of its memory (CTX202), judged by what the engine
does with it (ctxlint.stated_pools): vLLM's --num-gpu-blocks-override and LMDeploy's --num-gpu-blocks are
allocated as told (the engine exits at startup: "KV does not fit"), SGLang's --max-total-tokens is a cap (the
verdict follows the pool SGLang profiles), and a pool a person declared is held against the ceiling. Reported:
`--num-gpu-blocks-override 100000` on one L4 got CTX202 and the audit verdict "fits"."""
from __future__ import annotations

import json
from pathlib import Path

from helpers import run

VLLM = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-l4}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: x}}
    spec:
      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
      containers:
        - name: vllm
          image: vllm/vllm-openai:TAG
          args: ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768", "--num-gpu-blocks-override", "BLOCKS"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
LMDEPLOY = """\
apiVersion: v1
kind: Pod
metadata: {name: lmd}
spec:
  nodeSelector: {cloud.google.com/gke-accelerator: nvidia-l4}
  containers:
    - name: engine
      image: openmmlab/lmdeploy:v0.18.0
      command: [lmdeploy, serve, api_server, meta-llama/Llama-3.1-8B-Instruct, --session-len, "32768"ARGS]
      resources: {limits: {nvidia.com/gpu: "1"}}
"""
NATIVE = """\
apiVersion: ctxlint/v1
kind: ModelDeployment
metadata:
  name: llama8b
spec:
  model: {id: meta-llama/Llama-3.1-8B-Instruct}
  advertised: {context_window: WINDOW}
  engine: {name: vllm}
  serving:
    roles:
      - role: unified
        kv_pool_tokens: 2000000
        accelerators: {type: H100, count: 1}
"""
# L4: 21.95 GiB; Llama-3.1-8B's weights at least 14.88 GiB; 131,072 B of bf16 KV per token
L4_CEILING = ("more than L4 could hold with all of its memory: (21.95 GiB - weights at least 14.88 GiB) / 131,072 B "
              "per token per GPU = 57,906 tokens")


def _lint(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    [row] = json.loads(run(["audit", str(path), "--isolated", "--format", "json"]).out)["deployments"]
    found = [line[len(str(path)) + 1:] for line in run(["check", str(path), "--isolated"]).out.splitlines()
             if " CTX202 " in line]  # line:col: message
    return row["verdict"], found


def test_a_vllm_override_above_the_memory_does_not_start(tmp_path):
    for tag in ("v0.10.1", "v0.6.3"):  # V1 and V0 both allocate the override as told
        verdict, found = _lint(tmp_path, f"{tag}.yaml", VLLM.replace("TAG", tag).replace("BLOCKS", "100000"))
        assert verdict == "KV does not fit"  # was "fits": 32,768 against the 1,600,000 no L4 holds
        assert found == [
            "13:112: CTX202 [error] 1,600,000 > 57,906: --num-gpu-blocks-override 100000 is 100,000 blocks x 16 "
            f"tokens = 1,600,000 tokens of KV (195.31 GiB per GPU), {L4_CEILING}. vLLM allocates the blocks it is "
            "told, whatever memory it profiled, so the KV cache allocation fails (CUDA out of memory) and the "
            "engine exits at startup. Lower --num-gpu-blocks-override well below 3,619 blocks, or drop it and let "
            "the engine size the pool (declared-pool-exceeds-hardware)"]


def test_a_vllm_override_the_memory_holds_is_the_pool(tmp_path):
    verdict, found = _lint(tmp_path, "fits.yaml", VLLM.replace("TAG", "v0.10.1").replace("BLOCKS", "3000"))
    assert (verdict, found) == ("fits", [])  # 48,000 tokens: below the ceiling, and it holds 32,768


def test_lmdeploy_num_gpu_blocks_above_the_memory_does_not_start(tmp_path):
    verdict, found = _lint(tmp_path, "lmd.yaml", LMDEPLOY.replace(
        "ARGS", ', --backend, pytorch, --num-gpu-blocks, "2000"'))
    assert verdict == "KV does not fit"  # was "fits" (128,000 derived), with no CTX202
    assert found == [
        "9:143: CTX202 [error] 128,000 > 57,906: --num-gpu-blocks 2000 is 2,000 blocks x 64 tokens = 128,000 tokens "
        f"of KV (15.62 GiB per GPU), {L4_CEILING}. LMDeploy's PyTorch engine allocates the blocks it is told, "
        "whatever memory it profiled, so the KV cache allocation fails (CUDA out of memory) and the engine exits at "
        "startup. Lower --num-gpu-blocks well below 904 blocks, or drop it and let the engine size the pool "
        "(declared-pool-exceeds-hardware)"]
    # without --session-len LMDeploy lowers its context to the pool, but the pool it is told is never allocated
    verdict, _ = _lint(tmp_path, "nosession.yaml", LMDEPLOY.replace(', --session-len, "32768"', "").replace(
        "ARGS", ', --backend, pytorch, --num-gpu-blocks, "2000"'))
    assert verdict == "KV does not fit"
    # TurboMind (Llama without --backend pytorch) never reads the flag: its pool is the share of free memory
    verdict, found = _lint(tmp_path, "tm.yaml", LMDEPLOY.replace("ARGS", ', --num-gpu-blocks, "2000"'))
    assert found == [] and verdict != "KV does not fit"


def test_a_declared_pool_above_the_memory_is_held_against_the_ceiling(tmp_path):
    text = ("12:25: CTX202 [error] 2,000,000 > 526,925: the declared unified KV pool exceeds what H100-SXM-80GB "
            "could hold with all of its memory: (79.20 GiB - weights at least 14.88 GiB) / 131,072 B per token per "
            "GPU = 526,925 tokens. The number cannot be true (the engine's pool is smaller), so the audit holds the "
            "promise against that ceiling, not against it; declare the pool the engine logs at boot "
            "(declared-pool-exceeds-hardware)")
    # below the ceiling: whether the real pool holds it is not known (was "fits", on the strength of 2,000,000)
    assert _lint(tmp_path, "below.yaml", NATIVE.replace("WINDOW", "131072")) == ("within band", [text])
    # above it no pool the H100 can hold takes the window (was "fits")
    assert _lint(tmp_path, "above.yaml", NATIVE.replace("WINDOW", "600000")) == ("exceeds", [text])


def test_an_annotated_pool_above_the_memory_is_held_against_the_ceiling(tmp_path):
    text = VLLM.replace("metadata: {name: llama-l4}", "metadata:\n  name: llama-l4\n  annotations: "
                        "{ctxlint.io/kv-pool-tokens: \"2000000\"}").replace(', "--num-gpu-blocks-override", "BLOCKS"', "")
    verdict, found = _lint(tmp_path, "annotated.yaml", text.replace("TAG", "v0.10.1"))
    assert verdict == "within band"  # was "fits": 32,768 against 2,000,000, which no L4 holds
    assert found == [
        "5:44: CTX202 [error] 2,000,000 > 57,906: the declared unified KV pool exceeds what L4 could hold with all of "
        "its memory: (21.95 GiB - weights at least 14.88 GiB) / 131,072 B per token per GPU = 57,906 tokens. The "
        "number cannot be true (the engine's pool is smaller), so the audit holds the promise against that ceiling, "
        "not against it; declare the pool the engine logs at boot (declared-pool-exceeds-hardware)"]


def test_an_sglang_cap_keeps_its_message_and_the_profiled_pool(tmp_path):
    script = ("#!/bin/bash\n#SBATCH --gres=gpu:h100:1\npython3 -m sglang.launch_server --model-path "
              "meta-llama/Llama-3.1-8B-Instruct --context-length 131072 --max-total-tokens 2000000\n")
    verdict, found = _lint(tmp_path, "serve.sh", script)
    assert verdict == "fits"  # against the pool SGLang profiles on an H100 (derived), not the cap
    assert found == [
        "3:122: CTX202 [error] 2,000,000 > 526,925: the declared unified KV pool exceeds what H100-SXM-80GB could "
        "hold with all of its memory: (79.20 GiB - weights at least 14.88 GiB) / 131,072 B per token per GPU = "
        "526,925 tokens. The engine will profile a smaller pool and use that; declare the pool the engine logs at "
        "boot (declared-pool-exceeds-hardware)"]
