"""KServe: `InferenceService`, `ServingRuntime`/`ClusterServingRuntime`,
`LLMInferenceService` and `LLMInferenceServiceConfig` (serving.kserve.io).

- InferenceService: `spec.predictor.containers` are read as Kubernetes
  containers; `spec.predictor.model` with `modelFormat.name: huggingface`
  runs the Hugging Face server on its vLLM backend, so its `args` are vLLM
  flags (the server passes them to vLLM's engine args); the model is
  `storageUri` (`hf://`) or `--model_id`; `--backend huggingface` (or
  triton) runs no vLLM and is skipped. Other model formats (NIM, sklearn,
  ...) pick their engine at run time and are skipped.
- ServingRuntime: each of `spec.containers` is read as a Kubernetes
  container (an engine found from its command or image). KServe renders
  Go template actions in every kind's containers (`{{.Name}}`,
  `{{- if .Spec.Parallelism.Tensor }}`): they are values ctxlint does not
  know, never errors (engines/gotemplate.py).
- LLMInferenceService(Config): KServe's preset runs `vllm serve` on the
  `main` container and appends `VLLM_ADDITIONAL_ARGS`, whose string is read
  as vLLM flags with positions inside it (an explicit `command`/`args`
  wins). `spec.template` is the decode role when `spec.prefill` exists
  (else unified), `spec.prefill.template` the prefill role; `replicas`,
  `parallelism.tensor|pipeline|data|dataLocal` and `spec.model.uri`
  (`hf://`) or `model.name` fill in what the flags do not say (a command that serves
  `/mnt/models`, where KServe puts `model.uri`, serves that model). The image
  gives the version when it is the preset's engine's.
"""
from __future__ import annotations

from typing import List, Optional

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import int_val, is_kind, labels_of, name_of, objects, scalar, seq, str_val
from ctxlint.adapters.crds_kubeai import model_id
from ctxlint.adapters.hardware import count_from_resources, type_from_pod_spec
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import (Container, EngineRole, Workload, env_from_k8s, limits_from_annotations,
                                       read_container)
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.engines import engine_from_image
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, UNIFIED, Parallelism, Val
from ctxlint.nodes import MAP, SCALAR, Node

NAME = "kserve"
GROUP = "serving.kserve.io"
ADDITIONAL_ARGS = "VLLM_ADDITIONAL_ARGS"
# Where KServe puts spec.model.uri; its own preset serves it: `vllm serve /mnt/models --served-model-name
# {{ .Spec.Model.Name }}` (kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912:
# config/llmisvcconfig/config-llm-template.yaml)
MODEL_MOUNT = "/mnt/models"


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj in objects(loaded):
        if is_kind(obj, ("LLMInferenceService", "LLMInferenceServiceConfig"), GROUP):
            workloads.extend(_llm_service(obj, spans, result))
        elif is_kind(obj, ("InferenceService",), GROUP):
            workloads.extend(_inference_service(obj, spans, result))
        elif is_kind(obj, ("ServingRuntime", "ClusterServingRuntime"), GROUP):
            spec = obj.get("spec")
            workloads.extend(_workload(obj, None, _pod_roles(spec, spans, result), spans, result))
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
                     engine: Optional[Val[str]] = None, script: Optional[Node] = None) -> List[EngineRole]:
    command, args = c.get("command"), c.get("args")
    explicit = command is not None or args is not None
    if explicit:
        script = command if command is not None and command.kind == SCALAR and args is None else None
    image = c.get("image")
    if not (explicit or engine is None or engine_from_image(scalar(image))[0] == engine.value):
        image = None  # the preset's engine runs, whatever the image; one of that engine gives its version
    reading = read_container(Container(
        spans=spans, node=c, name=str(scalar(c.get("name")) or ""),
        command=None if script is not None or not explicit else command, args=args if explicit else None,
        script=script, env=env_from_k8s(c.get("env")), image=image,
        args_only=command is None, engine=engine, go_values={},  # KServe renders Go templates: gotemplate.py
        accelerator_count=count_from_resources(c.get("resources"), spans.file),
        accelerator_type=type_from_pod_spec(pod, spans.file)))
    result.diagnostics.extend(reading.diagnostics)
    return reading.roles


def _pod_roles(pod: Optional[Node], spans: ScalarSpans, result: AdaptResult) -> List[EngineRole]:
    roles: List[EngineRole] = []
    for c in seq(pod.get("containers") if pod is not None and pod.kind == MAP else None):
        if c.kind == MAP:
            roles.extend(_container_roles(c, pod, spans, result))
    return roles


