"""LLMKube (inference.llmkube.dev/v1alpha1): an `InferenceService` serving the `Model` its `modelRef` names.

The operator builds the engine's command line from the two objects' fields, and this adapter builds the same one
(defilantech/LLMKube@907ac8d8ee5bef229562ec5340ecdcb9e0576f0d: internal/controller/runtime.go resolveBackend,
runtime_llamacpp.go and runtime_llamacpp_args.go, runtime_vllm.go and runtime_vllm_args.go, runtime_args.go
hasMatchingExtraArg; pkg/apiutil/gpu.go GPUCount and GPUResourceName):

- `runtime` llamacpp (the default): with a GPU `--n-gpu-layers` (the Model's `hardware.gpu.layers`, 99 when unset
  or -1), with more than one `--split-mode` from `hardware.gpu.sharding.strategy` (none; row or tensor -> row; else
  layer); `contextSize` -> `--ctx-size` (above 0); `ropeScaling` -> `--rope-scaling`, `--rope-scale`,
  `--yarn-orig-ctx` (unless `extraArgs` has `--rope-scaling`); `parallelSlots` -> `--parallel` (1 or more,
  unless `extraArgs` has `--parallel`); `flashAttention` -> `--flash-attn on` (with a GPU); `cacheTypeK`/
  `cacheTypeV` (the `cacheTypeCustom*` twins win) -> `--cache-type-k`/`-v`; `moeCPUOffload` -> `--cpu-moe`,
  `moeCPULayers` -> `--n-cpu-moe`; `noKvOffload`; `tensorOverrides` -> `--override-tensor` each;
  `batchSize`/`uBatchSize` (above 0); then `extraArgs`.
- `runtime` vllm: `vllmConfig` `tensorParallelSize` (above 1), `maxModelLen`, `quantization`, `dtype`,
  `kvCacheDtype` (`kvCacheCustomDtype` wins; `auto` adds nothing), `enablePrefixCaching`, `enableChunkedPrefill`,
  `maxNumBatchedTokens`, `cpuOffloadGB` and `gpuMemoryUtilization` (with a GPU counted); the GPU count as the
  tensor parallel size when above 1 and `tensorParallelSize` is unset; `parallelSlots` -> `--max-num-seqs` (unless
  `extraArgs` has it); `extraArgs`.
- GPUs: the Model's `hardware.gpu.count` above 0, else the InferenceService's `resources.gpu`; none above 0 is no
  count (a CPU run, or devices claimed through DRA `resourceClaims`). They are of `hardware.gpu.resourceName`, else
  by vendor: amd.com/gpu (an AMD card on the vulkan or rocm runtime: devic.es/dri-render), gpu.intel.com/i915 for
  intel, nvidia.com/gpu otherwise (none known for a Model in another file). The device is the InferenceService's
  `nodeSelector`/`affinity`'s; with `resources.gpuSharing` `mode: partitioned` one GPU is a MIG slice,
  `nvidia.com/mig-<profile>`, of that card.
- the model: the Model's `source`: `hf://org/repo@rev` is org/repo, a Hugging Face file URL
  (`https://huggingface.co/org/repo/resolve/<rev>/<file>`) is org/repo/<file> (the operator renames the file it
  downloads, so the path it passes names nothing), a huggingface.co repository page is org/repo; for llama.cpp the
  first of the Model's `files` (the file it is handed) is appended; another source (a local path, s3://, pvc://)
  is kept as written.
- the image: `image`, else the operator's default for the runtime, whose release the file does not say.

The other runtimes (sglang, tgi, llamacpp-router, personaplex, generic) are not read yet, nor a `modelRef` whose
Model is in another file (the service has no model then).
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, int_val, is_kind, labels_of, name_of, objects, scalar, seq
from ctxlint.adapters.hardware import mig_device, type_from_pod_spec
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import Container, Workload, env_from_k8s, read_container
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SEQ, Node

NAME = "llmkube"
GROUP = "inference.llmkube.dev"
_ENGINES = {None: "llamacpp", "": "llamacpp", "llamacpp": "llamacpp", "vllm": "vllm"}
# a huggingface.co repository page, or one at a revision (source.go extractHFRepoFromURL): its repository
_HF_REPO = re.compile(r"^https?://(?:www\.)?huggingface\.co/(?!datasets/|spaces/)([^/?#]+/[^/?#]+)"
                      r"(?:/tree/[^/?#]+)?/?(?:[?#].*)?$", re.IGNORECASE)
_HF_FILE = re.compile(r"^https?://(?:www\.)?(?:huggingface\.co|hf\.co)/([^/]+/[^/]+)/(?:resolve|blob)/[^/]+/(.+)$")


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    models: Dict[str, Node] = {}
    services = []
    for obj in objects(loaded):
        if is_kind(obj, ("Model",), GROUP) and obj.get("spec") is not None:
            models[str(scalar(obj.dig("metadata", "name")))] = obj.get("spec")
        elif is_kind(obj, ("InferenceService",), GROUP):
            services.append(obj)
    workloads = [w for obj in services for w in [_service(obj, models, spans, result)] if w is not None]
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _service(obj: Node, models: Dict[str, Node], spans: ScalarSpans, result: AdaptResult) -> Optional[Workload]:
    spec, file = obj.get("spec"), spans.file
    if spec is None or spec.kind != MAP:
        return None
    runtime = spec.get("runtime")
    engine = _ENGINES.get(scalar(runtime))
    if engine is None:
        return None
    model = models.get(str(scalar(spec.get("modelRef"))))
    gpu = model.dig("hardware", "gpu") if model is not None else None
    count = _gpu_count(gpu, spec, file)
    extra = spec.get("extraArgs")
    items = (_llamacpp_items if engine == "llamacpp" else _vllm_items)(spec, gpu, count, _words(extra))
    items += seq(extra)
    anchor = runtime or spec
    name = name_of(obj, file)
    reading = read_container(Container(
        spans=spans, node=spec, name=str(name.value) if name is not None else "",
        args=clone(spec, kind=SEQ, value=items, keys={}), env=env_from_k8s(spec.get("env")), args_only=True,
        engine=Val(engine, anchor.source(file), raw=f"LLMKube runtime {scalar(runtime) or 'llamacpp'}"),
        accelerator_count=count, accelerator_type=_device(spec, gpu, count, file), image=spec.get("image"),
        image_by="LLMKube (its default image for the runtime)"))
    result.diagnostics.extend(reading.diagnostics)
    source = _model_id(model.get("source") if model is not None else None, file)
    first = seq(model.get("files"))[:1] if model is not None and engine == "llamacpp" else []
    if source is not None and first and isinstance(scalar(first[0]), str) and scalar(first[0]).strip():
        primary = scalar(first[0]).strip()  # the first file staged from the source is what llama.cpp loads
        source = Val(f"{source.value.rstrip('/')}/{primary}", first[0].source(file), raw=f"{source.raw} + {primary}")
    # the resource is the Model's (GPUResourceName): with the Model in another file, not known
    resource = (_partition(spec, gpu, count)[0] or (_resource(gpu) if model is not None else None)) \
        if count is not None else None
    vendor = _vendor(gpu, file)
    roles = [replace(r, model=r.model or source, role=_devices(r.role, resource, vendor)) for r in reading.roles]
    if not roles:
        return None
    return Workload(name=name, source=obj.source(file), input_format=NAME, roles=roles,
                    replicas=int_val(spec.get("replicas"), file), labels=labels_of(obj))


def _gpu_count(gpu: Optional[Node], spec: Node, file: str) -> Optional[Val[int]]:
    """apiutil.GPUCount: the Model's `hardware.gpu.count` above 0, else the service's `resources.gpu` above 0."""
    for found in (int_val(gpu.get("count"), file) if gpu is not None and gpu.kind == MAP else None,
                  int_val(spec.dig("resources", "gpu"), file)):
        if found is not None and found.value > 0:
            return found
    return None


_MIG_PROFILE = re.compile(r"^[0-9]+g\.[0-9]+gb$")  # gpu_sharing.migProfilePattern


def _partition(spec: Node, gpu: Optional[Node], count: Optional[Val[int]]):
    """(`nvidia.com/mig-<profile>`, the profile's node) of a service whose `resources.gpuSharing` is partitioned:
    one MIG slice, which the operator requests instead of the vendor's resource (gpu_sharing.resolvePartitioned;
    it refuses the mode beside a count other than 1, another vendor, a resourceName or a malformed profile)."""
    sharing = spec.dig("resources", "gpuSharing")
    if sharing is None or sharing.kind != MAP or scalar(sharing.get("mode")) != "partitioned":
        return None, None
    named = gpu if gpu is not None and gpu.kind == MAP else None
    vendor = str(scalar(named.get("vendor")) or "").strip().lower() if named is not None else ""
    profile = str(scalar(sharing.get("profile")) or "").strip()
    if count is None or count.value != 1 or vendor not in ("", "nvidia") or not _MIG_PROFILE.match(profile) or \
            (named is not None and str(scalar(named.get("resourceName")) or "").strip()):
        return None, None
    return f"nvidia.com/mig-{profile}", sharing.get("profile")


def _device(spec: Node, gpu: Optional[Node], count: Optional[Val[int]], file: str) -> Optional[Val[str]]:
    """The device: the node selector's or affinity's, or the MIG slice of it a partitioned service gets."""
    card = type_from_pod_spec(spec, file)
    resource, profile = _partition(spec, gpu, count)
    if resource is None:
        return card
    return mig_device(resource[len("nvidia.com/mig-"):], card, profile.source(file), resource)


def _resource(gpu: Optional[Node]) -> str:
    """apiutil.GPUResourceName: the device-plugin resource the operator requests the GPUs as."""
    if gpu is None or gpu.kind != MAP:
        return "nvidia.com/gpu"
    named = str(scalar(gpu.get("resourceName")) or "").strip()
    if named:
        return named
    vendor = str(scalar(gpu.get("vendor")) or "").strip().lower()
    if vendor == "amd":
        on = str(scalar(gpu.get("runtime")) or "").strip().lower()
        return "devic.es/dri-render" if on in ("vulkan", "rocm") else "amd.com/gpu"
    return "gpu.intel.com/i915" if vendor == "intel" else "nvidia.com/gpu"


def _vendor(gpu: Optional[Node], file: str) -> Optional[Val[str]]:
    """`hardware.gpu.vendor` amd or intel: the devices CTX208 may list for a resource that names no vendor (an AMD
    iGPU as squat.ai/dri, devic.es/dri-render)."""
    node = gpu.get("vendor") if gpu is not None and gpu.kind == MAP else None
    text = str(scalar(node) or "").strip().lower()
    return Val(text, node.source(file), raw=f"LLMKube hardware.gpu.vendor {text}") if text in ("amd", "intel") else None


def _devices(role, resource: Optional[str], vendor: Optional[Val[str]]):
    if resource is not None:
        role = replace(role, accelerators=replace(role.accelerators, resource=resource))
    return replace(role, vendor=vendor) if vendor is not None and role.vendor is None else role


def _model_id(node: Optional[Node], file: str) -> Optional[Val[str]]:
    text = scalar(node)
    if not isinstance(text, str) or not text.strip():
        return None
    written = text.strip()
    if written.lower().startswith("hf://"):
        ident = written[len("hf://"):].split("@", 1)[0]
    else:
        found, page = _HF_FILE.match(written), _HF_REPO.match(written)
        ident = f"{found.group(1)}/{found.group(2).split('?', 1)[0]}" if found else page.group(1) if page else written
    return Val(ident, node.source(file), raw=written)


def _words(extra: Optional[Node]) -> List[str]:
    return [str(i.value) for i in seq(extra) if i.value is not None]


def _has(words: List[str], name: str) -> bool:
    """runtime_args.hasMatchingExtraArg: `--name` or `--name=...` among extraArgs."""
    return any(w == f"--{name}" or w.startswith(f"--{name}=") for w in words)


def _flag(key: Optional[Node], flag: str, value: Optional[Node] = None, text: Optional[str] = None) -> List[Node]:
    """`flag` (at the field's key) and its value (the field's own node, or `text` written there)."""
    if key is None:
        return []
    items = [clone(key, value=flag)]
    if text is not None:
        items.append(clone(value if value is not None else key, value=text))
    elif value is not None:
        items.append(value)
    return items


def _field(spec: Optional[Node], name: str):
    """(key node, value node) of a field written in `spec`, else (None, None)."""
    if spec is None or spec.kind != MAP or spec.get(name) is None:
        return None, None
    return spec.keys[name], spec.get(name)


def _positive(value: Optional[Node]) -> bool:
    v = scalar(value)
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def _llamacpp_items(spec: Node, gpu: Optional[Node], count: Optional[Val[int]], extra: List[str]) -> List[Node]:
    items: List[Node] = []
    on_gpu = count is not None or (gpu is not None and gpu.kind == MAP and bool(seq(gpu.get("resourceClaims"))))
    if on_gpu:  # hasGPUPresent
        key, layers = _field(gpu, "layers")
        if key is not None and _positive(layers):
            items += _flag(key, "--n-gpu-layers", layers)
        else:
            items += _flag(key or spec.keys.get("modelRef") or spec, "--n-gpu-layers", layers, "99")
        if count is not None and count.value > 1:  # gpu_sharding.resolveSplitMode
            items += _split_mode(gpu, count)
    key, value = _field(spec, "contextSize")
    items += _flag(key, "--ctx-size", value) if _positive(value) else []
    items += _rope_scaling(spec, extra)
    key, value = _field(spec, "parallelSlots")
    items += _flag(key, "--parallel", value) if _positive(value) and not _has(extra, "parallel") else []
    key, value = _field(spec, "flashAttention")
    items += _flag(key, "--flash-attn", value, "on") if on_gpu and scalar(value) is True else []
    for which in ("K", "V"):
        key, value = _field(spec, f"cacheTypeCustom{which}")
        if not scalar(value):
            key, value = _field(spec, f"cacheType{which}")
        items += _flag(key, f"--cache-type-{which.lower()}", value) if scalar(value) else []
    key, value = _field(spec, "moeCPUOffload")
    items += _flag(key, "--cpu-moe") if scalar(value) is True else []
    key, value = _field(spec, "moeCPULayers")
    items += _flag(key, "--n-cpu-moe", value) if _positive(value) else []
    key, value = _field(spec, "noKvOffload")
    items += _flag(key, "--no-kv-offload") if scalar(value) is True else []
    for override in seq(spec.get("tensorOverrides")):
        items += [clone(override, value="--override-tensor"), override] if scalar(override) is not None else []
    for field, flag in (("batchSize", "--batch-size"), ("uBatchSize", "--ubatch-size")):
        key, value = _field(spec, field)
        items += _flag(key, flag, value) if _positive(value) else []
    return items


def _rope_scaling(spec: Node, extra: List[str]) -> List[Node]:
    """runtime_llamacpp_args.appendRopeScalingArgs: `ropeScaling.type` -> --rope-scaling, `factor` -> --rope-scale,
    `originalContext` above 0 -> --yarn-orig-ctx; none of them when extraArgs has --rope-scaling."""
    rope = spec.get("ropeScaling")
    if rope is None or rope.kind != MAP or not scalar(rope.get("type")) or _has(extra, "rope-scaling"):
        return []
    key, kind = _field(rope, "type")
    items = _flag(key, "--rope-scaling", kind)
    key, factor = _field(rope, "factor")
    items += _flag(key, "--rope-scale", factor) if scalar(factor) not in (None, "") else []
    key, original = _field(rope, "originalContext")
    return items + (_flag(key, "--yarn-orig-ctx", original) if _positive(original) else [])


_SPLIT_MODES = {"none": "none", "row": "row", "tensor": "row"}  # every other strategy (pipeline, layer) is layer


def _split_mode(gpu: Optional[Node], count: Val[int]) -> List[Node]:
    """`--split-mode` the operator passes with more than one GPU, from `hardware.gpu.sharding.strategy`: none (the
    whole model on one GPU), row for row or tensor, layer otherwise (gpu_sharding.resolveSplitMode)."""
    sharding = gpu.get("sharding") if gpu is not None and gpu.kind == MAP else None
    key, strategy = _field(sharding, "strategy")
    mode = _SPLIT_MODES.get(str(scalar(strategy) or ""), "layer")
    if key is not None:
        return _flag(key, "--split-mode", strategy, mode)
    where = gpu.keys.get("count") if gpu is not None and gpu.kind == MAP and gpu.get("count") is not None else None
    return [clone(where, value="--split-mode"), clone(where, value=mode)] if where is not None else []


_VLLM_CONFIG = (("maxModelLen", "--max-model-len"), ("quantization", "--quantization"), ("dtype", "--dtype"))


def _vllm_items(spec: Node, gpu: Optional[Node], count: Optional[Val[int]], extra: List[str]) -> List[Node]:
    items: List[Node] = []
    config = spec.get("vllmConfig")
    config = config if config is not None and config.kind == MAP else None
    key, tp = _field(config, "tensorParallelSize")
    if key is not None:
        items += _flag(key, "--tensor-parallel-size", tp) if _positive(tp) and scalar(tp) > 1 else []
    elif count is not None and count.value > 1:  # the GPU count when tensorParallelSize is unset
        where = gpu.keys.get("count") if gpu is not None and gpu.get("count") is not None else spec
        items += _flag(where, "--tensor-parallel-size", None, str(count.value))
    for field, flag in _VLLM_CONFIG:
        key, value = _field(config, field)
        items += _flag(key, flag, value) if scalar(value) not in (None, "") else []
    key, value = _field(config, "kvCacheCustomDtype")
    if not scalar(value):
        key, value = _field(config, "kvCacheDtype")
    items += _flag(key, "--kv-cache-dtype", value) if scalar(value) not in (None, "", "auto") else []
    for field, flag in (("enablePrefixCaching", "--enable-prefix-caching"),
                        ("enableChunkedPrefill", "--enable-chunked-prefill")):
        key, value = _field(config, field)
        items += _flag(key, flag) if scalar(value) is True else []
    key, value = _field(config, "maxNumBatchedTokens")
    items += _flag(key, "--max-num-batched-tokens", value) if scalar(value) is not None else []
    key, value = _field(config, "cpuOffloadGB")  # appendCPUOffloadGB: skipped with no GPU counted
    items += _flag(key, "--cpu-offload-gb", value) if value is not None and count is not None else []
    key, value = _field(config, "gpuMemoryUtilization")
    items += _flag(key, "--gpu-memory-utilization", value) if value is not None and count is not None else []
    key, value = _field(spec, "parallelSlots")
    items += _flag(key, "--max-num-seqs", value) if _positive(value) and not _has(extra, "max-num-seqs") else []
    return items
