"""OME (ome.io, sgl-project/ome): `ClusterServingRuntime` / `ServingRuntime`,
`InferenceService`, `ClusterBaseModel` / `BaseModel`.

A runtime's `engineConfig` and `decoderConfig` are pod specs with a `runner`
(the engine container) or `leader` + `worker: {size}` (one engine instance
over 1 + size pods, as a LeaderWorkerSet); `routerConfig` runs no engine and
is skipped. With a `decoderConfig` the engine is the prefill role and the
decoder the decode role (unless the engine's own flags say otherwise).
Runtimes of the older shape hold `containers` directly.

OME's controller sets, in every engine container (pkg/controller/v1beta1/
inferenceservice/components): MODEL_PATH (the base model's `storage.path`),
PARALLELISM_SIZE (GPUs per pod x (1 + worker size)), LWS_GROUP_SIZE and,
unknown here, LWS_LEADER_ADDRESS, LWS_WORKER_INDEX, NAMESPACE. An
InferenceService (`spec.model.name`, `spec.runtime.name`, `spec.engine`,
`spec.decoder`) is merged over its runtime as OME merges them; the model is
the base model's `storage.storageUri` (`hf://org/name` -> org/name) when the
BaseModel is in the file (else in one other file of its directory:
crd_refs.py), else the referenced name as written; replicas are
`minReplicas`. One deployment per InferenceService whose runtime is in the
file or in one other file of its directory (a runtime in none, when the
service is then read as nothing, or in several, is said: CTX008), else one
per runtime (its model then comes from the command line).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..records import replace
from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import (clone, config_maps, int_val, is_kind, labels_of, merge_patch, name_of,
                                        objects, scalar, seq, str_val)
from ctxlint.adapters.crd_refs import OME_MODEL, OME_RUNTIME, Refs, refs_for, unfound
from ctxlint.adapters.hardware import count_from_resources
from ctxlint.adapters.pod_specs import pod_roles
from ctxlint.adapters.ome_served import served_model
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload import UNRESOLVED, EngineRole, EnvVar, Workload, limits_from_annotations
from ctxlint.findings import Diagnostic
from ctxlint.adapters.workload_groups import deployments_from
from ctxlint.loader import LoadedFile
from ctxlint.model import DECODE, PREFILL, UNIFIED, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

NAME = "ome"
GROUP = "ome.io"
RUNTIMES = ("ServingRuntime", "ClusterServingRuntime")
MODELS = ("BaseModel", "ClusterBaseModel")


def adapt(loaded: LoadedFile, refs: Optional[Refs] = None) -> AdaptResult:
    """`refs`: the objects of the files checked with this one (crd_refs), where an InferenceService's
    runtime and base model are looked up; without it, this file's."""
    result = AdaptResult()
    objs = [o for o in objects(loaded) if scalar(o.get("kind")) in RUNTIMES + MODELS + ("InferenceService",)
            and is_kind(o, (scalar(o.get("kind")),), GROUP)]
    if not objs:
        return result
    spans = ScalarSpans(loaded.path, loaded.text)
    maps = config_maps(loaded)
    runtimes = {scalar(o.dig("metadata", "name")): o for o in objs if scalar(o.get("kind")) in RUNTIMES}
    refs = refs_for(loaded, refs)
    reader = _Reader(spans, maps, result, refs)
    workloads: List[Workload] = []
    for obj in objs:
        if scalar(obj.get("kind")) != "InferenceService" or obj.get("spec") is None or obj.get("spec").kind != MAP:
            continue
        lookup = refs.lookup(obj, OME_RUNTIME)
        found = reader.deployment(obj, lookup.found, obj.get("spec"))
        missing = unfound(lookup, "runtime", obj, spans.file)
        shape = _runtime_shape(obj, spans.file)
        if shape is not None:  # what the API server refuses: no selection, no runtime looked up
            result.diagnostics.append(shape)
        elif missing is not None and (lookup.files or not found):  # not silently no deployment
            result.diagnostics.append(missing)
        elif lookup.name is None and not found and _no_name(obj.dig("spec", "runtime", "name")):  # none written
            result.diagnostics.append(_auto_selected(obj, spans.file))
        workloads += found
    for runtime in runtimes.values():
        if not refs.used(runtime):
            workloads += reader.deployment(runtime, runtime, None)
    result.extend(deployments_from(loaded.path, workloads))
    return result


