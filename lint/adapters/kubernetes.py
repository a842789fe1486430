"""Kubernetes built-in workloads whose containers run an engine.

Reads Deployment, StatefulSet, DaemonSet, ReplicaSet, Pod, Job, CronJob,
LeaderWorkerSet (one engine instance per group: the leader's engine
container, or the worker's when the leader runs none, with the GPUs of the
whole group) and `kind: List` items, in every document of a file. Only
containers whose command runs a recognised engine become roles; init
containers and sidecars are ignored. Limits clients are promised come from
`ctxlint.io/*` annotations on the workload (see workload.ANNOTATIONS).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import config_maps, labels_of, objects
from ctxlint.adapters.k8s_refusals import SCHEMA_VIOLATION
from ctxlint.adapters.pod_specs import pod_count, pod_roles
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import EngineRole, EnvVar, Workload, limits_from_annotations
from ctxlint.adapters.workload_groups import deployments_from, named_halves
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, Node

NAME = "kubernetes"
# kind -> keys from the workload's `spec` to its pod spec
POD_SPEC_PATHS = {
    "Deployment": ("template", "spec"), "StatefulSet": ("template", "spec"), "DaemonSet": ("template", "spec"),
    "ReplicaSet": ("template", "spec"), "Job": ("template", "spec"), "Pod": (),
    "CronJob": ("jobTemplate", "spec", "template", "spec"),
}
LWS = "LeaderWorkerSet"
_ACCELERATORS = ("/gpu", "/tpu", "/neuron", "/mig-")  # nvidia.com/gpu, google.com/tpu, aws.amazon.com/neuron...
_API = {"Deployment": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1", "ReplicaSet": "apps/v1",
        "Job": "batch/v1", "CronJob": "batch/v1", "Pod": "v1", LWS: "leaderworkerset.x-k8s.io/v1"}


def _scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None


def matches(obj: Node) -> bool:
    kind = _scalar(obj.get("kind"))
    return isinstance(kind, str) and (kind in POD_SPEC_PATHS or kind == LWS) and \
        (isinstance(_scalar(obj.get("apiVersion")), str) or _no_api_version(obj))


def _no_api_version(obj: Node) -> bool:
    """`apiVersion` absent or null: read all the same (the kind says the shape), and said (CTX002) when the
    object runs an engine, since Kubernetes refuses it: its decoder stops at "Object 'apiVersion' is missing"
    (kubernetes/kubernetes@c11077632129e8b8a8d9457b2a86cfcb78918861:pkg/runtime/error.go missingVersionErr),
    kubectl's validation at "apiVersion not set"."""
    api = obj.get("apiVersion")
    return api is None or api.kind == SCALAR and api.value is None


def adapt(loaded: LoadedFile, maps: Any = None) -> AdaptResult:
    """`maps`: the ConfigMaps of the files checked with this one (adapters.config_map_refs.Maps)."""
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    patch: List[Any] = []  # the kustomization that lists the file as a patch (kustomize_patch_files), once looked up
    for obj in objects(loaded):  # documents and `kind: *List` items
        if matches(obj):
            # the ConfigMaps the object's pods see (its namespace's), of this file and else of its directory's
            # other files: engine config files it mounts, env it reads
            read = maps.maps_for(loaded, obj) if maps is not None and maps.holds(loaded) else config_maps(loaded, obj)
            scratch = AdaptResult()
            workload = _workload(obj, spans, scratch, read)
            if loaded.path != "-":  # is the file a kustomize patch (one running no engine may patch one that does)?
                if not patch:
                    from ctxlint.adapters.kustomize_patch_files import patch_of
                    patch.append(patch_of(loaded.path))
                if patch[0] is not None:  # read as its overlay builds the workload it patches, not alone
                    from ctxlint.adapters.kustomize_patch_files import read_through_overlay
                    workloads.extend(read_through_overlay(loaded, obj, patch[0], result, _workload,
                                                          workload is not None))
                    continue
            result.diagnostics.extend(scratch.diagnostics)
            # a base running no engine may still have overlays that patch one in (the overlays it reads
            # ConfigMaps from; those of its patch files come from the patch files): looked for where the file asks
            # for accelerators, as a serving base does (an overlay walk for every app reading a ConfigMap cost a
            # third of a kustomize tree's run)
            if offers_overlays(loaded.text, workload is not None):
                from ctxlint.adapters.kustomize_deployments import overlaid
                workloads.extend(w for w in overlaid(loaded, obj, spans, result, read, workload, _workload)
                                 if w is not None)
            if workload is not None and _no_api_version(obj):
                kind = obj.keys["kind"] if "kind" in obj.keys else obj
                result.diagnostics.append(Diagnostic(SCHEMA_VIOLATION, (
                    f"this {_scalar(obj.get('kind'))} has no `apiVersion`: kubectl refuses the file (\"apiVersion "
                    "not set\") and the workload never runs; ctxlint reads it all the same. Add the API version "
                    f"of its kind (`apiVersion: {_API.get(_scalar(obj.get('kind')), '<group>/<version>')}`)"),
                    kind.source(spans.file), str(workload.name.value) if workload.name is not None else None))
    adapted = deployments_from(loaded.path, named_halves(workloads))
    result.extend(adapted)
    return result


def offers_overlays(text: str, engine: bool) -> bool:
    return engine or "configMap" in text and any(a in text for a in _ACCELERATORS)


