"""A Truss config's `trt_llm` section as the TensorRT-LLM settings ctxlint models (engines/flags_trtllm.py).

basetenlabs/truss@0bee989b9ec85ed9d29374ab4d7e2883e49de87e:truss/base/trt_llm_config.py defines two stacks:

- v1 (Engine-Builder-LLM, the default `inference_stack`): Baseten's engine builder compiles a TensorRT-LLM
  engine from `build` and Baseten's Briton server runs it with `runtime`. `build.max_seq_len` is
  trtllm-build's `max_seq_len` (unset: the model's max_position_embeddings, Baseten's engine-builder-config
  reference, docs.baseten.co/engines/engine-builder-llm/engine-builder-config), `max_batch_size` (Truss's
  default 256, not trtllm-serve's 2048), `max_num_tokens`, `tensor_parallel_count` and
  `pipeline_parallel_count` are tp_size and pp_size; `runtime.kv_cache_free_gpu_mem_fraction` is what Briton
  passes on as the executor's KvCacheConfig free_gpu_memory_fraction (its briton_config.pbtxt, written by
  basetenlabs/truss@467b7a12c88befd36f6fc978c9173e69be2a5f14:truss/templates/trtllm-briton/src/engine.py),
  and `runtime.enable_chunked_context` (Truss's default true) is chunked prefill. The engine is a compiled
  TensorRT engine: the role's `backend` is `tensorrt` (physics/trt_warmup.py: no PyTorch warmup sizes it).
- v2 (BIS-LLM): TensorRT-LLM's LLM API; `runtime.max_seq_len`, `max_batch_size`, `max_num_tokens`,
  `tensor_parallel_size` and `enable_chunked_prefill` carry the LLM API's names, and `runtime.patch_kwargs`
  holds further LLM API arguments as written (`kv_cache_config.free_gpu_memory_fraction`, `max_input_len`,
  `model_path`). `build` takes only the five fields the v2 validator allows to differ from their defaults.

`build.quantization_type` says the weights' and the KV cache's precision: `fp8`/`fp4` quantize the weights
(TensorRT-LLM QuantConfig.quant_algo FP8 / NVFP4) and the `_kv` variants the KV cache too
(kv_cache_quant_algo FP8). `encoder` and `encoder_bert` builds are embedding servers (BEI), not LLMs.
What Truss refuses is CTX002 at the value; a setting that bears on capacity but has no TensorRT-LLM
counterpart ctxlint models is CTX008, never dropped.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ctxlint.adapters.workload_inputs import scalar_text
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, Node, dotted_sources

from ..records import field, record

REFUSED = ": Truss refuses this config"
Report = Callable[[Node, str], None]
_RENAMED = ("palmyra", "qwen", "llama", "mistral", "deepseek")  # trt_llm_common_validation: renamed to decoder
_ENCODERS = ("encoder", "encoder_bert")
# quantization_type -> (QuantConfig.quant_algo, kv_cache_quant_algo); TrussTRTLLMQuantizationType
_QUANT = {"no_quant": (None, None), "fp8": ("FP8", None), "fp8_kv": ("FP8", "FP8"), "fp4": ("NVFP4", None),
          "fp4_kv": ("NVFP4", "FP8")}
_PARTIAL = {"fp4_mlp_only": "FP4 MLP weights with 16-bit attention weights",
            "weights_int8": "legacy", "weights_kv_int8": "legacy", "weights_int4": "legacy",
            "weights_int4_kv_int8": "legacy", "smooth_quant": "legacy"}
# (section, Truss key, TensorRT-LLM name, least, most): Field(strict=True, ge=..., le=...) ints of each stack
_V1 = (("build", "max_seq_len", "max_seq_len", 1, 1048576), ("build", "max_batch_size", "max_batch_size", 1, 2048),
       ("build", "max_num_tokens", "max_num_tokens", 65, 1048576),
       ("build", "tensor_parallel_count", "tp_size", 1, None))
_V2 = (("runtime", "max_seq_len", "max_seq_len", 1, 1048576), ("runtime", "max_batch_size", "max_batch_size", 1, 2048),
       ("runtime", "max_num_tokens", "max_num_tokens", 65, 131072),
       ("runtime", "tensor_parallel_size", "tp_size", 1, None))
# v2 refuses these build fields away from their defaults (TRTLLMConfigurationV2.validate_inference_stack_v2)
_V2_BUILD_DEFAULTS = {"base_model": "decoder", "max_seq_len": None, "max_batch_size": 256, "max_num_tokens": 8192,
                      "max_beam_width": 1, "tensor_parallel_count": 1, "pipeline_parallel_count": 1,
                      "sequence_parallel_count": 1, "moe_expert_parallel_option": -1}
# v1 runtime fields Briton reads that no check needs; KvCacheConfig.host_cache_size is the host offload's bytes
_V1_KEPT = (("kv_cache_host_memory_bytes", "kv_cache_config.host_cache_size"),
            ("batch_scheduler_policy", "batch_scheduler_policy"), ("total_token_limit", "total_token_limit"),
            ("request_default_max_tokens", "request_default_max_tokens"))
_V2_FIELDS = ("max_seq_len", "max_batch_size", "max_num_tokens", "tensor_parallel_size", "enable_chunked_prefill",
              "build_config")  # TRTLLMRuntimeConfigurationV2.validate_patch_kwargs: not in patch_kwargs
_BOOLS = {"true": True, "false": False, "yes": True, "no": False, "on": True, "off": False, "1": True, "0": False}


@record
class TrtLlm:
    """What one `trt_llm` section gives the engine role."""

    engine: Val[str]
    data: Dict[str, Any] = field(default_factory=dict)  # LLM-API-shaped settings (apply_config)
    sources: Dict[str, Source] = field(default_factory=dict)  # dotted key -> where its value is written
    checkpoint: Optional[Val[str]] = None  # build.checkpoint_repository.repo of an HF source
    model_path: Optional[Val[str]] = None  # v2 patch_kwargs.model_path
    model_unknown: Optional[Tuple[str, Source]] = None  # why no Hugging Face id names the model, and where
    unresolved: List[Tuple[str, Source]] = field(default_factory=list)


def read(key: Node, section: Node, file: str, report: Report) -> Optional[TrtLlm]:
    """The section's settings, or None: refused as a whole, or no LLM (an embedding build)."""
    if section.kind != MAP:
        report(section, f"must be a mapping (`trt_llm: {{build: {{checkpoint_repository: ...}}}}`){REFUSED}")
        return None
    stack_node = section.get("inference_stack")  # unset or null: v1 (trt_llm_config.get_discriminator_value)
    stack = scalar_text(stack_node) if stack_node is not None else ""
    stack = stack or ("v1" if stack_node is None or stack_node.kind == SCALAR else "")
    if stack not in ("v1", "v2"):
        report(stack_node, f"`inference_stack` must be v1 or v2, not {stack or 'this'!r}{REFUSED}")
        return None
    build = section.get("build")
    if build is None or build.kind != MAP:
        report(build or key, f"`trt_llm.build` (with `checkpoint_repository`) is required{REFUSED}")
        return None
    base = build.get("base_model")
    model_kind = scalar_text(base) if base is not None else "decoder"
    if model_kind in _ENCODERS:
        return None  # an embedding server (text-embeddings-router over a BEI engine): no KV cache to check
    if model_kind != "decoder":
        why = "was renamed to `decoder`" if model_kind in _RENAMED else "is no base_model Truss knows (decoder, " \
            "encoder, encoder_bert)"
        report(base, f"{model_kind!r} {why}{REFUSED}")
        return None
    label = "BIS-LLM, inference_stack v2" if stack == "v2" else "Engine-Builder-LLM, inference_stack v1"
    out = TrtLlm(Val("trtllm", key.source(file), raw=f"TensorRT-LLM on Baseten ({label})"))
    runtime = section.get("runtime")
    runtime = runtime if runtime is not None and runtime.kind == MAP else None
    if stack == "v2" and runtime is None:  # TRTLLMConfigurationV2.runtime has no default
        report(section.get("runtime") or key, f"inference_stack v2 needs `trt_llm.runtime` (max_seq_len, "
               f"tensor_parallel_size, ...){REFUSED}")
        return None
    sections = {"build": build, "runtime": runtime}
    for where, name, target, least, most in (_V2 if stack == "v2" else _V1):
        _int(out, sections[where], name, target, least, most, file, report)
    _checkpoint(out, build, stack, file, report)
    _quantization(out, build.get("quantization_type"), file, report)
    # Truss's defaults where the engine's differ (max_batch_size 2048, chunked prefill off), at the section key
    at = (section.keys["runtime"] if runtime is not None else key).source(file)
    if "max_batch_size" not in out.data:
        _put(out, "max_batch_size", 256, (at if stack == "v2" else section.keys["build"].source(file)))
    chunked = "enable_chunked_prefill" if stack == "v2" else "enable_chunked_context"
    _bool(out, runtime, chunked, "enable_chunked_prefill", at, file, report)
    if stack == "v1":  # Briton runs the engine the builder compiled: TensorRT-LLM's TensorRT backend
        _put(out, "backend", "tensorrt", section.keys["build"].source(file))
        _v1_runtime(out, build, runtime, file, report)
    else:
        _v2_build(build, report)
        _patch(out, runtime.get("patch_kwargs") if runtime is not None else None, file)
    return out