def _no_name(node: Optional[Node]) -> bool:
    """No runtime name written: absent, null or empty, which OME reads as none and selects one
    (sgl-project/ome@17b77ed:pkg/controller/v1beta1/inferenceservice/controller.go:230, `Runtime.Name != ""`);
    a list or map there is a shape problem, not a selection."""
    return node is None or (node.kind == SCALAR and node.value in (None, ""))


def _runtime_shape(obj: Node, file: str) -> Optional[Diagnostic]:
    """CTX002 at a `spec.runtime` OME's CRD refuses: a ServingRuntimeRef, a mapping whose `name` is a required
    string (sgl-project/ome@17b77ed:pkg/apis/ome/v1beta1/inference_service.go `Runtime *ServingRuntimeRef`,
    `Name string json:"name"`; config/crd/full/ome.io_inferenceservices.yaml `runtime: {type: object, required:
    [name]}`). None for a fitting one, or none written (absent or null)."""
    from ctxlint.adapters.k8s_refusals import SCHEMA_VIOLATION, _what

    runtime = obj.dig("spec", "runtime")
    if runtime is None or (runtime.kind == SCALAR and runtime.value is None):
        return None
    name = runtime.get("name") if runtime.kind == MAP else None
    if runtime.kind != MAP:
        at, what = runtime, f"`spec.runtime` is {_what(runtime)}"
    elif name is None:
        at, what = runtime, "`spec.runtime` has no `name`"
    elif name.kind != SCALAR or (name.value is not None and not isinstance(name.value, str)):
        at, what = name, f"`spec.runtime.name` is {_what(name)}"
    else:
        return None
    owner = scalar(obj.dig("metadata", "name"))
    who = f"InferenceService {owner}" if isinstance(owner, str) else "this InferenceService"
    return Diagnostic(SCHEMA_VIOLATION, (
        f"the Kubernetes API server refuses {who}: OME's CRD takes `spec.runtime` as a mapping with a string "
        f"`name` (the runtime's; `kind` and `apiGroup` optional), and {what}"), at.source(file))


def _auto_selected(obj: Node, file: str) -> Diagnostic:
    """CTX008 for a service that names no runtime and runs no engine of its own: OME picks a runtime from the
    cluster's by the base model's format, architecture and parameter size and the accelerator class
    (sgl-project/ome@17b77edad23b:pkg/runtimeselector/matcher.go GetCompatibilityDetails), which its model
    agent reads from the checkpoint at run time, so which runtime, and so which engine, is not known here."""
    name = scalar(obj.dig("metadata", "name"))
    model = obj.dig("spec", "model", "name")
    where = model if model is not None else obj
    who = f"InferenceService {name}" if isinstance(name, str) else "an InferenceService"
    return Diagnostic(UNRESOLVED, (
        f"{who} names no runtime (spec.runtime.name), so OME selects one from the cluster's runtimes by the base "
        "model's format, architecture and parameter size, which its model agent reads from the checkpoint at run "
        "time: what it runs is not known here and it is not checked; name the runtime"),
        where.source(file), name if isinstance(name, str) else None)


def _map(node: Optional[Node]) -> Optional[Node]:
    return node if node is not None and node.kind == MAP else None


