"""llmaz `Playground` (inference.llmaz.io/v1alpha1) with the `OpenModel` (llmaz.io/v1alpha1) it claims.

What llmaz runs for a Playground, from its own code (InftyAI/llmaz@3c13ff343e28cdbe842fd3c659e3daf0d1e27e91):

- the engine is the BackendRuntime `backendRuntimeConfig.backendName` names, `vllm` when absent
  (api/inference/v1alpha1/config_types.go DefaultBackend; playground_controller.go);
- its container runs the BackendRuntime's `command` with the args of one of its `recommendedConfigs`, then the
  Playground's `backendRuntimeConfig.args` appended (playground_controller.go buildTemplate). The config is
  `backendRuntimeConfig.configName`, else `default` for a `modelClaim` and `speculative-decoding` for
  `modelClaims` with a draft model (pkg/controller_helper/helper.go RecommendedConfigName). The BackendRuntimes
  are cluster objects the llmaz chart installs; its `default` configs for vLLM and SGLang
  (chart/templates/backends/vllm.yaml, sglang.yaml) pass only the model path, the served name, host and port,
  so the Playground's args are every engine setting that bears on capacity, and the engine serves the
  OpenModel's name. Another config (speculative
  decoding's adds a draft model and `-tp 1`) is not read: CTX008 says so;
- the image is the BackendRuntime's image with `backendRuntimeConfig.version` as its tag, else the chart's
  tag (chart/values.global.yaml backendRuntime.<backend>.image), which the Playground does not hold;
- the model is the claimed OpenModel's `source.modelHub.modelID` (else `source.uri` as written): the last
  claim of role `main` (a `modelClaim`'s `modelName`), which llmaz's fetchModels puts first;
- the GPUs are the OpenModel's first flavor's `limits` (or the flavor the claim's `inferenceFlavors[0]` names),
  which overwrite the container's (service_controller.go injectModelFlavor), else the GPUs of the Playground's
  `backendRuntimeConfig.resources` (merged over the config's, playground_controller.go). llmaz puts no flavor's
  `nodeSelector` on the pod: its ResourceFungibility scheduler plugin admits the nodes of any candidate flavor (the
  claim's `inferenceFlavors`, else every flavor) and any node once a candidate has none, so a device label names
  the device only when every candidate's `nodeSelector` names the same one (_device). A flavor's name (`a10`,
  `t4`) is only a name.
- one pod per replica (`spec.replicas`, default 1): a Playground's workload is one pod until llmaz supports
  multi-host Playgrounds (playground_controller.go buildWorkloadTemplate).

llmaz serves each Playground through a Service `<name>-lb` it creates (service_controller.go
CreateServiceIfNotExists), which no file holds: a gateway route to it reaches the Playground (stack.py).

Only an OpenModel in the Playground's own file is found; one applied from another file leaves the model and the
GPUs unknown (CTX008 at the claim). An llmaz `Service` (its own `workloadTemplate`) is read as a pod template,
with its `<name>-lb` (pod_templates._operator_services).
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import clone, int_val, is_kind, labels_of, name_of, objects, scalar, seq
from ctxlint.adapters.device_labels import type_from_labels
from ctxlint.adapters.hardware import container_type, count_from_resources
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import (UNRESOLVED, Container, Workload, env_from_k8s, limits_from_annotations,
                                       read_container)
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

NAME = "llmaz"
GROUP = "llmaz.io"  # inference.llmaz.io (Playground) ends with it too
DEFAULT_BACKEND = "vllm"
# The llmaz chart's BackendRuntimes whose `default` config sets nothing but the model, its served name, host and
# port (chart/templates/backends/{vllm,sglang}.yaml) -> the engine, and the image repository the chart gives them.
BACKENDS = {"vllm": ("vllm", "vllm/vllm-openai"), "sglang": ("sglang", "lmsysorg/sglang")}
DEFAULT_CONFIG = "default"


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    found = list(objects(loaded))
    models: Dict[str, Node] = {}
    for obj in found:
        if is_kind(obj, ("OpenModel",), GROUP):
            name = scalar(obj.dig("metadata", "name"))
            if isinstance(name, str):
                models.setdefault(name, obj)
    workloads: List[Workload] = []
    for obj in found:
        if is_kind(obj, ("Playground",), "inference." + GROUP):
            w = _playground(obj, models, spans, result)
            if w is not None:
                workloads.append(w)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _claim(spec: Node):
    """(the main model's name node, the claim's inferenceFlavors nodes, the `role: draft` of a claimed draft
    model, if any)."""
    single = spec.get("modelClaim")
    if single is not None and single.kind == MAP:
        return single.get("modelName"), seq(single.get("inferenceFlavors")), None
    claims = spec.get("modelClaims")
    if claims is None or claims.kind != MAP:
        return None, None, None
    models = [m for m in seq(claims.get("models")) if m.kind == MAP]
    # the role defaults to main (api/core/v1alpha1/model_types.go ModelRefer.Role: +kubebuilder:default=main); llmaz
    # moves each main model to the front as it fetches them (pkg/controller_helper/helper.go fetchModels), so of
    # several the last is models[0], whose path and name the engine gets (its webhook's one-main check compares
    # the model's name with "main", and lets two through)
    main = next((m for m in reversed(models) if scalar(m.get("role")) in (None, "main")), None)
    draft = next((m.get("role") for m in models if scalar(m.get("role")) == "draft"), None)
    return (main.get("name") if main is not None else None), seq(claims.get("inferenceFlavors")), draft


def _flavors(model: Node) -> List[Node]:
    return [f for f in seq(model.dig("spec", "inferenceConfig", "flavors")) if f.kind == MAP]


def _flavor(model: Node, wanted: List[Node]) -> Optional[Node]:
    """The flavor whose limits llmaz gives the container: the claim's first inferenceFlavors, else the model's
    first (service_controller.go injectModelFlavor)."""
    flavors = _flavors(model)
    if not flavors:
        return None
    name = scalar(wanted[0]) if wanted else scalar(flavors[0].get("name"))
    return next((f for f in flavors if scalar(f.get("name")) == name), None)


def _device(model: Node, wanted: List[Node], file: str) -> Optional[Val[str]]:
    """The device the pod runs on. llmaz puts no flavor's nodeSelector on the pod; the ResourceFungibility
    scheduler plugin (InftyAI/scheduler-plugins@685a4d9f pkg/plugins/resource_fungibility/resource_fungibility.go
    calPreFilterState, Filter) admits the nodes of any candidate flavor (those the claim's inferenceFlavors
    names, else every flavor of the model; the first only scores higher) and every node once a candidate has no
    nodeSelector. So the device is known only when every candidate's nodeSelector names the same one."""
    flavors = _flavors(model)
    if wanted:
        by_name = {scalar(f.get("name")): f for f in reversed(flavors)}
        candidates = [by_name.get(scalar(w)) for w in wanted]
    else:
        candidates = list(flavors)
    if not candidates or any(f is None for f in candidates):
        return None  # no flavor, or one the model does not have (the plugin then fails the pod)
    devices = [type_from_labels(f.get("nodeSelector"), file) for f in candidates]
    if any(d is None for d in devices) or len({str(d.value) for d in devices}) != 1:
        return None
    return devices[0]


