"""vLLM production-stack's values (helm_values.read_values, imported for them only): `servingEngineSpec.modelSpec[]`,
one deployment each: `modelURL`, the `vllmConfig` keys the chart renders as flags (`maxModelLen` ->
`--max-model-len`), `vllmConfig.extraArgs`, `requestGPU` (none above 0: no GPU resource, so a count not known),
`requestGPUType` (a `nvidia.com/mig-<profile>` names the slice), or in their place a non-empty `resources` block,
which the chart renders as written (vllm-project/production-stack@a6c01db05f65f556235413ba8dbcfb0c01132fff:
helm/templates/deployment-vllm-multi.yaml), `repository` + `tag` (the image: its release, and a CPU build),
`replicaCount`, and `lmcacheConfig.kvRole` kv_producer/kv_consumer as prefill/decode; with `raySpec` one RayCluster
whose engine has the head's `requestGPU` plus `replicaCount` workers' (not `replicaCount` replicas).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import int_val, scalar, seq, str_val
from ctxlint.adapters.hardware import MIG_RESOURCE, count_from_resources, mig_device, mig_type
from ctxlint.adapters.helm_values import _marked, _read, _workload, flag_items
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Workload, env_from_k8s
from ctxlint.model import DECODE, PREFILL, Val
from ctxlint.nodes import MAP, Node

_KV_ROLES = {"kv_producer": PREFILL, "kv_consumer": DECODE}


def read(root: Node, spans: ScalarSpans, result: AdaptResult, input_format: str) -> List[Workload]:
    file, out = spans.file, []
    for spec in seq(root.dig("servingEngineSpec", "modelSpec")):
        if spec.kind != MAP:
            continue
        config = spec.get("vllmConfig")
        items = [spec.get("modelURL")] if str_val(spec.get("modelURL"), file) else []
        items += flag_items(config, skip=("extraArgs", "v0", "v1", "port"))
        items += seq(config.get("extraArgs") if config is not None and config.kind == MAP else None)
        anchor = spec.get("name") or spec
        count, replicas = _gpu_request(spec, file), spec.get("replicaCount")
        ray = spec.get("raySpec")
        block = spec.get("resources")
        block = block if ray is None and block is not None and block.kind == MAP and block.value else None
        kind = None
        if ray is not None and ray.kind == MAP:  # one RayCluster: the head's GPUs + replicaCount workers'
            count, replicas = _ray_gpus(ray, count, int_val(replicas, file), file), None
        elif block is not None:  # rendered as written, in place of requestGPU/requestGPUType
            count, kind = count_from_resources(block, file), mig_type(block, None, file)
        elif count is not None:
            kind = _mig_request(spec.get("requestGPUType"), file)
        image, image_text = _engine_image(spec)
        roles = _read(spans, spec, str(scalar(spec.get("name")) or ""), items,
                      Val("vllm", anchor.source(file), raw="production-stack servingEngineSpec"), result,
                      env=env_from_k8s(spec.get("env")), count=count, kind=kind, image=image, image_text=image_text)
        if count is not None and ray is None and block is None:  # requested as `requestGPUType` (nvidia.com/gpu)
            resource = str(scalar(spec.get("requestGPUType")) or "nvidia.com/gpu")
            roles = [replace(r, role=replace(r.role, accelerators=replace(r.role.accelerators, resource=resource)))
                     for r in roles]
        kv_role = spec.dig("lmcacheConfig", "kvRole")
        roles = _marked(roles, _KV_ROLES.get(scalar(kv_role)), kv_role, file)
        out += _workload(spec.get("name"), spec, roles, file, replicas)
    return out


def _gpu_request(spec: Node, file: str) -> Optional[Val[int]]:
    """The GPUs the chart requests for the engine's pod: `requestGPU`, when above 0. For 0 its templates render no
    GPU resource at all (`if gt (int requestGPU) 0` in chart.resources and chart.hasLimits:
    vllm-project/production-stack@d6eece8a0bff38863757562768529292856b359d:helm/templates/_helpers.tpl), so the engine sees what the node's container runtime gives it (every GPU, under a runtime
    class that exposes them), or none: a count not known, as for a pod with no GPU resource."""
    count = int_val(spec.get("requestGPU"), file)
    return count if count is not None and count.value > 0 else None


def _mig_request(kind: Optional[Node], file: str) -> Optional[Val[str]]:
    """The MIG slice a `requestGPUType: nvidia.com/mig-<profile>` requests (the chart's own default values name
    nvidia.com/mig-4g.71gb), at the value: hardware.mig_device, as for a pod's own request of one."""
    text = scalar(kind)
    if kind is None or not isinstance(text, str) or not text.startswith(MIG_RESOURCE) or not text[len(MIG_RESOURCE):]:
        return None
    return mig_device(text[len(MIG_RESOURCE):].strip(), None, kind.source(file), text)


def _engine_image(spec: Node) -> Tuple[Optional[Node], Optional[str]]:
    """The engine's image as the chart writes it (`repository:tag`), and the node to point at: its tag, where a
    release is read (else the repository). A CPU build (vllm-cpu-release-repo) with no GPU requested runs the
    CPU backend (workload_devices.Devices.cpu_build)."""
    repo, tag = spec.get("repository"), spec.get("tag")
    repo_text, tag_text = scalar(repo), scalar(tag)
    if not isinstance(repo_text, str) or not repo_text:
        return None, None
    if isinstance(tag_text, (str, int, float)) and str(tag_text) and tag is not None:
        return tag, f"{repo_text}:{tag_text}"
    return repo, repo_text


def _ray_gpus(ray: Node, per_worker: Optional[Val[int]], workers: Optional[Val[int]], file: str) \
        -> Optional[Val[int]]:
    """With `raySpec` the chart renders one RayCluster per modelSpec (templates/ray-cluster.yaml): a
    head with `raySpec.headNode.requestGPU` and `replicaCount` workers with `requestGPU` each; the
    engine on the head spreads over all of them, as in a RayClusterFleet."""
    head = int_val(ray.dig("headNode", "requestGPU"), file)
    pods = workers.value if workers is not None else 1
    if per_worker is None and head is None:
        return None
    total = (head.value if head else 0) + pods * (per_worker.value if per_worker else 0)
    parts = ([f"{head.value} on the head"] if head else []) + \
        ([f"{pods} x {per_worker.value} per worker (replicaCount x requestGPU)"] if per_worker else [])
    return Val(total, (per_worker or head).source, raw=" + ".join(parts))