class _Reader:
    def __init__(self, spans: ScalarSpans, maps: Dict[str, Node], result: AdaptResult, refs: Refs) -> None:
        self.spans, self.maps, self.result, self.refs, self.file = spans, maps, result, refs, spans.file

    def deployment(self, obj: Node, runtime: Optional[Node], isvc: Optional[Node]) -> List[Workload]:
        rt = _map(runtime.get("spec")) if runtime is not None else None
        model, path = self.model(obj if isvc is not None else None)
        engine_cfg = merge_patch(_map(rt.get("engineConfig")) if rt is not None else None,
                                 _map(isvc.get("engine")) if isvc is not None else None)
        decoder_cfg = merge_patch(_map(rt.get("decoderConfig")) if rt is not None else None,
                                  _map(isvc.get("decoder")) if isvc is not None else None)
        if engine_cfg is None and decoder_cfg is None and rt is not None and rt.get("containers") is not None:
            engine_cfg = rt  # the older ServingRuntime shape: containers in the spec itself
        name = scalar(obj.dig("metadata", "name"))
        out: List[Workload] = []
        parts = [(part, key, kind, self.component(part, path, name if isvc is not None else None))
                 for part, key, kind in ((engine_cfg, "engine", PREFILL if decoder_cfg is not None else UNIFIED),
                                         (decoder_cfg, "decoder", DECODE)) if part is not None and part.kind == MAP]
        served = _served_by_all([r for *_, roles in parts for r in roles], rt) \
            if model is None and isvc is None else None
        for part, key, kind, roles in parts:
            marker = self.marker(obj, runtime, isvc, key)
            roles = [_filled(r, kind, marker, model if model is not None or isvc is not None else
                             served if _loads_model_path(r) else None, self.file) for r in roles]
            if roles:
                out.append(self.workload(obj, key if decoder_cfg is not None else None, roles, part))
        if len(out) == 2 and model is None and any(r.model is None for w in out for r in w.roles):
            # no model to pair the halves by (a runtime alone): its engine and decoder are one deployment
            out = [replace(out[0], name=name_of(obj, self.file), roles=out[0].roles + out[1].roles)]
        return out

    def marker(self, obj: Node, runtime: Optional[Node], isvc: Optional[Node], key: str) -> Node:
        """Where the role is written: the isvc's `engine`/`decoder` key, else the runtime's *Config key."""
        for spec, field in ((isvc, key), (_map(runtime.get("spec")) if runtime else None, f"{key}Config")):
            if spec is not None and field in spec.keys:
                return spec.keys[field]
        return obj

    def model(self, obj: Optional[Node]) -> Tuple[Optional[Val[str]], Optional[str]]:
        """(model id, MODEL_PATH) from the InferenceService's model ref and its BaseModel."""
        written = str_val(obj.dig("spec", "model", "name"), self.file) if obj is not None else None
        if written is None:
            return None, None
        lookup = self.refs.lookup(obj, OME_MODEL)
        several = unfound(lookup, "base model", obj, self.file) if lookup.files else None
        if several is not None:
            self.result.diagnostics.append(several)
        base = lookup.found
        storage = base.dig("spec", "storage") if base is not None else None
        path = scalar(storage.get("path")) if storage is not None and storage.kind == MAP else None
        uri = storage.get("storageUri") if storage is not None and storage.kind == MAP else None
        text = scalar(uri)
        if isinstance(text, str) and text.strip().startswith("hf://") and text.strip()[5:].strip("/"):
            return Val(text.strip()[5:].strip("/"), uri.source(self.file), raw=text), \
                path if isinstance(path, str) else None
        return Val(written.value.strip(), written.source), path if isinstance(path, str) else None

    def component(self, part: Node, model_path: Optional[str], isvc_name) -> List[EngineRole]:
        leader, worker = _map(part.get("leader")), _map(part.get("worker"))
        size = int_val(worker.get("size"), self.file) if worker is not None else None
        workers = size.value if size is not None else (1 if worker is not None else 0)
        pod = _pod(leader if leader is not None else part, part)
        runner = seq(pod.get("containers"))[0] if seq(pod.get("containers")) else None
        gpus = count_from_resources(runner.get("resources"), self.file) if runner is not None else None
        env = [EnvVar("MODEL_PATH", model_path), EnvVar("NAMESPACE", None),
               EnvVar("INFERENCESERVICE_NAME", isvc_name if isinstance(isvc_name, str) else None)]
        if gpus is not None and gpus.value > 0:
            env.append(EnvVar("PARALLELISM_SIZE", str(gpus.value * (1 + workers))))
        if leader is not None or worker is not None:
            env += [EnvVar("LWS_GROUP_SIZE", str(1 + workers)), EnvVar("LWS_LEADER_ADDRESS", None),
                    EnvVar("LWS_WORKER_INDEX", None)]
        return pod_roles(pod, self.spans, self.result, self.maps, 1 + workers, injected=env,
                          group_label="pods (OME leader + worker size)")

    def workload(self, obj: Node, suffix: Optional[str], roles: List[EngineRole], part: Node) -> Workload:
        base = name_of(obj, self.file)
        name = Val(f"{base.value}/{suffix}", base.source) if base is not None and suffix else base
        advertised, gateway, measured = limits_from_annotations(obj.dig("metadata", "annotations"), self.file,
                                                      self.result.diagnostics, str(name.value) if name else None)
        isvc = scalar(obj.get("kind")) == "InferenceService"
        replicas = int_val(part.get("minReplicas"), self.file) if isvc else None
        return Workload(name=name, source=obj.source(self.file), input_format=NAME, roles=roles,
                        replicas=replicas if replicas is not None and replicas.value > 0 else None,
                        advertised=advertised, gateway=gateway, measured=measured, labels=labels_of(obj))