def _put(out: TrtLlm, name: str, value: Any, source: Source) -> None:
    target: Dict[str, Any] = out.data
    parts = name.split(".")
    for i, part in enumerate(parts[:-1]):
        target = target.setdefault(part, {})
        out.sources.setdefault(".".join(parts[:i + 1]), source)  # a parent (`kv_cache_config`) at its first child
    target[parts[-1]] = value
    out.sources[name] = source


def _int(out: TrtLlm, holder: Optional[Node], name: str, target: str, least: int, most: Optional[int], file: str,
         report: Report) -> None:
    node = holder.get(name) if holder is not None else None
    if node is None or node.kind == SCALAR and node.value is None:
        return
    value = node.value if node.kind == SCALAR else None
    bounds = f"from {least} to {most}" if most else f"of {least} or more"
    if not isinstance(value, int) or isinstance(value, bool) or value < least or most is not None and value > most:
        report(node, f"`{name}` must be a whole number {bounds} (written as a number, not a string){REFUSED}")
        return
    _put(out, target, value, node.source(file))


def _bool(out: TrtLlm, holder: Optional[Node], name: str, target: str, at: Source, file: str, report: Report) -> None:
    """A pydantic bool (lax: true/false, yes/no, on/off, 1/0); Truss's default true when unset."""
    node = holder.get(name) if holder is not None else None
    if node is None or node.kind == SCALAR and node.value is None:
        _put(out, target, True, at)
        return
    value = node.value if node.kind == SCALAR else None
    if not isinstance(value, bool):
        value = _BOOLS.get(scalar_text(node).strip().lower()) if isinstance(value, (str, int)) else None
    if value is None:
        report(node, f"`{name}` must be true or false{REFUSED}")
        return
    _put(out, target, value, node.source(file))


