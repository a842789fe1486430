"""KServe multi-node: one engine over a head pod and worker pods, sized by `workerSpec`.

What KServe does, read in kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912 (`isvc/` stands for
pkg/controller/v1beta1/inferenceservice/):

- a service is multi-node when its `predictor.workerSpec` is set, `{}` included
  (isvc/components/predictor.go Reconcile: `multiNodeEnabled := isvc.Spec.Predictor.WorkerSpec != nil`);
  the runtime's own `workerSpec` then sizes it;
- the pipeline and tensor parallel sizes are the runtime's `workerSpec.pipelineParallelSize` and
  `tensorParallelSize` (1 when unset: pkg/constants/constants.go DefaultPipelineParallelSize,
  DefaultTensorParallelSize), each replaced by the service's `workerSpec` value when it sets one
  (isvc/components/predictor.go multiNodeProcess);
- KServe writes PIPELINE_PARALLEL_SIZE, TENSOR_PARALLEL_SIZE, RAY_NODE_COUNT, REQUEST_GPU_COUNT and
  MODEL_NAME (the service's name) into the head's `kserve-container`, replacing a variable of that name
  (isvc/utils/utils.go AddEnvVarToPodSpec), and MODEL_DIR=/mnt/models for a `pvc://` or `oci://`
  storageUri; the worker's `worker-container` gets the sizes too, and its engine is part of the head's
  instance (multiNodeProcess);
- nodes and GPUs: with `multinode/executor-backend: mp` in the runtime's `spec.annotations`
  (ServingRuntimeSpec's inline ServingRuntimePodSpec.Annotations, pkg/apis/serving/v1alpha1/
  servingruntime_types.go; not `metadata.annotations`), `pipelineParallelSize` nodes of
  `tensorParallelSize` GPUs each (predictor.go computeMpNodeAndGPUs); else (Ray, the default)
  computeRayNodeAndGPUs from the tensor x pipeline GPUs and the GPU *requests* of the head's first
  container and of the worker container (pkg/utils/utils.go GetGPUResourceQtyByType(..., "Request"):
  limits do not count; none requested: one GPU on each of that many nodes);
- the head's and the workers' GPU limit and request are then set to those counts, whatever the
  containers wrote (isvc/reconcilers/deployment/deployment_reconciler.go createRawDeployment,
  addGPUResourceToDeployment), and the worker Deployment runs nodes - 1 replicas.

A runtime read alone (no service of the run names it) is read as a multi-node service that names it
without sizes of its own would run it.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ..records import record
from ctxlint.adapters.crd_common import merge_patch, scalar, seq
from ctxlint.adapters.workload import EnvVar
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, Node

# pkg/constants/constants.go: WorkerContainerName, MultiNodeExecutorBackendAnnotationKey, DefaultGPUResourceTypeList
WORKER_CONTAINER = "worker-container"
EXECUTOR = "multinode/executor-backend"
GPU_TYPES = ("nvidia.com/gpu", "amd.com/gpu", "intel.com/gpu", "habana.ai/gaudi")


@record(frozen=True)
class MultiNode:
    env: Tuple[EnvVar, ...]  # what KServe sets in the head's kserve-container
    gpus: Val[int]  # each pod's GPUs, or the instance's when its pods differ (then pods is 1)
    pods: int
    label: str  # how messages name the pods


def multi_node(isvc: Optional[Node], runtime: Node, head: Node, file: str) -> Optional[MultiNode]:
    """The multi-node facts of a service (None: not multi-node) over `runtime`, whose head container is
    `head` (merged); `isvc` None: the runtime read alone."""
    spec = runtime.get("spec")
    theirs = spec.get("workerSpec") if spec is not None and spec.kind == MAP else None
    predictor = isvc.dig("spec", "predictor") if isvc is not None else None
    ours = predictor.get("workerSpec") if predictor is not None and predictor.kind == MAP else None
    if theirs is None or theirs.kind != MAP or isvc is not None and (ours is None or ours.kind != MAP):
        return None  # not multi-node (a service's workerSpec over a runtime without one: KServe refuses it)
    where = (predictor if isvc is not None else spec).keys["workerSpec"]
    tp, tp_node = _size(ours, theirs, "tensorParallelSize")
    pp, pp_node = _size(ours, theirs, "pipelineParallelSize")
    worker = next((c for c in seq(theirs.get("containers")) if c.kind == MAP
                   and scalar(c.get("name")) == WORKER_CONTAINER), None)  # MergeServingRuntimeAndInferenceServiceSpecs
    if ours is not None and seq(ours.get("containers")):
        worker = merge_patch(worker, seq(ours.get("containers"))[0])
    annotations = spec.get("annotations")
    mp = annotations is not None and annotations.kind == MAP and scalar(annotations.get(EXECUTOR)) == "mp"
    if mp:
        nodes, worker_gpus, head_gpus = pp, tp, tp
        how = "mp executor: {} of tensorParallelSize GPUs"
    else:
        nodes, worker_gpus, head_gpus = _ray(tp * pp, _requested(head), _requested(worker))
        how = "Ray executor: {}, by their GPU requests"
    workers = f"head + {nodes - 1} worker" + ("" if nodes == 2 else "s")
    anchor = tp_node or where
    if nodes == 1 or head_gpus == worker_gpus:
        gpus, pods = Val(head_gpus, anchor.source(file), raw=str(head_gpus)), nodes
    else:
        total = head_gpus + worker_gpus * (nodes - 1)
        split = f"head {head_gpus} + {nodes - 1} worker{'' if nodes == 2 else 's'} x {worker_gpus}"
        gpus, pods = Val(total, anchor.source(file), raw=f"{total} (KServe multi-node, {how.format(split)})"), 1
    env = [EnvVar("PIPELINE_PARALLEL_SIZE", str(pp), pp_node), EnvVar("TENSOR_PARALLEL_SIZE", str(tp), tp_node),
           EnvVar("RAY_NODE_COUNT", str(nodes)), EnvVar("REQUEST_GPU_COUNT", str(head_gpus))]
    name = scalar(isvc.dig("metadata", "name")) if isvc is not None else None
    env.append(EnvVar("MODEL_NAME", name if isinstance(name, str) else None))
    uri = scalar(predictor.dig("model", "storageUri")) if predictor is not None else None
    if isinstance(uri, str) and uri.split("://")[0] in ("pvc", "oci"):
        env.append(EnvVar("MODEL_DIR", "/mnt/models"))
    return MultiNode(tuple(env), gpus, pods, f"pods (KServe multi-node, {how.format(workers)})")


def _size(ours: Optional[Node], theirs: Node, field: str) -> Tuple[int, Optional[Node]]:
    """A parallel size and where it is written: the service's, else the runtime's, else KServe's 1."""
    for spec in (ours, theirs):
        node = spec.get(field) if spec is not None else None
        if node is not None and node.kind == SCALAR and isinstance(node.value, int) \
                and not isinstance(node.value, bool) and node.value >= 1:
            return node.value, node
    return 1, None


def _requested(container: Optional[Node]) -> int:
    """A container's GPU request (GetGPUResourceQtyByType(..., "Request")): limits do not count."""
    requests = container.dig("resources", "requests") if container is not None and container.kind == MAP else None
    for name in GPU_TYPES:
        node = requests.get(name) if requests is not None and requests.kind == MAP else None
        value = scalar(node)
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value.strip())
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return 0


def _ray(total: int, head: int, worker: int) -> Tuple[int, int, int]:
    """(nodes, GPUs per worker, GPUs of the head) as predictor.go computeRayNodeAndGPUs gives them
    (an allocation it refuses, too few GPUs, is returned as computed: the parallel checks then say)."""
    def nodes_for(gpus: int, per: int) -> int:
        return 1 if per == 0 else -(-gpus // per)

    if worker > 0:
        nodes = nodes_for(total, worker)
        if head > 0:
            nodes = 1 if nodes_for(total, head) == 1 else nodes
        else:
            head = total - worker * (nodes - 1)
        return (1, 0, total) if nodes == 1 else (nodes, worker, head)
    if head > 0:
        return (nodes_for(total - head, 1) + 1 if total > head else 1), 1, head
    return total, 1, 1
