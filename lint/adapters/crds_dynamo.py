"""NVIDIA Dynamo `DynamoGraphDeployment` (nvidia.com/v1alpha1 `spec.services`; v1beta1 `spec.components`).

Each service of `spec.services` whose `extraPodSpec.mainContainer` runs an
engine (`python3 -m dynamo.vllm|dynamo.sglang|dynamo.trtllm`, or a plain
engine) is one workload: `replicas`, GPUs per node from
`resources.limits.gpu` (else `requests.gpu`, else the container's own
resources), `multinode.nodeCount` nodes per engine instance, environment
from `spec.envs`, the service's `envs` and the container's `env`. The role is
the engine's own marker (`--disaggregation-mode`, `--is-prefill-worker`),
else `subComponentType: prefill|decode`. A TRT-LLM `--extra-engine-args`
file mounted from a ConfigMap of the same file is read with its positions.
Prefill and decode services of one model become one disaggregated
deployment (workload.deployments_from). Frontends, planners and routers run
no engine and are skipped; `envFromSecret` values are unknown. The v1beta1
API (the current recipes) lists `spec.components[]` instead, each with a
`name`, a `type` (prefill/decode mark the role), `replicas`, `multinode`
and a `podTemplate.spec` whose `main` container runs the engine with its
GPUs in its own limits; the graph's environment is `spec.env`.
"""
from __future__ import annotations

from typing import List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import ConfigFiles, config_maps, int_val, is_kind, labels_of, name_of, objects, \
    scalar, seq
from ctxlint.adapters.hardware import container_type, count_from_resources, type_from_pod_spec
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import (Container, EngineRole, EnvVar, Workload, env_from_k8s, limits_from_annotations,
                                       read_container)
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, UNIFIED, Val
from ctxlint.nodes import MAP, SCALAR, Node

NAME = "dynamo"
KINDS = ("DynamoGraphDeployment",)


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj in objects(loaded):
        if not is_kind(obj, KINDS, "nvidia.com"):
            continue
        maps = config_maps(loaded, obj)
        services = obj.dig("spec", "services")
        graph = []
        for key, service in services.value.items() if services is not None and services.kind == MAP else ():
            if service.kind == MAP:
                graph.append(_service(obj, str(key), services.keys[key], service, spans, maps, result))
        for component in seq(obj.dig("spec", "components")):  # nvidia.com/v1beta1
            if component.kind == MAP:
                graph.append(_component(obj, component, spans, maps, result))
        workloads.extend(_decode_by_default([w for w in graph if w is not None]))
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _gpus(service: Node, container: Node, file: str) -> Optional[Val[int]]:
    resources = service.get("resources")
    for section in ("limits", "requests"):
        count = int_val(resources.dig(section, "gpu") if resources is not None else None, file)
        if count is not None:
            return count
    return count_from_resources(container.get("resources"), file)


def _service(obj: Node, key: str, key_node: Node, service: Node, spans: ScalarSpans, maps, result: AdaptResult) \
        -> Optional[Workload]:
    """A v1alpha1 `spec.services` entry: `extraPodSpec.mainContainer`, `envs`, `subComponentType`."""
    pod = service.get("extraPodSpec")
    main = pod.get("mainContainer") if pod is not None and pod.kind == MAP else None
    env = env_from_k8s(obj.dig("spec", "envs"), maps) + env_from_k8s(service.get("envs"), maps)
    # where the operator puts these in the container's env list (and so whether the container's own `env` can
    # refer to them with $(NAME)) changed between releases: such a reference is unknown, not kept as written
    return _worker(obj, key, key_node, service, pod, main, env, service.get("subComponentType"), spans, maps, result,
                   [EnvVar(var.name, None) for var in env])