def _checkpoint(out: TrtLlm, build: Node, stack: str, file: str, report: Report) -> None:
    repo = build.get("checkpoint_repository")
    skip = build.get("skip_build_result")
    if repo is None or repo.kind == SCALAR and repo.value is None:
        if stack == "v1" or not (skip is not None and skip.value is True):
            report(build, f"`checkpoint_repository` is required{' unless skip_build_result is set' * (stack == 'v2')}"
                   f"{REFUSED}")
        return
    source, name = repo.get("source"), repo.get("repo") if repo.kind == MAP else None
    kind = scalar_text(source) if source is not None else ""
    if repo.kind != MAP or name is None or not isinstance(name.value, str) or source is None:
        report(repo, f"`checkpoint_repository` needs `source` (HF, GCS, S3, AZURE, REMOTE_URL, BASETEN_TRAINING) and "
               f"`repo`{REFUSED}")
        return
    if kind == "HF":
        out.checkpoint = Val(name.value.strip(), name.source(file))
    else:
        out.model_unknown = (f"the model (checkpoint_repository source {kind}: {name.value}, not a Hugging Face id)",
                             name.source(file))


def _quantization(out: TrtLlm, node: Optional[Node], file: str, report: Report) -> None:
    if node is None or node.kind == SCALAR and node.value is None:
        return
    kind = scalar_text(node)
    if kind in _PARTIAL:
        out.unresolved.append((f"quantization_type {kind} ({_PARTIAL[kind]}: weights of a precision ctxlint does not "
                               "model for TensorRT-LLM)", node.source(file)))
        return
    if kind not in _QUANT:
        report(node, f"{kind!r} is no quantization_type Truss knows ({', '.join([*_QUANT, *_PARTIAL])}){REFUSED}")
        return
    weights, kv = _QUANT[kind]
    if weights:
        _put(out, "quant_config.quant_algo", weights, node.source(file))
    if kv:
        _put(out, "quant_config.kv_cache_quant_algo", kv, node.source(file))


