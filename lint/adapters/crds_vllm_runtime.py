"""vLLM production-stack operator `VLLMRuntime` (production-stack.vllm.ai/v1alpha1).

The operator (operator/internal/controller/vllmruntime_controller.go,
deploymentForVLLMRuntime) runs one container `/opt/venv/bin/vllm serve` with
these arguments, in this order, and ctxlint reads the same list with every
token at the field that produced it:

- `spec.model.modelURL` (the positional model), `enableLoRA` ->
  `--enable-lora`, `enableTool` -> `--enable-auto-tool-choice`,
  `toolCallParser` -> `--tool-call-parser`;
- `spec.vllmConfig.enableChunkedPrefill` / `enablePrefixCaching` ->
  `--enable-...` when true, `--no-enable-...` otherwise (also when absent:
  the operator always passes one of the two);
- `spec.model.maxModelLen` -> `--max-model-len`, `dtype` -> `--dtype`,
  `spec.vllmConfig.tensorParallelSize` -> `--tensor-parallel-size`,
  `spec.model.maxNumSeqs` -> `--max-num-seqs`, `gpuMemoryUtilization` (a
  string) -> `--gpu_memory_utilization`, `maxLoras` -> `--max_loras`
  (numbers only when > 0, strings only when non-empty), then
  `spec.vllmConfig.extraArgs` as written;
- `spec.lmCacheConfig.enabled` -> `--kv-transfer-config` with
  LMCacheConnectorV1 (LMCacheConnector without `v1`), `kv_role: kv_both`.

Environment: `VLLM_USE_V1=1` when `vllmConfig.v1` is true, else `0`, then
`vllmConfig.env`. `deploymentConfig.replicas` (default 1) and
`deploymentConfig.resources.gpu` (a quantity such as "1", of resource
`gpuType`, default nvidia.com/gpu) give replicas and GPUs per pod; the
device type is not stated (gpuType is the device plugin's resource name).
"""
from __future__ import annotations

from typing import List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, int_val, is_kind, labels_of, name_of, objects, scalar, seq
from ctxlint.adapters.helm_values import _seq
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, EnvVar, Workload, env_from_k8s, limits_from_annotations, read_container
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, Node

NAME = "vllm-runtime"
KINDS = ("VLLMRuntime",)
# (section, field, flag, kind) in the operator's order; kind: bool (flag when true), int (> 0), str (non-empty).
_FIELDS = (
    ("model", "enableLoRA", "--enable-lora", "bool"),
    ("model", "enableTool", "--enable-auto-tool-choice", "bool"),
    ("model", "toolCallParser", "--tool-call-parser", "str"),
    ("vllmConfig", "enableChunkedPrefill", "--enable-chunked-prefill", "switch"),
    ("vllmConfig", "enablePrefixCaching", "--enable-prefix-caching", "switch"),
    ("model", "maxModelLen", "--max-model-len", "int"),
    ("model", "dtype", "--dtype", "str"),
    ("vllmConfig", "tensorParallelSize", "--tensor-parallel-size", "int"),
    ("model", "maxNumSeqs", "--max-num-seqs", "int"),
    ("vllmConfig", "gpuMemoryUtilization", "--gpu_memory_utilization", "str"),
    ("vllmConfig", "maxLoras", "--max_loras", "int"),
)


def _map(node: Optional[Node]) -> Optional[Node]:
    return node if node is not None and node.kind == MAP else None


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)  # cheap: its line index is built on first use
    workloads: List[Workload] = []
    for obj in objects(loaded):
        spec = _map(obj.get("spec"))
        if is_kind(obj, KINDS, "production-stack.vllm.ai") and spec is not None:
            w = _runtime(obj, spec, spans, result)
            if w is not None:
                workloads.append(w)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _args(spec: Node) -> List[Node]:
    """The operator's argument list, as nodes: flags at their field's key, values at the value."""
    sections = {name: _map(spec.get(name)) for name in ("model", "vllmConfig", "lmCacheConfig")}
    model = sections["model"]
    url = model.get("modelURL") if model is not None else None
    items: List[Node] = [url] if isinstance(scalar(url), str) and scalar(url).strip() else []
    for section, field, flag, kind in _FIELDS:
        block = sections[section]
        value = block.get(field) if block is not None else None
        key = block.keys.get(field) if block is not None else None
        if kind == "switch":
            if value is None or value.kind == SCALAR:  # absent, true or false: the operator passes one
                on = value is not None and value.value is True
                # An absent field's flag sits at its section's key (`vllmConfig:`), else at `spec`.
                anchor = key if key is not None else spec.keys.get(section) or spec
                items.append(clone(anchor, kind=SCALAR, value=flag if on else "--no-" + flag[2:]))
            continue
        if value is None or value.kind != SCALAR or key is None:
            continue
        v = value.value
        if kind == "bool" and v is True:
            items.append(clone(key, value=flag))
        elif kind == "int" and isinstance(v, int) and not isinstance(v, bool) and v > 0:
            items += [clone(key, value=flag), value]
        elif kind == "str" and isinstance(v, (str, float)) and not isinstance(v, bool) and str(v).strip():
            items += [clone(key, value=flag), value]
    config = sections["vllmConfig"]
    items += seq(config.get("extraArgs") if config is not None else None)
    cache = sections["lmCacheConfig"]
    enabled = cache.get("enabled") if cache is not None else None
    if scalar(enabled) is True:
        v1 = scalar(config.get("v1")) is True if config is not None else False
        connector = "LMCacheConnectorV1" if v1 else "LMCacheConnector"
        items += [clone(cache.keys["enabled"], value="--kv-transfer-config"),
                  clone(enabled, value='{"kv_connector":"%s","kv_role":"kv_both"}' % connector)]
    return items


def _runtime(obj: Node, spec: Node, spans: ScalarSpans, result: AdaptResult) -> Optional[Workload]:
    file = spans.file
    config = _map(spec.get("vllmConfig"))
    deploy = _map(spec.get("deploymentConfig"))
    v1 = config.get("v1") if config is not None else None
    env = [EnvVar("VLLM_USE_V1", "1" if scalar(v1) is True else "0", v1 if v1 is not None and v1.kind == SCALAR
                  else None)] + env_from_k8s(config.get("env") if config is not None else None)
    items = _args(spec)
    gpu = int_val(deploy.dig("resources", "gpu"), file) if deploy is not None else None
    kind_node = obj.get("kind")
    reading = read_container(Container(
        spans=spans, node=spec, name="vllm", args=_seq(items, spec) if items else None, env=env, args_only=True,
        engine=Val("vllm", kind_node.source(file), raw="VLLMRuntime (vllm serve)"), accelerator_count=gpu))
    result.diagnostics.extend(reading.diagnostics)
    if not reading.roles:
        return None
    name = name_of(obj, file)
    advertised, gateway, measured = limits_from_annotations(
        obj.dig("metadata", "annotations"), file, result.diagnostics, str(name.value) if name is not None else None)
    return Workload(name=name, source=obj.source(file), input_format=NAME, roles=reading.roles,
                    replicas=int_val(deploy.get("replicas"), file) if deploy is not None else None,
                    advertised=advertised, gateway=gateway, measured=measured, labels=labels_of(obj),
                    # The operator's pods carry app=<name> and the CR's own labels (deploymentForVLLMRuntime in
                    # vllm-project/production-stack operator/internal/controller/vllmruntime_controller.go).
                    pod_labels=((("app", str(name.value)),) if name is not None else ()) + labels_of(obj))