def _pod(spec: Node, outer: Node) -> Node:
    """A pod spec holding the component's `runner` as its container (plus any `containers`)."""
    runner = _map(spec.get("runner"))
    containers = seq(spec.get("containers"))
    if runner is not None:
        containers = [runner] + [c for c in containers if scalar(c.get("name")) != scalar(runner.get("name"))]
    value = dict(spec.value)
    if spec is not outer:  # leader: the component's own nodeSelector/affinity apply too
        value = {**{k: v for k, v in outer.value.items() if k in ("nodeSelector", "affinity")}, **value}
    value["containers"] = clone(spec, kind=SEQ, value=containers, keys={})
    return clone(spec, value=value)


def _loads_model_path(r: EngineRole) -> bool:
    return any("MODEL_PATH" in u[0] for u in r.unresolved)


def _served_by_all(roles: List[EngineRole], runtime_spec: Optional[Node]):
    """A runtime read alone whose engines load OME's $(MODEL_PATH): the model their served name names where its
    supported formats agree (ome_served), with the format left open; else None (the model stays unknown). OME
    gives the engine and the decoder one base model's path, so a served name one of them states names both, and
    two that name different models name neither."""
    found = [served_model(r.role.engine_args, runtime_spec) for r in roles if _loads_model_path(r)]
    ids = {f[0].value for f in found if f is not None}
    stated = [r for r in roles if _loads_model_path(r) and any(k == "served_model_name" for k, _ in r.role.engine_args)]
    if len(ids) != 1 or len([f for f in found if f is not None]) != len(stated):
        return None
    return next(f for f in found if f is not None)


def _filled(r: EngineRole, kind: str, marker: Node, model, file: str) -> EngineRole:
    """`model`: the id, or (the id, its StatedFormat) for a runtime's served name (_served)."""
    role = r.role
    if role.kind == UNIFIED and kind != UNIFIED:
        role = replace(role, role=Val(kind, marker.source(file)))
    if model is None:
        return replace(r, role=role)
    stated = r.stated_format
    if isinstance(model, tuple):
        model, stated = model
    unresolved = [u for u in r.unresolved if "MODEL_PATH" not in u[0]]
    return replace(r, role=role, model=model, unresolved=unresolved, stated_format=stated)
