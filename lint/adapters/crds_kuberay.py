"""KubeRay `RayService` / `RayCluster` / `RayJob` (ray.io) serving LLMs (a RayJob's entrypoint: ray_job.py).

- Ray Serve LLM: `spec.serveConfigV2` is a YAML string; each of
  `applications[].args.llm_configs[]` is one deployment: the model is
  `model_loading_config.model_source` (else `model_id`), `engine_kwargs` are
  vLLM engine arguments (Ray Serve LLM passes them to vLLM's AsyncEngineArgs),
  each at its position inside the block scalar; `accelerator_type` names the
  device (else the GPU worker group's node labels); replicas are
  `deployment_config.num_replicas` or `autoscaling_config.min_replicas`. One
  replica uses tensor x pipeline GPUs; a Ray cluster with fewer GPUs than
  that (head + workers, as in crds_aibrix) is what the replica gets, so the
  parallelism check reports it.
- A head container that runs an engine itself (`vllm serve`) is read like a
  RayClusterFleet's head: the engine spreads over the whole cluster's GPUs.
- Custom Serve apps (`import_path` of the user's own module, or a container
  running `serve run`; ray_custom_apps.py) for a vLLM image: their `MODEL_ID`, `MAX_MODEL_LEN`,
  ... are read by the app's own code, which the file does not hold, so they
  are not engine settings: the deployment is kept (engine vLLM, the actors'
  `num_gpus`) and CTX008 names what could not be read.
"""
from __future__ import annotations

import re
from typing import Callable, List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import config_maps, int_val, labels_of, name_of, specs, scalar, seq
from ctxlint.adapters.crds_aibrix import _cluster_gpus, cluster_resource
from ctxlint.adapters.hardware import canonical_type, engine_devices, pod_type
from ctxlint.adapters.pod_specs import pod_roles
from ctxlint.adapters.ray_llm_args import config_vllm, llm_configs, ray_builder
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import (UNRESOLVED, Container, EngineRole, Workload, limits_from_annotations,
                                      read_container)
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile, parse_text
from ctxlint.findings import Diagnostic
from ctxlint.model import UNIFIED, Accelerators, Source, Val
from ctxlint.nodes import MAP, SCALAR, Node, dotted_sources
from ctxlint.physics.accelerators import family_word

NAME = "kuberay"
GROUP = "ray.io"
KINDS = ("RayService", "RayCluster", "RayJob")
_CLUSTER = {"RayService": "rayClusterConfig", "RayJob": "rayClusterSpec"}  # where the kind holds its RayCluster spec
APP_ENV = lazy_compile(r"MODEL|_LEN|PARALLEL|GPU|SEQ|TOKENS")
# Ray's LLM images (rayproject/ray-llm) bundle vLLM: their Dockerfile installs the rayllm lock, kept "in sync with
# vllm version in python/requirements/llm/llm-requirements.txt", and patches the installed vLLM, failing where
# there is none (ray-project/ray@0168a92e911ab136f7e417f9821cea3a53cb96f6:docker/ray-llm/Dockerfile)
RAY_LLM_IMAGE = lazy_compile(r"(?:^|[\s/])ray-llm(?=[:@\s]|$)", re.IGNORECASE)


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans = ScalarSpans(loaded.path, loaded.text)
    workloads: List[Workload] = []
    for obj, spec in specs(loaded, KINDS, GROUP):
        maps = config_maps(loaded, obj)
        kind = scalar(obj.get("kind"))
        cluster = spec.get(_CLUSTER[kind]) if kind in _CLUSTER else spec
        reader = _Reader(obj, cluster if cluster is not None and cluster.kind == MAP else None, spans, maps, result)
        if kind == "RayJob":
            from ctxlint.adapters.ray_job import entrypoint_workloads  # only a RayJob pays for it

            workloads += entrypoint_workloads(reader, spec.get("entrypoint"))
        else:
            workloads += reader.read(spec.get("serveConfigV2"))
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _pod(group: Optional[Node]) -> Optional[Node]:
    template = group.get("template") if group is not None and group.kind == MAP else None
    pod = template.get("spec") if template is not None and template.kind == MAP else None
    return pod if pod is not None and pod.kind == MAP else None


