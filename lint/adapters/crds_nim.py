"""NVIDIA NIM for LLMs: `NIMService` (apps.nvidia.com, k8s-nim-operator), the nim-llm
Helm chart's values, and KServe runtimes / InferenceServices that run NIM images.

The model is the image `nvcr.io/nim/<org>/<model>:<tag>` as written
(`meta/llama-3.1-8b-instruct`), or `NIM_MODEL_PATH=hf://org/name`. NIM's own
variables (NIM for LLMs docs, "Environment Variables") are read:
NIM_MAX_MODEL_LEN (the context length), NIM_TENSOR_PARALLEL_SIZE,
NIM_PIPELINE_PARALLEL_SIZE, NIM_MAX_NUM_SEQS, NIM_SERVED_MODEL_NAME,
NIM_PASSTHROUGH_ARGS; NIM_MODEL_PROFILE and the rest are kept as written.

NIM 1.x chooses its backend at run time from the model profile (TensorRT-LLM,
vLLM or SGLang), and the share of GPU memory it gives the backend's KV cache is not
established (nim_backend), so the engine stays `nim` and the KV pool is not
derived: the engine's `raw` says which fact is missing (CTX208, the audit's
why_unknown). NIM's vLLM images and NIM 2.x releases (but an image named SGLang)
map NIM_* variables, NIM_PASSTHROUGH_ARGS and the profile's tp/pp onto vLLM
arguments (2.x docs, "Advanced Configuration"), and are read as vLLM.
NIMService: `image`, `env`, `resources`, `replicas`, `nodeSelector`,
`multiNode.parallelism` (pipeline = nodes per instance), the Hugging Face model of the
NIMCache `storage.nimCache.name` names (nim_cache). nim-llm values:
`image.repository`/`tag`, `env`, `resources`, `replicaCount`, `nodeSelector`.
KServe: a runtime container with a NIM image; an InferenceService whose
`modelFormat.name` is `nvidia-nim-<model>` (nim-deploy's runtimes name their
formats so) gets that runtime from the file, else the format's model name.
"""
from __future__ import annotations

from typing import List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_refs import NIM_CACHE, Refs, refs_for
from ctxlint.adapters.crd_common import clone, int_val, is_kind, labels_of, name_of, objects, specs, scalar, seq
from ctxlint.adapters.nim_backend import Backend, serves_with_vllm, stated_backend, stated_share, why_not_derived
from ctxlint.adapters.nim_vllm import VLLM_FLAGS, as_vllm
from ctxlint.adapters.nim_cache import MODEL_VARS, cached_model
from ctxlint.adapters.nim_names import is_llm_nim
from ctxlint.adapters.hardware import container_type, count_from_resources, type_from_labels, type_from_pod_spec
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import EngineRole, EnvVar, Workload, env_from_k8s, limits_from_annotations
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import UNIFIED, Accelerators, Parallelism, Role, Val
from ctxlint.nodes import MAP, SCALAR, Node

NAME = "nim"
IMAGE = lazy_compile(r"(?:^|/)nim/(?:[^/]+/)*?([^/:@]+/[^/:@]+)(?::|@|$)")
# The multi-LLM (model-free) image serves the model its environment names: NIM_MODEL_PATH (2.x docs,
# "Model-Free NIM"), or NIM_MODEL_NAME in 1.x (docs.nvidia.com/nim/large-language-models/1.12.0/configuration.html;
# GoogleCloudPlatform/kubernetes-engine-samples@2b5036514162a489145c5e5570bc320efbcb37bf:
# ai-ml/nemo-rl-on-gke/nemoRL/gemma3-27b-it/nim-gemma-deployment.yaml: NIM_MODEL_NAME=hf://google/gemma-3-27b-it).
MODEL_FREE = ("nvidia/llm-nim",)
# settings only an LLM NIM reads: one in a container's environment makes its NIM an LLM one (nim_names.is_llm_nim)
LLM_VARS = MODEL_VARS + tuple(VLLM_FLAGS) + ("NIM_MODEL_PROFILE", "NIM_PASSTHROUGH_ARGS")


