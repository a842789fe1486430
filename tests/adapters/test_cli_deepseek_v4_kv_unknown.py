"""DeepSeek-V4 end to end. On vLLM 0.20.0-0.23.0 its KV cache is sized as vLLM lays it out (physics.dsv4_kv): a
request takes blocks of the compressed caches for its length and, up to max_num_batched_tokens, blocks of its window
and compressor-state groups, so the pool holds far fewer tokens for one request than its size says. Elsewhere
(SGLang or vLLM at a release not read or not named, an unstated batch size) the pool stays unknown and CTX208 says what is missing."""
from __future__ import annotations

import json

from helpers import run

SGLANG = """\
#!/bin/sh
#SBATCH --gres=gpu:h200:8
python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Pro --tp 8 --context-length 131072
"""
# an srt-slurm recipe's shape (NVIDIA/srt-slurm recipes/.../DeepSeek-V4-Pro/B300/vllm/agg-tp8-8k1k.yaml, trimmed)
RECIPE = """\
name: "dsv4-pro-agg-tp8"
model:
  path: "hf:nvidia/DeepSeek-V4-Pro-NVFP4"
  container: "vllm/vllm-openai:v0.22.0"
  precision: "fp4"
resources:
  gpu_type: "{gpu}"
  gpus_per_node: 8
  agg_nodes: 1
  agg_workers: 1
  gpus_per_agg: 8
backend:
  type: vllm
  vllm_config:
    aggregated:
      served-model-name: "nvidia/DeepSeek-V4-Pro-NVFP4"
      tensor-parallel-size: 8
      kv-cache-dtype: "fp8"
      block-size: 256
      max-model-len: 1048576
      max-num-batched-tokens: {batch}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: dsv4}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:{tag}
          command: [vllm, serve, deepseek-ai/DeepSeek-V4-Flash, --tensor-parallel-size, "4", --kv-cache-dtype, fp8,
                    --block-size, "256", --max-num-batched-tokens, "65536", --max-model-len, "{context}"]
          resources: {{limits: {{nvidia.com/gpu: "4"}}}}
"""


def _lint(tmp_path, text, name="serve.yaml"):
    path = tmp_path / name
    path.write_text(text)
    [row] = json.loads(run(["audit", str(path), "--format", "json", "--isolated"]).out)["deployments"]
    return run(["check", str(path), "--isolated"]), row


def test_a_recipe_whose_batch_windows_outgrow_the_pool(tmp_path):
    # 131,072 batched tokens: a 1M-token request would hold 57,370 blocks of 1.48 MB (window and compressor-state
    # groups up to the batch, the compressed caches for its length) where 8 B200s hold 28,918
    found, row = _lint(tmp_path, RECIPE.format(gpu="b200", batch=131072))
    assert "CTX201 [error] 1,048,576 > 76,852: the unified engine context length 1,048,576 exceeds its KV pool " \
        "7,403,008 (derived for deepseek-ai/DeepSeek-V4-Pro on 8x B200, vllm: KV budget per GPU 39.92 GiB" in found.out
    assert "/ 5,789 B per token per GPU = 7,403,008 tokens; band 5,705,728-8,071,168), which holds 70,488 tokens for " \
        "one request at the estimate's point (of its 7,403,008: one 256-token block is vLLM's null block; 7,332,096 " \
        "for the window and compressor-state groups; 168 for per-request state and whole blocks)" in found.out
    assert row["verdict"] == "exceeds" and row["why_unknown"] is None


def test_the_same_recipe_fits_at_its_own_batch(tmp_path):
    found, row = _lint(tmp_path, RECIPE.format(gpu="b300", batch=16384))
    assert found.out == "" and found.code == 0
    assert row["verdict"] == "fits" and row["prefill_pool"]["tokens"] == 24948992


def test_past_the_startup_check_is_no_hang(tmp_path):
    # vLLM's startup check counts the window groups too: a context it refuses is not one it starts and hangs on
    # (the band's top 904,704: V4-Flash's experts at TP 4, 512 a GPU, are padded by no MoE backend; 60,928 under
    # gpt-oss's x 1.14, physics.mxfp4_padding)
    found, row = _lint(tmp_path, DEPLOYMENT.format(tag="v0.22.0", context=1048576))
    assert "CTX201 [error] 1,048,576 > 904,704" in found.out and "CTX401" not in found.out
    found, row = _lint(tmp_path, DEPLOYMENT.format(tag="v0.22.0", context=8192))
    assert found.out == "" and row["verdict"] == "fits"


