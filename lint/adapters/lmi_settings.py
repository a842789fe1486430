"""A serving.properties' vLLM settings as the EngineArgs LMI builds from them (adapters/lmi_properties.py says
which keys and defaults, from deepjavalibrary/djl-serving@d21927c4a692335fba62a87cc430a5fc00c5f790), handed to the
workload core as an operator's settings (KubeRay's engine_kwargs, KAITO's ConfigMap): every value at its place in
the file. Imported only for a file that runs vLLM."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.java_properties import Entry, source_at
from ctxlint.adapters.lmi_properties import NAME, SCHEMA_VIOLATION
from ctxlint.adapters.shell_script import script_node
from ctxlint.adapters.workload import Container, Workload, read_container
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.engines.specs import spec_for
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Source, Val

from ..records import replace

# LMI's names -> vLLM EngineArgs' (VllmRbProperties.generate_vllm_engine_arg_dict)
RENAMED = {"tensor_parallel_degree": "tensor_parallel_size", "pipeline_parallel_degree": "pipeline_parallel_size",
            "max_rolling_batch_size": "max_num_seqs", "max_rolling_batch_prefill_tokens": "max_num_batched_tokens",
            "quantize": "quantization", "cpu_offload_gb_per_gpu": "cpu_offload_gb"}
_DTYPES = {"float32": "float32", "fp32": "float32", "float16": "float16", "fp16": "float16",
           "bfloat16": "bfloat16", "bf16": "bfloat16", "auto": "auto"}  # VllmRbProperties DTYPE_MAPPER
_INTS = ("tensor_parallel_size", "pipeline_parallel_size", "max_num_seqs", "max_num_batched_tokens", "max_model_len")
_ALL_GPUS = "every GPU of the instance (LMI's `max`), and serving.properties names no instance: the SageMaker " \
            "instance type is in the deploy code"
# LMI's max_rolling_batch_size default: 256 for the vllm and lmi-dist rolling batch, 32 for the others (the async
# handler runs with rolling_batch=disable) (wlm LmiConfigRecommender.setRollingBatchSize)
_BATCH_DEFAULT = {True: 256, False: 32}


def role(loaded: LoadedFile, opts: Dict[str, Entry], engine: Val[str], name: str, result: AdaptResult) -> None:
    file = loaded.path
    spec = spec_for("vllm")
    data, where, unknown = settings(opts, lambda key: spec.by_name(key) is not None, name, result)
    batch_default(data, where, engine)
    if "tensor_parallel_size" not in data:  # unset: TENSOR_PARALLEL_DEGREE, else `max`
        data["tensor_parallel_size"], where["tensor_parallel_size"] = None, engine.source
        unknown.append((f"option.tensor_parallel_degree is unset: LMI then uses {_ALL_GPUS}", engine.source))
    spans, whole = script_node(file, loaded.text)
    reading = read_container(Container(spans=spans, node=whole, name=name, args_only=True, engine=engine,
                                       settings=(data, where, "serving.properties")))
    result.diagnostics.extend(reading.diagnostics)
    model = _model(opts.get("model_id"), file, name, result)
    why = None if model is not None or opts.get("model_id") is not None else (
        "the model (option.model_id is unset: the model is the one the container's env names, HF_MODEL_ID or "
        "OPTION_MODEL_ID in the deploy code, else the files beside serving.properties)", Source(file, 1, 1))
    roles = [replace(r, model=model, unresolved=r.unresolved + unknown + ([why] if why else []))
             for r in reading.roles]
    if roles:
        result.extend(deployments_from(file, [Workload(name=Val(name, Source(file, 1, 1)), source=Source(file, 1, 1),
                                                       input_format=NAME, roles=roles)]))


def batch_default(data: Dict[str, Any], where: Dict[str, Source], engine: Val[str]) -> None:
    """LMI's max_rolling_batch_size where none is set, at where the engine is named."""
    rolling = "rolling batch" in (engine.raw or "") or "lmi-dist" in (engine.raw or "")
    if "max_num_seqs" not in data:
        data["max_num_seqs"], where["max_num_seqs"] = _BATCH_DEFAULT[rolling], engine.source


def _model(entry, file: str, name: str, result: AdaptResult):
    """option.model_id: a Hugging Face repo, an s3:// URI or a local path, as written (no trailing comment)."""
    if entry is None or not entry.value.strip():
        return None
    value = entry.value.strip()
    if "#" in value and (" #" in value or "\t#" in value):
        result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, (
            f"option.model_id: a `#` starts a comment only at the start of a line in a .properties file, so the "
            f"model is `{value}` as a whole, which LMI cannot load: move the comment to a line of its own"),
            source_at(entry, entry.raw.find("#")), name))
        return None
    return Val(value, entry.at, raw=entry.raw)


def settings(opts: Dict[str, Entry], known, name: str,
             result: AdaptResult) -> Tuple[Dict[str, Any], Dict[str, Source], List[Tuple[str, Source]]]:
    """The vLLM EngineArgs LMI builds (`known(name)`: whether vLLM has the field), with where each is written, and
    what is not known."""
    data: Dict[str, Any] = {}
    where: Dict[str, Source] = {}
    unknown: List[Tuple[str, Source]] = []
    mapped = sorted(((RENAMED.get(k, k), k in RENAMED, e) for k, e in opts.items()), key=lambda t: not t[1])
    for target, renamed, entry in mapped:  # LMI's names first: vLLM's own spellings, passed through, win
        if target in ("model", "model_id") or not (renamed or known(target) or target == "dtype"):
            continue
        value = entry.value.strip()
        # an image's env (lmi_env.py: OPTION_*, TENSOR_PARALLEL_DEGREE) has no comments, and is named as written
        env = not entry.key.startswith("option.")
        label = f"env {entry.key}" if env else f"option.{entry.key[7:]}"
        if not env and (" #" in entry.value or "\t#" in entry.value):
            at = entry.raw.find("#")
            result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, (
                f"option.{entry.key[7:]}: a `#` starts a comment only at the start of a line in a .properties "
                f"file, so this value is `{entry.value.strip()}` as a whole, which LMI cannot use: move the comment "
                "to a line of its own"), source_at(entry, at), name))
            data[target], where[target] = None, entry.at
            continue
        if target == "tensor_parallel_size" and value == "max":
            data[target], where[target] = None, entry.at
            unknown.append((f"option.tensor_parallel_degree=max: {_ALL_GPUS}", entry.at))
            continue
        if target == "dtype":
            if value not in _DTYPES:
                result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, (
                    f"{label}={value}: LMI accepts {', '.join(_DTYPES)} (VllmRbProperties DTYPE_MAPPER) and "
                    "refuses to start on another"), entry.at, name))
                continue
            value = _DTYPES[value]
        elif target in _INTS and not value.isdigit():
            result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, (
                f"{label}={value}: not a whole number, so LMI refuses to start"
                + (" (`max` is the only other value it takes)" if target == "tensor_parallel_size" else "")),
                entry.at, name))
            data[target], where[target] = None, entry.at
            continue
        data[target], where[target] = value, entry.at
    return data, where, unknown