def adapt(loaded: LoadedFile, refs: Optional[Refs] = None) -> AdaptResult:
    """`refs`: the objects of the files checked with this one (crd_refs), where a NIMService's NIMCache is."""
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    runtimes = {}
    for obj in objects(loaded):
        if is_kind(obj, ("ServingRuntime", "ClusterServingRuntime"), "serving.kserve.io"):
            runtimes[scalar(obj.dig("metadata", "name"))] = obj
    used = set()
    for obj, spec in specs(loaded):
        if is_kind(obj, ("NIMService",), "apps.nvidia.com"):
            refs = refs_for(loaded, refs)  # built once, and only for a file that holds a NIMService
            workloads += _nim_service(obj, spec, spans, result, refs.lookup(obj, NIM_CACHE).found)
        elif is_kind(obj, ("InferenceService",), "serving.kserve.io"):
            workloads += _isvc(obj, spec, runtimes, used, spans, result)
    for name, obj in runtimes.items():
        if name not in used and obj.get("spec") is not None:
            pod = obj.get("spec")
            for c in seq(pod.get("containers")):
                if c.kind == MAP and is_nim_image(c.get("image")):
                    role = nim_role(c.get("image"), env_from_k8s(c.get("env")), spans, result,
                                    count_from_resources(c.get("resources"), spans.file),
                                    container_type(c.get("resources"), type_from_pod_spec(pod, spans.file), spans.file))
                    workloads += _workload(obj, [role] if role else [], None, spans, result)
    if len(loaded.documents) == 1 and loaded.documents[0].root.kind == MAP:
        workloads += _helm_values(loaded.documents[0].root, spans, result)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def is_nim_image(image: Optional[Node]) -> bool:
    text = scalar(image)
    return isinstance(text, str) and "nvcr.io/nim" in text.lower() and IMAGE.search(text.strip()) is not None


def image_model(image: Optional[Node]) -> Optional[str]:
    """`<org>/<model>` of a NIM image (`nvcr.io/nim/<org>/<model>`, or a mirror's `.../nim/<org>/<model>`)."""
    text = scalar(image)
    found = IMAGE.search(text.strip()) if isinstance(text, str) else None
    return found.group(1) if found is not None else None


def _model_of_image(image: Optional[Node], spans: ScalarSpans, mirrored: bool = False) -> Optional[Val[str]]:
    """The model an image names: `nvcr.io/nim/<org>/<model>`, or (`mirrored`: the object is a NIM
    whatever its registry) `<registry>/.../nim/<org>/<model>` of a private mirror."""
    text = scalar(image)
    named = isinstance(text, str) and ("nvcr.io/nim" in text.lower() or mirrored)
    found = IMAGE.search(text.strip()) if named else None
    if found is None or found.group(1).lower() in MODEL_FREE:
        return None
    at = text.find(found.group(1))
    end = at + len(found.group(1))  # aligned on the text up to the name: `image.tag` is not in this scalar
    return Val(found.group(1), spans.source(image, at, end, text[:end]), raw=text)


