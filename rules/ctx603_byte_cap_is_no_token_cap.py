"""The only limit in front of a small KV pool counts bytes, not tokens.

Why:
    A request-body limit (Envoy Gateway's `connection.bufferLimit`, NGINX's
    `client_max_body_size`) is often taken for a prompt cap. It is one only
    loosely: a token is at least about one byte of text, so a body of B bytes
    can carry up to about B tokens, and typical text carries one token per three
    or four bytes. A 4 MiB limit admits prompts of over a million tokens. When
    such a limit is all that stands between clients and a KV pool smaller than
    what reaches it, nothing stops an over-long prompt.

Example (bad):
    ```yaml
    kind: ClientTrafficPolicy
    spec:
      targetRefs: [{kind: Gateway, name: ai-gw}]
      connection: {bufferLimit: 4194304}     # the pool behind holds 300,000 tokens
    ```

Example (good):
    ```yaml
    # a token cap at the gateway or the engine's context length at or below the pool
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ctxlint.findings import Problem
from ctxlint.model import fmt
from ctxlint.rules._stack import at, route_text, smallest_pool

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.stack import StackView

ID = "CTX603"
NAME = "byte-cap-is-no-token-cap"
SEVERITY = "warning"
SCOPE = "stack"
TAGS = ()
INPUTS = ("roles[].context_length", "roles[].pool", "routes")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(view: StackView, options) -> Iterator[Problem]:
    found = smallest_pool(view)
    if not view.body_limits or view.route.token_caps() or found is None:
        return
    dep, role = found
    pool = role.pool
    floor = pool.request_floor  # what one request can hold (the engine's reserve off), at the band's low end
    context = role.context_length.value if role.context_length is not None else None
    if context is not None and context <= floor:
        return  # the engine refuses what its pool cannot hold
    for limit in view.body_limits:
        if limit.limit.value <= floor:
            continue  # fewer bytes than the pool has tokens: no prompt that fits can overflow it
        yield Problem(
            f"{fmt(limit.limit.value)} bytes > {fmt(floor)} tokens: the {limit.what} {limit.limit.show()} on "
            f"the gateway of the {route_text(view)} is a byte cap, not a token cap; a body of that size can carry "
            f"up to about {fmt(limit.limit.value)} tokens (about {fmt(limit.limit.value // 4)} at 4 bytes a token), "
            f"more than the {role.label} KV pool of {dep.display_name or '(unnamed)'} ({at(pool.source)}) holds "
            f"({pool.describe()}{pool.holds()}). Cap prompts in tokens at the gateway, or set the engine's context "
            f"length at or below {fmt(floor)}",
            limit.limit.source, view.route.label, evidence=view.evidence)
