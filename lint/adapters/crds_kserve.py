"""KServe: `InferenceService`, `ServingRuntime`/`ClusterServingRuntime`,
`LLMInferenceService` and `LLMInferenceServiceConfig` (serving.kserve.io).

- InferenceService: `spec.predictor.containers` are read as Kubernetes
  containers; `spec.predictor.model` whose `runtime` names a ServingRuntime
  (of its namespace, else a ClusterServingRuntime) of the same file, else
  of one other file of its directory (crd_refs.py: in several, none), is
  merged over that runtime's `kserve-container` as KServe merges them
  (kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912:pkg/controller/
  v1beta1/inferenceservice/utils/utils.go MergeRuntimeContainers: a
  strategic merge, env by name, `args` the runtime's then the service's;
  MergePodSpec: the runtime's nodeSelector, affinity, ... under the
  predictor's) and rendered with its metadata (`{{.Name}}` is its name),
  and that runtime is then not a deployment of its own; a runtime chosen
  by `modelFormat` (no `runtime:`) is not looked up. A runtime no file
  holds, when the service is then read as nothing, is said (CTX008). A
  service with `predictor.workerSpec` over a runtime with `workerSpec` is
  multi-node: KServe's TENSOR_PARALLEL_SIZE, PIPELINE_PARALLEL_SIZE, ...
  and its GPU count (kserve_multinode.py). Otherwise
  `spec.predictor.model` with `modelFormat.name: huggingface`
  runs the Hugging Face server on its vLLM backend, so its `args` are vLLM
  flags (the server passes them to vLLM's engine args); the model is
  `storageUri` (`hf://`, or the folder of an `s3://`, `gs://`, `pvc://` or `hdfs://` one, or
  `storage.path`: storage_path) or
  `--model_id`, and so is an engine's `/mnt/models`; `--backend huggingface` (or
  triton) runs no vLLM and is skipped. Other model formats (NIM, sklearn,
  ...) pick their engine at run time and are skipped.
- ServingRuntime: each of `spec.containers` is read as a Kubernetes
  container (an engine found from its command or image), the
  kserve-container of one with a `workerSpec` as a multi-node head. KServe renders
  Go template actions in every kind's containers (`{{.Name}}`,
  `{{- if .Spec.Parallelism.Tensor }}`): they are values ctxlint does not
  know, never errors (engines/gotemplate.py).
- LLMInferenceService(Config): kserve_llm.py.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, int_val, is_kind, labels_of, merge_patch, name_of, objects, scalar, seq
from ctxlint.adapters.crd_refs import (KSERVE_RUNTIME, NO_LOOKUP, RUNTIME_CONTAINER, Lookup, Refs, refs_for,
                                      runtime_container, unfound)
from ctxlint.adapters.crds_kubeai import model_id
from ctxlint.adapters.hardware import container_resource, container_type, count_from_resources, type_from_pod_spec
from ctxlint.adapters.kserve_multinode import MultiNode, multi_node
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import (Container, EngineRole, Workload, env_from_k8s, limits_from_annotations,
                                       read_container)
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.engines import engine_from_image
from ctxlint.engines.gotemplate import lookup_key
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

NAME = "kserve"
GROUP = "serving.kserve.io"
# Where KServe puts spec.model.uri; its own preset serves it: `vllm serve /mnt/models --served-model-name
# {{ .Spec.Model.Name }}` (kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912:
# config/llmisvcconfig/config-llm-template.yaml)
MODEL_MOUNT = "/mnt/models"
# The storageUri schemes whose folder names the model KServe copies to MODEL_MOUNT (resolution/names.py reads
# a repository id from `hf://`, and the last folder, or `org/name`, from the others). An `oci://` modelcar's
# image names its model as it likes (`modelcar-catalog:granite-3.3-8b`): the mount is left as it is. `hdfs://` and
# `webhdfs://` are storageUris KServe accepts (pkg/controller/v1beta1/inferenceservice/utils/utils.go
# SupportedStorageURIPrefixList) and storage types `storage.parameters` may state (storage_path).
_STORED = ("hf://", "s3://", "gs://", "gcs://", "pvc://", "hdfs://", "webhdfs://")
NIM_FORMAT = "nvidia-nim-"  # the model formats of nim-deploy's runtimes (crds_nim: the model is the rest)
# What MergePodSpec takes from the runtime's pod spec (utils.go)
_RUNTIME_POD = ("nodeSelector", "affinity", "tolerations", "volumes", "imagePullSecrets", "schedulerName",
                "resourceClaims")


def adapt(loaded: LoadedFile, refs: Optional[Refs] = None) -> AdaptResult:
    """`refs`: the objects of the files checked with this one (crd_refs), where an InferenceService's
    runtime is looked up; without it, this file's."""
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    refs = refs_for(loaded, refs)
    for obj in objects(loaded):
        if is_kind(obj, ("LLMInferenceService", "LLMInferenceServiceConfig"), GROUP):
            from ctxlint.adapters.kserve_llm import llm_service  # here: it reads containers with this module

            workloads.extend(llm_service(obj, spans, result))
        elif is_kind(obj, ("InferenceService",), GROUP):
            workloads.extend(_inference_service(obj, spans, result, refs.lookup(obj, KSERVE_RUNTIME)))
        elif is_kind(obj, ("ServingRuntime", "ClusterServingRuntime"), GROUP) and not refs.used(obj):
            spec = obj.get("spec")
            workloads.extend(_workload(obj, None, _pod_roles(spec, spans, result, obj), spans, result))
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _workload(obj: Node, suffix: Optional[str], roles: List[EngineRole], spans: ScalarSpans, result: AdaptResult,
              replicas: Optional[Val[int]] = None) -> List[Workload]:
    if not roles:
        return []
    file = spans.file
    name = name_of(obj, file)
    if name is not None and suffix:
        name = Val(f"{name.value}/{suffix}", name.source)
    display = str(name.value) if name is not None else None
    advertised, gateway, measured = limits_from_annotations(
        obj.dig("metadata", "annotations"), file, result.diagnostics, display)
    return [Workload(name=name, source=obj.source(file), input_format=NAME, roles=roles, replicas=replicas,
                     advertised=advertised, gateway=gateway, measured=measured, labels=labels_of(obj))]


