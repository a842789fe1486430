"""Kubernetes objects of the stack in front of the engines.

- `Service`: name -> pod selector and ports (how a URL host reaches pods).
- Gateway API Inference Extension `InferencePool` (v1 `inference.networking.k8s.io`:
  `selector.matchLabels`, `targetPorts[].number`; v1alpha2 `inference.networking.x-k8s.io`:
  `selector`, `targetPortNumber`): a backend other routes name; `InferenceModel` (v1alpha2):
  public `modelName` -> `targetModels[].name` on the pool `poolRef.name`.
- Envoy AI Gateway `AIGatewayRoute`: each rule's `x-ai-eg-model` header values are public
  model names, its `backendRefs` an InferencePool or an `AIServiceBackend`, whose
  `backendRef` is an Envoy Gateway `Backend` (`endpoints[].fqdn`/`ip`) or a Service.
- Envoy Gateway `ClientTrafficPolicy.spec.connection.bufferLimit`: a request-body limit in
  bytes on the Gateways it targets (a byte cap, not a token cap).
- KServe `LLMInferenceService` with `router.scheduler` (and no `pool.ref`): the InferencePool
  KServe creates for it, `<name>-inference-pool`, over the service's own pods.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import objects
from ctxlint.adapters.gw_common import at_file, entries, items, scalar, text
from ctxlint.lazyre import lazy_compile
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, Node
from ctxlint.routes import BackendRef, BodyLimit, Route, Service

NAME = "gateway-objects"
MODEL_HEADER = "x-ai-eg-model"
_QUANTITY = lazy_compile(r"^\s*([0-9]+)\s*(Ki|Mi|Gi|k|K|M|G)?\s*$")
_FACTORS = {None: 1, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3, "k": 1000, "K": 1000, "M": 1000 ** 2,
            "G": 1000 ** 3}


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    where = at_file(loaded.path)
    for obj in objects(loaded):
        kind, api = scalar(obj.get("kind")), scalar(obj.get("apiVersion"))
        if not isinstance(kind, str) or not isinstance(api, str):
            continue
        group = api.split("/")[0] if "/" in api else ""
        name = text(obj.dig("metadata", "name"), where)
        spec = obj.get("spec")
        if name is None or spec is None or spec.kind != MAP:
            continue
        if kind == "Service" and group == "":
            result.services.append(Service(name, _labels(spec.get("selector")), loaded.path, _ports(spec)))
        elif kind == "InferencePool" and group.startswith("inference.networking"):
            result.routes.append(_pool(obj, spec, name, loaded.path))
        elif kind == "InferenceModel" and group.startswith("inference.networking") and \
                spec.get("modelName") is not None:
            result.routes.append(_inference_model(obj, spec, loaded.path))
        elif kind == "AIGatewayRoute" and group == "aigateway.envoyproxy.io":
            result.routes.extend(_ai_gateway_routes(spec, loaded.path))
        elif kind == "AIServiceBackend" and group == "aigateway.envoyproxy.io":
            ref = spec.get("backendRef")
            target = text(ref.get("name"), where) if ref is not None and ref.kind == MAP else None
            if target is not None:
                via = "service" if scalar(ref.get("kind")) == "Service" else "endpoint"
                result.routes.append(Route(file=loaded.path, source=obj.source(loaded.path), gateway=kind,
                                           kind="pool", key=f"backend/{name.value}",
                                           backends=(BackendRef(via, target.value, target.source),)))
        elif kind == "Backend" and group == "gateway.envoyproxy.io":
            result.routes.append(Route(file=loaded.path, source=obj.source(loaded.path), gateway=kind, kind="pool",
                                       key=f"backend-endpoint/{name.value}", backends=_endpoints(spec, loaded.path)))
        elif kind == "LLMInferenceService" and group == "serving.kserve.io" and \
                spec.dig("router", "scheduler") is not None and spec.dig("router", "scheduler", "pool", "ref") is None:
            # KServe creates the InferencePool `<name>-inference-pool` over the service's own pods.
            result.routes.append(Route(file=loaded.path, source=obj.source(loaded.path), gateway=kind, kind="pool",
                                       key=f"pool/{name.value}-inference-pool",
                                       backends=(BackendRef("workload", name.value, name.source),)))
        elif kind == "ClientTrafficPolicy" and group == "gateway.envoyproxy.io":
            limit = _quantity(spec.dig("connection", "bufferLimit"), loaded.path)
            targets = tuple(str(scalar(t.get("name"))) for t in items(spec.get("targetRefs"))
                            if t.kind == MAP and scalar(t.get("kind")) == "Gateway")
            if limit is not None and targets:
                result.body_limits.append(BodyLimit(limit, targets, "Envoy Gateway ClientTrafficPolicy "
                                                    "connection.bufferLimit"))
    return result


def _labels(node: Optional[Node]) -> Tuple[Tuple[str, str], ...]:
    return tuple((str(k), str(v.value)) for k, v in entries(node) if v.kind == "scalar" and v.value is not None)


def _ports(spec: Node) -> Tuple[int, ...]:
    out = []
    for port in items(spec.get("ports")):
        for key in ("port", "targetPort"):
            value = scalar(port.get(key)) if port.kind == MAP else None
            if isinstance(value, int) and not isinstance(value, bool):
                out.append(value)
    return tuple(dict.fromkeys(out))


def _pool(obj: Node, spec: Node, name: Val[str], file: str) -> Route:
    selector = spec.get("selector")
    labels = selector.get("matchLabels") if selector is not None and selector.get("matchLabels") is not None \
        else selector
    port = scalar(spec.get("targetPortNumber"))
    first = items(spec.get("targetPorts"))
    if port is None and first and first[0].kind == MAP:
        port = scalar(first[0].get("number"))
    ref = BackendRef("selector", _labels(labels), labels.source(file) if labels is not None else obj.source(file),
                     port if isinstance(port, int) else None)
    return Route(file=file, source=obj.source(file), gateway="InferencePool", kind="pool",
                 key=f"pool/{name.value}", backends=(ref,) if ref.value else ())


def _inference_model(obj: Node, spec: Node, file: str) -> Route:
    where = at_file(file)
    public = text(spec.get("modelName"), where)
    targets = [text(t.get("name"), where) for t in items(spec.get("targetModels")) if t.kind == MAP]
    targets = [t for t in targets if t is not None]
    pool = text(spec.dig("poolRef", "name"), where)
    return Route(file=file, source=obj.source(file), gateway="InferenceModel", name=public,
                 upstream_model=targets[0] if len(targets) == 1 else public,
                 backends=(BackendRef("pool", pool.value, pool.source),) if pool is not None else ())


def _ai_gateway_routes(spec: Node, file: str) -> List[Route]:
    where = at_file(file)
    parents = tuple(v for v in (text(p.get("name"), where) for p in items(spec.get("parentRefs")) if p.kind == MAP)
                    if v is not None)
    out = []
    for rule in items(spec.get("rules")):
        if rule.kind != MAP:
            continue
        refs = []
        for ref in items(rule.get("backendRefs")):
            target = text(ref.get("name"), where) if ref.kind == MAP else None
            if target is not None:
                via = "pool" if scalar(ref.get("kind")) == "InferencePool" else "backend"
                refs.append(BackendRef(via, target.value, target.source))
        names = {}
        for match in items(rule.get("matches")):
            for header in items(match.get("headers")) if match.kind == MAP else ():
                if header.kind == MAP and str(scalar(header.get("name"))).lower() == MODEL_HEADER:
                    value = text(header.get("value"), where)
                    if value is not None and value.value not in names:
                        names[value.value] = value
        for value in names.values():
            out.append(Route(file=file, source=rule.source(file), gateway="Envoy AI Gateway", name=value,
                             upstream_model=value, backends=tuple(refs), parents=parents))
    return out


def _endpoints(spec: Node, file: str) -> Tuple[BackendRef, ...]:
    out = []
    for endpoint in items(spec.get("endpoints")):
        for key in ("fqdn", "ip"):
            node = endpoint.get(key) if endpoint.kind == MAP else None
            host = scalar(node.get("hostname") if key == "fqdn" else node.get("address")) if node is not None \
                and node.kind == MAP else None
            port = scalar(node.get("port")) if node is not None and node.kind == MAP else None
            if isinstance(host, str) and host:
                url = f"http://{host}:{port}" if isinstance(port, int) else f"http://{host}"
                out.append(BackendRef("url", url, node.source(file)))
    return tuple(out)


def _quantity(node: Optional[Node], file: str) -> Optional[Val[int]]:
    value = scalar(node)
    if isinstance(value, int) and not isinstance(value, bool):
        return Val(value, node.source(file)) if value > 0 else None
    match = _QUANTITY.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    return Val(int(match.group(1)) * _FACTORS[match.group(2)], node.source(file), raw=value.strip())
