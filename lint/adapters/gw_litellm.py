"""LiteLLM proxy configs: the public model names, what they promise, and where they go.

Read from a proxy `config.yaml` (top-level `model_list`), the LiteLLM Helm chart's values
(`proxy_config.model_list`), or a ConfigMap whose data holds such a config as a string.
Each `model_list` entry is one route:

- `model_name`: the public name; `litellm_params.model` (`hosted_vllm/<name>`, `openai/<name>`):
  the name sent upstream, after the provider prefix;
- `litellm_params.api_base`: the backend URL, or `os.environ/NAME`, which the proxy resolves from
  its own environment at start-up (never from ctxlint's);
- `model_info.max_input_tokens` / `max_output_tokens` and `context_window` (not a LiteLLM key, but
  served by /model/info as the window clients are told): the advertised limits. `model_info.max_tokens`
  is LiteLLM's legacy key, read as output or input limit by circumstance: it is not read;
- `litellm_params.max_tokens` (or `max_completion_tokens`): sent upstream on every request that sets
  none (the client's own value wins: Router._acompletion merges the request after litellm_params);
- `router_settings.enable_pre_call_checks`: the Router then drops deployments whose
  `max_input_tokens` the prompt exceeds (strictly greater, no margin, output not counted), counting
  with tiktoken's cl100k_base whatever the served model (`litellm.token_counter` with no model), and
  keeps every deployment when the count fails: an inexact, fail-open token cap. Under
  `litellm_settings` the key has no effect. (Read in pypi litellm==1.80.0 litellm/router.py
  `_pre_call_checks` and `_acompletion`, proxy/proxy_server.py; 1.110.2 router_rust/steps/precall.py.)
"""
from __future__ import annotations

from typing import List, Optional

from ctxlint.adapters.base import AdaptResult
from ctxlint.adapters.gw_common import Where, at_file, count, embedded, entries, flag, items, scalar, text
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.findings import Diagnostic
from ctxlint.loader import LoadedFile
from ctxlint.model import Val
from ctxlint.nodes import MAP, Node
from ctxlint.routes import TOKENS, BackendRef, Cap, Route, upstream_name

NAME = "litellm"
GATEWAY = "LiteLLM"
ENV_PREFIX = "os.environ/"


def adapt(loaded: LoadedFile) -> AdaptResult:
    result = AdaptResult()
    spans: Optional[ScalarSpans] = None
    for doc in loaded.documents:
        root = doc.root
        if root.kind != MAP:
            continue
        if _is_config(root):
            result.routes.extend(_routes(root, at_file(loaded.path), loaded.path, result.diagnostics))
        elif _is_config(root.get("proxy_config")):  # the LiteLLM Helm chart's values
            result.routes.extend(_routes(root.get("proxy_config"), at_file(loaded.path), loaded.path, result.diagnostics))
        elif scalar(root.get("kind")) == "ConfigMap" and root.get("data") is not None:
            for _, value in entries(root.get("data")):
                if not isinstance(scalar(value), str) or "model_list" not in value.value:
                    continue
                spans = spans or ScalarSpans(loaded.path, loaded.text)
                inner = embedded(value, spans)
                if inner is not None and _is_config(inner[0]):
                    result.routes.extend(_routes(inner[0], inner[1], loaded.path, result.diagnostics))
    return result


def _is_config(node: Optional[Node]) -> bool:
    if node is None or node.kind != MAP:
        return False
    models = items(node.get("model_list"))
    return bool(models) and all(m.kind == MAP and m.get("model_name") is not None for m in models)


def _routes(config: Node, where: Where, file: str, problems: List[Diagnostic]) -> List[Route]:
    # Only the Router reads it, from router_settings (litellm_settings sets an attribute nothing reads).
    router = config.get("router_settings")
    pre_call = flag(router.get("enable_pre_call_checks")) if router is not None and router.kind == MAP else None
    out = []
    for entry in items(config.get("model_list")):
        params, info = entry.get("litellm_params"), entry.get("model_info")
        params = params if params is not None and params.kind == MAP else None
        info = info if info is not None and info.kind == MAP else None
        model = text(params.get("model"), where) if params is not None else None
        upstream = Val(upstream_name(model.value), model.source, raw=model.value) \
            if model is not None and not model.value.startswith(ENV_PREFIX) else None  # set at run time: unknown
        max_input = count(info.get("max_input_tokens"), where, problems) if info is not None else None
        caps = ()
        if pre_call and max_input is not None:
            caps = (Cap(max_input, TOKENS, exact=False, fails_open=True,
                        what="LiteLLM pre-call check (model_info.max_input_tokens, LiteLLM's own token count)"),)
        out.append(Route(
            file=file, source=where(entry), gateway=GATEWAY, name=text(entry.get("model_name"), where),
            upstream_model=upstream,
            window=count(info.get("context_window"), where, problems) if info is not None else None,
            max_input=max_input,
            max_output=count(info.get("max_output_tokens"), where, problems) if info is not None else None,
            default_output=(count(params.get("max_tokens"), where, problems) or count(params.get("max_completion_tokens"), where, problems))
            if params is not None else None,
            caps=caps, backends=_backend(params, where)))
    return out


def _backend(params: Optional[Node], where: Where):
    base = text(params.get("api_base"), where) if params is not None else None
    if base is None:
        return ()
    if base.value.startswith(ENV_PREFIX):
        return (BackendRef("env", base.value[len(ENV_PREFIX):], base.source),)
    return (BackendRef("url", base.value, base.source),)