def test_a_release_not_read_stays_unknown(tmp_path):
    found, row = _lint(tmp_path, DEPLOYMENT.format(tag="v0.19.1", context=8192))
    assert row["verdict"] == "unknown"
    assert row["why_unknown"] == (
        "deepseek-ai/DeepSeek-V4-Flash: DeepSeek-V4's compressed attention is sized on vLLM as the releases read lay "
        "it out; here vLLM 0.19.1's DeepSeek-V4 layout was not read (read: 0.20.0, 0.20.1, 0.21.0, 0.22.0, 0.23.0); "
        "state the pool the engine logs (kv_pool_tokens, or the ctxlint.io/kv-pool-tokens annotation on a workload)")


def test_sglang_says_which_releases_its_v4_pools_are_read_for(tmp_path):
    # SGLang's V4 pools are read for some releases (physics.dsv4_sglang); a script that names none stays unknown
    found, row = _lint(tmp_path, SGLANG, "serve.sh")
    detail = ("DeepSeek-V4's compressed attention is sized on SGLang as the releases read size it; here the SGLang "
              "release is not named (an image tag or version would name it), and DeepSeek-V4's pool sizing differs by "
              "release (read: 0.5.12, 0.5.12.post1, 0.5.13, 0.5.13.post1, 0.5.14, and the nightly builds 425dffbd, "
              "14f81a67; from 0.5.15 the c128 states are sized by max_running_requests); state the pool the engine "
              "logs")
    assert detail in row["why_unknown"] and detail in found.out
    assert row["verdict"] == "unknown" and row["engine"] == "sglang"


def test_a_context_vllm_starts_with_short_of_a_whole_block_fits():
    # vllm#44376's 5.44 GiB: vLLM bisects max_model_len on tokens (13,528 with its null block); a request short of
    # a whole 256-token block saves window and compressor-state blocks, so 13,500 fits though 13,568 would not
    found = run(["capacity", "--model", "deepseek-ai/DeepSeek-V4-Flash", "--engine", "vllm", "--accelerator", "GH200",
                 "--count", "2", "--tp", "2", "--kv-cache-dtype", "fp8", "--available-kv-gib", "5.44",
                 "--engine-version", "0.22.0", "--set", "block_size=256", "--set", "max_num_batched_tokens=16384",
                 "--context-length", "13500"])
    assert found.code == 0 and "context length 13,500: fits; max concurrency at that length 1.00x" in found.out
    [line] = [ln for ln in found.out.splitlines() if ln.startswith("longest single request")]
    assert line.split()[-1] == "13,520"


def test_the_pool_vllm_0_20_0_logs_is_read_as_it_logs_it(tmp_path):
    # 0.20.0 logs num_blocks // 5 groups x 4 tokens: 5,448 is 6,810 blocks, which hold a 30,000-token request
    # (as the pool itself, 5,448 read as a refused start: CTX201 "30,000 > 5,120")
    text = DEPLOYMENT.format(tag="v0.20.0", context=30000).replace("65536", "16384").replace(
        "metadata: {name: dsv4}", 'metadata: {name: dsv4, annotations: {ctxlint.io/kv-pool-tokens: "5448"}}')
    found, row = _lint(tmp_path, text)
    assert found.out == "" and found.code == 0 and row["verdict"] == "fits"


NATIVE = """\
apiVersion: ctxlint/v1
kind: ModelDeployment
metadata:
  name: dsv4
spec:
  model: {id: deepseek-ai/DeepSeek-V4-Flash}
  advertised: {context_window: 1048576}
  engine: {name: vllm, version: 0.22.0}
  serving:
    roles:
      - role: unified
        context_length: 1048576
        kv_cache_dtype: fp8
        accelerators: {type: H100-SXM-80GB, count: 4}
        parallelism: {tensor: 4}
        engine_args: {block_size: 256, max_num_batched_tokens: 65536}
"""


def test_the_pool_a_window_needs_counts_its_groups_at_that_length(tmp_path):
    # a 1M-token request: 4,096 compressed blocks, 2 x 1,027 window, 16,387 and 8,209 state blocks, the null block;
    # the pool's own overhead at its ceiling (904,704 tokens for one request at the band's top) said too little
    found, _ = _lint(tmp_path, NATIVE)
    assert "CTX101 [error] 1,048,576 > 904,704: the longest request" in found.out
    assert "Raise the unified pool to at least 7,871,232, or lower the advertised window to 904,704" in found.out
