"""Amazon SageMaker HyperPod's inference operator (inference.sagemaker.aws.amazon.com): `InferenceEndpointConfig` and
`JumpStartModel`.

The CRDs' schemas: aws/sagemaker-hyperpod-cli@011ca927123e02b35a399935bbb3ab1905fe33c7:helm_chart/HyperPodHelmChart/
charts/inference-operator/config/crd/inference.sagemaker.aws.amazon.com_inferenceendpointconfigs.yaml (v1, and
v1alpha1 with a subset of its fields) and ..._jumpstartmodels.yaml.

InferenceEndpointConfig: `spec.worker` is the inference server's container (`image`, `command`, `args`, `resources`,
and `environmentVariables`, a container's `env` list: {name, value | valueFrom}), run in a Deployment of
`spec.replicas` pods (default 1) on `spec.instanceType` (`^ml\\..*`, a SageMaker name: instance_types.py), or the
first available of `spec.instanceTypes`, or a `spec.nodeAffinity` (v1: mutually exclusive with both). The worker is
read as a Kubernetes container is (pod_specs.pod_roles), its engine recognised by its command or image alike.
`spec.pdSpec` (disaggregated prefill and decode: "Presence of pdSpec enables DPD mode, creating separate prefill and
decode Deployments") makes two of them from the worker: each of `prefillSpec` and `decodingSpec` with its own
`replicas`, `resources` and `nodeSelector`, and its `args` "appended after the shared ... args and override any
matching flags". An engine given the model's mount path (`/opt/ml/model`) serves
`modelSourceConfig.huggingFaceModel.modelId` when the source is Hugging Face.

JumpStartModel (`spec.model.modelId` in `modelHubName`, on `spec.server.instanceType`) runs JumpStart's packaged
container with that model's defaults, none of them in the file: said once (CTX008), as an Ollama server is
(adapters/unmodelled.py), never a deployment.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, int_val, is_kind, labels_of, name_of, specs, scalar
from ctxlint.adapters.hardware import canonical_type, one_device
from ctxlint.adapters.pod_specs import pod_roles
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import UNRESOLVED, EngineRole, Workload, limits_from_annotations
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

NAME = "hyperpod"
GROUP = "inference.sagemaker.aws.amazon.com"
INSTANCE_LABEL = "node.kubernetes.io/instance-type"  # the label HyperPod's nodes carry their ml. type in
_ROLES = (("prefillSpec", PREFILL, "prefill"), ("decodingSpec", DECODE, "decode"))


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj, spec in specs(loaded):
        if is_kind(obj, ("InferenceEndpointConfig",), GROUP):
            workloads += _endpoint(obj, spec, spans, result)
        elif is_kind(obj, ("JumpStartModel",), GROUP):
            _jumpstart(obj, spec, spans, result)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _display(obj: Node) -> Optional[str]:
    name = scalar(obj.dig("metadata", "name"))
    return name if isinstance(name, str) else None


def _instance(spec: Node, spans: ScalarSpans) -> Tuple[Optional[Val[str]], Optional[Tuple[str, Source]]]:
    """The device the endpoint's instance type names: `instanceType`, else `instanceTypes` when every entry names
    the same device (the operator takes the first one available). A value the schema's `^ml\\.` refuses (a
    template's `$INSTANCE_TYPE`) names none: what to say of it on each engine role (second)."""
    single = spec.get("instanceType")
    if single is not None and single.kind == SCALAR and single.value not in (None, ""):
        text = str(single.value).strip()
        if not text.startswith("ml."):
            return None, (f"instanceType {text} (no SageMaker instance type, which the CRD requires: ml.<type>; "
                          "no device taken from it)", single.source(spans.file))
        found = canonical_type(text)
        return (Val(found[0], single.source(spans.file), raw=found[1]) if found is not None else None), None
    return one_device(INSTANCE_LABEL, spec.get("instanceTypes"), spans.file), None


