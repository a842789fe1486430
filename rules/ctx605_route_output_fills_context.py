"""A gateway's output limit leaves no room for the prompt in the engine's context.

Why:
    Engines refuse a request whose prompt plus requested output exceeds their
    context length (vLLM: "maximum context length is N tokens, however you
    requested M"). An output limit the gateway puts on every request (Kong
    ai-proxy `model.options.max_tokens`, which overrides the client's), sends
    when the client sets none (LiteLLM `litellm_params.max_tokens`) or
    advertises (`model_info.max_output_tokens`) at or above the engine's context
    makes every such request fail; above the context minus the advertised prompt
    limit, it makes long prompts fail.

Example (bad):
    ```yaml
    litellm_params: {model: hosted_vllm/qwen, api_base: http://qwen:8000/v1, max_tokens: 8192}
    # engine: --max-model-len 8192
    ```

Example (good):
    ```yaml
    litellm_params: {model: hosted_vllm/qwen, api_base: http://qwen:8000/v1, max_tokens: 2048}
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

ID = "CTX605"
NAME = "route-output-fills-context"
SEVERITY = "error"
SCOPE = "stack"
TAGS = ()
INPUTS = ("roles[].context_length", "routes")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(view: StackView, options) -> Iterator[Problem]:
    route = view.route
    found = smallest_context(view)
    if found is None:
        return
    dep, role, context = found
    for output, how in ((route.forced_output, "puts on every request an output limit of"),
                        (route.default_output, "sends requests that set no max_tokens with an output limit of"),
                        (route.max_output, "advertises an output limit of")):
        if output is None:
            continue
        if output.value >= context.value:
            yield Problem(
                f"{fmt(output.value)} >= {fmt(context.value)}: the {route_text(view)} {how} {output.show()}, "
                f"which leaves no room for a prompt in {engine_text(dep, role, context)}; such requests are "
                f"refused. Lower it well below {fmt(context.value)}",
                output.source, route.label, evidence=view.evidence)
            return
        prompt = route.max_input
        if prompt is not None and prompt.value + output.value > context.value:
            yield Problem(
                f"{fmt(prompt.value)} + {fmt(output.value)} = {fmt(prompt.value + output.value)} > "
                f"{fmt(context.value)}: the {route_text(view)} {how} {output.show()} beside a prompt limit of "
                f"{fmt(prompt.value)}, more than {engine_text(dep, role, context)}; prompts above "
                f"{fmt(context.value - output.value)} tokens with that output are refused. Lower one of them",
                output.source, route.label, evidence=view.evidence)
            return
