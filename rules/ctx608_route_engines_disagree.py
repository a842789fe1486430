"""One route reaches engines that accept different context lengths.

Why:
    A route (an InferencePool, a Service over several workloads, a LiteLLM
    model group) spreads requests over every engine behind it. When those
    engines accept different context lengths, the same long request succeeds or
    fails depending on where it lands, and whatever the route advertises is
    wrong for some of them. Make the engines agree, or split the route.

Example (bad):
    ```yaml
    # InferencePool qwen selects app=qwen: one Deployment runs --max-model-len 32768,
    # another (same label) --max-model-len 8192
    ```

Example (good):
    ```yaml
    # both Deployments run --max-model-len 32768 (or the 8k one gets its own pool)
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import fmt
from ctxlint.rules._stack import contexts, engine_text, route_text

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.stack import StackView

ID = "CTX608"
NAME = "route-engines-disagree"
SEVERITY = "warning"
SCOPE = "stack"
TAGS = ()
INPUTS = ("roles[].context_length", "routes")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(view: StackView, options) -> Iterator[Problem]:
    found = contexts(view)
    if len({value.value for _, _, value in found}) < 2:
        return
    low = min(found, key=lambda item: item[2].value)
    high = max(found, key=lambda item: item[2].value)
    yield Problem(
        f"{fmt(high[2].value)} != {fmt(low[2].value)}: the {route_text(view)} reaches {engine_text(*high)} and "
        f"{engine_text(*low)}; a request between the two succeeds or fails by where it lands. Give the engines "
        f"one context length, or route them separately",
        (view.route.name or view.route).source, view.route.label, evidence=view.evidence)