def nim_role(image: Optional[Node], env: List[EnvVar], spans: ScalarSpans, result: AdaptResult,
             count: Optional[Val[int]], kind: Optional[Val[str]], nodes: int = 1,
             parallel: Optional[Node] = None, model: Optional[Val[str]] = None,
             any_image: bool = False, llm_object: bool = False, cache: Optional[Node] = None) -> Optional[EngineRole]:
    """One NIM container as a role; None when the image is not a NIM image (any image when the
    object's kind says it runs a NIM: `any_image`). `cache`: the NIMCache a NIMService names (its engine)."""
    if model is None and not any_image and not is_nim_image(image):
        return None
    if image is None:
        return None
    named = model.value if model is not None else image_model(image)
    if not is_llm_nim(named, any(v.name in LLM_VARS for v in env), llm_object or any_image):
        return None  # an embedding, ranking, speech, vision or biology NIM: it serves no LLM
    model = model or _model_of_image(image, spans, any_image)
    file = spans.file
    by_name = {v.name: v for v in env}
    path = next((by_name[n] for n in MODEL_VARS if n in by_name), None)
    if path is not None and path.value and path.value.startswith("hf://") and path.node is not None:
        model = Val(path.value[5:].strip("/"), path.node.source(file), raw=path.value)
    tag = _tag(image, spans)
    backend = stated_backend(by_name, tag.value if tag is not None else None, cache, str(scalar(image)))
    share = stated_share(by_name)
    vllm = serves_with_vllm(backend, str(scalar(image)))
    if vllm and share is None:
        return as_vllm(image, env, by_name, spans, result, count, kind, nodes, model, backend)
    where = image.source(file)
    unresolved, args = [], []
    for v in env:
        if not v.name.startswith("NIM_") or v.node is None:
            continue
        if v.value is None:
            unresolved.append((f"{v.name} (no literal value in the file)", v.node.source(file)))
        else:
            args.append((v.name, Val(v.value, v.node.source(file), raw=v.value)))

    def number(name: str, fallback: Optional[Node] = None) -> Optional[Val[int]]:
        v = by_name.get(name)
        if v is not None and v.value is not None and v.value.strip().isdigit() and int(v.value) > 0:
            return Val(int(v.value), v.node.source(file) if v.node is not None else where, raw=v.value)
        found = int_val(fallback, file)
        return found if found is not None and found.value > 0 else None

    tensor = number("NIM_TENSOR_PARALLEL_SIZE", parallel.get("tensor") if parallel is not None else None) \
        or _profile_size(backend, backend.tp, file)  # the variable wins over the profile's tags (2.x docs)
    pipeline = number("NIM_PIPELINE_PARALLEL_SIZE", parallel.get("pipeline") if parallel is not None else None) \
        or _profile_size(backend, backend.pp, file)
    if tensor is None and pipeline is None:
        count = None  # NIM's profile sets the parallel sizes from the GPUs it finds: none to check
    if count is not None and nodes > 1:
        count = Val(count.value * nodes, count.source, raw=f"{count.value} per pod x {nodes} nodes (pipeline)")
    role = Role(role=Val(UNIFIED, where), context_length=number("NIM_MAX_MODEL_LEN"),
                accelerators=Accelerators(kind, count), parallelism=Parallelism(tensor, pipeline),
                source=where, engine_args=tuple(args))
    why = why_not_derived(backend, tag.value if tag is not None else None, share, vllm)
    return EngineRole(role, Val("nim", where, raw=why), tag, model, unresolved)


def _profile_size(backend: Backend, size: Optional[int], file: str) -> Optional[Val[int]]:
    """A parallel size the profile's name states (`-tp2-`), placed at NIM_MODEL_PROFILE."""
    if size is None or size < 1 or backend.node is None:
        return None
    return Val(size, backend.node.source(file), raw=backend.said)


def _tag(image: Optional[Node], spans: ScalarSpans) -> Optional[Val[str]]:
    text = scalar(image)
    if not isinstance(text, str) or ":" not in text.rsplit("/", 1)[-1]:
        return None
    tag = text.rsplit(":", 1)[1]
    at = text.rfind(tag)
    return Val(tag, spans.source(image, at, at + len(tag)), raw=text) if tag else None


def _workload(obj: Node, roles: List[EngineRole], replicas: Optional[Val[int]], spans: ScalarSpans,
              result: AdaptResult) -> List[Workload]:
    if not roles:
        return []
    name = name_of(obj, spans.file)
    advertised, gateway, measured = limits_from_annotations(obj.dig("metadata", "annotations"), spans.file,
                                                  result.diagnostics, str(name.value) if name else None)
    return [Workload(name=name, source=obj.source(spans.file), input_format=NAME, roles=roles, replicas=replicas,
                     advertised=advertised, gateway=gateway, measured=measured, labels=labels_of(obj))]


def _image_node(image: Optional[Node]) -> Optional[Node]:
    """`image: {repository, tag}` as one `repository:tag` scalar placed at the repository."""
    if image is None or image.kind != MAP or not isinstance(scalar(image.get("repository")), str):
        return image if image is not None and image.kind == SCALAR else None
    repo, tag = image.get("repository"), scalar(image.get("tag"))
    text = f"{repo.value}:{tag}" if tag not in (None, "") else repo.value
    return clone(repo, value=text)


