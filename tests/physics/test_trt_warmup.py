"""A compiled TensorRT engine holds no PyTorch warmup: its activations are planned for max_num_tokens with
one logit row per sequence (physics/trt_warmup.py). Before, every TensorRT-LLM role was given the PyTorch
backend's figure, `8 x vocab` bytes of logits per batched token, which at max_num_tokens 131,072 is 125 GiB
for Llama-3.1-8B (a 149 GiB warmup with the forward buffers): CTX209 (no memory for the KV cache) on a Truss
v1 engine built with that max_num_tokens. BRITON is Baseten's Briton Llama-3.1-8B example (basetenlabs/truss-
examples@417f084c0c5e63a493b1f84374f4ecfcd9ee50a2:11-embeddings-reranker-classification-tensorrt/Briton-meta-llama-
llama-3.1-8b-instruct-with-speculative-lookahead-decoding-fp8/config.yaml) with `max_num_tokens: 131072` and
`max_batch_size: 64` added: that revision of the example sets neither.
"""
from __future__ import annotations

import json

from ctxlint.physics.capacity import CapacityInput, estimate
from ctxlint.physics.models import lookup_model
from helpers import run

GiB = 1 << 30
L8, QWEN15 = lookup_model("Llama-3.1-8B"), lookup_model("Qwen/Qwen1.5-7B-Chat")

BRITON = """\
model_name: briton-llama-8b
resources:
  accelerator: H100
  use_gpu: true
trt_llm:
  build:
    base_model: decoder
    checkpoint_repository:
      repo: meta-llama/Llama-3.1-8B-Instruct
      source: HF
    max_batch_size: 64
    max_num_tokens: 131072
    max_seq_len: 131072
    quantization_type: fp8_kv
    tensor_parallel_count: 1
  runtime:
    enable_chunked_context: true
"""


def _budget(arch, settings, version=None, device="H100"):
    r = estimate(CapacityInput(arch, "trtllm", device, settings=settings, engine_version=version))
    return r.kv_budget_bytes_per_gpu, r.kv_budget_low, r.kv_budget_high


def test_a_truss_v1_engine_with_a_long_max_num_tokens_has_memory_for_its_kv_cache(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text(BRITON)
    out = run(["check", "--isolated", "--format", "json", str(path)]).out
    rules = {f["rule"] for f in json.loads(out)["findings"]}
    assert "CTX209" not in rules and "CTX201" not in rules
    audit = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)
    [row] = audit["deployments"]
    # (79.20 - 0.50 - 8.46 weights - 18.0 engine activations - 1.00) x 0.9 = 46.1 GiB of 64 KiB FP8 tokens
    assert row["verdict"] == "fits" and 700_000 < row["prefill_pool"]["tokens"] < 800_000


def test_the_engine_holds_the_forward_buffers_and_last_token_logits_only():
    settings = {"max_num_tokens": 131072, "max_batch_size": 64}
    engine = _budget(L8, {**settings, "backend": "tensorrt"})
    torch = _budget(L8, {**settings, "backend": "pytorch"})
    assert torch[0] < 0 < engine[1]  # the PyTorch figure leaves nothing; the engine's whole band is positive
    # forward buffers 131,072 x (6 x 4,096 x 2 + 3 x 14,336 x 2 + 6,144 x 2) B = 18.0 GiB, + 64 x 128,256 x 8 B
    point = (79.20 - 0.50 - 1.00) * GiB - 16_060_000_000 - 131072 * 147456 - 64 * 128256 * 8
    assert abs(engine[0] - point * 0.9) < 0.05 * GiB
    # `trt`, 0.2x's spelling, is the same backend
    assert _budget(L8, {**settings, "backend": "trt"}) == engine


def test_the_release_decides_the_backend_when_no_flag_does():
    # trtllm-serve's default is the TensorRT engine before 1.0 and PyTorch from it (flags_trtllm); with no
    # release known and no --backend the PyTorch figure stays, the smaller pool
    assert _budget(L8, {}, "0.20.0") == _budget(L8, {"backend": "tensorrt"}, "0.20.0")
    assert _budget(L8, {}, "1.0.0") == _budget(L8, {"backend": "pytorch"}, "1.0.0")
    assert _budget(L8, {}) == _budget(L8, {"backend": "pytorch"})
    assert _budget(L8, {"backend": "pytorch"}, "0.20.0")[0] < _budget(L8, {}, "0.20.0")[0]