def _model_id(model: Node, file: str) -> Optional[Val[str]]:
    source = model.dig("spec", "source")
    if source is None or source.kind != MAP:
        return None
    for node in (source.dig("modelHub", "modelID"), source.get("uri")):
        text = scalar(node)
        if isinstance(text, str) and text.strip():
            return Val(text.strip(), node.source(file), raw=text)
    return None


def _args(claimed: Optional[Node], given: Optional[Node]) -> Optional[Node]:
    """The engine's arguments that bear on what it serves: the chart's `default` config passes `--served-model-name
    {{ .ModelName }}`, the claimed OpenModel's name (modelsource ModelName: model.Name), then the Playground's
    `args` (a later `--served-model-name` there wins, as argparse reads it). The name is placed at the claim."""
    if claimed is None or claimed.kind != SCALAR or not isinstance(claimed.value, str) or \
            (given is not None and given.kind != SEQ):
        return given
    items = [clone(claimed, value="--served-model-name"), clone(claimed)] + (list(given.value) if given else [])
    return clone(given if given is not None else claimed, kind=SEQ, value=items)


def _unresolved(result: AdaptResult, what: str, node: Node, file: str, name: Optional[str]) -> None:
    result.diagnostics.append(Diagnostic(UNRESOLVED, what, node.source(file), name))


