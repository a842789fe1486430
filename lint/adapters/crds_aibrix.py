"""AIBrix orchestration CRDs (orchestration.aibrix.ai/v1alpha1): `StormService`,
`RoleSet` and `RayClusterFleet`.

- StormService: `spec.replicas` RoleSets, each made from
  `spec.template.spec.roles[]` (a RoleSet's own `spec.roles[]`). A role is
  `name`, `replicas`, `podGroupSize` (pods that together form one role
  instance: multi-node engines) and a pod `template`, whose containers are
  read exactly like a Deployment's (pod_specs.pod_roles). A role runs
  `replicas` x `spec.replicas` engine instances, each over `podGroupSize`
  pods. The role is the engine's own marker (`--disaggregation-mode`,
  `kv_role`, TRT-LLM server role), else the role's `name` when it is
  `prefill` or `decode` and the other half is named too (a lone role named
  `prefill` serves whole requests); prefill and decode roles of one model form one
  disaggregated deployment. Roles that run no engine (routers) are skipped.
  AIBrix injects STORM_SERVICE_NAME, ROLE_NAME, POD_GROUP_SIZE and
  run-time names/indices into every container (pkg/controller/roleset
  utils.go, podset_controller.go): the first three are known here.
- RayClusterFleet: `spec.replicas` Ray clusters from `spec.template.spec`
  (KubeRay's RayClusterSpec). The engine runs in the head pod's container
  and spreads over the whole Ray cluster, so one engine instance has the
  GPUs of the head plus every worker group's `replicas` x `numOfHosts`
  pods (`rayStartParams.num-gpus` wins over container limits, as in
  KubeRay).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import config_maps, int_val, is_kind, labels_of, name_of, objects, scalar, seq, \
    str_val
from ctxlint.adapters.hardware import engine_devices, pods_resource
from ctxlint.adapters.pod_specs import pod_count, pod_roles
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import UNRESOLVED, EngineRole, EnvVar, Workload, limits_from_annotations
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, UNIFIED, Accelerators, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

NAME = "aibrix"
GROUP = "orchestration.aibrix.ai"


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj in objects(loaded):
        if is_kind(obj, ("StormService", "RoleSet", "RayClusterFleet"), GROUP):
            maps = config_maps(loaded, obj)
            if scalar(obj.get("kind")) == "RayClusterFleet":
                workloads.extend(_fleet(obj, spans, maps, result))
            else:
                workloads.extend(_storm(obj, spans, maps, result))
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _not_list(node: Optional[Node], file: str, result: AdaptResult, name) -> bool:
    """A field AIBrix's CRD schema types as a list, written as a mapping or a word: said once, at
    the field (the API server would reject the object), and skipped. Absent/null is no problem."""
    if node is None or node.kind == SEQ or (node.kind == SCALAR and node.value is None):
        return False
    result.diagnostics.append(Diagnostic(
        UNRESOLVED, f"{node.path} is a {'mapping' if node.kind == MAP else 'scalar'}, not a list: AIBrix's CRD "
        "schema rejects it, and ctxlint does not read what it holds", node.source(file),
        name if isinstance(name, str) else None))
    return True


def _workload(obj: Node, suffix: str, at: Node, roles: List[EngineRole], replicas: Optional[Val[int]],
              file: str, result: AdaptResult) -> Workload:
    base = name_of(obj, file)
    name = Val(f"{base.value}/{suffix}" if base is not None else suffix, at.source(file))
    advertised, gateway, measured = limits_from_annotations(
        obj.dig("metadata", "annotations"), file, result.diagnostics, str(name.value))
    return Workload(name=name, source=at.source(file), input_format=NAME, roles=roles, replicas=replicas,
                    advertised=advertised, gateway=gateway, measured=measured, labels=labels_of(obj))


def _times(per: Optional[Val[int]], outer: Optional[Val[int]], what: str) -> Optional[Val[int]]:
    """Role replicas x StormService replicas (RoleSets), at the role's own count."""
    if per is None or outer is None or outer.value == 1:
        return per
    return Val(per.value * outer.value, per.source, raw=f"{per.value} per RoleSet x {outer.value} {what}")