def _nim_service(obj: Node, spec: Node, spans: ScalarSpans, result: AdaptResult,
                 cache: Optional[Node]) -> List[Workload]:
    file = spans.file
    env = env_from_k8s(spec.get("env"))
    image = _image_node(spec.get("image"))
    parallel = spec.dig("multiNode", "parallelism")
    parallel = parallel if parallel is not None and parallel.kind == MAP else None
    nodes = int_val(parallel.get("pipeline"), file) if parallel is not None else None
    # A NIMService runs a NIM whatever registry its image comes from (a private mirror, NGC's staging
    # and internal registries): sweep 11 found k8s-nim-operator's own samples dropped as no deployment.
    # the NIMCache the service names, when it holds a Hugging Face model, is what the operator points NIM at
    # (nim_cache): the model-free image names none of its own
    # A model-specific NIM serves its own model: only the model-free image is pointed at the cache (a NIMCache of
    # another model beside `nvcr.io/nim/meta/llama-3.1-8b-instruct` would otherwise be judged in its place)
    model = cached_model(cache, env, file) if _model_of_image(image, spans, mirrored=True) is None else None
    role = nim_role(image, env, spans, result,
                    count_from_resources(spec.get("resources"), file),
                    container_type(spec.get("resources"), type_from_pod_spec(spec, file), file),
                    nodes.value if nodes is not None and nodes.value > 1 else 1, parallel, model=model, any_image=True,
                    cache=cache)
    return _workload(obj, [role] if role else [], int_val(spec.get("replicas"), file), spans, result)


def _isvc(obj: Node, spec: Node, runtimes, used: set, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    file = spans.file
    model = spec.dig("predictor", "model")
    fmt = model.dig("modelFormat", "name") if model is not None and model.kind == MAP else None
    if not isinstance(scalar(fmt), str) or not scalar(fmt).startswith("nvidia-nim-"):
        return []
    runtime = runtimes.get(scalar(model.get("runtime"))) or next(
        (r for r in runtimes.values() if any(scalar(f.get("name")) == scalar(fmt)
                                             for f in seq(r.dig("spec", "supportedModelFormats")))), None)
    container = next((c for c in seq(runtime.dig("spec", "containers")) if c.kind == MAP), None) \
        if runtime is not None else None
    if runtime is not None:
        used.add(scalar(runtime.dig("metadata", "name")))
    name_model = Val(scalar(fmt)[len("nvidia-nim-"):], fmt.source(file), raw=scalar(fmt))
    image = container.get("image") if container is not None else clone(fmt, value="nvcr.io/nim/" + name_model.value)
    env = env_from_k8s(container.get("env")) if container is not None else []
    count = count_from_resources(model.get("resources"), file) or (
        count_from_resources(container.get("resources"), file) if container is not None else None)
    predictor = spec.get("predictor")
    resources = model.get("resources") if count_from_resources(model.get("resources"), file) is not None or \
        container is None else container.get("resources")
    role = nim_role(image, env, spans, result, count,
                    container_type(resources, type_from_pod_spec(predictor, file), file),
                    model=None if container is not None else name_model, llm_object=True)
    replicas = int_val(predictor.get("minReplicas"), file)
    return _workload(obj, [role] if role else [], replicas if replicas and replicas.value > 0 else None, spans,
                     result)


def _helm_values(root: Node, spans: ScalarSpans, result: AdaptResult) -> List[Workload]:
    """nim-llm chart values: `image.repository` a NIM image, plus `env`, `resources`, `replicaCount`."""
    if root.get("apiVersion") is not None or root.get("kind") is not None:
        return []
    image = _image_node(root.get("image"))
    if not is_nim_image(image):
        # an umbrella chart's values hold the nim-llm subchart's under its name or alias (`nim-llm:`)
        return [w for key, sub in _subchart_values(root) for w in _helm_values(sub, spans, result)]
    file = spans.file
    role = nim_role(image, env_from_k8s(root.get("env")), spans, result,
                    count_from_resources(root.get("resources"), file),
                    container_type(root.get("resources"), type_from_labels(root.get("nodeSelector"), file), file),
                    llm_object=True)
    if role is None:
        return []
    label = scalar(root.dig("model", "name"))
    name = Val(label if isinstance(label, str) else role.model.value, image.source(file))
    return [Workload(name=name, source=root.source(file), input_format="helm-values", roles=[role],
                     replicas=int_val(root.get("replicaCount"), file))]


def _subchart_values(root: Node) -> List[tuple]:
    """Top-level mappings of a values file whose own `image` is a NIM image (a subchart's values)."""
    if root.kind != MAP:
        return []
    found = []
    for key, sub in root.value.items():
        if sub is not None and sub.kind == MAP and is_nim_image(_image_node(sub.get("image"))):
            found.append((key, sub))
    return found
