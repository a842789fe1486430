"""The longest prompt clients may send does not fit the KV pool of a role that must hold it.

Why:
    A unified replica holds each request whole; a prefill replica holds each
    whole prompt. When the advertised window (or the gateway cap, if lower) is
    larger than that role's KV-cache pool, a long enough request cannot be held:
    vLLM hangs it in the waiting queue while health checks pass, SGLang aborts
    it, and in SGLang's disaggregated mode the abort once turned into an HTTP
    200 carrying other tenants' data. Unified roles must hold the prompt plus
    its output (bounded by the window); prefill roles must hold the prompt.
    A pool holds for one request what the engine does not keep back: vLLM
    keeps one block (16 tokens by default) as its null block, so a vLLM pool
    equal to the window does not hold it; the message says so.

Example (bad):
    ```yaml
    advertised: {context_window: 1048576}
    serving:
      disaggregation: prefill-decode
      roles:
        - {role: prefill, kv_pool_tokens: 681280}    # smaller than the window
        - {role: decode, kv_pool_tokens: 2040000}
    ```

Example (good):
    ```yaml
    advertised: {context_window: 1048576}
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
from ctxlint.model import PREFILL, UNIFIED, Deployment, fmt
from ctxlint.rules._common import admission_text, gateway_field, max_prompt, max_request, over, pool_for, pool_text
from ctxlint.rules._engine import engine_id

ID = "CTX101"
NAME = "window-exceeds-kv-pool"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "advertised.max_output_tokens", "gateway.max_prompt_tokens",
          "disaggregation", "engine", "roles[].context_length", "roles[].pool",
          "roles[].capacity")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    prompt, request = max_prompt(dep), max_request(dep)
    for role in dep.roles_of(UNIFIED, PREFILL):
        if role.pool is None:
            continue
        need = request if role.kind == UNIFIED else (prompt[0], prompt[1]) if prompt else None
        if need is None or not over(need[0], role):
            continue  # inside a derived pool's band: CTX210 says so
        held = "request" if role.kind == UNIFIED else "prompt"
        limit = role.pool.request_ceiling  # what one request can hold: the pool less the engine's reserve
        # the engine's own consequence where it is no refusal at startup: vLLM 0.19's admission check hangs a
        # request its context length admits (up to the shorter of that and this need)
        ctx = role.context_length.value if role.context_length is not None else None
        hangs = admission_text(engine_id(dep), role, min(need[0], ctx)) if isinstance(ctx, int) else ""
        yield Problem(
            f"{fmt(need[0])} > {fmt(limit)}: the longest {held} ({need[1]}) exceeds the {role.label} "
            f"KV pool {pool_text(role, ',')} by {fmt(need[0] - limit)} tokens{'; ' + hangs if hangs else ''}. "
            f"Raise the {role.label} pool "
            f"to at least {fmt(pool_for(need[0], role))}, or lower the advertised window to {fmt(limit)} and cap "
            f"prompts at the gateway ({gateway_field(dep)}) at or below it",
            role.pool.source, dep.display_name)