def _container_roles(c: Node, pod: Optional[Node], spans: ScalarSpans, result: AdaptResult,
                     engine: Optional[Val[str]] = None, script: Optional[Node] = None,
                     go_values: Optional[Dict[str, str]] = None, multi: Optional[MultiNode] = None,
                     preset: Optional[str] = None) -> List[EngineRole]:
    """`preset`: the command `engine` runs with when the container has no `command` of its own, which
    appends `script` and `args` to it (workload.Container.preset); else `script` runs unless either is set."""
    command, args = c.get("command"), c.get("args")
    preset = preset if command is None else None
    explicit = command is not None or args is not None and preset is None
    if explicit:
        script = command if command is not None and command.kind == SCALAR and args is None else None
    image = c.get("image")
    if not (explicit or engine is None or engine_from_image(scalar(image))[0] == engine.value):
        image = None  # the preset's engine runs, whatever the image; one of that engine gives its version
    reading = read_container(Container(
        spans=spans, node=c, name=str(scalar(c.get("name")) or ""),
        command=None if script is not None or not explicit else command,
        args=args if explicit or preset is not None else None, script=script, preset=preset,
        env=env_from_k8s(c.get("env")) + list(multi.env if multi is not None else ()), image=image,
        args_only=command is None, engine=engine, go_values=go_values or {},  # KServe renders Go templates
        accelerator_count=multi.gpus if multi is not None else count_from_resources(c.get("resources"), spans.file),
        accelerator_type=container_type(c.get("resources"), type_from_pod_spec(pod, spans.file), spans.file),
        **({"group_pods": multi.pods, "group_label": multi.label, "ray_counted": True} if multi is not None else {})))
    result.diagnostics.extend(reading.diagnostics)
    resource = container_resource(c) if multi is not None else None
    if resource is not None:  # the multi-node count sits at the parallel size, not at the resource's key
        return [r if r.role.accelerators.count is None else replace(r, role=replace(r.role, accelerators=replace(
            r.role.accelerators, resource=resource))) for r in reading.roles]
    return reading.roles


