"""Where each term of a derived KV budget comes from: the engine code that subtracts it, and
the boot logs its size was fitted to (tests/physics/calibration.yaml holds them with their URLs).

`ctxlint capacity` prints this beside each term so a user can check the rule, not only the number.
Paths are the engines' own (see the reference sections in docs and engines.md).
"""
from __future__ import annotations

CALIBRATION = "fitted to boot logs (tests/physics/calibration.yaml)"

_VLLM = "vllm/v1/worker/gpu_worker.py determine_available_memory"
_SGLANG = ("python/sglang/srt/model_executor/model_runner.py profile_max_num_token "
           "(mem_cache/kv_cache_configurator.py in newer releases)")
_TGI = "server/text_generation_server/models/flash_causal_lm.py FlashCausalLM.warmup"
_TRTLLM = "tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator"
_LMDEPLOY = "lmdeploy/messages.py TurbomindEngineConfig.cache_max_entry_count"
_LLAMACPP = "src/llama-kv-cache.cpp, src/llama-context.cpp"

# (engine, term label) -> source; label "*" applies to every term of that engine without its own.
SOURCES = {
    ("vllm", "instance memory"): "vllm/config/cache.py gpu_memory_utilization (0.90; 0.92 from 0.20.0)",
    ("vllm", "activation peak"): f"{_VLLM}: profile_run of max_num_batched_tokens; {CALIBRATION}",
    ("vllm", "activation peak (V0 profile)"): f"vllm/worker/worker.py determine_num_available_blocks; {CALIBRATION}",
    ("vllm", "non-torch"): f"{_VLLM}: non_torch_increase; {CALIBRATION}",
    ("vllm", "CUDA graphs"): "vllm/v1/worker/gpu_model_runner.py CUDA-graph memory estimate "
                             "(VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, default from 0.20.0)",
    ("sglang", "memory before weights"): f"{_SGLANG}: total memory before the weights load; {CALIBRATION}",
    ("tgi", "device memory"): "server/text_generation_server/utils/import_utils.py get_cuda_free_memory",
    ("tgi", "reserve"): "CUDA_MEMORY_FRACTION x TGI_WIGGLE_ROOM (0.90) of the total is kept back",
    ("tgi", "warmup peak"): f"{_TGI}: a forward of max_batch_prefill_tokens; {CALIBRATION}",
    ("trtllm", "warmup peak"): f"{_TRTLLM}: a dummy warmup of max_num_tokens; {CALIBRATION}",
    ("trtllm", "engine activations"): "a TensorRT engine's execution context: tensorrt_llm/builder.py BuildConfig "
                                      "(max_num_tokens; gather_context_logits off); lint/physics/trt_warmup.py",
    ("trtllm", "CUDA graphs and NCCL"): f"{_TRTLLM}: memory used outside torch in profiling; {CALIBRATION}",
    ("lmdeploy", "PyTorch runtime reserve"): f"{_LMDEPLOY}; {CALIBRATION}",
    ("llamacpp", "compute buffers"): f"{_LLAMACPP}: ggml compute and output buffers; {CALIBRATION}",
    ("*", "weights"): "the checkpoint's size, or its parameter counts x the weight format's bytes",
    ("*", "CUDA context"): f"CUDA context and allocator slack, outside every engine's count; {CALIBRATION}",
    ("*", "device memory"): "the accelerator's total as CUDA reports it (lint/physics/data/accelerators.json)",
    ("*", "NCCL"): f"NCCL buffers at TP/PP > 1; {CALIBRATION}",
}
ENGINE_CODE = {"vllm": _VLLM, "sglang": _SGLANG, "tgi": _TGI, "trtllm": _TRTLLM, "lmdeploy": _LMDEPLOY,
               "llamacpp": _LLAMACPP}


def source_of(engine: str, label: str, own: str = "") -> str:
    """The term's own source if it has one, else the table's, else the engine's memory code."""
    return own or SOURCES.get((engine, label)) or SOURCES.get(("*", label)) or ENGINE_CODE.get(engine, "")
