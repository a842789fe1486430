"""The advertised window is above the gateway's own prompt cap.

Why:
    Clients are promised a window (prompt and output together) that the gateway
    in front of the engines then refuses: a prompt between the cap and the
    window is rejected although the catalog said it fits. It is the same broken
    promise as a window above the engine's context (CTX104), one layer earlier.
    Advertise what the gateway lets through, or raise the cap (at or below the
    smallest KV pool).

    A cap that reserves room for the advertised output (cap + max output tokens
    >= window, as in samples/incident-fixed) keeps the promise "prompt and
    output within the window" for every request that asks for the full output,
    and is not reported.

Example (bad):
    ```yaml
    advertised: {context_window: 1048576}
    gateway: {max_prompt_tokens: 600000}
    ```

Example (good):
    ```yaml
    advertised: {context_window: 600000}
    gateway: {max_prompt_tokens: 600000}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment, fmt

ID = "CTX609"
NAME = "window-exceeds-gateway-cap"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "advertised.max_output_tokens", "gateway.max_prompt_tokens")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    window, cap = dep.advertised.context_window, dep.gateway.max_prompt_tokens
    if window is None or cap is None or window.value <= cap.value:
        return
    output = dep.advertised.max_output_tokens
    if output is not None and cap.value + output.value >= window.value:
        return  # the cap leaves room for the full advertised output: a deliberate split of the window
    room = f" + the advertised output {fmt(output.value)} = {fmt(cap.value + output.value)}" if output else ""
    yield Problem(
        f"{fmt(window.value)} > {fmt(cap.value)}{room}: the advertised window {window.show()} is above the "
        f"gateway's prompt cap {cap.show()}, so prompts of {fmt(cap.value + 1)} to "
        f"{fmt(window.value)} tokens are promised and then refused at the gateway. Advertise at most "
        f"{fmt(cap.value)}, or raise the cap (at or below the smallest KV pool)",
        window.source, dep.display_name)