def _workload(obj: Node, spans: ScalarSpans, result: AdaptResult, maps: Dict[str, Node]) -> Optional[Workload]:
    file = spans.file
    kind = _scalar(obj.get("kind"))
    spec = obj.get("spec")
    if spec is None or spec.kind != MAP:
        return None
    name_node = obj.dig("metadata", "name")
    name = Val(name_node.value, name_node.source(file)) if isinstance(_scalar(name_node), str) else None
    if kind == LWS:
        roles, template = _lws_roles(spec, spans, result, maps)
    else:
        pod = spec.dig(*POD_SPEC_PATHS[kind]) if POD_SPEC_PATHS[kind] else spec
        template = spec.get("template") if kind != "CronJob" else spec.dig("jobTemplate", "spec", "template")
        roles = pod_roles(pod, spans, result, maps)
    if not roles:
        return None
    replicas_node = spec.get("replicas")
    replicas = None
    if isinstance(_scalar(replicas_node), int) and not isinstance(_scalar(replicas_node), bool):
        replicas = Val(replicas_node.value, replicas_node.source(file))
    annotations = obj.dig("metadata", "annotations")
    if not _has_limits(annotations) and template is not None:
        annotations = template.dig("metadata", "annotations")
    display = str(name.value) if name is not None else None
    advertised, gateway, measured = limits_from_annotations(annotations, file, result.diagnostics, display)
    labels = obj.dig("metadata", "labels")
    pod_labels = labels_of(template) if template else ()
    if kind == LWS and name is not None:  # what LWS gives the leader pod, which runs the engine's API server
        pod_labels = (pod_labels or labels_of(obj)) + _lws_leader_labels(str(name.value))  # as d.labels stood in
    return Workload(name=name, source=obj.source(file), input_format=NAME, roles=roles, replicas=replicas,
                    advertised=advertised, gateway=gateway, measured=measured,
                    pod_labels=pod_labels,
                    labels=tuple((str(k), str(v.value)) for k, v in labels.value.items() if v.kind == SCALAR)
                    if labels is not None and labels.kind == MAP else ())


def _lws_leader_labels(name: str) -> Tuple[Tuple[str, str], ...]:
    """The labels LWS puts on a group's leader pod beside its template's: the set's name and worker index 0, by which
    a Service (vLLM's LWS example: `leaderworkerset.sigs.k8s.io/name`, `role: leader`) selects it
    (kubernetes-sigs/lws@060ab4da: api/leaderworkerset/v1/leaderworkerset_types.go SetNameLabelKey,
    WorkerIndexLabelKey; pkg/controllers/leaderworkerset_controller.go selects leaders by the two)."""
    return (("leaderworkerset.sigs.k8s.io/name", name), ("leaderworkerset.sigs.k8s.io/worker-index", "0"))


def _has_limits(annotations: Optional[Node]) -> bool:
    return annotations is not None and annotations.kind == MAP and \
        any(str(k).startswith("ctxlint.io/") for k in annotations.value)



def lws_env(size: int) -> List[EnvVar]:
    """What LeaderWorkerSet puts at the front of every container's `env`, in its order, dropping the
    container's own variables of those names: LWS_LEADER_ADDRESS, LWS_GROUP_SIZE (the group's `size`),
    LWS_WORKER_INDEX (kubernetes-sigs/lws@1b17603c212a9ebf3ac751ed06d30011cf51f9a3:pkg/utils/pod/pod_utils.go
    AddLWSVariables, addEnvVarsIfNotExists). The leader's address and a pod's index differ per pod: unknown."""
    per_pod = "is set by LeaderWorkerSet in each pod (%s)"
    return [EnvVar("LWS_LEADER_ADDRESS", None, why=per_pod % "the group leader's address"),
            EnvVar("LWS_GROUP_SIZE", str(size)), EnvVar("LWS_WORKER_INDEX", None, why=per_pod % "the pod's index")]



def _lws_roles(spec: Node, spans: ScalarSpans, result: AdaptResult,
               maps: Dict[str, Node]) -> Tuple[List[EngineRole], Optional[Node]]:
    """One group = `size` pods (leader + size-1 workers): one engine over them, or one engine in each, as the
    engine's flags say (workload_spans.spans_group)."""
    lwt = spec.get("leaderWorkerTemplate")
    if lwt is None or lwt.kind != MAP:
        return [], None
    return lws_group_roles(lwt, spans, result, maps)


def lws_group_roles(lwt: Node, spans: ScalarSpans, result: AdaptResult,
                    maps: Dict[str, Node]) -> Tuple[List[EngineRole], Optional[Node]]:
    """A LeaderWorkerSet's `leaderWorkerTemplate` (or the same struct another operator embeds: llmaz's
    `workloadTemplate`): the roles of its group's engine, and the template they came from."""
    size = _scalar(lwt.get("size"))
    size = size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else 1
    leader, worker = lwt.get("leaderTemplate"), lwt.get("workerTemplate")
    leader_pod = leader.get("spec") if leader is not None and leader.kind == MAP else None
    worker_pod = worker.get("spec") if worker is not None and worker.kind == MAP else None
    if leader_pod is not None:
        roles = pod_roles(leader_pod, spans, result, maps, size, pod_count(worker_pod, spans.file),
                           injected=lws_env(size), prepended=True, alike=False)
        if roles:
            return roles, leader
    # no leader template: the leader "Defaults to the worker template if not specified", so every pod of the group
    # runs this (kubernetes-sigs/lws@024af0845195be26fb4a0847c37d7209849d69da:
    # api/leaderworkerset/v1/leaderworkerset_types.go LeaderWorkerTemplate)
    return pod_roles(worker_pod, spans, result, maps, size, injected=lws_env(size), prepended=True,
                      alike=leader_pod is None), worker
