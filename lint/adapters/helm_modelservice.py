"""Values of llm-d's `llm-d-modelservice` Helm chart, rendered as the chart renders them.

What the chart does with them (llm-d-incubation/llm-d-modelservice@30519352b8f1ec6f8d8c46e7b3df3e0e3b69b2a9:
charts/llm-d-modelservice/templates/_helpers.tpl and values.yaml):

- `decode` and `prefill` are each a Deployment (a LeaderWorkerSet when `multinode: true`, of
  `parallelism.workers` pods) unless `create: false`; `replicas` defaults to 1 when the key is
  absent from the merged values, and the chart's own values set `prefill.replicas: 0`, so a
  prefill section that does not state its replicas runs none and is not read.
- A container's `modelCommand` (default `custom`): `vllmServe` runs `vllm serve <model> --port ...
  [--tensor-parallel-size T] [--data-parallel-size D] [--data-parallel-size-local DL]
  --served-model-name <name>` followed by the container's `args`; `imageDefault` passes the same
  arguments, with `--model <model>`, to the image's entrypoint; `custom` runs `command`/`args`.
- The model argument comes from `modelArtifacts.uri` (default `hf://{{ .Values.modelArtifacts.name }}`,
  rendered as a template): `hf://org/name` -> `org/name`, `pvc://claim/path` -> `<mountPath>/path`
  (mountPath default /model-cache), `pvc+hf://.../org/name` -> `org/name`; `oci://` fails to render.
- `parallelism` (tensor, data, dataLocal, workers; each default 1): a data size without a local one
  is split over the workers; each worker gets dataLocal x tensor accelerators of the resource
  `accelerator.type` names (nvidia.com/gpu by default) unless the container's own limits name it.
- `acceleratorTypes` (labelKey + one labelValue), `nodeSelector`, or the `nodeSelector`/`affinity` of
  `extraConfig` (which the chart's `modelPod` helper renders into the pod spec as written) name the device.

The tokens the chart adds point at the values they come from (the tensor size at
`parallelism.tensor`, the model at `modelArtifacts.uri`); the container's `args` at themselves.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, scalar, seq
from ctxlint.adapters.crds_llmd import _accelerator
from ctxlint.adapters.hardware import (GPU_RESOURCES, container_type, count_from_resources, type_from_labels,
                                       type_from_pod_spec)
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, EngineRole, Workload, env_from_k8s, read_container
from ctxlint.model import DECODE, PREFILL, UNIFIED, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

# The chart's `accelerator.resources` (values.yaml): accelerator.type -> the resource it requests.
_RESOURCES = {"nvidia": "nvidia.com/gpu", "intel-i915": "gpu.intel.com/i915", "intel-xe": "gpu.intel.com/xe",
              "intel-gaudi": "habana.ai/gaudi", "amd": "amd.com/gpu", "google": "google.com/tpu",
              "rebellions-atom": "rebellions.ai/ATOM"}
_NAME_TEMPLATE = re.compile(r"\{\{-?\s*\.Values\.modelArtifacts\.name\s*-?\}\}")
_SIMULATOR = "llm-d-inference-sim"  # the chart's default image: a simulator, no engine and no accelerator


def read(root: Node, spans: ScalarSpans, result: AdaptResult, input_format: str) -> List[Workload]:
    """The decode and prefill workloads the chart renders from these values."""
    file, out = spans.file, []
    model = _model(root, file)
    for section, default_replicas in ((DECODE, 1), (PREFILL, 0)):
        part = root.get(section)
        if part is None or part.kind != MAP or scalar(part.get("create")) is False:
            continue
        replicas = _replicas(part, default_replicas, root.keys[section], file)
        if replicas.value == 0 and part.get("replicas") is None:
            continue  # the chart's prefill.replicas: 0
        par = _Parallelism(part.get("parallelism"), file, scalar(root.get("multinode")) is True)
        # the chart renders `extraConfig` into the pod spec (its modelPod helper): its nodeSelector and affinity too
        device = _accelerator(part.get("acceleratorTypes"), file) or type_from_labels(part.get("nodeSelector"), file) \
            or type_from_pod_spec(part.get("extraConfig"), file)
        roles: List[EngineRole] = []
        for c in seq(part.get("containers")):
            if c.kind == MAP:
                roles += _container(c, root, section, model, par, device, spans, result)
        where = root.keys[section].source(file)
        if roles:
            out.append(Workload(name=Val(section, where, raw=f"llm-d-modelservice {section}"), source=part.source(file),
                                input_format=input_format, roles=roles, replicas=replicas))
    if len(out) < 2:
        return out  # decode alone serves whole requests (as a Deployment named -decode does alone: kubernetes.py)
    return [replace(w, roles=[r if r.role.kind != UNIFIED else replace(r, role=replace(r.role, role=Val(
        str(w.name.value), w.name.source))) for r in w.roles]) for w in out]


def _replicas(part: Node, default: int, key: Node, file: str) -> Val[int]:
    node = part.get("replicas")
    value = scalar(node)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return Val(value, node.source(file))
    return Val(default, key.source(file), raw=f"the chart's default {default}")


class _Parallelism:
    """The chart's parallelism sizes (its values.yaml sets each to 1, so its helpers return what the
    values say) and the node each is written at (absent: the default)."""

    def __init__(self, node: Optional[Node], file: str, multinode: bool) -> None:
        self.file = file
        self.nodes: Dict[str, Node] = {}
        sizes: Dict[str, int] = {}
        for key in ("tensor", "data", "dataLocal", "workers"):
            found = node.get(key) if node is not None and node.kind == MAP else None
            value = scalar(found)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                self.nodes[key], sizes[key] = found, value
        self.tensor, self.data, self.local = (sizes.get(k, 1) for k in ("tensor", "data", "dataLocal"))
        self.workers = sizes.get("workers", 1) if multinode else 1  # a LeaderWorkerSet of `workers` pods

    def flags(self) -> List[Node]:
        """`--tensor-parallel-size T` etc. as the chart adds them (sizes above 1), at the values."""
        items: List[Node] = []
        for key, flag, size in (("tensor", "--tensor-parallel-size", self.tensor),
                                ("data", "--data-parallel-size", self.data),
                                ("dataLocal", "--data-parallel-size-local", self.local)):
            at = self.nodes.get(key)
            if size > 1 and at is not None:
                items += [clone(at, value=flag), clone(at, value=str(size))]
        return items

    def accelerators(self, anchor: Node) -> Val[int]:
        """A worker's accelerators when the container's limits do not say: dataLocal x tensor."""
        at = self.nodes.get("tensor") or self.nodes.get("dataLocal") or anchor
        return Val(self.local * self.tensor, at.source(self.file),
                   raw=f"llm-d-modelservice: dataLocal {self.local} x tensor {self.tensor}")


def _container(c: Node, root: Node, section: str, model: Optional[Tuple[str, Node]], par: _Parallelism,
               device: Optional[Val[str]], spans: ScalarSpans, result: AdaptResult) -> List[EngineRole]:
    file = spans.file
    command_node = c.get("modelCommand")
    mode = scalar(command_node) or "custom"
    image = c.get("image")
    simulator = _SIMULATOR in str(scalar(image) or "")
    if simulator:
        return []  # the chart's default image simulates an engine: nothing to check
    count = count_from_resources(c.get("resources"), file)
    resource = _resource(root, section)
    if count is None and resource is not None:
        count = par.accelerators(c)
    kwargs: Dict[str, Any] = dict(spans=spans, node=c, name=str(scalar(c.get("name")) or ""), image=image,
                                  env=env_from_k8s(c.get("env")), accelerator_count=count,
                                  accelerator_type=container_type(c.get("resources"), device, file),
                                  group_pods=par.workers, group_label="pods (llm-d-modelservice parallelism.workers)")
    args = seq(c.get("args"))
    if mode in ("vllmServe", "imageDefault"):
        if model is None:
            return []  # an oci:// or templated uri the chart fails on or ctxlint cannot render
        text, at = model
        head = [clone(at, value=text)] if mode == "vllmServe" else [clone(at, value="--model"), clone(at, value=text)]
        items = head + par.flags() + args
        if mode == "vllmServe":  # the chart's own `command: ["vllm", "serve"]`
            kwargs["command"] = clone(command_node, kind=SEQ, keys={}, value=[clone(command_node, value="vllm"),
                                                                          clone(command_node, value="serve")])
        else:  # the chart passes vLLM's server arguments to the image's entrypoint: it runs vLLM
            kwargs.update(args_only=True, engine=Val("vllm", command_node.source(file),
                                                     raw="llm-d-modelservice modelCommand: imageDefault"))
        kwargs["args"] = clone(c, kind=SEQ, keys={}, value=items)
    elif mode == "custom":
        kwargs.update(command=c.get("command"), args=c.get("args"), args_only=c.get("command") is None)
    else:
        return []  # the chart refuses any other modelCommand
    reading = read_container(Container(**kwargs))
    result.diagnostics.extend(reading.diagnostics)
    return reading.roles


def _resource(root: Node, section: str) -> Optional[str]:
    """The accelerator resource the chart requests for the section ("cpu": none)."""
    kind = scalar(root.dig(section, "accelerator", "type")) or scalar(root.dig("accelerator", "type")) or "nvidia"
    if kind == "cpu":
        return None
    mapped = root.dig("accelerator", "resources", str(kind))
    name = scalar(mapped) if mapped is not None else _RESOURCES.get(str(kind), "nvidia.com/gpu")
    return name if name in GPU_RESOURCES else None  # another device: counted by no rule


def _model(root: Node, file: str) -> Optional[Tuple[str, Node]]:
    """(the model argument the chart renders, the node it comes from), or None."""
    uri = root.dig("modelArtifacts", "uri")
    name = root.dig("modelArtifacts", "name")
    text = scalar(uri) if uri is not None else "hf://{{ .Values.modelArtifacts.name }}"
    at = uri if uri is not None and uri.kind == SCALAR else name
    if not isinstance(text, str) or at is None or "://" not in text:
        return None
    if _NAME_TEMPLATE.search(text):
        if not isinstance(scalar(name), str):
            return None
        text = _NAME_TEMPLATE.sub(str(scalar(name)), text)
    if "{{" in text:
        return None
    protocol, _, other = text.partition("://")
    other = other.strip().strip('"').strip("'")  # `hf://"{{ ... }}"` renders a quoted YAML item
    if protocol == "hf":
        found = other
    elif protocol == "pvc":
        mount = scalar(root.dig("modelArtifacts", "mountPath")) or "/model-cache"
        found = f"{mount}/{other.split('/', 1)[1]}" if "/" in other else None
    elif protocol == "pvc+hf":
        parts = other.split("/")
        found = "/".join(parts[-2:]) if len(parts) >= 2 else None
    else:
        found = None
    return (found, at) if found else None
