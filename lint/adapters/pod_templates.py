"""Fallback: Kubernetes-style objects of kinds no other adapter reads, that hold pod specs.

New operators keep appearing; most embed ordinary pod specs somewhere under
`spec` (`template.spec`, `podSpec`, `extraPodSpec`, a `roles[].template`,
...). Any mapping under `spec` with a `containers` list of containers is read
as a pod spec, exactly like a Deployment's (pod_specs.pod_roles); only
containers that start a known engine become roles, so CRDs that run no
engine yield nothing. Each pod spec with an engine is one workload, named
`<name>/<path>` when the object holds several; its replicas are the
`replicas` beside the `template` (or pod spec) that holds it. Workloads
named prefill/decode pair as the Kubernetes adapter pairs them.

Kinds that have an adapter (HANDLED, the kubernetes built-ins, `ctxlint/v1`)
are never read here, even when their adapter finds nothing in them.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import config_maps, int_val, labels_of, name_of, objects, scalar, seq
from ctxlint.adapters.hardware import count_from_resources
from ctxlint.adapters.kinds import handled_kinds
from ctxlint.adapters.pod_specs import pod_roles
from ctxlint.adapters.kubernetes import lws_group_roles, matches
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Workload, limits_from_annotations
from ctxlint.adapters.workload_groups import deployments_from, named_halves
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SEQ, Node

NAME = "pod-template"
HANDLED: Dict[str, Tuple[str, ...]] = handled_kinds()  # API group -> kinds an adapter reads
MAX_DEPTH = 12


def handled(obj: Node) -> bool:
    kind, api = scalar(obj.get("kind")), scalar(obj.get("apiVersion"))
    if matches(obj) or not isinstance(kind, str) or not isinstance(api, str):
        return True
    group = api.split("/")[0] if "/" in api else ""
    return any(group.endswith(g) and kind in kinds for g, kinds in HANDLED.items()) or group == ""


def adapt(loaded: LoadedFile, maps: Any = None) -> AdaptResult:
    """`maps`: the ConfigMaps of the files checked with this one (adapters.config_map_refs.Maps)."""
    result = AdaptResult()
    candidates = [o for o in objects(loaded) if not handled(o) and o.get("spec") is not None]
    if not candidates:
        return result
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj in candidates:
        in_group = maps is not None and maps.holds(loaded)  # its directory's ConfigMaps too (config_map_refs)
        maps_read = maps.maps_for(loaded, obj) if in_group else config_maps(loaded, obj)
        found: List[Tuple[str, Node, Optional[Node]]] = []
        _find(obj.get("spec"), "spec", None, found, 0)
        groups: Dict[int, int] = {}
        _entry_groups(obj.get("spec"), groups, 0)
        named = []
        for path, pod, holder in found:
            size = groups.get(id(pod), 1)
            if _is_lws(pod):  # leader and workers: one engine over the group's pods, as a LeaderWorkerSet's
                roles, template = lws_group_roles(pod, spans, result, maps_read)
                path = f"{path}.{'leaderTemplate' if template is pod.get('leaderTemplate') else 'workerTemplate'}"
            elif size > 1:
                roles = pod_roles(pod, spans, result, maps_read, group_pods=size, group_label=_GROUP_LABEL)
            else:
                roles = pod_roles(pod, spans, result, maps_read)
            if roles:
                named.append((path, pod, holder, roles))
        for path, pod, holder, roles in named:
            base = name_of(obj, spans.file)
            label = _label(path, holder)
            name = base if len(named) == 1 else Val(f"{base.value if base else ''}/{label}".lstrip("/"),
                                                    (base or Val(None, pod.source(spans.file))).source)
            advertised, gateway, measured = limits_from_annotations(obj.dig("metadata", "annotations"), spans.file,
                                                          result.diagnostics, str(name.value) if name else None)
            replicas = int_val(holder.get("replicas"), spans.file) if holder is not None else None
            workloads.append(Workload(name=name, source=pod.source(spans.file), input_format=NAME, roles=roles,
                                      replicas=replicas, advertised=advertised, gateway=gateway, measured=measured,
                                      labels=labels_of(obj), service_names=_operator_services(obj, base)))
    result.extend(deployments_from(loaded.path, named_halves(workloads)))
    return result


def _operator_services(obj: Node, base: Optional[Val]) -> Tuple[str, ...]:
    """The Services the object's operator creates for it, which no file holds: llmaz's Service controller creates
    `<name>-lb` for each inference Service, a Playground's and one written by hand alike (InftyAI/llmaz@3c13ff34
    pkg/controller/inference/service_controller.go CreateServiceIfNotExists), so a route to it reaches the engine."""
    api, kind = scalar(obj.get("apiVersion")), scalar(obj.get("kind"))
    if base is None or kind != "Service" or not isinstance(api, str) or api.split("/")[0] != "inference.llmaz.io":
        return ()
    return (f"{base.value}-lb",)


def _is_pod(node: Node) -> bool:
    items = node.get("containers")
    return items is not None and items.kind == SEQ and any(
        c.kind == MAP and (c.get("image") is not None or c.get("command") is not None) for c in items.value)


def _is_lws(node: Node) -> bool:
    """LeaderWorkerSet's LeaderWorkerTemplate embedded in another kind (sweep 11: llmaz's Service
    `workloadTemplate: {size, leaderTemplate, workerTemplate}` was two engines, the worker one as well)."""
    leader, worker = node.get("leaderTemplate"), node.get("workerTemplate")
    return leader is not None and worker is not None and leader.kind == MAP and worker.kind == MAP


def _find(node: Optional[Node], path: str, holder: Optional[Node], out: list, depth: int) -> None:
    """Pod specs under `node`: (path, pod spec, the mapping whose `replicas` counts it)."""
    if node is None or depth > MAX_DEPTH:
        return
    if node.kind == MAP:
        if _is_pod(node) or _is_lws(node):
            out.append((path, node, holder))
            return
        for key, child in node.value.items():
            here = node if (key in ("template", "podSpec", "extraPodSpec", "spec") or _is_pod(child) or _is_lws(child)
                            if child.kind == MAP else False) and node.get("replicas") is not None else holder
            _find(child, f"{path}.{key}", here, out, depth + 1)
    elif node.kind == SEQ:
        for index, child in enumerate(node.value):
            _find(child, f"{path}[{index}]", holder, out, depth + 1)


_GROUP_LABEL = "pods (entry + workerReplicas workers)"


def _entry_groups(node: Optional[Node], out: Dict[int, int], depth: int) -> None:
    """Entry/worker groups (kthena ModelServing roles: `entryTemplate` + `workerReplicas` x `workerTemplate`,
    volcano-sh/kthena pkg/apis/workload/v1alpha1/servinggroup_types.go): one engine instance spans the entry
    pod and its workers, like a LeaderWorkerSet. By the entry pod spec's identity -> pods a group, when every
    pod of it asks for the same accelerators (else the entry's count alone stands, as before)."""
    if node is None or depth > MAX_DEPTH:
        return
    if node.kind == SEQ:
        for child in node.value:
            _entry_groups(child, out, depth + 1)
        return
    if node.kind != MAP:
        return
    entry, worker = node.dig("entryTemplate", "spec"), node.dig("workerTemplate", "spec")
    workers = scalar(node.get("workerReplicas"))
    if entry is not None and worker is not None and isinstance(workers, int) and not isinstance(workers, bool) \
            and workers > 0 and _gpus(entry) is not None and _gpus(entry) == _gpus(worker):
        out[id(entry)] = 1 + workers
    for child in node.value.values():
        _entry_groups(child, out, depth + 1)


def _gpus(pod: Node) -> Optional[int]:
    """The accelerators a pod asks for, over its containers (None: none says)."""
    counts = [count_from_resources(c.get("resources"), "") for c in seq(pod.get("containers")) if c.kind == MAP]
    known = [count.value for count in counts if count is not None]
    return sum(known) if known else None


def _label(path: str, holder: Optional[Node]) -> str:
    name = scalar(holder.get("name")) if holder is not None else None
    return name if isinstance(name, str) and name else path
