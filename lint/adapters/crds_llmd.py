"""llm-d `ModelService` (llm-d.ai/v1alpha1, llm-d-model-service).

The controller merges each of `spec.prefill` / `spec.decode` into the
Deployment template of its base config (`spec.baseConfigMapRef`, a ConfigMap
of presets): containers are matched by name, the ModelService's `args` are
appended to the preset's, its `env` and `resources` override. The presets
llm-d ships (llm-d-deployer `templates/modelservice/presets/*`) run the
engine container `vllm` as `vllm serve <model> --port ...`, so a container
named `vllm` without a `command` is read as vLLM arguments (the preset's own
flags live in a ConfigMap ctxlint does not see). A container with a
`command` is read exactly like a Deployment's (pod_specs.pod_roles).

`modelArtifacts.uri` gives the model: `hf://org/name` is `org/name` (the
controller's HFModelName, the preset's `vllm serve` positional); `pvc://claim/
path/org/name` the last two path segments; others as written. Each section's
`replicas` (CRD default 1) is the workload's; `acceleratorTypes` with a
device label (`nvidia.com/gpu.product`, ...) names the device (several values
are an any-of: a device only when all name the same one). `parallelism.tensor` is not read: the
controller never renders it (llm-d-model-service 403e983), vLLM gets its
tensor-parallel size from the args. Prefill and decode become one
disaggregated deployment (workload.deployments_from), named as the
controller names the Deployments: `<name>-prefill`, `<name>-decode`.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import config_maps, int_val, labels_of, name_of, specs, scalar
from ctxlint.adapters.hardware import one_device
from ctxlint.adapters.pod_specs import pod_roles
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import EngineRole, Workload, limits_from_annotations
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, UNIFIED, Val
from ctxlint.nodes import MAP, Node

NAME = "llm-d"
KINDS = ("ModelService",)
ENGINE_CONTAINER = "vllm"  # the container name llm-d's presets give their `vllm serve` container


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj, spec in specs(loaded, KINDS, "llm-d.ai"):
        maps = config_maps(loaded, obj)
        for section in (PREFILL, DECODE):
            w = _section(obj, spec, section, spans, maps, result)
            if w is not None:
                workloads.append(w)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _section(obj: Node, spec: Node, section: str, spans: ScalarSpans, maps: Dict[str, Node],
             result: AdaptResult) -> Optional[Workload]:
    file = spans.file
    part = spec.get(section)
    if part is None or part.kind != MAP:
        return None

    def engine_of(container: Node) -> Optional[Val[str]]:
        name = container.get("name")
        if scalar(name) != ENGINE_CONTAINER:
            return None
        return Val("vllm", name.source(file), raw="llm-d base config `vllm serve` (container name vllm)")

    # A PDSpec holds `containers` like a pod spec does; its device comes from acceleratorTypes.
    roles = pod_roles(part, spans, result, maps, fallback_type=_accelerator(part.get("acceleratorTypes"), file),
                       engine_of=engine_of)
    if not roles:
        return None
    model = _artifact(spec.dig("modelArtifacts", "uri"), file)
    where = spec.keys[section].source(file)
    roles = [_as_section(r, section, where, model) for r in roles]
    base = name_of(obj, file)
    name = Val(f"{base.value}-{section}", base.source) if base is not None else None
    advertised, gateway, measured = limits_from_annotations(
        obj.dig("metadata", "annotations"), file, result.diagnostics, str(name.value) if name is not None else None)
    return Workload(name=name, source=part.source(file), input_format=NAME, roles=roles,
                    replicas=int_val(part.get("replicas"), file), advertised=advertised, gateway=gateway,
                    measured=measured, labels=labels_of(obj))


def _as_section(r: EngineRole, section: str, where, model: Optional[Val[str]]) -> EngineRole:
    """The section is the role (unless the engine's own flags say prefill/decode); the URI the model."""
    role = r.role if r.role.kind != UNIFIED else replace(r.role, role=Val(section, where))
    return replace(r, role=role, model=r.model if r.model is not None else model)


def _accelerator(types: Optional[Node], file: str) -> Optional[Val[str]]:
    """`labelKey: nvidia.com/gpu.product, labelValues: [H100]` -> H100 (several values: one device only if all
    name it, as in a node affinity: hardware.one_device)."""
    if types is None or types.kind != MAP:
        return None
    return one_device(scalar(types.get("labelKey")), types.get("labelValues"), file)


def _artifact(uri: Optional[Node], file: str) -> Optional[Val[str]]:
    text = scalar(uri)
    if not isinstance(text, str) or not text.strip():
        return None
    text = text.strip()
    if text.startswith("hf://"):
        ident = text[len("hf://"):].strip("/")
    elif text.startswith("pvc://"):
        parts = text[len("pvc://"):].strip("/").split("/")
        if len(parts) < 3:
            return None  # pvc://claim/model: a directory name, not an id
        ident = "/".join(parts[-2:])
    else:
        ident = text
    return Val(ident, uri.source(file), raw=text) if ident else None
