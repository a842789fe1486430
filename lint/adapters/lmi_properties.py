"""DJL Serving / AWS LMI `serving.properties`: the model directory's settings, as SageMaker's LMI containers read them.

Read as deepjavalibrary/djl-serving@d21927c4a692335fba62a87cc430a5fc00c5f790 (DJL) has it (paths under wlm/src/
main/java/ai/djl/serving/wlm/ and engines/python/setup/djl_python/), the file's syntax in java_properties.py:

- `engine` is DJL's engine: `Python` and `MPI` run LMI's Python handlers; another (PyTorch, OnnxRuntime, the retired
  DeepSpeed container's) runs no LLM engine ctxlint models, and the file is skipped, as a script that starts none is.
- `option.rolling_batch` (unset: `auto`) picks the handler (LmiConfigRecommender.setRollingBatch): `vllm` is vLLM;
  `lmi-dist`, LMI's fork of vLLM, from 0.33.0 on runs vLLM itself ("lmi-dist has been removed in DJL Serving
  0.33.0"); `auto` is resolved by the container's SERVING_FEATURES and the model's architecture (vllm, lmi-dist,
  trtllm, or `disable` with the async vLLM handler, by release), neither of which the file states, so the engine is
  unknown (CTX008); `disable` with `option.entryPoint=djl_python.lmi_vllm.vllm_async_service` is vLLM's async
  handler. `trtllm` (TensorRT-LLM's engine build options) and another entryPoint (the user's own model.py, Neuron's
  transformers_neuronx) are said not read (CTX008), never guessed.
- vLLM's handlers build EngineArgs from VllmRbProperties (properties_manager/vllm_rb_properties.py
  generate_vllm_engine_arg_dict): model_id -> model, tensor_parallel_degree -> tensor_parallel_size,
  pipeline_parallel_degree -> pipeline_parallel_size, max_rolling_batch_size -> max_num_seqs,
  max_rolling_batch_prefill_tokens -> max_num_batched_tokens, quantize -> quantization, cpu_offload_gb_per_gpu ->
  cpu_offload_gb, dtype through DTYPE_MAPPER (fp16, bf16, fp32, or vLLM's names); every other `option.<name>` that
  is an EngineArgs field (max_model_len, gpu_memory_utilization, kv_cache_dtype, enable_prefix_caching, ...) is
  passed as written, and wins over the mapped one; other keys are LMI's own, not vLLM's.
- LMI's defaults where vLLM's differ: max_rolling_batch_size 256 for vllm and lmi-dist, 32 otherwise
  (LmiConfigRecommender.setRollingBatchSize); tensor_parallel_degree unset or `max` is every GPU of the instance
  (setTensorParallelDegree, from TENSOR_PARALLEL_DEGREE, default `max`), which the file does not name: unknown.
- No device: the SageMaker instance type lives in the deploy code, so capacity takes the device-less path (CTX208),
  and no release: the container image is named there too, so the pool is estimated over vLLM's releases.
"""
from __future__ import annotations

import os
from typing import Dict, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.java_properties import Entry, read
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Source, Val
from ctxlint.yaml_problems import PARSE_ERROR

NAME = "lmi-properties"
UNRESOLVED, SCHEMA_VIOLATION = "unresolved-value", "schema-violation"
_LMI_ENGINES = ("Python", "MPI")  # DJL engines whose handlers are LMI's (Python and MPI mode)
_VLLM_HANDLERS = ("djl_python.lmi_vllm.vllm_async_service", "djl_python.huggingface")  # huggingface dispatches


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    if not loaded.properties or not loaded.text:
        return result
    file, props = loaded.path, read(loaded.text, loaded.path)
    if props.error is not None:
        result.diagnostics.append(Diagnostic(PARSE_ERROR, props.error[0], props.error[1]))
        return result
    entries = props.entries
    name = _name(file)
    if loaded.text.startswith("\ufeff"):
        first = next(iter(entries.values()), None)
        if first is not None and first.key.lstrip("\ufeff") in ("engine",) or any(
                k.startswith("\ufeffoption.") for k in entries):
            result.diagnostics.append(Diagnostic(UNRESOLVED, (
                "the file starts with a UTF-8 byte-order mark, which DJL reads as ISO 8859-1 text of the first key "
                f"(`{first.key.lstrip(chr(0xfeff))}` is then another key, and unused): save it without the mark"),
                Source(file, 1, 1), name))
    engine = entries.get("engine")
    if engine is not None and engine.value.strip() not in _LMI_ENGINES:
        return result  # a DJL model of another engine (PyTorch, OnnxRuntime, DeepSpeed): no LLM engine ctxlint models
    opts = {k[len("option."):]: e for k, e in entries.items() if k.startswith("option.")}
    runs = engine_of(opts, file, name, result)
    if runs is None:
        return result
    from ctxlint.adapters.lmi_settings import role  # only a file that runs vLLM pays for the workload core

    role(loaded, opts, runs, name, result)
    return result


def _name(file: str) -> str:
    """The model's directory (DJL names a model by it); the file's own name is always serving.properties."""
    folder = os.path.basename(os.path.dirname(os.path.abspath(file))) if file != "-" else ""
    return folder or "serving.properties"


def engine_of(opts: Dict[str, Entry], file: str, name: str, result: AdaptResult) -> Optional[Val[str]]:
    """vLLM (with how LMI runs it), or None with a CTX008 saying why the engine is not read."""
    entry = opts.get("entryPoint")
    point = entry.value.strip() if entry is not None else ""
    rolling = opts.get("rolling_batch")
    mode = rolling.value.strip() if rolling is not None else "auto"
    where = rolling.at if rolling is not None else Source(file, 1, 1)

    def unread(text: str, at: Source) -> None:
        result.diagnostics.append(Diagnostic(UNRESOLVED, text, at, name))

    if point and point not in _VLLM_HANDLERS:
        unread(f"option.entryPoint={point}: the model is served by that handler, not by LMI's vLLM one; ctxlint "
               "does not read what it runs, so nothing of this model is checked", entry.at)
        return None
    if point == "djl_python.lmi_vllm.vllm_async_service":
        return Val("vllm", entry.at, raw="LMI vLLM (async handler)")
    if mode == "vllm":
        return Val("vllm", where, raw="LMI vLLM rolling batch")
    if mode == "lmi-dist":
        return Val("vllm", where, raw="LMI lmi-dist (LMI's vLLM fork; vLLM itself from DJL 0.33.0)")
    if mode == "auto":
        unread("option.rolling_batch " + ("is `auto`" if rolling is not None else "is unset (`auto`)") +
               ": LMI picks the engine by the container's features (vLLM, lmi-dist or TensorRT-LLM, by release) and "
               "the model's architecture, and serving.properties names neither the image nor a model ctxlint "
               "reads; set `option.rolling_batch=vllm` (or the engine you deploy) to have it checked", where)
        return None
    if mode == "trtllm":
        unread("option.rolling_batch=trtllm: LMI builds a TensorRT-LLM engine from its own options, which ctxlint "
               "does not read; nothing of this model is checked", where)
        return None
    unread(f"option.rolling_batch={mode}: no engine ctxlint models (`disable` is Hugging Face Accelerate unless "
           "option.entryPoint names LMI's vLLM async handler); nothing of this model is checked", where)
    return None

