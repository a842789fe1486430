"""A gateway or catalog advertises a window the engine behind it does not accept.

Why:
    Clients size their requests by what the gateway's catalog says (LiteLLM's
    /model/info, llama-swap's /v1/models, a router's model card). When that is
    more than the context length of the engine the route reaches, requests
    between the two are refused by the engine (vLLM: HTTP 400 "maximum context
    length"), or, where an engine mishandles over-long prompts, served wrongly.
    The promise and the limit usually live in different files, so nobody sees
    both at once; ctxlint joins them (see `ctxlint.stack`) and names both.

Example (bad):
    ```yaml
    # litellm-config.yaml
    model_list:
      - model_name: llama-8b
        litellm_params: {model: hosted_vllm/llama-8b, api_base: http://llama-8b:8000/v1}
        model_info: {context_window: 6144}     # engine: --max-model-len 4096
    ```

Example (good):
    ```yaml
        model_info: {context_window: 4096}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import fmt
from ctxlint.rules._stack import engine_text, route_text, smallest_context

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.stack import StackView

ID = "CTX601"
NAME = "route-window-exceeds-engine-context"
SEVERITY = "error"
SCOPE = "stack"
TAGS = ()
INPUTS = ("roles[].context_length", "routes")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(view: StackView, options) -> Iterator[Problem]:
    route = view.route
    promise = route.promise
    found = smallest_context(view)
    if promise is None or found is None:
        return
    dep, role, context = found
    if promise.value <= context.value:
        return
    what = "prompt limit" if route.max_input is not None else "window"
    yield Problem(
        f"{fmt(promise.value)} > {fmt(context.value)}: the {route_text(view)} advertises a {what} of "
        f"{promise.show()}, but {engine_text(dep, role, context)}: requests of {fmt(context.value + 1)} to "
        f"{fmt(promise.value)} tokens are refused. Lower the advertised {what} to {fmt(context.value)} or raise the engine's context "
        f"length to {fmt(promise.value)} (if its KV pool holds it)",
        promise.source, route.label, evidence=view.evidence)