# -- StormService / RoleSet ------------------------------------------------------------------------------
def _storm(obj: Node, spans: ScalarSpans, maps: Dict[str, Node], result: AdaptResult) -> List[Workload]:
    file = spans.file
    spec = obj.get("spec")
    if spec is None or spec.kind != MAP:
        return []
    storm = scalar(obj.get("kind")) == "StormService"
    roleset = spec.dig("template", "spec") if storm else spec
    if roleset is None or roleset.kind != MAP:
        return []
    roles = roleset.get("roles")
    display = scalar(obj.dig("metadata", "name"))
    if _not_list(roles, file, result, display):
        return []
    sets = int_val(spec.get("replicas"), file) if storm else None  # RoleSets; AIBrix defaults to 1
    read = []
    for index, role in enumerate(seq(roles)):
        if role.kind != MAP:
            continue
        name_node = role.get("name")
        role_name = str_val(name_node, file)
        label = str(role_name.value) if role_name is not None else f"roles[{index}]"
        template = role.get("template")
        pod = template.get("spec") if template is not None and template.kind == MAP else None
        size = int_val(role.get("podGroupSize"), file)
        group = size.value if size is not None and size.value > 1 else 1
        injected = [EnvVar("STORM_SERVICE_NAME", display if storm and isinstance(display, str) else None),
                    EnvVar("ROLE_NAME", label if role_name is not None else None)] + \
            [EnvVar(n, None) for n in ("ROLESET_NAME", "ROLESET_INDEX", "ROLE_REPLICA_INDEX", "ROLE_TEMPLATE_HASH")]
        if group > 1:  # a PodSet per role instance
            injected += [EnvVar("PODSET_NAME", None), EnvVar("POD_GROUP_INDEX", None),
                         EnvVar("POD_GROUP_SIZE", str(group))]
        found = pod_roles(pod, spans, result, maps, group, injected=injected,
                           group_label="pods (AIBrix podGroupSize)")
        if found:
            read.append((role, name_node, role_name, label, found))
    # A role's name makes it a half only beside the other half, named so or marked by its engine's flags.
    halves = {str(scalar(n)).strip().lower() for _, n, _, _, _ in read} | \
        {r.role.kind for *_, found in read for r in found}
    paired = {PREFILL, DECODE} <= halves and len(read) > 1
    out = []
    for role, name_node, role_name, label, found in read:
        if paired:
            found = [_marked(r, name_node, file) for r in found]
        replicas = _times(int_val(role.get("replicas"), file), sets, "RoleSets (spec.replicas)")
        out.append(_workload(obj, label, name_node if role_name is not None else role, found, replicas, file,
                             result))
    return out


def _marked(found: EngineRole, name: Optional[Node], file: str) -> EngineRole:
    """A role named `prefill` or `decode` is that role when the engine's flags do not say."""
    kind = scalar(name)
    kind = kind.strip().lower() if isinstance(kind, str) else None
    if found.role.kind != UNIFIED or kind not in (PREFILL, DECODE):
        return found
    return replace(found, role=replace(found.role, role=Val(kind, name.source(file), raw=scalar(name))))


# -- RayClusterFleet -------------------------------------------------------------------------------------
def _fleet(obj: Node, spans: ScalarSpans, maps: Dict[str, Node], result: AdaptResult) -> List[Workload]:
    file = spans.file
    spec = obj.get("spec")
    cluster = spec.dig("template", "spec") if spec is not None and spec.kind == MAP else None
    head = cluster.get("headGroupSpec") if cluster is not None and cluster.kind == MAP else None
    if head is None or head.kind != MAP:
        return []
    head_template = head.get("template")
    head_pod = head_template.get("spec") if head_template is not None and head_template.kind == MAP else None
    found = pod_roles(head_pod, spans, result, maps, injected=[], ray=True)
    if not found:
        return []
    total = _cluster_gpus(head, head_pod, cluster, file, result, scalar(obj.dig("metadata", "name")))
    resource = cluster_resource(head_pod, cluster)
    found = [r if r.role.accelerators.count is None else
             replace(r, role=replace(r.role, accelerators=Accelerators(
                 type=r.role.accelerators.type, count=engine_devices(total, r.role.accelerators.type),
                 resource=resource)))
             for r in found]
    return [_workload(obj, "head", head, found, int_val(spec.get("replicas"), file), file, result)]


def cluster_resource(head_pod: Optional[Node], cluster: Node) -> Optional[str]:
    """The device-plugin resource of a Ray cluster's GPUs (its head's pods, then its workers'): their sum, or a
    group's `num-gpus`, sits at no resource's key, and the resource is the vendor (physics/needs.py)."""
    groups = [g.get("template") for g in seq(cluster.get("workerGroupSpecs")) if g.kind == MAP]
    return pods_resource([head_pod] + [t.get("spec") for t in groups if t is not None and t.kind == MAP])


def _group_gpus(group: Node, pod: Optional[Node], file: str) -> Optional[Val[int]]:
    params = group.get("rayStartParams")
    stated = int_val(params.get("num-gpus"), file) if params is not None and params.kind == MAP else None
    return stated or pod_count(pod, file)


def _cluster_gpus(head: Node, head_pod: Optional[Node], cluster: Node, file: str, result: AdaptResult,
                  display) -> Optional[Val[int]]:
    """GPUs of one Ray cluster: the head's plus replicas x numOfHosts x each worker group's.
    None when a worker group's size is not a plain number (the total would be a guess)."""
    head_gpus = _group_gpus(head, head_pod, file)
    parts: List[str] = [f"{head_gpus.value} on the head"] if head_gpus is not None else []
    total = head_gpus.value if head_gpus is not None else 0
    where = head_gpus.source if head_gpus is not None else None
    groups = cluster.get("workerGroupSpecs")
    if _not_list(groups, file, result, display):
        return None
    for group in seq(groups):
        if group.kind != MAP:
            continue
        template = group.get("template")
        pod = template.get("spec") if template is not None and template.kind == MAP else None
        gpus = _group_gpus(group, pod, file)
        if gpus is None or gpus.value == 0:
            continue  # CPU workers
        replicas = int_val(group.get("replicas"), file) or int_val(group.get("minReplicas"), file)
        hosts = int_val(group.get("numOfHosts"), file)
        if replicas is None or (group.get("numOfHosts") is not None and hosts is None):
            return None
        pods = replicas.value * (hosts.value if hosts is not None and hosts.value > 0 else 1)
        total += pods * gpus.value
        where = where or gpus.source
        label = scalar(group.get("groupName"))
        parts.append(f"{pods} x {gpus.value} per worker" + (f" ({label})" if isinstance(label, str) else ""))
    if where is None:
        return None
    return Val(total, where, raw=" + ".join(parts))