def _endpoint(obj: Node, spec: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    worker = spec.get("worker")
    if worker is None or worker.kind != MAP:
        return []
    device, unknown = _instance(spec, spans)
    hf_model = _hf_model(spec, spans)
    pd = spec.get("pdSpec")
    if pd is None or pd.kind != MAP:
        roles = _roles(worker, spec.get("nodeAffinity"), None, None, None, device, spans, result, hf_model, unknown)
        return _workload(obj, None, roles, int_val(spec.get("replicas"), spans.file), spans, result)
    out: List[Workload] = []
    for key, kind, label in _ROLES:
        part = pd.get(key)
        part = part if part is not None and part.kind == MAP else None
        get = (lambda k: part.get(k)) if part is not None else (lambda k: None)
        roles = _roles(worker, spec.get("nodeAffinity"), get("nodeSelector"), get("resources"), get("args"), device,
                       spans, result, hf_model, unknown)
        at = pd.keys.get(key) if part is not None else pd
        roles = [replace(r, role=replace(r.role, role=Val(kind, (at or pd).source(spans.file)))) for r in roles]
        replicas = int_val(get("replicas"), spans.file) if part is not None else None
        out += _workload(obj, label, roles, replicas, spans, result)
    return out


def _roles(worker: Node, affinity: Optional[Node], selector: Optional[Node], resources: Optional[Node],
           extra_args: Optional[Node], device: Optional[Val[str]], spans: ScalarSpans, result: AdaptResult,
           hf_model: Optional[Val[str]], unknown: Optional[Tuple[str, Source]]) -> List[EngineRole]:
    """The worker as the one container of a pod (its fields at their places in the file): `environmentVariables`
    as its `env`; a role's `resources` over the worker's and its `args` after the worker's."""
    fields = {k: v for k, v in worker.value.items() if k in ("image", "command", "args", "resources", "workingDir")}
    keys = {k: v for k, v in worker.keys.items() if k in fields}
    env = worker.get("environmentVariables")
    if env is not None:
        fields["env"], keys["env"] = env, worker.keys.get("environmentVariables")
    if resources is not None and resources.kind == MAP:
        fields["resources"] = resources
    base = fields.get("args")
    if extra_args is not None and extra_args.kind == SEQ:
        items = (base.value if base is not None and base.kind == SEQ else []) + extra_args.value
        fields["args"] = clone(base if base is not None and base.kind == SEQ else extra_args, value=items)
    container = clone(worker, value=fields, keys=keys)
    pod_fields = {"containers": clone(worker, kind=SEQ, value=[container], keys=None)}
    if selector is not None and selector.kind == MAP:
        pod_fields["nodeSelector"] = selector
    if affinity is not None and affinity.kind == MAP:
        pod_fields["affinity"] = clone(affinity, value={"nodeAffinity": affinity}, keys={})
    pod = clone(worker, value=pod_fields, keys={})
    roles = pod_roles(pod, spans, result, {}, fallback_type=device)
    for role in roles:
        if unknown is not None and role.role.accelerators.type is None:
            role.unresolved.append(unknown)
    return [_with_model(r, worker, hf_model) for r in roles]


def _hf_model(spec: Node, spans: ScalarSpans) -> Optional[Val[str]]:
    source = spec.get("modelSourceConfig")
    if source is None or source.kind != MAP or scalar(source.get("modelSourceType")) != "huggingface":
        return None
    model = source.dig("huggingFaceModel", "modelId")
    text = scalar(model)
    return Val(text.strip(), model.source(spans.file), raw=text) if isinstance(text, str) and text.strip() else None


def _with_model(role: EngineRole, worker: Node, hf_model: Optional[Val[str]]) -> EngineRole:
    """An engine given the model's mount (`modelVolumeMount.mountPath`, where the operator puts the weights) serves
    the Hugging Face model the source names."""
    mount = scalar(worker.dig("modelVolumeMount", "mountPath"))
    named = role.model.value if role.model is not None else None
    if hf_model is None or not isinstance(mount, str) or not mount.strip() or not isinstance(named, str):
        return role
    if named.rstrip("/") != mount.strip().rstrip("/"):
        return role
    return replace(role, model=Val(hf_model.value, role.model.source,
                                   raw=f"{named} ({hf_model.value}, modelSourceConfig.huggingFaceModel)"))


def _workload(obj: Node, suffix: Optional[str], roles: List[EngineRole], replicas: Optional[Val[int]],
              spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    if not roles:
        return []
    name = name_of(obj, spans.file)
    if suffix:
        name = Val(f"{name.value}/{suffix}" if name is not None else suffix, obj.source(spans.file))
    advertised, gateway, measured = limits_from_annotations(obj.dig("metadata", "annotations"), spans.file,
                                                            result.diagnostics, str(name.value) if name else None)
    return [Workload(name=name, source=obj.source(spans.file), input_format=NAME, roles=roles, replicas=replicas,
                     advertised=advertised, gateway=gateway, measured=measured, labels=labels_of(obj))]


def _jumpstart(obj: Node, spec: Node, spans: ScalarSpans, result: AdaptResult) -> None:
    """The note where a JumpStartModel names its model (else its spec): what runs is JumpStart's container."""
    model = spec.get("model")
    model_id = model.get("modelId") if model is not None and model.kind == MAP else None
    hub = scalar(model.get("modelHubName")) if model is not None and model.kind == MAP else None
    instance = scalar(spec.dig("server", "instanceType"))
    what = f"JumpStart model {scalar(model_id)}" if scalar(model_id) not in (None, "") else "a JumpStart model"
    where = f" of hub {hub}" if isinstance(hub, str) and hub else ""
    on = f" on {instance}" if instance not in (None, "") else ""
    at = model_id if model_id is not None else spec
    result.diagnostics.append(Diagnostic(UNRESOLVED, (
        f"SageMaker HyperPod serves {what}{where}{on} in JumpStart's packaged container with that model's own "
        "defaults (engine, context length, parallelism), none of them in this file: ctxlint does not check it"),
        at.source(spans.file), _display(obj)))