def _playground(obj: Node, models: Dict[str, Node], spans: ScalarSpans, result: AdaptResult) -> Optional[Workload]:
    file = spans.file
    spec = obj.get("spec")
    if spec is None or spec.kind != MAP:
        return None
    name = name_of(obj, file)
    display = str(name.value) if name is not None else None
    config = spec.get("backendRuntimeConfig")
    config = config if config is not None and config.kind == MAP else None
    backend_node = config.get("backendName") if config is not None else None
    backend = scalar(backend_node) if backend_node is not None else DEFAULT_BACKEND
    if backend not in BACKENDS:
        return None  # llama.cpp, TGI, TensorRT-LLM, Ollama: their chart configs are not read
    engine, repository = BACKENDS[backend]
    claimed, wanted_flavors, draft = _claim(spec)
    config_name = config.get("configName") if config is not None else None
    chosen = scalar(config_name) if config_name is not None else (
        "speculative-decoding" if draft is not None else DEFAULT_CONFIG)
    if chosen != DEFAULT_CONFIG:
        _unresolved(result, (
            f"recommended config {chosen if isinstance(chosen, str) else '(configName is not a name)'} of the "
            f"{backend} BackendRuntime (its args are in the BackendRuntime the "
            "llmaz chart installs in the cluster, not in this file; only the `default` config, which sets no engine "
            "limit, is read), so the engine's settings are not known and this Playground is not checked"),
            config_name if config_name is not None else draft, file, display)
        return None
    model = models.get(scalar(claimed)) if claimed is not None else None
    if claimed is not None and model is None:
        _unresolved(result, (
            f"OpenModel {scalar(claimed)} (this Playground's model claim) is not in this file, so the model and "
            "its GPUs (the OpenModel's flavors) are not known"), claimed, file, display)
    flavor = _flavor(model, wanted_flavors) if model is not None else None
    # the flavor's limits overwrite the container's (injectModelFlavor), whose resources are the Playground's
    # `backendRuntimeConfig.resources` over the recommended config's (which the chart gives no GPU)
    resources = flavor
    count = count_from_resources(flavor, file) if flavor is not None else None
    if count is None and config is not None:
        resources = config.get("resources")
        count = count_from_resources(resources, file)
    # a MIG profile the flavor (or the Playground) asks for (`nvidia.com/mig-3g.40gb`) is the device the engine
    # sees: a slice of the card the nodes have, as for any container (hardware.container_type)
    device = container_type(resources if count is not None else None,
                            _device(model, wanted_flavors, file) if model is not None else None, file)
    version = config.get("version") if config is not None else None
    image_text = f"{repository}:{scalar(version)}" if version is not None and version.kind == SCALAR else None
    reading = read_container(Container(
        spans=spans, node=spec, name=display or "", args=_args(claimed, config.get("args") if config else None),
        env=env_from_k8s(config.get("envs")) if config is not None else [], args_only=True,
        engine=Val(engine, (backend_node or obj).source(file), raw=backend),
        accelerator_count=count, accelerator_type=device,
        image=version if image_text is not None else None, image_text=image_text,
        image_by=None if image_text is not None else
        f"llmaz (the tag its chart's backendRuntime.{backend}.image gives the BackendRuntime)"))
    result.diagnostics.extend(reading.diagnostics)
    ident = _model_id(model, file) if model is not None else None
    roles = [r if r.model is not None or ident is None else replace(r, model=ident) for r in reading.roles]
    if not roles:
        return None
    advertised, gateway, measured = limits_from_annotations(obj.dig("metadata", "annotations"), file,
                                                            result.diagnostics, display)
    return Workload(name=name, source=obj.source(file), input_format=NAME, roles=roles,
                    replicas=int_val(spec.get("replicas"), file), advertised=advertised, gateway=gateway,
                    measured=measured, labels=labels_of(obj), service_names=(f"{display}-lb",) if display else ())