def _pod_roles(pod: Optional[Node], spans: ScalarSpans, result: AdaptResult,
               runtime: Optional[Node] = None) -> List[EngineRole]:
    """`runtime`: the runtime whose spec `pod` is, read alone: its kserve-container is a multi-node head
    when it has a workerSpec (kserve_multinode)."""
    roles: List[EngineRole] = []
    for c in seq(pod.get("containers") if pod is not None and pod.kind == MAP else None):
        if c.kind == MAP:
            head = runtime is not None and scalar(c.get("name")) == RUNTIME_CONTAINER
            multi = multi_node(None, runtime, c, spans.file) if head else None
            roles.extend(_container_roles(c, pod, spans, result, multi=multi))
    return roles


# -- InferenceService ------------------------------------------------------------------------------------
def _merged(model: Node, predictor: Node, runtime: Node) -> Tuple[Node, Node]:
    """(container, pod spec) as KServe builds them from the runtime and the InferenceService: every value
    at the place it is written, in the runtime or in the service."""
    base = runtime_container(runtime)
    container = merge_patch(base, model)
    args = seq(base.get("args")) + seq(model.get("args"))
    if args:
        holder = base.get("args") if base.get("args") is not None else model.get("args")
        container = clone(container, value={**container.value, "args": clone(holder, kind=SEQ, value=args, keys={})})
    # `runtimeVersion` replaces the image's tag after the merge (utils.go UpdateImageTag; a digest stays): the
    # image then points at the version, where a fix is typed
    version, image = model.get("runtimeVersion"), container.get("image")
    if version is not None and version.kind == SCALAR and isinstance(version.value, str) and version.value \
            and image is not None and image.kind == SCALAR and isinstance(image.value, str) \
            and "@sha256:" not in image.value:
        tagged = re.sub(r":[\w.\-]*$", "", image.value) + ":" + version.value
        container = clone(container, value={**container.value, "image": clone(version, value=tagged)})
    spec = runtime.get("spec")
    pod = clone(spec, value={k: v for k, v in spec.value.items() if k in _RUNTIME_POD})
    return container, merge_patch(pod, predictor)


def _metadata_values(obj: Node) -> Dict[str, str]:
    """What KServe renders a container's Go template actions with (utils.go ReplacePlaceholders: the
    InferenceService's ObjectMeta), as far as the file writes it; anything else stays unknown."""
    out: Dict[str, str] = {}
    for field in ("name", "namespace"):
        value = scalar(obj.dig("metadata", field))
        if isinstance(value, str):
            out[lookup_key("." + field.title())] = value
    for field in ("labels", "annotations"):
        node = obj.dig("metadata", field)
        for key, value in (node.value.items() if node is not None and node.kind == MAP else ()):
            if value.kind == SCALAR and isinstance(value.value, str):
                out[lookup_key(f'index .{field.title()} "{key}"')] = value.value
                if re.fullmatch(r"[A-Za-z_]\w*", str(key)):
                    out[lookup_key(f".{field.title()}.{key}")] = value.value
    return out


