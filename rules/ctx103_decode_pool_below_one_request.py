"""A decode role whose KV pool cannot hold one full request.

Why:
    A decode replica holds the transferred prompt plus every generated token.
    If its pool is smaller than the largest request the deployment admits
    (the longest prompt plus the maximum output, never more than the window),
    that request can never finish: it is preempted, retried or stuck, and with
    several such requests the decode tier livelocks.

Example (bad):
    ```yaml
    advertised: {context_window: 1048576, max_output_tokens: 131072}
    serving:
      disaggregation: prefill-decode
      roles:
        - {role: prefill, kv_pool_tokens: 2040000}
        - {role: decode, kv_pool_tokens: 900000}     # one 1,048,576-token request does not fit
    ```

Example (good):
    ```yaml
    advertised: {context_window: 1048576, max_output_tokens: 131072}
    serving:
      disaggregation: prefill-decode
      roles:
        - {role: prefill, kv_pool_tokens: 2040000}
        - {role: decode, kv_pool_tokens: 2040000}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import DECODE, Deployment, fmt
from ctxlint.rules._common import max_request, over, pool_for, pool_text

ID = "CTX103"
NAME = "decode-pool-below-one-request"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "advertised.max_output_tokens", "gateway.max_prompt_tokens",
          "disaggregation", "roles[].pool", "roles[].capacity")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    request = max_request(dep)
    if request is None:
        return
    need, why = request
    for role in dep.roles_of(DECODE):
        if role.pool is None or not over(need, role):
            continue
        pool = role.pool.request_ceiling  # what one request can hold: the pool less the engine's reserve
        yield Problem(
            f"{fmt(need)} > {fmt(pool)}: the {role.label} KV pool {pool_text(role, ',')} cannot hold one "
            f"full request ({why}); short by {fmt(need - pool)} tokens. Raise the {role.label} pool to at "
            f"least {fmt(pool_for(need, role))}, or lower the window or max_output_tokens",
            role.pool.source, dep.display_name)
