"""A route lets prompts through that the KV pool behind it cannot hold.

Why:
    What reaches an engine is bounded by the smallest of: what the gateway
    advertises, an exact token cap at the gateway, and the engine's own context
    length. When all of them are above the KV pool of the role that takes the
    prompt (the prefill pool in prefill/decode serving), one long prompt can
    need more KV than the pool holds: the request waits forever, is preempted,
    or, with an engine defect such as the incident's (ctxlint advisories,
    CTX401), is answered with other requests' data. With such a defect and no
    exact cap the finding is a security finding.

Example (bad):
    ```yaml
    model_list:
      - model_name: deepseek
        litellm_params: {model: hosted_vllm/deepseek, api_base: http://router:8000/v1}
        model_info: {max_input_tokens: 1048576}   # prefill pool 681,280, context 1,048,576
    ```

Example (good):
    ```yaml
        model_info: {max_input_tokens: 600000}    # and the prefill --context-length 600000
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import fmt
from ctxlint.rules._stack import advisories_hit, at, route_text, smallest_pool, token_caps

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.stack import StackView

ID = "CTX602"
NAME = "route-window-exceeds-kv-pool"
SEVERITY = "error"
SCOPE = "stack"
TAGS = ()
INPUTS = ("engine", "roles[].context_length", "roles[].pool", "routes", "advisories")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(view: StackView, options) -> Iterator[Problem]:
    route, promise = view.route, view.route.promise
    found = smallest_pool(view)
    if promise is None or found is None:
        return
    dep, role = found
    pool = role.pool
    limits = [(promise.value, f"the advertised {fmt(promise.value)}")]
    limits += [(c.limit.value, f"the {c.what} {fmt(c.limit.value)}") for c in token_caps(view, exact=True)]
    if role.context_length is not None:
        limits.append((role.context_length.value, f"the {role.label} context length {fmt(role.context_length.value)}"))
    reach, why = min(limits)
    ceiling, floor = pool.request_ceiling, pool.request_floor  # what one request can hold (the reserve off)
    if reach <= ceiling:
        return
    hits = advisories_hit(view, dep, promise) if not token_caps(view, exact=True) else []
    lead = f"security ({', '.join(hits)}): " if hits else ""
    yield Problem(
        f"{lead}{fmt(reach)} > {fmt(ceiling)}: the {route_text(view)} lets prompts up to {fmt(reach)} tokens "
        f"({why}) reach the {role.label} KV pool of {dep.display_name or '(unnamed)'} ({at(pool.source)}), which holds "
        f"{pool.describe()}{pool.holds()}; {fmt(reach - ceiling)} tokens too many. Lower the advertised limit to at "
        f"most {fmt(floor)} and make the engine refuse longer prompts (its context length at most {fmt(floor)}), "
        f"or give the {role.label} role a larger pool",
        promise.source, route.label, evidence=view.evidence)
