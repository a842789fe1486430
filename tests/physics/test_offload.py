"""`--cpu-offload-gb`: weights kept in host memory are not on the GPU (vLLM, SGLang)."""
from __future__ import annotations

from ctxlint.physics.capacity import CapacityInput, compute
from ctxlint.resolution.resolve import resolve

GIB = 1 << 30
LLAMA_70B = resolve("meta-llama/Llama-3.3-70B-Instruct").arch


def _run(engine: str, settings: dict):
    return compute(CapacityInput(arch=LLAMA_70B, engine=engine, accelerator="GH200-96GB", context_length=32768,
                                 engine_version="0.10.1" if engine == "vllm" else "0.5.0", settings=settings))


def test_offloaded_weights_leave_the_gpu_and_the_pool_appears():
    # KubeAI's llama-3.3-70b-instruct-bf16-gh200: 131.42 GiB of bf16 weights, 60 GiB of them offloaded
    without = _run("vllm", {"gpu_memory_utilization": 0.98})
    assert without.weights_bytes_per_gpu / GIB > 94 and without.pool_tokens == 0
    offloaded = _run("vllm", {"gpu_memory_utilization": 0.98, "cpu_offload_gb": 60})
    assert round((without.weights_bytes_per_gpu - offloaded.weights_bytes_per_gpu) / GIB, 2) == 60.0
    assert offloaded.weights_low_per_gpu < offloaded.weights_bytes_per_gpu
    assert offloaded.pool_tokens > 32768
    assert any("cpu_offload_gb 60" in a for a in offloaded.assumptions)
    assert "cpu_offload_gb 60 GiB" in dict((label, how) for label, how, _ in offloaded.steps)["weights (est.)"]


def test_offload_is_read_for_sglang_and_ignored_when_zero_or_junk():
    assert _run("sglang", {"cpu_offload_gb": 60}).weights_bytes_per_gpu < _run("sglang", {}).weights_bytes_per_gpu
    base = _run("vllm", {}).weights_bytes_per_gpu
    for junk in (0, -5, "lots", None, float("nan")):
        assert _run("vllm", {"cpu_offload_gb": junk}).weights_bytes_per_gpu == base
    # an offload larger than the weights leaves none, never a negative amount
    assert _run("vllm", {"cpu_offload_gb": 500}).weights_bytes_per_gpu == 0