def _inference_service(obj: Node, spans: ScalarSpans, result: AdaptResult,
                       lookup: Lookup = NO_LOOKUP) -> List[Workload]:
    file = spans.file
    predictor = obj.dig("spec", "predictor")
    if predictor is None or predictor.kind != MAP:
        return []
    runtime = lookup.found if lookup.found is not None and runtime_container(lookup.found) is not None else None
    unfound_runtime = unfound(lookup, "runtime", obj, file)
    if unfound_runtime is not None and lookup.files:  # several: said even when the service is read without it
        result.diagnostics.append(unfound_runtime)
    replicas = int_val(predictor.get("minReplicas"), file)
    replicas = replicas if replicas is not None and replicas.value > 0 else None  # 0: scale to zero
    model = predictor.get("model")
    fmt = model.dig("modelFormat", "name") if model is not None and model.kind == MAP else None
    values = _metadata_values(obj)
    container, pod = _merged(model, predictor, runtime) if runtime is not None else (model, predictor)
    multi = multi_node(obj, runtime, container, file) if runtime is not None else None
    # the runtime's own engine image runs its entrypoint; else the Hugging Face server picks vLLM
    hf_server = scalar(fmt) == "huggingface" and (
        runtime is None or engine_from_image(scalar(container.get("image")))[0] is None)
    if hf_server:
        backend = _hf_arg(container.get("args"), "--backend", spans)
        if backend is not None and backend.value not in ("vllm", "auto"):
            return []  # the transformers (or Triton) backend: no vLLM engine, no paged KV pool
        roles = _container_roles(container, pod, spans, result, multi=multi,
                                 engine=Val("vllm", fmt.source(file), raw="huggingface"), go_values=values)
        roles = _hf_served_name(obj, container, roles, runtime is None, spans)
    elif runtime is not None:
        roles = _container_roles(container, pod, spans, result, go_values=values, multi=multi)
    else:
        out = _predictor_pods(obj, predictor, _workload(obj, None, _pod_roles(predictor, spans, result), spans,
                                                        result, replicas))
        # not silently no deployment; crds_nim reads a NIM format's service without its runtime
        if not out and unfound_runtime is not None and not lookup.files and \
                not str(scalar(fmt)).startswith(NIM_FORMAT):
            result.diagnostics.append(unfound_runtime)
        return out
    # the server's args.model = model_id or model_dir; KServe downloads storageUri to /mnt/models
    storage = _hf_arg(container.get("args"), "--model_id", spans) if hf_server else None
    if storage is None and str(scalar(model.get("storageUri"))).lower().startswith(_STORED):
        storage = model_id(model.get("storageUri"), file)
    if storage is None and model.get("storageUri") is None:
        storage = storage_path(model.get("storage"), file)
    if storage is not None:
        # an engine given no model serves its own default, not the mount; the Hugging Face server serves model_dir
        roles = [replace(r, model=storage) if r.model is None and hf_server or r.model is not None and
                 str(r.model.value).rstrip("/") == MODEL_MOUNT else r for r in roles]
    return _predictor_pods(obj, predictor, _workload(obj, None, roles, spans, result, replicas))


def _predictor_pods(obj: Node, predictor: Node, workloads: List[Workload]) -> List[Workload]:
    """What KServe gives the predictor's pods and Service, which no file holds: the pods carry the service's labels,
    the predictor's own, `serving.kserve.io/inferenceservice: <name>` and `component: predictor`, and its Service is
    `<name>-predictor` (`<name>-<predictor name>-predictor` when the predictor is named), so a route to either reaches
    the engine (kserve/kserve@aaac4e29: pkg/constants/constants.go PredictorServiceName, InferenceServicePodLabelKey,
    KServiceComponentLabel; pkg/controller/v1beta1/inferenceservice/components/predictor.go buildObjectMeta)."""
    name = scalar(obj.dig("metadata", "name"))
    if not isinstance(name, str) or not name:
        return workloads
    own = predictor.get("labels")
    own_labels = tuple((str(k), str(v.value)) for k, v in own.value.items() if v.kind == SCALAR) \
        if own is not None and own.kind == MAP else ()
    labels = dict(labels_of(obj) + own_labels)
    labels.update({f"{GROUP}/inferenceservice": name, "component": "predictor"})
    named = scalar(predictor.get("name"))
    service = f"{name}-{named}-predictor" if isinstance(named, str) and named else f"{name}-predictor"
    return [replace(w, pod_labels=tuple(labels.items()), service_names=w.service_names + (service,))
            for w in workloads]


