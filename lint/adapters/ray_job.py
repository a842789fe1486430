"""A KubeRay `RayJob`: a Ray cluster (`spec.rayClusterSpec`, a RayCluster's spec) that runs `spec.entrypoint`,
a shell command line KubeRay submits to it as a Ray job
(ray-project/kuberay@feeaf72facab4881ba2b179248bb67315634e229:ray-operator/apis/ray/v1/rayjob_types.go:
RayJobSpec's `Entrypoint string json:"entrypoint"` and `RayClusterSpec *RayClusterSpec json:"rayClusterSpec"`).

The entrypoint is read as a container's shell command line, with the head container's image and env: an engine
it starts (`vllm serve m --tensor-parallel-size 2 --distributed-executor-backend ray`) spreads over the whole
Ray cluster's GPUs, as a RayCluster head's does. An entrypoint that runs a Python file on a vLLM cluster
(`python start_vllm_server.py`) is an app of the user's own: the deployment is kept (engine vLLM) and CTX008
names the file, as for a custom Serve app, never guessed.
"""
from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, List, Optional

from ctxlint.adapters.crd_common import seq
from ctxlint.adapters.hardware import pod_type
from ctxlint.adapters.workload import Container, EngineRole, Workload, env_from_k8s, read_container
from ctxlint.model import UNIFIED, Accelerators, Role, Val
from ctxlint.nodes import MAP, SCALAR, Node

if TYPE_CHECKING:
    from ctxlint.adapters.crds_kuberay import _Reader


def entrypoint_workloads(reader: "_Reader", entrypoint: Optional[Node]) -> List[Workload]:
    if entrypoint is None or entrypoint.kind != SCALAR or not isinstance(entrypoint.value, str) \
            or not entrypoint.value.strip():
        return []
    head = next((c for c in seq(reader.head_pod.get("containers") if reader.head_pod is not None else None)
                 if c.kind == MAP), None)
    device = pod_type(reader.head_pod, reader.file) or reader.worker_type
    reading = read_container(Container(
        spans=reader.spans, node=entrypoint, name="entrypoint", script=entrypoint, k8s_refs=False, shell_run=True,
        env=env_from_k8s(head.get("env"), reader.maps) if head is not None else (),
        image=head.get("image") if head is not None else None,
        accelerator_count=reader.total, accelerator_type=device, ray_counted=True))
    reader.result.diagnostics.extend(reading.diagnostics)
    if reading.roles:
        return [reader.workload(None, list(reading.roles), None, entrypoint)]
    script = _python_file(entrypoint.value)
    if script is None or not reader.vllm(entrypoint.value):
        return []
    where = entrypoint.source(reader.file)
    base = script.rsplit("/", 1)[-1]
    held = reader.code_in_file(base[:-3])
    code = f"{held}, which ctxlint does not interpret" if held else "which this file does not hold"
    what = f"the RayJob's entrypoint runs {script}, {code}: its model and engine settings are not known"
    # how many GPUs its engine uses is the code's choice: not the whole cluster (no idle-GPU or parallelism check)
    role = EngineRole(Role(role=Val(UNIFIED, where), accelerators=Accelerators(device, None),
                           source=where, name="entrypoint"),
                      Val("vllm", where, raw="a RayJob's Python entrypoint on a vLLM image"), None, None,
                      [(what, where)])
    return [reader.workload(None, [role], None, entrypoint)]


def _python_file(line: str) -> Optional[str]:
    """The `.py` file a `python [options] FILE ...` command runs (after `cd ... &&` and the like), else None."""
    try:
        words = shlex.split(line.replace("&&", " ; ").replace(";", " ; "))
    except ValueError:
        return None
    for i, word in enumerate(words):
        if word.rsplit("/", 1)[-1].startswith("python") and (i == 0 or words[i - 1] == ";"):
            rest = [w for w in words[i + 1:] if w != ";"][:3]
            return next((w for w in rest if w.endswith(".py") and not w.startswith("-")), None)
    return None
