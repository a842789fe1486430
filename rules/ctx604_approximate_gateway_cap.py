"""The token cap that protects a KV pool is counted approximately or fails open.

Why:
    LiteLLM's pre-call checks refuse prompts above `model_info.max_input_tokens`
    before calling the backend, but they count tokens with LiteLLM's own token
    counter, not the served model's tokenizer, and a request LiteLLM cannot
    count is let through. That is a good first filter, not a guarantee: when the
    engine behind accepts more than its KV pool holds, this approximate cap is
    the only thing between a long prompt and the pool. Make the engine itself
    refuse what the pool cannot hold (its context length at or below the pool).

Example (bad):
    ```yaml
    router_settings: {enable_pre_call_checks: true}
    model_list:
      - model_name: deepseek
        model_info: {max_input_tokens: 600000}  # engine context 1,048,576 > pool 681,280
    ```

Example (good):
    ```yaml
        model_info: {max_input_tokens: 600000}  # engine --context-length 655360 <= pool 681,280
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import fmt
from ctxlint.rules._stack import at, route_text, smallest_pool, token_caps

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.stack import StackView

ID = "CTX604"
NAME = "approximate-gateway-cap"
SEVERITY = "warning"
SCOPE = "stack"
TAGS = ()
INPUTS = ("roles[].context_length", "roles[].pool", "routes")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(view: StackView, options) -> Iterator[Problem]:
    found = smallest_pool(view)
    loose = token_caps(view, exact=False)
    if found is None or not loose or token_caps(view, exact=True):
        return
    dep, role = found
    pool, context = role.pool, role.context_length
    floor = pool.request_floor  # what one request can hold (the engine's reserve off), at the band's low end
    if context is None or context.value <= floor:
        return  # the engine refuses what its pool cannot hold
    cap = min(loose, key=lambda c: c.limit.value)
    if cap.limit.value > pool.request_ceiling:
        return  # CTX602 reports a cap above the pool
    opens = "; a request it cannot count is let through" if cap.fails_open else ""
    yield Problem(
        f"{fmt(context.value)} > {fmt(floor)}: prompts above the {role.label} KV pool of "
        f"{dep.display_name or '(unnamed)'} ({at(pool.source)}, {pool.describe()}{pool.holds()}) are stopped only by "
        f"the {cap.what} {fmt(cap.limit.value)} of the {route_text(view)}, which counts tokens approximately{opens}; "
        f"the engine itself accepts {fmt(context.value)} ({at(context.source)}). Set the engine's context length "
        f"at or below {fmt(floor)} so that it refuses what its pool cannot hold",
        cap.limit.source, view.route.label, evidence=view.evidence)