def _v1_runtime(out: TrtLlm, build: Node, runtime: Optional[Node], file: str, report: Report) -> None:
    pp = build.get("pipeline_parallel_count")
    if pp is not None and pp.kind == SCALAR and pp.value is not None:
        if isinstance(pp.value, int) and not isinstance(pp.value, bool) and pp.value >= 1:
            _put(out, "pp_size", pp.value, pp.source(file))
        else:
            report(pp, f"`pipeline_parallel_count` must be a whole number of 1 or more{REFUSED}")
    sp = build.get("sequence_parallel_count")
    if sp is not None and sp.kind == SCALAR and sp.value not in (None, 1):
        out.unresolved.append((f"sequence_parallel_count {scalar_text(sp)} (GPUs TensorRT-LLM's world size counts "
                               "beyond tensor x pipeline parallel)", sp.source(file)))
    for name, target in _V1_KEPT:  # no capacity check reads them: kept, under TensorRT-LLM's name where it has one
        node = runtime.get(name) if runtime is not None else None
        if node is not None and node.kind == SCALAR and node.value is not None:
            _put(out, target, node.value, node.source(file))
    frac = runtime.get("kv_cache_free_gpu_mem_fraction") if runtime is not None else None
    if frac is None or frac.kind == SCALAR and frac.value is None:
        return
    try:
        value = float(scalar_text(frac)) if frac.kind == SCALAR and not isinstance(frac.value, bool) else None
    except ValueError:
        value = None
    if value is None:
        report(frac, f"`kv_cache_free_gpu_mem_fraction` must be a number{REFUSED}")
        return
    _put(out, "kv_cache_config.free_gpu_memory_fraction", value, frac.source(file))


def _v2_build(build: Node, report: Report) -> None:
    for name, default in _V2_BUILD_DEFAULTS.items():
        node = build.get(name)
        if node is not None and not (node.kind == SCALAR and node.value == default):
            where = "runtime" if name in ("max_seq_len", "max_batch_size", "max_num_tokens") else ""
            hint = f" (it is `trt_llm.runtime.{name}` there)" if where else \
                " (`trt_llm.runtime.tensor_parallel_size` there)" if name == "tensor_parallel_count" else ""
            report(node, f"`trt_llm.build.{name}` may not be set with inference_stack v2{hint}{REFUSED}")


def _patch(out: TrtLlm, patch: Optional[Node], file: str) -> None:
    """LLM API arguments as written. One that repeats a runtime field keeps the field's value (Truss logs an
    error for it), and which of the two BIS-LLM applies is not known: CTX008."""
    if patch is None or patch.kind != MAP:
        return
    for key, value in patch.value.items():
        if not isinstance(key, str):
            continue
        if key in _V2_FIELDS:
            out.unresolved.append((f"patch_kwargs.{key} (also the runtime field `{key}`: Truss logs an error, and "
                                   "which one BIS-LLM applies is not known)", value.source(file)))
            continue
        if key == "model_path" and value.kind == SCALAR and isinstance(value.value, str):
            out.model_path = Val(value.value.strip(), value.source(file))
            continue
        plain = value.plain()
        if isinstance(plain, dict) and isinstance(out.data.get(key), dict):
            out.data[key].update(plain)
        else:
            out.data[key] = plain
        out.sources[key] = value.source(file)
        out.sources.update(dotted_sources(value, lambda n: n.source(file), key + "."))
