"""A route sends a model name the engine behind it does not serve.

Why:
    An OpenAI-compatible engine answers only to the names it serves
    (`--served-model-name`, else the model as given, and LoRA adapter names);
    any other name gets HTTP 404 "model does not exist". A gateway route whose
    upstream model name differs from what its backend serves fails every request,
    often after a rename on one side only.

Example (bad):
    ```yaml
    kind: KongPlugin
    plugin: ai-proxy
    config:
      model: {name: Qwen3.5-35B-A3B, provider: openai,
              options: {upstream_url: http://vllm-gptoss:8000/v1/chat/completions}}
    # the engine: --served-model-name gpt-oss-20b
    ```

Example (good):
    ```yaml
      model: {name: gpt-oss-20b, ...}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.rules._stack import route_text

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.stack import StackView

ID = "CTX606"
NAME = "route-model-not-served"
SEVERITY = "error"
SCOPE = "stack"
TAGS = ()
INPUTS = ("model", "roles[].engine_args", "routes")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(view: StackView, options) -> Iterator[Problem]:
    upstream = view.route.upstream_model
    if view.serves_name is not False or upstream is None:
        return
    from ctxlint.stack import served_names, where
    served = "; ".join(f"{d.display_name or '(unnamed)'} ({where(d.source)}) serves "
                       f"{', '.join(served_names(d)) or 'no name ctxlint can read'}" for d in view.deployments)
    yield Problem(
        f"the {route_text(view)} sends the model name {upstream.value!r} upstream, which the engine behind it does "
        f"not serve: {served}. Requests get HTTP 404; use the served name, or add it with --served-model-name",
        upstream.source, view.route.label, evidence=view.evidence)
