"""Catalogs and AI proxies that name models and the windows they advertise.

- vLLM Semantic Router config: `routing.modelCards[]` (`name`, `context_window_size`: the
  window the router's catalog advertises) and `providers.models[]` (`name`,
  `provider_model_id`: the name sent upstream; `backend_refs[].endpoint` `host:port` or
  `base_url`): one route per model card.
- Kong `KongPlugin` `ai-proxy`: `config.model.name` (the model every request is sent with),
  `config.model.options.upstream_url` (the backend), `config.model.options.max_tokens`
  (an output limit Kong puts on requests). An `Ingress`/`Service` attaches plugins by name in its
  `konghq.com/plugins` annotation; a plugin no object of the checked files attaches is kept with
  `attached` unknown, so the join can say so.
"""
from __future__ import annotations

from typing import Dict, List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.crd_common import objects
from ctxlint.adapters.gw_common import at_file, count, items, scalar, text
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, Node
from ctxlint.routes import BackendRef, Route

NAME = "gateway-catalogs"
KONG_PLUGINS = "konghq.com/plugins"


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    for doc in loaded.documents:
        root = doc.root
        if root.kind == MAP and root.dig("routing", "modelCards") is not None:
            result.routes.extend(_semantic_router(root, loaded.path, result.diagnostics))
    for obj in objects(loaded):
        kind, api = scalar(obj.get("kind")), scalar(obj.get("apiVersion"))
        if kind == "KongPlugin" and isinstance(api, str) and api.startswith("configuration.konghq.com") \
                and scalar(obj.get("plugin")) == "ai-proxy":
            route = _kong_ai_proxy(obj, loaded.path, result.diagnostics)
            if route is not None:
                result.routes.append(route)
        elif kind in ("Ingress", "Service") and isinstance(api, str):
            uses = obj.dig("metadata", "annotations", KONG_PLUGINS)
            names = [n.strip() for n in str(scalar(uses) or "").split(",") if n.strip()]
            if names:
                result.routes.append(Route(
                    file=loaded.path, source=uses.source(loaded.path), gateway=f"Kong {kind}", kind="attachment",
                    key=f"kong-uses/{scalar(obj.dig('metadata', 'name'))}",
                    parents=tuple(Val(n, uses.source(loaded.path)) for n in names)))
    return result


def _semantic_router(root: Node, file: str, problems: List[Diagnostic]) -> List[Route]:
    where = at_file(file)
    providers: Dict[str, Node] = {}
    for model in items(root.dig("providers", "models")):
        name = scalar(model.get("name")) if model.kind == MAP else None
        if isinstance(name, str):
            providers[name] = model
    out = []
    for card in items(root.dig("routing", "modelCards")):
        name = text(card.get("name"), where) if card.kind == MAP else None
        if name is None:
            continue
        provider = providers.get(name.value)
        upstream = text(provider.get("provider_model_id"), where) if provider is not None else None
        out.append(Route(file=file, source=card.source(file), gateway="Semantic Router", name=name,
                         upstream_model=upstream or name, window=count(card.get("context_window_size"), where, problems),
                         backends=_provider_backends(provider, file)))
    return out


def _provider_backends(provider: Optional[Node], file: str):
    out = []
    for ref in items(provider.get("backend_refs")) if provider is not None else ():
        for key in ("endpoint", "base_url"):
            value = text(ref.get(key), at_file(file)) if ref.kind == MAP else None
            if value is not None:
                out.append(BackendRef("url", value.value, value.source))
                break
    return tuple(out)


def _kong_ai_proxy(obj: Node, file: str, problems: List[Diagnostic]) -> Optional[Route]:
    where = at_file(file)
    model = obj.dig("config", "model")
    if model is None or model.kind != MAP:
        return None
    name = text(model.get("name"), where)
    url = text(model.dig("options", "upstream_url"), where)
    plugin = scalar(obj.dig("metadata", "name"))
    return Route(file=file, source=obj.source(file), gateway="Kong ai-proxy", name=name, upstream_model=name,
                 forced_output=count(model.dig("options", "max_tokens"), where, problems),
                 backends=(BackendRef("url", url.value, url.source),) if url is not None else (),
                 key=f"kong/{plugin}")
