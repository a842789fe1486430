"""In a disaggregated deployment, prompts longer than the prefill pool can reach the engine.

Why:
    This is the incident ctxlint exists for. In SGLang's prefill/decode mode a
    prompt longer than the prefill KV pool was aborted on the prefill side,
    replaced by a one-token placeholder and still handed to decode, which read
    KV pages other requests had left behind: clients got HTTP 200 and fragments
    of other tenants' sessions. Whatever the engine version, the only safe
    configuration is one where no prompt longer than the smallest prefill pool
    reaches the engine: a gateway cap at or below that pool, or an engine
    context length that is. Marked as a security finding. (A gateway cap above
    the prefill pool is reported here, not by CTX107.)

Example (bad):
    ```yaml
    advertised: {context_window: 1048576}       # no gateway cap
    serving:
      disaggregation: prefill-decode
      roles:
        - {role: prefill, context_length: 1048576, kv_pool_tokens: 681280}
        - {role: decode, context_length: 1048576, kv_pool_tokens: 2040000}
    ```

Example (good):
    ```yaml
    advertised: {context_window: 600000}
    gateway: {max_prompt_tokens: 600000}         # at or below the prefill pool
    serving:
      disaggregation: prefill-decode
      roles:
        - {role: prefill, context_length: 600000, kv_pool_tokens: 681280}
        - {role: decode, context_length: 600000, kv_pool_tokens: 2040000}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, List, Tuple

from ctxlint.findings import Problem
from ctxlint.model import PREFILL, Deployment, Source, fmt
from ctxlint.rules._common import gateway_field, pool_for, pool_text, smallest_pool

ID = "CTX102"
NAME = "overlong-prompts-reach-prefill"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ("security",)
INPUTS = ("advertised.context_window", "gateway.max_prompt_tokens", "disaggregation", "roles[].context_length",
          "roles[].pool", "roles[].capacity")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    if not dep.disaggregated:
        return
    weakest = smallest_pool(dep.roles_of(PREFILL))
    if weakest is None:
        return
    # What one prompt can take of the pool (the engine's reserve off); a derived pool: at its band's top
    # (inside the band, CTX210 reports it)
    pool = weakest.pool.request_ceiling
    # What actually stops a long prompt: the gateway cap and the prefill engines' context limits.
    limits: List[Tuple[int, str, Source]] = []
    cap = dep.gateway.max_prompt_tokens
    if cap is not None:
        limits.append((cap.value, f"the gateway cap {fmt(cap.value)}", cap.source))
    contexts = [r.context_length for r in dep.roles_of(PREFILL) if r.context_length is not None]
    if contexts:
        widest = max(contexts, key=lambda v: v.value)
        limits.append((widest.value, f"the prefill context length {fmt(widest.value)}", widest.source))
    window = dep.advertised.context_window
    if not limits and window is not None:
        limits.append((window.value, f"the advertised window {fmt(window.value)}", window.source))
    if not limits:
        return
    reach, why, _ = min(limits, key=lambda item: item[0])
    if reach <= pool:
        return
    where = cap.source if cap is not None else (window.source if window is not None else limits[0][2])
    no_cap = "" if cap is not None else ", with no gateway cap"
    yield Problem(
        f"security: prompts up to {fmt(reach)} tokens ({why}{no_cap}) can reach prefill replicas whose "
        f"KV pool holds {pool_text(weakest)}; {fmt(reach)} > {fmt(pool)} by {fmt(reach - pool)}. "
        "Over-long prompts in disaggregated mode are where cross-request KV exposure happened "
        "(HTTP 200 with other requests' data). Set the prefill context length at or below "
        f"{fmt(pool)} and cap prompts at the gateway ({gateway_field(dep)}) at or below it (advertising no more), "
        f"or raise the {weakest.label} pool to at least {fmt(pool_for(reach, weakest))}",
        where, dep.display_name)
