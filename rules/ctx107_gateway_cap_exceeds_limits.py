"""A gateway prompt cap above the window, or above the smallest unified pool.

Why:
    A gateway cap exists to stop prompts the serving tier cannot hold. A cap
    above the advertised window is not a cap at all, and a cap above the
    smallest KV pool of a unified role lets through prompts that pool cannot
    hold. (For prefill roles of a disaggregated deployment the same condition is
    the security finding CTX102, reported there instead.)

Example (bad):
    ```yaml
    advertised: {context_window: 131072}
    gateway: {max_prompt_tokens: 200000}      # above the window
    serving:
      roles: [{role: unified, kv_pool_tokens: 400000}]
    ```

Example (good):
    ```yaml
    advertised: {context_window: 120000}        # what the cap lets through (CTX609)
    gateway: {max_prompt_tokens: 120000}
    serving:
      roles: [{role: unified, kv_pool_tokens: 400000}]
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import UNIFIED, Deployment, fmt
from ctxlint.rules._common import smallest_pool

ID = "CTX107"
NAME = "gateway-cap-exceeds-limits"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "gateway.max_prompt_tokens", "disaggregation", "roles[].pool")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    cap, window = dep.gateway.max_prompt_tokens, dep.advertised.context_window
    if cap is None:
        return
    if window is not None and cap.value > window.value:
        yield Problem(
            f"{fmt(cap.value)} > {fmt(window.value)}: the gateway prompt cap {cap.show()} is above the "
            f"advertised window, so it stops nothing the window does not. Lower it to at most "
            f"{fmt(window.value)} (and at or below the smallest KV pool)",
            cap.source, dep.display_name)
        return
    if dep.disaggregated:
        return  # CTX102 owns prefill pools in disaggregated deployments
    weakest = smallest_pool(dep.roles_of(UNIFIED))
    # what one prompt can take: the pool less the engine's reserve; of a logged vLLM figure that means something
    # else in each release, the most any reading gives (no verdict rests on one reading)
    pool = None if weakest is None else (weakest.pool.request_ceiling if weakest.pool.logged is not None
                                         else weakest.pool.request)
    if pool is None or cap.value <= pool:
        return
    yield Problem(
        f"{fmt(cap.value)} > {fmt(pool)}: the gateway prompt cap lets through prompts {fmt(cap.value - pool)} "
        f"tokens longer than the {weakest.label} KV pool {weakest.pool.describe()}{_holds(weakest.pool)}. Lower the "
        f"cap to at most {fmt(pool)}",
        cap.source, dep.display_name)


def _holds(pool) -> str:
    """What one request can hold at the estimate's point, when the engine keeps part of the pool back."""
    if pool.logged is not None:
        return pool.holds()
    if pool.held is None or pool.request >= pool.tokens:
        return ""
    return f", which holds at most {fmt(pool.request)} tokens for one prompt ({pool.reserve})"
