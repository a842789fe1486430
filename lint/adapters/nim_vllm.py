"""A NIM that serves with vLLM (a NIM vLLM image, or a NIM 2.x release: nim_backend), read as vLLM.

NIM 2.x resolves vLLM's arguments from, highest first: arguments after `nim-serve`, NIM_PASSTHROUGH_ARGS, the NIM_*
variables that map to vLLM arguments, runtime_config.json, the profile's tags (tp, pp), NIM's built-in defaults
(docs.nvidia.com/nim/large-language-models/2.0.0/reference/advanced-configuration.html, "Configuration Priority").
The variables and the passthrough arguments are read here as the vLLM flags they map to, the profile's tp/pp
where no variable sets them; NIM's built-in defaults are not published, so a vLLM default the derivation takes in
their place is named on the role (Role.defaults_assumed) and said in the pool's account.
"""
from __future__ import annotations

from typing import List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone
from ctxlint.adapters.nim_backend import Backend
from ctxlint.adapters.workload import UNRESOLVED, Container, EngineRole, read_container
from ctxlint.findings import Diagnostic
from ctxlint.model import Accelerators, Parallelism, Val
from ctxlint.nodes import SCALAR, SEQ, Node
from ctxlint.records import replace

VLLM_FLAGS = {"NIM_MAX_MODEL_LEN": "--max-model-len", "NIM_TENSOR_PARALLEL_SIZE": "--tensor-parallel-size",
              "NIM_PIPELINE_PARALLEL_SIZE": "--pipeline-parallel-size", "NIM_MAX_NUM_SEQS": "--max-num-seqs",
              "NIM_SERVED_MODEL_NAME": "--served-model-name"}


def as_vllm(image: Node, env, by_name, spans, result: AdaptResult, count, kind, nodes: int, model,
            backend: Backend) -> Optional[EngineRole]:
    """The NIM container as a vLLM role: its NIM_* variables and NIM_PASSTHROUGH_ARGS as vLLM's flags."""
    items: List[Node] = []
    for name, flag in VLLM_FLAGS.items():
        v = by_name.get(name)
        if v is not None and v.node is not None and v.node.kind == SCALAR:
            items += [clone(v.node, value=flag), v.node]
    for flag, size, name in (("--tensor-parallel-size", backend.tp, "NIM_TENSOR_PARALLEL_SIZE"),
                             ("--pipeline-parallel-size", backend.pp, "NIM_PIPELINE_PARALLEL_SIZE")):
        if size is not None and name not in by_name and backend.node is not None:  # the profile's tags
            items += [clone(backend.node, value=flag), clone(backend.node, value=str(size))]
    passthrough = by_name.get("NIM_PASSTHROUGH_ARGS")
    reading = read_container(Container(
        spans=spans, node=image, name="nim", args=clone(image, kind=SEQ, value=items, keys={}) if items else None,
        env=[e for e in env if e.name not in VLLM_FLAGS], args_only=True, accelerator_count=count,
        accelerator_type=kind, group_pods=nodes,
        engine=Val("vllm", image.source(spans.file),
                   raw=f"{backend.said} (NIM_* variables map to vLLM arguments)")))
    if passthrough is not None and passthrough.node is not None and passthrough.value:
        extra = read_container(Container(spans=spans, node=image, script=passthrough.node, args_only=True,
                                         engine=Val("vllm", image.source(spans.file))))
        if extra.roles and reading.roles:  # the passthrough arguments win over NIM_* (NIM's priority order)
            merged = dict(reading.roles[0].role.engine_args)
            merged.update(dict(extra.roles[0].role.engine_args))
            p = extra.roles[0].role
            r = reading.roles[0].role
            reading.roles[0] = replace(reading.roles[0], role=replace(
                r, engine_args=tuple(merged.items()), context_length=p.context_length or r.context_length,
                kv_cache_dtype=p.kv_cache_dtype or r.kv_cache_dtype,
                parallelism=Parallelism(p.parallelism.tensor or r.parallelism.tensor,
                                        p.parallelism.pipeline or r.parallelism.pipeline,
                                        p.parallelism.data or r.parallelism.data)))
        result.diagnostics.extend(extra.diagnostics)
    result.diagnostics.extend(reading.diagnostics)
    if not reading.roles:
        return None
    found = reading.roles[0]
    r = found.role
    if r.parallelism.tensor is None and r.parallelism.pipeline is None:
        # NIM sets the parallel sizes from its profile for the GPUs it finds: on one GPU they are 1 (a profile runs
        # on TP x PP GPUs, 1.x docs), on more the pool per GPU depends on the profile picked (CTX208 says so)
        several = r.accelerators.count is not None and r.accelerators.count.value > 1
        r = replace(r, accelerators=Accelerators(None if several else r.accelerators.type),
                    accelerator_withheld=r.accelerators.type if several else None)
        if several and r.accelerator_withheld is not None:
            result.diagnostics.append(Diagnostic(UNRESOLVED, (
                f"NIM selects its model profile, and with it the tensor and pipeline parallel sizes, for the "
                f"{count.value} GPUs it finds at run time: state NIM_TENSOR_PARALLEL_SIZE, or NIM_MODEL_PROFILE by "
                "name (vllm-<precision>-tp<N>-pp<M>)"), count.source))
    assumed = ["vLLM as the backend (a NIM 2.x image carries vLLM or SGLang, and this one's name says "
               "neither)"] if backend.assumed else []
    if r.arg("gpu_memory_utilization") is None and r.arg("kv_cache_memory_bytes") is None:
        assumed.append("vLLM's default --gpu-memory-utilization (NIM's documentation names built-in defaults of "
                       "its own without their values)")
    if assumed:
        r = replace(r, defaults_assumed="; ".join(assumed))
    return replace(found, role=r, model=model, version=None)
