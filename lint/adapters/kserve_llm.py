"""KServe `LLMInferenceService` and `LLMInferenceServiceConfig` (serving.kserve.io), for crds_kserve.

KServe's preset runs `vllm serve /mnt/models` on the `main` container and appends `VLLM_ADDITIONAL_ARGS`
and the container's `args`, re-split by its shell's `eval` (preset_args.py): each string is read as vLLM
flags with positions inside it, and a word that is no flag (a command line written in `args`) is refused by
vLLM (CTX301). KServe merges the service's container over the preset's strategically, where `command` and
`args` are each replaced whole: a `command` of the container's own replaces the preset's, and runs with the
container's `args` as written.
`spec.template` is the decode role when `spec.prefill` exists (else unified),
`spec.prefill.template` the prefill role; `replicas`, `parallelism.tensor|pipeline|data|dataLocal`
and `spec.model.uri` (`hf://`) or `model.name` fill in what the flags do not say (a command that
serves `/mnt/models`, where KServe puts `model.uri`, serves that model). The image gives the version
when it is the preset's engine's.
"""
from __future__ import annotations

from typing import List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import int_val, scalar, seq, str_val
from ctxlint.adapters.crds_kserve import MODEL_MOUNT, _container_roles, _workload
from ctxlint.adapters.crds_kubeai import model_id
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import EngineRole, Workload
from ctxlint.model import DECODE, PREFILL, UNIFIED, Parallelism, Val
from ctxlint.nodes import MAP, SCALAR, Node

ADDITIONAL_ARGS = "VLLM_ADDITIONAL_ARGS"
PRESET = ("KServe's preset runs `eval \"exec vllm serve /mnt/models ... ${VLLM_ADDITIONAL_ARGS} $@\"` with the "
          "container's args as `$@`")


def llm_service(obj: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    file = spans.file
    spec = obj.get("spec")
    if spec is None or spec.kind != MAP:
        return []
    model = _model(spec.get("model"), file)
    prefill = spec.get("prefill") if spec.get("prefill") is not None and spec.get("prefill").kind == MAP else None
    out: List[Workload] = []
    sections = [(spec, None, DECODE if prefill is not None else UNIFIED, spec.keys.get("template"))]
    if prefill is not None:
        sections.append((prefill, "prefill", PREFILL, spec.keys["prefill"]))
    for section, suffix, kind, marker in sections:
        template = section.get("template") or spec.get("template")
        roles = []
        for c in seq(template.get("containers") if template is not None and template.kind == MAP else None):
            if c.kind != MAP or scalar(c.get("name")) != "main":
                continue
            additional = next((e.get("value") for e in seq(c.get("env"))
                               if e.kind == MAP and scalar(e.get("name")) == ADDITIONAL_ARGS), None)
            engine = Val("vllm", c.source(file), raw="KServe LLMInferenceService (vllm serve)")
            found = _container_roles(c, template, spans, result, engine=engine, preset=PRESET,
                                     script=additional if additional is not None and additional.kind == SCALAR
                                     else None)
            parallel = section.get("parallelism") or spec.get("parallelism")
            roles.extend(_filled(r, kind, marker, model, parallel, file) for r in found)
        replicas = int_val(section.get("replicas"), file)
        out.extend(_workload(obj, suffix, roles, spans, result, replicas))
    return out


def _model(node: Optional[Node], file: str) -> Optional[Val[str]]:
    if node is None or node.kind != MAP:
        return None
    uri = scalar(node.get("uri"))
    if isinstance(uri, str) and uri.startswith("hf://"):
        return model_id(node.get("uri"), file)
    return str_val(node.get("name"), file)


def _filled(r: EngineRole, kind: str, marker: Optional[Node], model: Optional[Val[str]],
            parallel: Optional[Node], file: str) -> EngineRole:
    role = r.role
    if role.kind == UNIFIED and kind != UNIFIED and marker is not None:
        role = replace(role, role=Val(kind, marker.source(file)))
    if parallel is not None and parallel.kind == MAP:
        p = role.parallelism
        data = int_val(parallel.get("dataLocal"), file) or int_val(parallel.get("data"), file)
        role = replace(role, parallelism=Parallelism(
            tensor=p.tensor or _positive(int_val(parallel.get("tensor"), file)),
            pipeline=p.pipeline or _positive(int_val(parallel.get("pipeline"), file)),
            data=p.data or _positive(data)))
        role = replace(role, engine_args=role.engine_args + _preset_flags(role, parallel, file))
    served = r.model
    if served is None or model is not None and str(served.value).rstrip("/") == MODEL_MOUNT \
            and str(model.raw).startswith("hf://"):
        served = model  # KServe downloads spec.model.uri to /mnt/models (a served name is not the model)
    return replace(r, role=role, model=served)


def _preset_flags(role, parallel: Node, file: str) -> tuple:
    """What KServe's data-parallel preset passes to vLLM from `parallelism`: --data-parallel-size
    `data` (all ranks; `dataLocal` is this pod's share) and --enable-expert-parallel `expert`."""
    out = []
    data = _positive(int_val(parallel.get("data"), file))
    if data is not None and role.arg("data_parallel_size") is None:
        out.append(("data_parallel_size", data))
    expert = parallel.get("expert")
    if expert is not None and scalar(expert) is True and role.arg("enable_expert_parallel") is None:
        out.append(("enable_expert_parallel", Val(True, expert.source(file))))
    return tuple(out)


def _positive(val: Optional[Val[int]]) -> Optional[Val[int]]:
    return val if val is not None and val.value > 0 else None