# -- InferenceService ------------------------------------------------------------------------------------
def _inference_service(obj: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    file = spans.file
    predictor = obj.dig("spec", "predictor")
    if predictor is None or predictor.kind != MAP:
        return []
    replicas = int_val(predictor.get("minReplicas"), file)
    replicas = replicas if replicas is not None and replicas.value > 0 else None  # 0: scale to zero
    model = predictor.get("model")
    fmt = model.dig("modelFormat", "name") if model is not None and model.kind == MAP else None
    if scalar(fmt) == "huggingface":
        backend = _hf_arg(model.get("args"), "--backend", spans)
        if backend is not None and backend.value not in ("vllm", "auto"):
            return []  # the transformers (or Triton) backend: no vLLM engine, no paged KV pool
        roles = _container_roles(model, predictor, spans, result,
                                 engine=Val("vllm", fmt.source(file), raw="huggingface"))
        storage = _hf_arg(model.get("args"), "--model_id", spans)  # the server's args.model = model_id or model_dir
        if storage is None and str(scalar(model.get("storageUri"))).startswith("hf://"):
            storage = model_id(model.get("storageUri"), file)
        if storage is not None:
            roles = [r if r.model is not None else replace(r, model=storage) for r in roles]
        return _workload(obj, None, roles, spans, result, replicas)
    return _workload(obj, None, _pod_roles(predictor, spans, result), spans, result, replicas)


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


# -- LLMInferenceService ---------------------------------------------------------------------------------
def _llm_service(obj: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    file = spans.file
    spec = obj.get("spec")
    if spec is None or spec.kind != MAP:
        return []
    model = _model(spec.get("model"), file)
    prefill = spec.get("prefill") if spec.get("prefill") is not None and spec.get("prefill").kind == MAP else None
    out: List[Workload] = []
    sections = [(spec, None, DECODE if prefill is not None else UNIFIED, spec.keys.get("template"))]
    if prefill is not None:
        sections.append((prefill, "prefill", PREFILL, spec.keys["prefill"]))
    for section, suffix, kind, marker in sections:
        template = section.get("template") or spec.get("template")
        roles = []
        for c in seq(template.get("containers") if template is not None and template.kind == MAP else None):
            if c.kind != MAP or scalar(c.get("name")) != "main":
                continue
            additional = next((e.get("value") for e in seq(c.get("env"))
                               if e.kind == MAP and scalar(e.get("name")) == ADDITIONAL_ARGS), None)
            engine = Val("vllm", c.source(file), raw="KServe LLMInferenceService (vllm serve)")
            found = _container_roles(c, template, spans, result, engine=engine,
                                     script=additional if additional is not None and additional.kind == SCALAR
                                     else None)
            parallel = section.get("parallelism") or spec.get("parallelism")
            roles.extend(_filled(r, kind, marker, model, parallel, file) for r in found)
        replicas = int_val(section.get("replicas"), file)
        out.extend(_workload(obj, suffix, roles, spans, result, replicas))
    return out


def _model(node: Optional[Node], file: str) -> Optional[Val[str]]:
    if node is None or node.kind != MAP:
        return None
    uri = scalar(node.get("uri"))
    if isinstance(uri, str) and uri.startswith("hf://"):
        return model_id(node.get("uri"), file)
    return str_val(node.get("name"), file)


def _filled(r: EngineRole, kind: str, marker: Optional[Node], model: Optional[Val[str]],
            parallel: Optional[Node], file: str) -> EngineRole:
    role = r.role
    if role.kind == UNIFIED and kind != UNIFIED and marker is not None:
        role = replace(role, role=Val(kind, marker.source(file)))
    if parallel is not None and parallel.kind == MAP:
        p = role.parallelism
        data = int_val(parallel.get("dataLocal"), file) or int_val(parallel.get("data"), file)
        role = replace(role, parallelism=Parallelism(
            tensor=p.tensor or _positive(int_val(parallel.get("tensor"), file)),
            pipeline=p.pipeline or _positive(int_val(parallel.get("pipeline"), file)),
            data=p.data or _positive(data)))
        role = replace(role, engine_args=role.engine_args + _preset_flags(role, parallel, file))
    served = r.model
    if served is None or model is not None and str(served.value).rstrip("/") == MODEL_MOUNT \
            and str(model.raw).startswith("hf://"):
        served = model  # KServe downloads spec.model.uri to /mnt/models (a served name is not the model)
    return replace(r, role=role, model=served)


def _preset_flags(role, parallel: Node, file: str) -> tuple:
    """What KServe's data-parallel preset passes to vLLM from `parallelism`: --data-parallel-size
    `data` (all ranks; `dataLocal` is this pod's share) and --enable-expert-parallel `expert`."""
    out = []
    data = _positive(int_val(parallel.get("data"), file))
    if data is not None and role.arg("data_parallel_size") is None:
        out.append(("data_parallel_size", data))
    expert = parallel.get("expert")
    if expert is not None and scalar(expert) is True and role.arg("enable_expert_parallel") is None:
        out.append(("enable_expert_parallel", Val(True, expert.source(file))))
    return tuple(out)


def _positive(val: Optional[Val[int]]) -> Optional[Val[int]]:
    return val if val is not None and val.value > 0 else None