def storage_path(storage: Optional[Node], file: str) -> Optional[Val[str]]:
    """The model folder `spec.predictor.model.storage` names, the form OpenShift AI's dashboard writes
    (`storage: {key: <data connection>, path: org/name}`): KServe hands the storage initializer
    `<type>://<bucket>/<path>` for an s3 storage and `<type>://<path>` for the others, the type and bucket from
    `parameters` or else the key's storage secret, and copies that folder to /mnt/models
    (kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912: pkg/controller/v1beta1/inferenceservice/components/
    component.go addStorageSpecAnnotations, pkg/credentials/service_account_credentials.go). That URI where
    `parameters` state its type (and an s3 bucket); else `storage://<key>/<path>`: a folder of the storage the
    key's entry of the storage secret describes (an s3, hdfs or webhdfs one: SupportedStorageSpecTypes; no key is
    the entry `default`), never a Hub repository, whose name is the model's hint as a storage URI's folder is
    (resolution/names.py)."""
    if storage is None or storage.kind != MAP or storage.get("path") is None:
        return None
    path = scalar(storage.get("path"))
    if not isinstance(path, str) or not path.strip("/ ") or "{{" in path:
        return None
    params = storage.get("parameters")
    kind = scalar(params.get("type")) if params is not None and params.kind == MAP else None
    bucket = scalar(params.get("bucket")) if params is not None and params.kind == MAP else None
    folder = path.strip().lstrip("/")
    if isinstance(kind, str) and kind.strip() and (kind != "s3" or isinstance(bucket, str) and bucket.strip()):
        folder = f"{kind}://{bucket.strip()}/{folder}" if kind == "s3" else f"{kind}://{folder}"
    else:  # the type (and an s3 bucket) is the key's entry's, in a secret not read here
        key = scalar(storage.get("key"))
        folder = f"storage://{key.strip() if isinstance(key, str) and key.strip() else 'default'}/{folder}"
    return Val(folder, storage.get("path").source(file), raw=path)


def _hf_served_name(obj: Node, container: Node, roles: List[EngineRole], default_runtime: bool,
                    spans: ScalarSpans) -> List[EngineRole]:
    """The name the Hugging Face server serves its vLLM model under: its `--model_name` (kserve's model_server.py,
    default `model`), which KServe's own runtime sets to the service's name (config/runtimes/
    kserve-huggingfaceserver.yaml `--model_name={{.Name}}`), unless vLLM's `--served-model-name` is given, whose first
    name replaces it (python/huggingfaceserver/huggingfaceserver/__main__.py; kserve/kserve@aaac4e29). Kept as the
    role's served_model_name, so a route sending the service's name is not told the engine serves the repository id."""
    if any(r.role.arg("served_model_name") is not None for r in roles):
        return roles
    given = _hf_arg(container.get("args"), "--model_name", spans)
    name = name_of(obj, spans.file)
    if given is not None and str(given.value).replace(" ", "") == "{{.Name}}" and name is not None:
        served = Val(str(name.value), given.source, raw=given.raw)
    elif given is not None and "{{" not in str(given.value):
        served = given
    elif given is None and default_runtime and name is not None:
        served = Val(str(name.value), name.source, raw="KServe's runtime: --model_name={{.Name}}")
    elif given is None:
        served = Val("model", container.source(spans.file), raw="model_server.py's default --model_name")
    else:
        return roles  # a template ctxlint does not expand: not known
    return [replace(r, role=replace(r.role, engine_args=r.role.engine_args + (("served_model_name", served),)))
            for r in roles]


def _hf_arg(args: Optional[Node], flag: str, spans: ScalarSpans) -> Optional[Val[str]]:
    """A Hugging Face server argument of its own (kserve/kserve@00397f1e8077bc9d5b386d6dee90b3ccb2828752:
    python/huggingfaceserver/huggingfaceserver/__main__.py: `--backend` auto|vllm|huggingface|triton, where
    only auto and vllm run vLLM; `--model_id`, which it serves instead of model_dir), as `--flag=value` or
    `--flag value`, at its value."""
    items = [n for n in seq(args) if n.kind == SCALAR]
    found: Optional[Val[str]] = None
    for i, item in enumerate(items):  # argparse: the last one wins
        text = str(item.value)
        if text.startswith(flag + "="):
            value = text[len(flag) + 1:]
            found = Val(value, spans.source(item, len(flag) + 1, len(text)), raw=value) if value else None
        elif text == flag and i + 1 < len(items):
            value = str(items[i + 1].value)
            found = Val(value, items[i + 1].source(spans.file), raw=value)
    return found
