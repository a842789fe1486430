"""A pod spec's engine roles, read container by container: what Kubernetes runs (command, args, env,
image, GPU limits, the pod's device), for a workload's pod template and for every CRD that embeds one.

kubernetes.py reads the workloads and LeaderWorkerSet groups around these pods; the operators' CRDs
(crds_*.py, app_template.py, pod_templates.py) hand their pod specs here with what their controller adds.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.config_files import tree_reader
from ctxlint.adapters.crd_common import ConfigFiles, scalar
from ctxlint.adapters.device_labels import NODE_POOL
from ctxlint.adapters.hardware import COMPUTE_CLASS, container_type, count_from_resources, type_from_pod_spec
from ctxlint.adapters.k8s_refusals import SCHEMA_VIOLATION, container_refusals, containers_not_a_list
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, EngineRole, EnvVar, Reading, env_from_k8s, read_container
from ctxlint.findings import Diagnostic
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

from ..records import record, replace


def _containers(pod: Optional[Node]) -> List[Node]:
    items = pod.get("containers") if pod is not None and pod.kind == MAP else None
    return [c for c in items.value if c.kind == MAP] if items is not None and items.kind == SEQ else []


def pod_roles(pod: Optional[Node], spans: ScalarSpans, result: AdaptResult, maps: Dict[str, Node], group_pods: int = 1,
               fallback_count: Optional[Val[int]] = None, injected: Optional[List[EnvVar]] = None,
               group_label: Optional[str] = None, fallback_type: Optional[Val[str]] = None,
               engine_of: Optional[Callable[[Node], Optional[Val[str]]]] = None, ray: bool = False,
               prepended: bool = False, alike: Optional[bool] = None) -> List[EngineRole]:
    """Engine roles of a pod spec. `injected`: the variables the owning controller sets in every
    container (default: LWS_GROUP_SIZE of a group); `prepended`: the controller puts them at the front
    of each container's `env`, where a `$(VAR)` in an env value sees them (LeaderWorkerSet's);
    `group_label` names the group's pods in messages.
    CRDs whose pods a controller completes pass `fallback_type` (the device their own fields
    name) and `engine_of` (the engine the controller's base config runs for an args-only
    container, e.g. llm-d's `vllm serve`). `ray`: a KubeRay pod, whose first container runs its
    command and args as one shell line followed by `ray start`, never the image's entrypoint
    (ray-project/kuberay@feeaf72facab4881ba2b179248bb67315634e229:ray-operator/controllers/ray/common/pod.go).
    `alike`: a LeaderWorkerSet group's pods, whether they all run this pod spec (Container.group_alike)."""
    roles: List[EngineRole] = []
    device = type_from_pod_spec(pod, spans.file) or fallback_type
    pod_ctx = _PodContext(pod, spans, maps, group_pods, fallback_count, device,
                          _group_env(group_pods) if injected is None else list(injected), group_label, engine_of,
                          prepended, alike)
    for index, c in enumerate(_containers(pod)):
        reading = pod_ctx.read(c, ray_main=ray and index == 0)
        result.diagnostics.extend(reading.diagnostics)
        # a model path an init container fills, placed by this container's volume mounts (init_downloads.py, imported
        # only for a pod with init containers: a one-file run pays nothing for it)
        if reading.roles and pod.kind == MAP and pod.get("initContainers") is not None:
            from ctxlint.adapters.init_downloads import with_downloaded_models
            roles.extend(with_downloaded_models(reading.roles, pod, c))
        else:
            roles.extend(reading.roles)
        if not reading.roles and "nvcr.io/nim" in str(scalar(c.get("image"))).lower():
            roles.extend(pod_ctx.nim(c, result))  # a NIM image starts its own server: no command to read
        if reading.roles:  # an engine container: what the API server would refuse in it
            result.diagnostics.extend(container_refusals(c, spans.file, spans.text))
    items = pod.get("containers") if pod is not None and pod.kind == MAP else None
    if items is not None and items.kind == MAP and pod_ctx.read(items).roles:
        result.diagnostics.append(containers_not_a_list(items, spans.file))  # an engine container without `- `
    return _with_class(roles, pod, spans.file) if device is None and roles else roles


def _with_class(roles: List[EngineRole], pod: Optional[Node], file: str) -> List[EngineRole]:
    """The roles with no device, told which GKE compute class or Karpenter NodePool their pod selects and why it
    names none (CTX208)."""
    selector = pod.get("nodeSelector") if pod is not None and pod.kind == MAP else None
    affinity = pod.get("affinity") if pod is not None and pod.kind == MAP else None
    selects = selector is not None and selector.kind == MAP
    if selects and selector.get(COMPUTE_CLASS) is not None or affinity is not None:
        from ctxlint.adapters.compute_classes import why_unknown

        note = why_unknown(pod, file)
        if note is not None:
            return [replace(r, role=replace(r.role, device_class=note)) if r.role.accelerators.type is None else r
                    for r in roles]
    if selects and selector.get(NODE_POOL) is not None or affinity is not None:
        from ctxlint.adapters import karpenter_pools

        note = karpenter_pools.why_unknown(pod, file)
        if note is not None:
            return [replace(r, role=replace(r.role, device_pool=note)) if r.role.accelerators.type is None else r
                    for r in roles]
    return roles


def command_fields(command: Optional[Node], args: Optional[Node], ray_main: bool = False) -> Dict[str, Any]:
    """A container's `command` and `args` as Kubernetes runs them: `command` replaces the image's
    entrypoint and `args` follow it; `args` alone go to the entrypoint (unless KubeRay runs them:
    `ray_main`). The Container fields for read_container (also Akash SDL's, whose provider copies
    both into the pod: akash-network/provider@afc4dd7c:cluster/kube/builder/workload.go)."""
    # `command: "vllm serve ..."` is refused by the API server (see k8s_refusals), but read as
    # the shell line it was meant to be, so the capacity checks still see its settings.
    script = command if command is not None and command.kind == SCALAR and args is None else None
    return {"command": None if script is not None else command, "args": args, "script": script,
            "args_only": command is None and not ray_main}  # args-only: the image's entrypoint runs them


def _runtime_class_gpus(pod: Optional[Node], env: List[EnvVar]) -> Optional[str]:
    """A pod of NVIDIA's runtime class (`runtimeClassName: nvidia`, the GPU Operator's) whose container asks no
    `nvidia.com/gpu`: no device plugin sets its NVIDIA_VISIBLE_DEVICES, so NVIDIA's runtime reads the image's (CUDA
    images: `all`, every GPU of the node: NVIDIA/nvidia-container-toolkit internal/config/image/cuda_image.go), or
    the container's own where it sets one not a list of ids; the GPUs it sees are the node's, as written, else None."""
    name = scalar(pod.get("runtimeClassName")) if pod is not None and pod.kind == MAP else None
    if not isinstance(name, str) or "nvidia" not in name.lower():
        return None
    var = next((v for v in reversed(env) if v.name == "NVIDIA_VISIBLE_DEVICES"), None)
    if var is not None and isinstance(var.value, str):
        from ctxlint.engines.docker_devices import visible_ids  # only such a pod's

        if visible_ids(var.value) is not None:
            return None  # ids the file states: those GPUs (CUDA_VISIBLE_DEVICES-like, read by the engine)
        return f"runtimeClassName: {name} with NVIDIA_VISIBLE_DEVICES={var.value}"
    return f"runtimeClassName: {name} with no nvidia.com/gpu limit (NVIDIA_VISIBLE_DEVICES the image's)"


def _privileged(c: Node) -> bool:
    """`securityContext.privileged: true` (a boolean: the API server refuses anything else)."""
    context = c.get("securityContext")
    flag = context.get("privileged") if context is not None and context.kind == MAP else None
    return flag is not None and flag.kind == SCALAR and flag.value is True


@record
class _PodContext:
    pod: Optional[Node]
    spans: ScalarSpans
    maps: Dict[str, Node]
    group_pods: int
    fallback_count: Optional[Val[int]]
    accel_type: Optional[Val[str]]
    base_env: List[EnvVar]
    group_label: Optional[str]
    engine_of: Optional[Callable[[Node], Optional[Val[str]]]]
    prepended: bool = False
    alike: Optional[bool] = None

    def env(self, c: Node, refused: Optional[List[Tuple[Node, str]]] = None) -> List[EnvVar]:
        """The container's environment: the controller's variables, then its own (envFrom, env)."""
        return self.base_env + env_from_k8s(c.get("env"), self.maps, c.get("envFrom"), refused=refused,
                                            before=self.base_env if self.prepended else None)

    def read(self, c: Node, ray_main: bool = False) -> Reading:
        spans = self.spans
        count = count_from_resources(c.get("resources"), spans.file) or self.fallback_count
        run = command_fields(c.get("command"), c.get("args"), ray_main)
        # a MIG slice request names the device: a slice of the card the node selector names
        device = container_type(c.get("resources"), self.accel_type, spans.file)
        refused: List[Tuple[Node, str]] = []  # required ConfigMap keys that are missing: the kubelet refuses
        env = self.env(c, refused)
        reading = read_container(Container(
            spans=spans, node=c, name=str(scalar(c.get("name")) or ""), **run,
            env=env,
            image=c.get("image"),
            accelerator_count=count, accelerator_type=device, group_pods=self.group_pods, ray_counted=ray_main,
            privileged=_privileged(c), gpus_uncounted=_runtime_class_gpus(self.pod, env) if count is None else None,
            **({"group_label": self.group_label} if self.group_label else {}), group_alike=self.alike,
            engine=self.engine_of(c) if self.engine_of is not None and run["args_only"] else None,
            config_reader=tree_reader(spans.file, first=ConfigFiles(spans, self.maps, self.pod, c).read)))
        if reading.roles:  # an engine container: the kubelet would not start it (CTX002, as k8s_refusals)
            reading.diagnostics.extend(Diagnostic(SCHEMA_VIOLATION, text, key.source(spans.file))
                                       for key, text in refused)
        return reading

    def nim(self, c: Node, result: AdaptResult) -> List[EngineRole]:
        from ctxlint.adapters.crds_nim import nim_role  # only a NIM container pays for it

        # an LLM NIM when its name, an LLM NIM variable or the catalog says so (nim_names.is_llm_nim)
        env = self.env(c)
        role = nim_role(c.get("image"), env, self.spans, result,
                        count_from_resources(c.get("resources"), self.spans.file) or self.fallback_count,
                        container_type(c.get("resources"), self.accel_type, self.spans.file), self.group_pods)
        return [role] if role is not None else []


def _group_env(group_pods: int) -> List[EnvVar]:
    """A group of pods another operator runs as a LeaderWorkerSet: its LWS_GROUP_SIZE."""
    return [EnvVar("LWS_GROUP_SIZE", str(group_pods))] if group_pods > 1 else []



def pod_count(pod: Optional[Node], file: str) -> Optional[Val[int]]:
    return next((n for n in (count_from_resources(c.get("resources"), file) for c in _containers(pod)) if n), None)