class _Reader:
    def __init__(self, obj: Node, cluster: Optional[Node], spans: ScalarSpans, maps, result: AdaptResult) -> None:
        self.obj, self.cluster, self.spans, self.maps, self.result, self.file = \
            obj, cluster, spans, maps, result, spans.file
        self.display = scalar(obj.dig("metadata", "name"))
        self.head = cluster.get("headGroupSpec") if cluster is not None else None
        self.head_pod = _pod(self.head)
        self.total = _cluster_gpus(self.head, self.head_pod, cluster, self.file, result, self.display) \
            if self.head is not None and self.head.kind == MAP else None
        workers = [g for g in seq(cluster.get("workerGroupSpecs") if cluster is not None else None) if g.kind == MAP]
        self.worker_type = next((t for t in (pod_type(_pod(g), self.file) for g in workers) if t), None)
        # TPU7x: the cluster's chips are two engine devices each (hardware.engine_devices)
        self.total = engine_devices(self.total, pod_type(self.head_pod, self.file) or self.worker_type)
        self.resource = cluster_resource(self.head_pod, cluster) if cluster is not None and cluster.kind == MAP \
            else None
        # settings-like variables the app may read from its containers' env (vLLM reads none of them)
        self.container_env = [str(scalar(e.get("name"))) for p in [self.head_pod] + [_pod(g) for g in workers]
                              for c in seq(p.get("containers") if p is not None else None) if c.kind == MAP
                              for e in seq(c.get("env")) if e.kind == MAP and isinstance(scalar(e.get("name")), str)
                              and APP_ENV.search(scalar(e.get("name")))
                              and not scalar(e.get("name")).startswith(("VLLM_", "HF_", "HUGGING"))]
        self.images = " ".join(str(scalar(c.get("image")) or "") for p in [self.head_pod] + [_pod(g) for g in workers]
                               for c in seq(p.get("containers") if p is not None else None) if c.kind == MAP)

    def read(self, serve: Optional[Node]) -> List[Workload]:
        out: List[Workload] = []
        roles = pod_roles(self.head_pod, self.spans, self.result, self.maps, injected=[], ray=True)
        if roles:  # the head runs the engine itself, over the whole cluster
            roles = [r if r.role.accelerators.count is None or self.total is None else _with_count(r, self.total)
                     for r in roles]
            out.append(self.workload(None, roles, None, self.head))
        inner = self.embedded(serve)
        if inner is not None:
            root, place = inner
            for a_index, app in enumerate(seq(root.get("applications"))):
                if app.kind == MAP:
                    out += self.application(app, a_index, place)
        elif not roles:
            from ctxlint.adapters.ray_custom_apps import serve_run  # only a cluster with no serve config pays for it

            out += serve_run(self)
        return out

    # -- the serve config, a YAML document inside a string -----------------------------------------------
    def embedded(self, node: Optional[Node]) -> Optional[Tuple[Node, Callable[[Node], Source]]]:
        if node is None or node.kind != SCALAR or not isinstance(node.value, str):
            return None
        inner = parse_text(node.value, self.file)
        if inner.diagnostics or len(inner.documents) != 1 or inner.documents[0].root.kind != MAP:
            return None
        return inner.documents[0].root, self.spans.within(node)

    def application(self, app: Node, index: int, place: Callable[[Node], Source],
                    custom: bool = True) -> List[Workload]:
        """A Serve application's deployments: its LLMConfigs (ray_llm_args), else, with `custom`, the user's own
        app on vLLM (ray_custom_apps.custom_app)."""
        is_llm, configs = llm_configs(app)
        path = app.get("import_path")
        builder = None if ray_builder(str(scalar(path) or "")) else path
        out: List[Workload] = []
        for kind, config, c_index in configs:
            w = self.llm_config(app, config, c_index, place)
            if w is not None and kind != UNIFIED:  # PDServingArgs: one LLMConfig each half
                w = replace(w, roles=[replace(r, role=replace(r.role, role=Val(kind, place(config))))
                                      if r.role.kind == UNIFIED else r for r in w.roles])
            out += [w] if w is not None else []
        if out and builder is not None:
            self.wrapped(app, builder, out[0], place)
        if not is_llm and custom:
            from ctxlint.adapters.ray_custom_apps import custom_app  # only an app of the user's own pays for it

            out += custom_app(self, app, index, place)
        return out

    def wrapped(self, app: Node, builder: Node, first: Workload, place) -> None:
        """Once per app: a builder of the user's own passes these LLMConfigs on in code the file does not hold."""
        self.result.diagnostics.append(Diagnostic(UNRESOLVED, (
            f"the Ray Serve app {scalar(builder) or scalar(app.get('name'))} is built by code of its own, not one of "
            "Ray's builders: its args are read as the Ray Serve LLM LLMConfigs they are shaped as, but that code, "
            "which this file does not hold, may change them before they reach vLLM"),
            place(builder), str(first.name.value) if first.name is not None else None))

    def llm_config(self, app: Node, config: Node, index: int, place) -> Optional[Workload]:
        engine_name = scalar(config.get("llm_engine"))
        if engine_name is not None and str(engine_name).lower() != "vllm":
            return None  # Ray Serve LLM's SGLang adapter (engine_adapter._ADAPTERS): its kwargs are not vLLM's
        kwargs = config.get("engine_kwargs")
        kwargs = kwargs if kwargs is not None and kwargs.kind == MAP else None
        loading = config.get("model_loading_config")
        loading = loading if loading is not None and loading.kind == MAP else None
        model_node = next((n for n in ((loading.get("model_source"), loading.get("model_id")) if loading is not None
                                       else ()) if n is not None and isinstance(scalar(n), str) and scalar(n).strip()),
                          None)
        model = Val(scalar(model_node).strip(), place(model_node)) if model_node is not None else None
        accel = config.get("accelerator_type")
        # Ray's type is the NVML name's model word (ray-project/ray python/ray/_private/accelerators/nvidia_gpu.py
        # _gpu_name_to_accelerator_type, `\w+\s+([A-Z0-9]+)`: NVIDIA A100-SXM4-40GB and -80GB are both `A100`),
        # so a family word is any of its sizes (accelerators.family_word), not the catalog's 40 GB `A100`
        family = family_word(scalar(accel))
        found = (family.name, str(scalar(accel))) if family is not None else canonical_type(scalar(accel))
        kind = Val(found[0], place(accel), raw=found[1]) if found is not None else self.worker_type
        data = kwargs.plain() if kwargs is not None else {}
        count = self.per_replica(data, kwargs, place, config)
        engine = Val("vllm", place(config), raw="Ray Serve LLM (vLLM engine)")
        reading = read_container(Container(
            spans=self.spans, node=config, args_only=True, engine=engine, accelerator_count=count,
            accelerator_type=kind,
            settings=(data, dotted_sources(kwargs, place) if kwargs is not None else {}, "engine_kwargs")))
        self.result.diagnostics.extend(reading.diagnostics)
        pinned = config_vllm(app, config)  # the release the replicas' runtime_env installs over the image's
        version = Val(pinned[0], place(pinned[1]), raw=str(pinned[1].value)) if pinned and pinned[0] else None
        roles = [_at(r, place(config), model, version) for r in reading.roles]
        label = scalar(loading.get("model_id")) if loading is not None else None
        label = label if isinstance(label, str) else f"{scalar(app.get('name')) or 'app'}[{index}]"
        return self.workload(label, roles, self.replicas(config.get("deployment_config"), place), config) \
            if roles else None

    def per_replica(self, data, kwargs: Optional[Node], place, config: Node) -> Optional[Val[int]]:
        def size(key: str) -> int:
            value = data.get(key) if isinstance(data, dict) else None
            return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1
        if size("data_parallel_size") > 1:
            # Ray's DP builders run one DP rank (TP x PP GPUs) per replica, other builders may not: a replica's
            # GPUs are unknown, not TP x PP x DP (which made CTX204 a false error, sweep 42)
            return None
        need = size("tensor_parallel_size") * size("pipeline_parallel_size")
        at = kwargs.get("tensor_parallel_size") if kwargs is not None else None
        where = place(at) if at is not None else place(config)
        if self.total is not None and self.total.value < need:
            return Val(self.total.value, self.total.source, raw=f"the whole Ray cluster: {self.total.raw}")
        return Val(need, where, raw=f"{need} per replica (tensor x pipeline)")

    def replicas(self, node: Optional[Node], place) -> Optional[Val[int]]:
        if node is None or node.kind != MAP:
            return None
        for found in (node.get("num_replicas"), node.dig("autoscaling_config", "min_replicas")):
            val = int_val(found, self.file)
            if val is not None:
                return Val(val.value, place(found), raw=val.raw)
        return None

    def code_in_file(self, import_path: str) -> str:
        """`the ConfigMap X's vllm_serve.py` when a ConfigMap of this file holds the app's module (mounted into
        the Ray pods: awslabs/ai-on-eks's vllm-ray-gpu-deepseek), else ""."""
        module = import_path.split(":", 1)[0].rsplit(".", 1)[-1]
        for name, data in (self.maps or {}).items() if module else ():
            if data.kind == MAP and f"{module}.py" in data.value:
                return f"in the ConfigMap {name}'s {module}.py"
        return ""

    def vllm(self, text: str) -> bool:
        return "vllm" in text.lower() or "vllm" in self.images.lower() or RAY_LLM_IMAGE.search(self.images) is not None

    def workload(self, suffix: Optional[str], roles: List[EngineRole], replicas: Optional[Val[int]],
                 at: Node) -> Workload:
        base = name_of(self.obj, self.file)
        name = Val(f"{base.value}/{suffix}", base.source) if base is not None and suffix else base
        if name is None and suffix:  # a Serve config of its own has no metadata: the app's model names it
            name = Val(suffix, at.source(self.file))
        advertised, gateway, measured = limits_from_annotations(self.obj.dig("metadata", "annotations"), self.file,
                                                      self.result.diagnostics, str(name.value) if name else None)
        if self.resource is not None:  # the cluster's GPUs, whose count no longer sits at the resource's key
            roles = [r if r.role.accelerators.count is None else replace(r, role=replace(r.role, accelerators=replace(
                r.role.accelerators, resource=self.resource))) for r in roles]
        return Workload(name=name, source=self.obj.source(self.file), input_format=NAME, roles=roles,
                        replicas=replicas, advertised=advertised, gateway=gateway, measured=measured,
                        labels=labels_of(self.obj))


def _with_count(r: EngineRole, total: Val[int]) -> EngineRole:
    return replace(r, role=replace(r.role, accelerators=Accelerators(r.role.accelerators.type, total)))


def _at(r: EngineRole, where: Source, model: Optional[Val[str]], version: Optional[Val[str]]) -> EngineRole:
    return replace(r, role=replace(r.role, source=where, role=Val(r.role.kind, where)), model=r.model or model,
                   version=version or r.version)