def test_a_logged_engine_pool_is_nearer_the_engine_figure():
    # calibration.yaml trtllm-0.13-qwen1.5-7b-a100-40gb (NVIDIA/TensorRT-LLM#2268): 19.70 GiB logged for
    # the KV cache of a 0.13 engine; the PyTorch figure gave 11.46 GiB, the engine's 18.11 GiB
    kv, low, high = _budget(QWEN15, {}, "0.13.0", "A100-40GB")
    assert abs(kv / GiB - 19.70) / 19.70 < 0.1 and low <= kv <= high


def test_the_band_reaches_the_runtime_and_decoder_buffers_of_a_large_batch():
    # TensorRT-LLM's C++ runtime allocates its I/O and decoder buffers by max_batch_size before it sizes the KV
    # cache (docs/source/reference/memory.md 3.1). NVIDIA/TensorRT-LLM's benchmarks/Suite.md log (0.12.0.dev,
    # Llama-2-7B FP8 engine, batch 4096, max_num_tokens 8192, H100, fraction 0.99): 928.77 MiB of execution
    # context, 1.14 GB of runtime buffers and 4.35 GB of decoder, "available: 63.62 GiB", 62.99 GiB of KV
    from ctxlint.physics.weights import format_by_key

    arch = lookup_model("meta-llama/Llama-2-7b-hf")
    settings = {"backend": "tensorrt", "max_num_tokens": 8192, "max_batch_size": 4096,
                "free_gpu_memory_fraction": 0.99, "tokens_per_block": 64}
    r = estimate(CapacityInput(arch, "trtllm", "H100-SXM-80GB", settings=settings, engine_version="0.12.0",
                               weights=format_by_key("fp8"), kv_cache_dtype="fp8"))
    assert r.kv_budget_low <= 62.99 * GiB <= r.kv_budget_high
    # a small batch holds little more: Briton's 64 sequences keep their pool (first test)


SRT = """\
name: agg
model:
  path: "hf:meta-llama/Llama-3.1-8B-Instruct"
  container: "nvcr.io/nvidia/tensorrt-llm/release:0.21.0"
  precision: "bf16"
resources:
  gpu_type: "h100"
  agg_nodes: 1
  agg_workers: 1
  gpus_per_agg: 1
  gpus_per_node: 8
backend:
  type: trtllm
  trtllm_config:
    aggregated:
      max_num_tokens: 65536
      max_seq_len: 131072
"""


def _pool(tmp_path, text):
    path = tmp_path / "recipe.yaml"
    path.write_text(text)
    [row] = json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]
    return row["prefill_pool"]["tokens"]


def test_a_recipe_on_srtctls_dynamo_frontend_runs_the_pytorch_backend(tmp_path):
    # srtctl's default frontend starts `python3 -m dynamo.trtllm --extra-engine-args <config>` (NVIDIA/srt-slurm@
    # 02600fc43bd46abb3b69c68f2d13671533687eb0:src/srtctl/backends/trtllm.py build_worker_command), whose worker
    # builds the LLM with backend "pytorch" (flags_trtllm.DYNAMO_SPEC): not a TensorRT engine at a 0.21 release
    pytorch = SRT.replace("      max_seq_len: 131072\n", "      max_seq_len: 131072\n      backend: pytorch\n")
    assert _pool(tmp_path, SRT) == _pool(tmp_path, pytorch) == 0
    # frontend trtllm_serve runs `trtllm-serve`, whose 0.21 default is the TensorRT engine
    assert _pool(tmp_path, SRT + "frontend:\n  type: trtllm_serve\n") > 0


POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: trt}
spec:
  selector: {matchLabels: {app: trt}}
  template:
    metadata: {labels: {app: trt}}
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
      containers:
      - name: trt
        image: nvcr.io/nvidia/tensorrt-llm/release:0.20.0
        command: [trtllm-serve, meta-llama/Llama-3.1-8B-Instruct, --max_num_tokens, "65536", --max_seq_len, "131072"%s]
        env: [{name: B, valueFrom: {secretKeyRef: {name: s, key: b}}}]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_a_backend_a_file_or_variable_may_set_is_not_read_from_the_release(tmp_path):
    # trtllm-serve 0.20 merges --extra_llm_api_options into its LLM arguments, `backend` among them, and a
    # `--backend $(B)` from a Secret is not known: the release's default is a guess, so the PyTorch figure stays
    # (as with no release), not the TensorRT engine's smaller warmup
    pytorch = _pool(tmp_path, POD % ", --backend, pytorch")
    assert _pool(tmp_path, POD % "") > pytorch  # the release's default: a TensorRT engine
    assert _pool(tmp_path, POD % ", --extra_llm_api_options, /cfg/extra.yaml") == pytorch
    assert _pool(tmp_path, POD % ", --backend, $(B)") == pytorch
