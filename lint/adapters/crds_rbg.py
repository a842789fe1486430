"""RoleBasedGroup (workloads.x-k8s.io, sgl-project/rbg): `spec.roles[]`.

A role is `name`, `replicas` and one pod template, written in one of the
shapes RBG documents:

- v1alpha1: `template` (a pod template) or `templateRef` (a
  `spec.roleTemplates[]` entry) with `templatePatch`; `leaderWorkerSet:
  {size, patchLeaderTemplate, patchWorkerTemplate}` runs each instance over
  `size` pods as a LeaderWorkerSet (LWS injects LWS_GROUP_SIZE, ...).
- v1alpha2: `standalonePattern` or `leaderWorkerPattern: {size, template |
  templateRef{name, patch}, leaderTemplatePatch, workerTemplatePatch}`; RBG
  injects RBG_LWP_GROUP_SIZE, RBG_LWP_LEADER_ADDRESS, RBG_LWP_WORKER_INDEX.

Patches are strategic merges (containers merged by name), so a value keeps
the position where it is written, in the template or in the patch. The
leader pod's engine container is the instance's engine (the worker's when
the leader runs none) with the GPUs of all `size` pods. RBG sets
RBG_GROUP_NAME and RBG_ROLE_NAME in every container. A role is prefill or
decode by the engine's own flags, else by its `name`; prefill and decode
roles of one model are one disaggregated deployment. Router roles run no
engine and are skipped; `customComponentsPattern` roles are not read.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import config_maps, int_val, merge_patch, specs, scalar, seq, str_val
from ctxlint.adapters.crds_aibrix import _marked, _not_list, _workload as _aibrix_workload
from ctxlint.adapters.pod_specs import pod_count, pod_roles
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import EngineRole, EnvVar, Workload
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.nodes import MAP, Node

NAME = "rbg"
GROUP = "workloads.x-k8s.io"
KINDS = ("RoleBasedGroup",)


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj, spec in specs(loaded, KINDS, GROUP):
        maps = config_maps(loaded, obj)
        roles = spec.get("roles")
        display = scalar(obj.dig("metadata", "name"))
        if _not_list(roles, spans.file, result, display):
            continue
        templates = {scalar(t.get("name")): t.get("template") for t in seq(spec.get("roleTemplates"))
                     if t.kind == MAP and isinstance(scalar(t.get("name")), str)}
        for index, role in enumerate(seq(roles)):
            if role.kind == MAP:
                w = _role(obj, role, index, templates, spans, maps, result)
                workloads.extend([w] if w is not None else [])
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _template(holder: Optional[Node], templates: Dict[str, Optional[Node]], patch: Optional[Node] = None) \
        -> Optional[Node]:
    """`template`, else `templateRef` resolved in roleTemplates (with its own `patch`), then `patch`."""
    if holder is None or holder.kind != MAP:
        return None
    base = holder.get("template")
    ref = holder.get("templateRef")
    if (base is None or base.kind != MAP) and ref is not None and ref.kind == MAP:
        base = merge_patch(templates.get(scalar(ref.get("name"))), ref.get("patch"))
    base = merge_patch(base, patch)
    return base if base is not None and base.kind == MAP else None


def _pods(role: Node, templates: Dict[str, Optional[Node]]) \
        -> Tuple[Optional[Node], Optional[Node], int, Optional[Node], bool]:
    """(leader pod spec, worker pod spec, pods per instance, size node, RBG's own LWP variables)."""
    lwp = role.get("leaderWorkerPattern")
    if lwp is not None and lwp.kind == MAP:
        base = _template(lwp, templates)
        leader, worker = merge_patch(base, lwp.get("leaderTemplatePatch")), \
            merge_patch(base, lwp.get("workerTemplatePatch"))
        return _spec(leader), _spec(worker), _size(lwp), lwp.get("size"), True
    standalone = role.get("standalonePattern")
    if standalone is not None and standalone.kind == MAP:
        return _spec(_template(standalone, templates)), None, 1, None, True
    base = _template(role, templates, role.get("templatePatch"))
    lws = role.get("leaderWorkerSet")
    if lws is not None and lws.kind == MAP:
        leader, worker = merge_patch(base, lws.get("patchLeaderTemplate")), \
            merge_patch(base, lws.get("patchWorkerTemplate"))
        return _spec(leader), _spec(worker), _size(lws), lws.get("size"), False
    return _spec(base), None, 1, None, False


def _spec(template: Optional[Node]) -> Optional[Node]:
    pod = template.get("spec") if template is not None and template.kind == MAP else None
    return pod if pod is not None and pod.kind == MAP else None


def _size(node: Node) -> int:
    size = scalar(node.get("size"))
    return size if isinstance(size, int) and not isinstance(size, bool) and size > 0 else 1


def _role(obj: Node, role: Node, index: int, templates: Dict[str, Optional[Node]], spans: ScalarSpans,
          maps: Dict[str, Node], result: AdaptResult) -> Optional[Workload]:
    file = spans.file
    name_node = role.get("name")
    role_name = str_val(name_node, file)
    label = str(role_name.value) if role_name is not None else f"roles[{index}]"
    leader, worker, size, _, rbg_vars = _pods(role, templates)
    group = scalar(obj.dig("metadata", "name"))
    env = [EnvVar("RBG_GROUP_NAME", group if isinstance(group, str) else None),
           EnvVar("RBG_ROLE_NAME", label if role_name is not None else None), EnvVar("RBG_ROLE_INDEX", None)]
    if size > 1 or worker is not None:
        prefix = "RBG_LWP_" if rbg_vars else "LWS_"
        env += [EnvVar(f"{prefix}GROUP_SIZE", str(size)), EnvVar(f"{prefix}LEADER_ADDRESS", None),
                EnvVar(f"{prefix}WORKER_INDEX", None)]
    why = "pods (RBG leaderWorkerPattern size)" if rbg_vars else "pods (RBG leaderWorkerSet size)"
    found: List[EngineRole] = pod_roles(leader, spans, result, maps, size, pod_count(worker, file),
                                         injected=env, group_label=why)
    if not found and worker is not None:
        found = pod_roles(worker, spans, result, maps, size, injected=env, group_label=why)
    if not found:
        return None
    found = [_marked(r, name_node, file) for r in found]
    w = _aibrix_workload(obj, label, name_node if role_name is not None else role, found,
                         int_val(role.get("replicas"), file), file, result)
    return replace(w, input_format=NAME)