def _component(obj: Node, component: Node, spans: ScalarSpans, maps, result: AdaptResult) -> Optional[Workload]:
    """A v1beta1 `spec.components[]` entry (nvidia.com/v1beta1, the current recipes): `name`, `type`
    (frontend, worker, prefill, decode), `podTemplate.spec` with the `main` container (else the first)
    and its GPU limits, `replicas`, `multinode`, the graph's `spec.env`."""
    name = component.get("name")
    pod = component.dig("podTemplate", "spec")
    containers = [c for c in seq(pod.get("containers") if pod is not None and pod.kind == MAP else None)
                  if c.kind == MAP]
    main = next((c for c in containers if scalar(c.get("name")) == "main"), containers[0] if containers else None)
    graph_env = env_from_k8s(obj.dig("spec", "env"), maps)  # "prepended to every component's environment"
    envs = env_from_k8s(obj.dig("spec", "envs"), maps)
    env = graph_env + envs
    return _worker(obj, str(scalar(name) or "component"), name if name is not None else component, component, pod,
                   main, env, component.get("type"), spans, maps, result,
                   graph_env + [EnvVar(var.name, None) for var in envs])  # "may reference values from this list"


def _worker(obj: Node, key: str, key_node: Node, unit: Node, pod: Optional[Node], main: Optional[Node], env,
            sub: Optional[Node], spans: ScalarSpans, maps, result: AdaptResult,
            visible: List[EnvVar]) -> Optional[Workload]:
    """`env`: the operator's variables, which beat the container's envFrom and lose to its env; `visible`: those
    of them the container's env can refer to (a value of None: a reference is unknown)."""
    file = spans.file
    if main is None or main.kind != MAP:
        return None
    command, args = main.get("command"), main.get("args")
    script = command if command is not None and command.kind == SCALAR and args is None else None
    nodes = int_val(unit.dig("multinode", "nodeCount"), file)
    env_from = env_from_k8s(None, maps, main.get("envFrom"))  # Kubernetes: env's $(NAME) sees envFrom's variables
    reading = read_container(Container(
        spans=spans, node=main, name=key, command=None if script is not None else command, args=args, script=script,
        # the operator merges the graph's and the service's envs into the container's env, which beats its envFrom
        env=env_from + env + env_from_k8s(main.get("env"), maps, before=env_from + visible),
        image=main.get("image"),
        args_only=command is None, accelerator_count=_gpus(unit, main, file),
        accelerator_type=container_type(main.get("resources"), type_from_pod_spec(pod, file), file),
        group_pods=nodes.value if nodes is not None and nodes.value > 0 else 1,
        config_reader=ConfigFiles(spans, maps, pod, main).read))
    result.diagnostics.extend(reading.diagnostics)
    if not reading.roles:
        return None
    roles = [_marked(r, sub, file) for r in reading.roles]
    dgd = name_of(obj, file)
    name = Val(f"{dgd.value}/{key}" if dgd is not None else key, key_node.source(file))
    advertised, gateway, measured = limits_from_annotations(
        obj.dig("metadata", "annotations"), file, result.diagnostics, str(name.value))
    return Workload(name=name, source=key_node.source(file), input_format=NAME, roles=roles,
                    replicas=int_val(unit.get("replicas"), file), advertised=advertised, gateway=gateway,
                    measured=measured, labels=labels_of(obj))


def _decode_by_default(graph: List[Workload]) -> List[Workload]:
    """A graph with prefill workers: the unmarked workers of that model are its decode workers
    (Dynamo's vLLM worker hands prefill to `--is-prefill-worker` services when they exist)."""
    prefill = {(r.engine.value, r.model.value) for w in graph for r in w.roles if r.role.kind == PREFILL and r.model}
    out = []
    for w in graph:
        if all(r.role.kind == UNIFIED and r.model is not None and (r.engine.value, r.model.value) in prefill
               for r in w.roles):
            w = replace(w, roles=[replace(r, role=replace(r.role, role=Val(DECODE, w.source, raw="unmarked worker "
                                                                               "beside prefill workers")))
                                  for r in w.roles])
        out.append(w)
    return out


def _marked(found: EngineRole, sub: Optional[Node], file: str) -> EngineRole:
    """`subComponentType` names the role when the engine's own flags do not."""
    kind = scalar(sub)
    if found.role.kind != UNIFIED or kind not in (PREFILL, DECODE):
        return found
    return replace(found, role=replace(found.role, role=Val(kind, sub.source(file))))
